/* aioprof.py's names in the firmware's qstr pool (docs/micropython.md, "Overhead"): only the build's
 * scan of this file for MP_QSTR_ names matters; nothing reads the table. */
#include <stdint.h>

#include "py/obj.h"

/* aioprof.py's own names (its globals, locals, attributes and short strings that a firmware does
 * not have already), so that they are in the firmware's qstr pool: importing aioprof.py from the
 * filesystem then interns almost nothing, and adds no pool that every lookup of one of the
 * firmware's names walks (docs/micropython.md, "Overhead": 54 instructions a task switch). Never
 * read: the build's scan of this file for MP_QSTR_ names puts them in the pool (about 900 bytes
 * of flash). e2e/mpy_qstrs_unix names the ones missing when aioprof.py changes. */
#ifndef AIOPROF_PY_NAMES
#define AIOPROF_PY_NAMES 1 /* 0: a firmware that freezes aioprof.py (its names are in the frozen pool) */
#endif
#if AIOPROF_PY_NAMES
static const uint16_t aioprof_py_names[] __attribute__((unused)) = {
    MP_QSTR_Recorder, MP_QSTR_Span, MP_QSTR_Wrapped, MP_QSTR__COST_RESUMES, MP_QSTR__COST_ROUNDS,
    MP_QSTR__GENERATOR_FUNCTION, MP_QSTR__PYTHON_FILES, MP_QSTR__SPANS_MAX, MP_QSTR__State,
    MP_QSTR__aioprof_native, MP_QSTR__c_task, MP_QSTR__core, MP_QSTR__drainer, MP_QSTR__event_cost,
    MP_QSTR__exit_hook, MP_QSTR__missing, MP_QSTR__probe, MP_QSTR__resumes, MP_QSTR__select,
    MP_QSTR__spans, MP_QSTR__spin, MP_QSTR__state, MP_QSTR__stdout_write, MP_QSTR__ticks_source,
    MP_QSTR__why, MP_QSTR_a, MP_QSTR_aioprof_fallback, MP_QSTR_at_exit, MP_QSTR_b, MP_QSTR_bare,
    MP_QSTR_best_bare, MP_QSTR_best_wrapped, MP_QSTR_bits, MP_QSTR_c_task, MP_QSTR_cancelled,
    MP_QSTR_coro_name, MP_QSTR_cost, MP_QSTR_diff, MP_QSTR_drain_task, MP_QSTR_drainer, MP_QSTR_eng,
    MP_QSTR_engine, MP_QSTR_enter, MP_QSTR_event_cost_ns, MP_QSTR_firmware, MP_QSTR_handle,
    MP_QSTR_impl, MP_QSTR_impl_name, MP_QSTR_kind, MP_QSTR_kw, MP_QSTR_label_coro, MP_QSTR_late_unit,
    MP_QSTR_later, MP_QSTR_m, MP_QSTR_make, MP_QSTR_memory, MP_QSTR_mod, MP_QSTR_ms, MP_QSTR_order,
    MP_QSTR_orig, MP_QSTR_orig_asyncio_create_task, MP_QSTR_orig_create_task, MP_QSTR_ours, MP_QSTR_out,
    MP_QSTR_perf_counter_ns, MP_QSTR_period_ms, MP_QSTR_prev_at_exit, MP_QSTR_python, MP_QSTR_q,
    MP_QSTR_rec, MP_QSTR_recorder, MP_QSTR_ring, MP_QSTR_ring_bytes, MP_QSTR_scratch, MP_QSTR_sp,
    MP_QSTR_spanned, MP_QSTR_spanned_coro, MP_QSTR_spans, MP_QSTR_t0, MP_QSTR_uart, MP_QSTR_uasyncio,
    MP_QSTR_w, MP_QSTR_wake, MP_QSTR_why, MP_QSTR_wrapped, MP_QSTR_x, MP_QSTR_zone,
    MP_QSTR__bind, MP_QSTR__mem_read, MP_QSTR__set_span_eng, MP_QSTR__shadowed, MP_QSTR__span_eng,
    MP_QSTR_fast, MP_QSTR_mem_read, MP_QSTR_span_with, MP_QSTR_walk,
};
#endif
