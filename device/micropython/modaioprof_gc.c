/* The wrapper of the port's gc_collect() (docs/micropython.md, "Collections timed"), for a firmware
 * linked with --wrap=gc_collect and built with AIOPROF_GC_WRAP=1 (micropython.mk,
 * micropython.cmake): each collection timed and sent as a GC record by the running profiler. */
#include <stdint.h>

#include "py/gc.h" /* gc_nbytes: the Profiler that times collections is alive */
#include "py/mphal.h"
#include "py/runtime.h"

#include "modaioprof.h"

#if AIOPROF_GC_WRAP
/* Collections timed (docs/micropython.md, "Collections timed"): a firmware built with
 * AIOPROF_GC_WRAP=1 links with the linker's --wrap=gc_collect, so that every call of the port's
 * gc_collect() (gc_alloc's, when the heap is full or the threshold is reached, and gc.collect())
 * comes here first. The Profiler that records is the one start() made last (aioprof_gc_prof), not a root
 * pointer: it lives as long as aioprof.py refers to it, and a soft reset leaves this pointer
 * behind, so it is taken only while the heap says it is an allocated Profiler that runs. */
void __real_gc_collect(void);
void __wrap_gc_collect(void);

aioprof_mod_t *aioprof_gc_prof;

static aioprof_mod_t *gc_recorder(void)
{
    aioprof_mod_t *m = aioprof_gc_prof;
    if (m == NULL || gc_nbytes(m) < sizeof *m || m->base.type != &aioprof_profiler_type || !m->running ||
        !m->port.mem) {
        return NULL;
    }
#if GC_OWN_THREAD
    if (m->thread != (void *)mp_thread_get_state()) {
        return NULL; /* another thread's: the next event's check sees it, untimed */
    }
#endif
    return m;
}

void __wrap_gc_collect(void)
{
    aioprof_mod_t *m = gc_recorder();
    if (m == NULL) {
        __real_gc_collect();
        return;
    }
#if AIOPROF_MOD_MEM
    (void)aioprof_mp_alloc_read(&m->alloc); /* what came before it is counted: the amounts stay exact */
#endif
    uint32_t t0 = (uint32_t)mp_hal_ticks_us();
    __real_gc_collect();
    uint32_t took = (uint32_t)mp_hal_ticks_us() - t0;
    if (gc_recorder() != m) {
        return; /* this collection freed it */
    }
#if AIOPROF_MOD_MEM
    m->alloc.raw = MP_STATE_MEM(gc_alloc_amount); /* the collection's reset is not a drop to see */
#endif
    if (m->writing) {
        m->gc_owed = true;
        m->gc_owed_us += took; /* (two in one write: one record of both) */
        return;
    }
    aioprof_gc(&m->prof, took);
}
#else
typedef int aioprof_gc_unwrapped; /* (a translation unit is not to be empty) */
#endif
