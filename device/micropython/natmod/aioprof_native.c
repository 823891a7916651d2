/* _aioprof_native: the aioprof hook as a dynamic native module (.mpy), for boards whose firmware
 * can not be rebuilt. The same shape as the C module (modaioprof.c), through MicroPython's table of
 * runtime functions (py/dynruntime.h) instead of the runtime itself:
 *   start(write, ring_bytes, period_ms, platform, cancelled_error[, c_task]) -> Profiler
 *   Profiler.wrap(coro, name) -> Coro     .bind(coro, task)      .label(coro, text)
 *   Profiler.drain() -> int               .flush()               .stop()   .set_event_cost(cost)
 *   Profiler.span(name) -> handle         .span_enter(handle)    .span_exit()
 * No pending() nor close() as the C module has: aioprof.py calls neither on this engine, each
 * method costs the board about 70 bytes of RAM, and a top-level task's end closes the hook from
 * within (native_step).
 * aioprof.py wraps each new task's coroutine in a Coro; asyncio resumes it through Coro.send and
 * Coro.throw, each resume one slice recorded by the device library (device/aioprof.c) around it,
 * with how late it was: the Task made for the Coro is handed to it (bind), whose key says when
 * the resume was due (native_late; modaioprof.c's coro_late says more).
 *
 * What the table decides:
 * - the coroutine is resumed through its yield_from entry (the one native code's `yield from`
 *   uses): mp_resume, no method lookup, no Python frame; a throw goes through the coroutine's own
 *   throw() (mp_resume refuses to throw into a just-started generator);
 * - exceptions are caught with the table's nlr_push, as native code catches them;
 * - ticks: the C function behind time.ticks_us (30-bit ticks), called directly when it is the
 *   usual builtin, else through a Python call; there is no mp_hal_ticks_us; the same for
 *   time.ticks_ms, for lateness;
 * - output: the write callable (sys.stdout.buffer.write by default); no mp_hal_stdout_tx_strn. */
#include <string.h> /* memcpy, memset (the dynruntime.h of 1.21 to 1.28 does not declare them) */
#include "py/dynruntime.h"
#include "py/smallint.h" /* MICROPY_PY_TIME_TICKS_PERIOD */

#include "aioprof.h"
#include "../aioprof_mp_task.h"

#if defined(__xtensa__)
/* The ESP8266 compiler folds a qstr's place in mp_native_qstr_table into the table's address (a
 * literal "mp_native_qstr_table+0x10"), which no mpy_ld.py (1.21 to 1.28) can relocate; reading
 * the qstrs through a base the compiler can not see through keeps the literal at the table. */
static inline const uint16_t *native_qstr_base(void)
{
    const uint16_t *base = mp_native_qstr_table;
    __asm__("" : "+r"(base));
    return base;
}
#define mp_native_qstr_table (native_qstr_base())
#endif

/* What mpy_ld.py must find by name although the Makefile compiles this file with -fwhole-program
 * (aioprof_native_unit.c): the entry point and the zero-initialised objects, which mpy_ld.py
 * refuses when they are static ("bss variables can't be static"). */
#define NATIVE_VISIBLE __attribute__((externally_visible))

/* mpy_ld.py links memset and memcpy to the runtime table from MicroPython 1.29 on; before that a
 * module that calls them (this file and device/aioprof.c do, and so does code the compiler emits
 * for a struct copy) must bring them itself, or the link fails with "undefined symbol: memset". */
#if MICROPY_VERSION_MAJOR == 1 && MICROPY_VERSION_MINOR < 29
NATIVE_VISIBLE void *memset(void *s, int c, size_t n) {
    return mp_fun_table.memset_(s, c, n);
}
NATIVE_VISIBLE void *memcpy(void *dst, const void *src, size_t n) {
    return mp_fun_table.memmove_(dst, src, n);
}
#endif

/* What nlr_push saves differs per port (registers, or a jmp_buf); this holds any of them. */
typedef struct native_nlr {
    nlr_buf_t nlr;
    void *room[32];
} native_nlr_t;

#if defined(__xtensa__)
/* The ESP32 firmware unwinds with setjmp (MICROPY_NLR_SETJMP), as the native emitter assumes for
 * xtensawin: the table's nlr_push is then only the chaining half, and setjmp follows (the jmp_buf
 * sits where the registers would, after prev and ret_val). Not built nor tried: no toolchain. */
typedef int (*native_setjmp_t)(void *env);
#define NATIVE_NLR_PUSH(b) \
    (mp_fun_table.nlr_push(&(b)->nlr), ((native_setjmp_t)mp_fun_table.setjmp_)((char *)&(b)->nlr.ret_val + sizeof(void *)))
#else
#define NATIVE_NLR_PUSH(b) (mp_fun_table.nlr_push(&(b)->nlr))
#endif
#define NATIVE_NLR_POP() (mp_fun_table.nlr_pop())

static bool native_isinstance(mp_obj_t obj, mp_obj_t type);

/* obj.attr, or MP_OBJ_NULL when obj has no such attribute. The runtime table has load_method_maybe
 * from MicroPython 1.23 (.mpy 6.3) on; before that, load_attr with its AttributeError caught (any
 * other exception, KeyboardInterrupt say, goes on). */
static mp_obj_t native_attr_maybe(mp_obj_t obj, qstr attr)
{
#if MICROPY_VERSION_MAJOR == 1 && MICROPY_VERSION_MINOR < 23
    native_nlr_t nlr;
    if (NATIVE_NLR_PUSH(&nlr) == 0) {
        mp_obj_t v = mp_load_attr(obj, attr);
        NATIVE_NLR_POP();
        return v;
    }
    if (!native_isinstance(MP_OBJ_FROM_PTR(nlr.nlr.ret_val), mp_load_global(MP_QSTR_AttributeError))) {
        mp_fun_table.raise(MP_OBJ_FROM_PTR(nlr.nlr.ret_val));
    }
    return MP_OBJ_NULL;
#else
    mp_obj_t dest[2];
    mp_load_method_maybe(obj, attr, dest);
    return dest[0];
#endif
}

/* The wrapper's own fields come before the library's state: Thumb-1 loads and stores reach 124
 * bytes past a pointer, and the ones the slice path reads sit within that (behind aioprof_t each
 * access took an add more). */
typedef struct native_prof {
    mp_obj_base_t base;
    bool running;
    uint32_t half_period_us;
    uint32_t last_drain;         /* the library's tick of the last drain */
    mp_obj_t (*ticks_fun)(void); /* the C function behind ticks_us, or NULL */
    mp_obj_t (*ms_fun)(void);    /* the C function behind ticks_ms, or NULL */
    mp_obj_t ticks_us;
    mp_obj_t ticks_ms;
    mp_obj_t write;
    mp_obj_t cancelled;          /* asyncio.CancelledError */
    mp_obj_t c_task;             /* asyncio's Task type when it is the C one, else NULL */
    uint8_t *ring;
    aioprof_t prof;
    aioprof_port_t port;
    char platform[AIOPROF_PLATFORM_MAX + 1];
} native_prof_t;

typedef struct native_coro {
    mp_obj_base_t base;
    mp_obj_t coro;
    native_prof_t *owner;
    mp_obj_t name;  /* keeps the bytes of the name alive */
    mp_obj_t label;
    mp_obj_t due_task;      /* the asyncio Task that resumes this one (bind), or MP_OBJ_NULL */
    const mp_obj_t *due_at; /* where that Task keeps ph_key when it is the C one, else NULL */
    aioprof_task_t task;
    bool done;      /* the coroutine returned or raised: later throws are not run time */
} native_coro_t;

NATIVE_VISIBLE mp_obj_full_type_t native_prof_type;
NATIVE_VISIBLE mp_obj_full_type_t native_coro_type;

/* A clock of the time module: its C function, or a Python call when it is not the builtin. */
static mp_obj_t native_call0(mp_obj_t (*fun)(void), mp_obj_t f)
{
    return fun != NULL ? fun() : mp_call_function_n_kw(f, 0, 0, NULL);
}

static uint32_t native_ticks(void *user)
{
    native_prof_t *p = user;
    mp_obj_t t = native_call0(p->ticks_fun, p->ticks_us);
    return mp_obj_is_small_int(t) ? (uint32_t)MP_OBJ_SMALL_INT_VALUE(t) : (uint32_t)mp_obj_get_int_truncated(t);
}

/* How long the task waited since it was due, in milliseconds (0: on time, or not known): the key
 * the Task holds while queued (ph_key, a ticks_ms value: its sleep's deadline, or when it was made
 * runnable), which the scheduler leaves as it is when it resumes us (modaioprof.c, coro_late). */
static uint32_t native_late(native_prof_t *p, native_coro_t *self)
{
    mp_obj_t key;
    if (self->due_at != NULL) {
        key = *self->due_at;
    } else if (self->due_task != MP_OBJ_NULL) {
        key = native_attr_maybe(self->due_task, MP_QSTR_ph_key);
    } else {
        return 0;
    }
    mp_obj_t now = native_call0(p->ms_fun, p->ticks_ms);
    if (!mp_obj_is_small_int(key) || !mp_obj_is_small_int(now)) {
        return 0;
    }
    mp_uint_t late = ((mp_uint_t)MP_OBJ_SMALL_INT_VALUE(now) - (mp_uint_t)MP_OBJ_SMALL_INT_VALUE(key)) &
        (MICROPY_PY_TIME_TICKS_PERIOD - 1);
    if (late >= MICROPY_PY_TIME_TICKS_PERIOD / 2) {
        return 0; /* due later than now: on time */
    }
    return late > UINT32_MAX ? UINT32_MAX : (uint32_t)late;
}

static size_t native_write(void *user, const uint8_t *data, size_t len)
{
    native_prof_t *p = user;
    mp_obj_t arg = mp_obj_new_bytearray_by_ref(len, (void *)data);
    mp_obj_t n = mp_call_function_n_kw(p->write, 1, 0, &arg);
    if (n == mp_const_none) {
        return len; /* a stream that does not say: it took everything */
    }
    mp_int_t taken = mp_obj_get_int(n);
    return taken < 0 ? 0 : (size_t)taken;
}

/* The runtime table holds the type Exception from 1.23 on; before, the builtin by its name. */
#if MICROPY_VERSION_MAJOR == 1 && MICROPY_VERSION_MINOR < 23
#define NATIVE_EXCEPTION (mp_load_global(MP_QSTR_Exception))
#else
#define NATIVE_EXCEPTION (MP_OBJ_FROM_PTR(&mp_type_Exception))
#endif

static bool native_isinstance(mp_obj_t obj, mp_obj_t type)
{
    mp_obj_t args[2] = {obj, type};
    return mp_obj_is_true(mp_call_function_n_kw(mp_load_global(MP_QSTR_isinstance), 2, 0, args));
}

/* Drains without raising into the task that happened to end a slice: a failed write (an
 * Exception) is dropped; KeyboardInterrupt and SystemExit go on. */
static void native_drain_quietly(native_prof_t *p)
{
    native_nlr_t b;
    if (NATIVE_NLR_PUSH(&b) == 0) {
        aioprof_drain(&p->prof);
        NATIVE_NLR_POP();
    } else if (!native_isinstance(MP_OBJ_FROM_PTR(b.nlr.ret_val), NATIVE_EXCEPTION)) {
        mp_fun_table.raise(MP_OBJ_FROM_PTR(b.nlr.ret_val));
    }
    p->last_drain = p->prof.last;
}

/* The hook was closed where the program might have ended (a top-level task's end), and it goes
 * on: it records again, in the same run. */
static inline void native_reopen(native_prof_t *p)
{
    if (p->prof.pending & AIOPROF_PENDING_STOPPED) {
        aioprof_reopen(&p->prof);
    }
}

/* Between slices: every complete frame goes out, and at least every half period (the policy of
 * modaioprof.c). The time is the exit's tick: no clock read. */
static void native_after(native_prof_t *p)
{
    if (p->prof.current != NULL) {
        return;
    }
    if (p->prof.fw.commit != p->prof.fw.tail || (uint32_t)(p->prof.last - p->last_drain) >= p->half_period_us) {
        native_drain_quietly(p);
    }
}

enum { STEP_YIELD, STEP_RETURN, STEP_RAISE };

/* The coroutine resumed once: STEP_YIELD (*ret: the value yielded), STEP_RETURN (*ret: the value
 * returned) or STEP_RAISE (*ret: the exception). */
static int native_resume(native_coro_t *self, mp_obj_t send, mp_obj_t throw, mp_obj_t *ret)
{
    int step;
    native_nlr_t b;
    if (NATIVE_NLR_PUSH(&b) == 0) {
        if (throw == MP_OBJ_NULL) {
            *ret = MP_OBJ_NULL;
            step = mp_fun_table.yield_from(self->coro, send, ret) ? STEP_YIELD : STEP_RETURN;
        } else {
            mp_obj_t dest[3];
            mp_load_method(self->coro, MP_QSTR_throw, dest);
            dest[2] = throw;
            *ret = mp_fun_table.call_method_n_kw(1, 0, dest);
            step = STEP_YIELD;
        }
        NATIVE_NLR_POP();
    } else {
        *ret = MP_OBJ_FROM_PTR(b.nlr.ret_val);
        step = STEP_RAISE;
        if (native_isinstance(*ret, mp_load_global(MP_QSTR_StopIteration))) {
            /* throw() made it return */
            *ret = mp_load_attr(*ret, MP_QSTR_value);
            step = STEP_RETURN;
        }
    }
    return step;
}

/* One slice: the coroutine resumed with send (throw == MP_OBJ_NULL) or throw, recorded. */
static int native_step(native_coro_t *self, mp_obj_t send, mp_obj_t throw, mp_obj_t *ret)
{
    native_prof_t *p = self->owner;
    if (self->done || !p->running) {
        /* a detached task that died is thrown into once more: forward, record nothing */
        return native_resume(self, send, throw, ret);
    }
    native_reopen(p);
    aioprof_enter_late(&p->prof, &self->task, native_late(p, self));
    int step = native_resume(self, send, throw, ret);
    unsigned kind = AIOPROF_EXIT_YIELD;
    if (step != STEP_YIELD) {
        self->done = true;
        kind = step == STEP_RETURN ? AIOPROF_EXIT_RETURN
            : native_isinstance(*ret, p->cancelled) ? AIOPROF_EXIT_CANCEL : AIOPROF_EXIT_RAISE;
    }
    aioprof_exit(&p->prof, &self->task, kind);
    if (kind != AIOPROF_EXIT_YIELD && self->task.parent == 0) {
        /* a task created outside any task (asyncio.run's main) ended: the program may end now, and
         * on a board nothing runs at its end: the hook stops, its last HELLO says so, all goes
         * out; the next event reopens it */
        aioprof_close(&p->prof);
    }
    native_after(p);
    return step;
}

/* send/throw end as the generator's own do: the value yielded, StopIteration(value), or the
 * exception. */
static mp_obj_t native_finish(int step, mp_obj_t ret)
{
    if (step == STEP_YIELD) {
        return ret;
    }
    if (step == STEP_RETURN) {
        mp_obj_t stop = mp_load_global(MP_QSTR_StopIteration);
        ret = ret == mp_const_none ? mp_call_function_n_kw(stop, 0, 0, NULL) : mp_call_function_n_kw(stop, 1, 0, &ret);
    }
    mp_fun_table.raise(ret);
    return mp_const_none;
}

static mp_obj_t coro_send(mp_obj_t self_in, mp_obj_t value)
{
    mp_obj_t ret;
    int step = native_step(MP_OBJ_TO_PTR(self_in), value, MP_OBJ_NULL, &ret);
    return native_finish(step, ret);
}
static MP_DEFINE_CONST_FUN_OBJ_2(coro_send_obj, coro_send);

static mp_obj_t coro_throw(size_t n_args, const mp_obj_t *args)
{
    /* throw(type[, value[, traceback]]) reduced to one value as MicroPython's generators do */
    mp_obj_t exc = args[1];
    if (n_args > 2 && args[2] != mp_const_none) {
        exc = args[2];
    }
    mp_obj_t ret;
    int step = native_step(MP_OBJ_TO_PTR(args[0]), mp_const_none, exc, &ret);
    return native_finish(step, ret);
}
static MP_DEFINE_CONST_FUN_OBJ_VAR_BETWEEN(coro_throw_obj, 2, 4, coro_throw);

static mp_obj_t coro_close(mp_obj_t self_in)
{
    native_coro_t *self = MP_OBJ_TO_PTR(self_in);
    mp_obj_t dest[2];
    mp_load_method(self->coro, MP_QSTR_close, dest);
    return mp_fun_table.call_method_n_kw(0, 0, dest);
}
static MP_DEFINE_CONST_FUN_OBJ_1(coro_close_obj, coro_close);

static mp_obj_t coro_iternext(mp_obj_t self_in)
{
    mp_obj_t ret;
    int step = native_step(MP_OBJ_TO_PTR(self_in), mp_const_none, MP_OBJ_NULL, &ret);
    if (step == STEP_RETURN && ret == mp_const_none) {
        return MP_OBJ_STOP_ITERATION;
    }
    return native_finish(step, ret);
}

static void coro_print(const mp_print_t *print, mp_obj_t self_in, mp_print_kind_t kind)
{
    (void)kind;
    native_coro_t *self = MP_OBJ_TO_PTR(self_in);
    size_t len;
    const char *text = mp_obj_str_get_data(mp_call_function_n_kw(mp_load_global(MP_QSTR_repr), 1, 0, &self->coro), &len);
    mp_printf(print, "%.*s", (int)len, text);
}

NATIVE_VISIBLE mp_map_elem_t coro_locals_table[3];
static MP_DEFINE_CONST_DICT(coro_locals, coro_locals_table);

static native_prof_t *native_self(mp_obj_t self_in)
{
    return MP_OBJ_TO_PTR(self_in);
}

/* wrap(coro, name): records TASK_NEW (parent: the task running now) and returns the wrapper.
 * After stop() the wrapper only forwards. */
static mp_obj_t prof_wrap_coro(mp_obj_t self_in, mp_obj_t coro, mp_obj_t name)
{
    native_prof_t *p = native_self(self_in);
    size_t len;
    const char *s = mp_obj_str_get_data(name, &len);
    native_coro_t *w = mp_obj_malloc(native_coro_t, (mp_obj_type_t *)&native_coro_type);
    w->coro = coro;
    w->owner = p;
    w->name = name;
    w->label = mp_const_none;
    w->due_task = MP_OBJ_NULL;
    w->due_at = NULL;
    w->done = false;
    memset(&w->task, 0, sizeof w->task);
    if (p->running) {
        native_reopen(p);
        aioprof_task_created(&p->prof, &w->task, s, len);
    }
    return MP_OBJ_FROM_PTR(w);
}
static MP_DEFINE_CONST_FUN_OBJ_3(prof_wrap_obj, prof_wrap_coro);

/* label(wrapper, text): a task this profiler did not wrap (created before enable()) is left
 * alone, as after disable(), in every engine. */
static mp_obj_t prof_label(mp_obj_t self_in, mp_obj_t wrapper, mp_obj_t text)
{
    native_prof_t *p = native_self(self_in);
    size_t len;
    const char *s = mp_obj_str_get_data(text, &len);
    if (mp_obj_get_type(wrapper) != (mp_obj_type_t *)&native_coro_type) {
        return mp_const_none;
    }
    native_coro_t *w = MP_OBJ_TO_PTR(wrapper);
    if (w->owner != p || !p->running) {
        return mp_const_none;
    }
    w->label = text;
    native_reopen(p);
    aioprof_task_label(&p->prof, &w->task, s, len);
    return mp_const_none;
}
static MP_DEFINE_CONST_FUN_OBJ_3(prof_label_obj, prof_label);

/* bind(wrapper, task): the asyncio Task made for this wrapper, which resumes it; each resume then
 * says how late it was. A C Task's key is read in place once this Task shows the layout
 * c_task_view_t expects (its coroutine the wrapper, its key the attribute's value and in no other
 * field); any other Task through its attribute. */
static mp_obj_t prof_bind(mp_obj_t self_in, mp_obj_t wrapper, mp_obj_t task)
{
    native_prof_t *p = native_self(self_in);
    if (mp_obj_get_type(wrapper) != (mp_obj_type_t *)&native_coro_type) {
        return mp_const_none;
    }
    native_coro_t *w = MP_OBJ_TO_PTR(wrapper);
    w->due_task = task;
    w->due_at = aioprof_mp_key_at(p->c_task, wrapper, task, native_attr_maybe(task, MP_QSTR_ph_key));
    return mp_const_none;
}
static MP_DEFINE_CONST_FUN_OBJ_3(prof_bind_obj, prof_bind);

/* Sends what is ready; nothing while a task's slice runs. */
static mp_obj_t prof_drain(mp_obj_t self_in)
{
    native_prof_t *p = native_self(self_in);
    if (!p->running || p->prof.current != NULL) {
        return MP_OBJ_NEW_SMALL_INT(0);
    }
    size_t n = aioprof_drain(&p->prof);
    p->last_drain = p->prof.last;
    return mp_obj_new_int_from_uint(n);
}
static MP_DEFINE_CONST_FUN_OBJ_1(prof_drain_obj, prof_drain);

static mp_obj_t prof_flush(mp_obj_t self_in)
{
    native_prof_t *p = native_self(self_in);
    if (p->running) {
        aioprof_flush(&p->prof);
    }
    return mp_const_none;
}
static MP_DEFINE_CONST_FUN_OBJ_1(prof_flush_obj, prof_flush);

/* Stops recording for good and sends what is left, the last HELLO included (the first one too, if
 * nothing was recorded: the host tells "no tasks" from "no hook"), in bounded tries. Wrappers then
 * only forward. */
static mp_obj_t prof_stop(mp_obj_t self_in)
{
    native_prof_t *p = native_self(self_in);
    if (!p->running) {
        return mp_const_none;
    }
    aioprof_close(&p->prof);
    for (int tries = 0; tries < 1000 && !aioprof_idle(&p->prof); tries++) {
        aioprof_drain(&p->prof);
    }
    p->running = false;
    return mp_const_none;
}
static MP_DEFINE_CONST_FUN_OBJ_1(prof_stop_obj, prof_stop);

/* set_event_cost(cost): what an event costs, in 1/1024 tick (aioprof_port_t.event_cost), sent in
 * the HELLOs from now on; aioprof.py measures it before the first one goes. */
static mp_obj_t prof_set_event_cost(mp_obj_t self_in, mp_obj_t cost)
{
    native_self(self_in)->port.event_cost = (uint32_t)mp_obj_get_int(cost);
    return mp_const_none;
}
static MP_DEFINE_CONST_FUN_OBJ_2(prof_set_event_cost_obj, prof_set_event_cost);

/* span(name) -> a handle for span_enter: a bytearray that holds the library's aioprof_span_t and
 * the name's bytes it points to (aioprof.py keeps one per name: interned). As modaioprof.c's. */
static mp_obj_t prof_span(mp_obj_t self_in, mp_obj_t name)
{
    (void)self_in;
    size_t len;
    const char *s = mp_obj_str_get_data(name, &len);
    /* one byte past the wire's limit: the hook cuts it there at a whole character (prof_cut) */
    len = len <= AIOPROF_SPAN_NAME_MAX ? len : AIOPROF_SPAN_NAME_MAX + 1u;
    uint8_t *buf = m_new(uint8_t, sizeof(aioprof_span_t) + AIOPROF_SPAN_NAME_MAX + 1u);
    memset(buf, 0, sizeof(aioprof_span_t));
    memcpy(buf + sizeof(aioprof_span_t), s, len);
    aioprof_span_t *sp = (aioprof_span_t *)buf; /* the heap's blocks are aligned for it */
    sp->name = (const char *)buf + sizeof(aioprof_span_t);
    sp->name_len = (uint8_t)len;
    return mp_obj_new_bytearray_by_ref(sizeof(aioprof_span_t) + len, buf);
}
static MP_DEFINE_CONST_FUN_OBJ_2(prof_span_obj, prof_span);

static mp_obj_t prof_span_enter(mp_obj_t self_in, mp_obj_t handle)
{
    native_prof_t *p = native_self(self_in);
    mp_buffer_info_t bi;
    mp_get_buffer_raise(handle, &bi, MP_BUFFER_RW);
    if (bi.len < sizeof(aioprof_span_t)) {
        mp_raise_ValueError(MP_ERROR_TEXT("aioprof: not a span handle"));
    }
    if (p->running) {
        aioprof_span_enter(&p->prof, bi.buf);
    }
    return mp_const_none;
}
static MP_DEFINE_CONST_FUN_OBJ_2(prof_span_enter_obj, prof_span_enter);

static mp_obj_t prof_span_exit(mp_obj_t self_in)
{
    native_prof_t *p = native_self(self_in);
    if (p->running) {
        aioprof_span_exit(&p->prof);
    }
    return mp_const_none;
}
static MP_DEFINE_CONST_FUN_OBJ_1(prof_span_exit_obj, prof_span_exit);

NATIVE_VISIBLE mp_map_elem_t prof_locals_table[10];
static MP_DEFINE_CONST_DICT(prof_locals, prof_locals_table);

/* One message for the settings start() takes and the library refuses (one string fewer in the
 * board's RAM). */
static void native_refuse(void)
{
    mp_raise_ValueError(MP_ERROR_TEXT("aioprof: ring must be 128..65535 bytes, period 10..60000 ms"));
}

/* start(write, ring_bytes, period_ms, platform, cancelled_error[, c_task]) -> Profiler. c_task:
 * asyncio's Task type when it is the C one (_asyncio.Task), else None. */
static mp_obj_t native_start(size_t n_args, const mp_obj_t *args)
{
    mp_int_t ring = mp_obj_get_int(args[1]);
    mp_int_t period_ms = mp_obj_get_int(args[2]);
    if (ring < 128 || ring > (mp_int_t)AIOPROF_FW_RING_MAX || period_ms < 10 || period_ms > 60000) {
        native_refuse();
    }
    native_prof_t *p = mp_obj_malloc(native_prof_t, (mp_obj_type_t *)&native_prof_type);
    memset(&p->running, 0, sizeof *p - offsetof(native_prof_t, running));
    p->ring = m_new(uint8_t, (size_t)ring);
    mp_obj_t time = mp_import_name(MP_QSTR_time, mp_const_none, MP_OBJ_NEW_SMALL_INT(0));
    p->ticks_us = mp_load_attr(time, MP_QSTR_ticks_us);
    if (mp_obj_get_type(p->ticks_us) == &mp_type_fun_builtin_0) {
        p->ticks_fun = ((const mp_obj_fun_builtin_fixed_t *)MP_OBJ_TO_PTR(p->ticks_us))->fun._0;
    }
    p->ticks_ms = mp_load_attr(time, MP_QSTR_ticks_ms);
    if (mp_obj_get_type(p->ticks_ms) == &mp_type_fun_builtin_0) {
        p->ms_fun = ((const mp_obj_fun_builtin_fixed_t *)MP_OBJ_TO_PTR(p->ticks_ms))->fun._0;
    }
    p->write = args[0];
    p->cancelled = args[4];
    if (n_args > 5 && args[5] != mp_const_none) {
        p->c_task = args[5];
    }
    size_t len;
    const char *platform = mp_obj_str_get_data(args[3], &len);
    len = len < AIOPROF_PLATFORM_MAX ? len : AIOPROF_PLATFORM_MAX;
    memcpy(p->platform, platform, len);
    p->port.ticks = native_ticks;
    p->port.write = native_write;
    p->port.user = p;
    p->port.tick_hz = 1000000;
    p->port.tick_bits = 30; /* time.ticks_us() wraps at 2^30 */
    p->port.platform = p->platform;
    p->port.period_ticks = (uint32_t)period_ms * 1000u;
    p->port.late_unit = 1000; /* lateness in milliseconds: asyncio's keys are ticks_ms values */
    p->half_period_us = (uint32_t)period_ms * 500u;
    if (aioprof_init(&p->prof, &p->port, p->ring, (uint32_t)ring) != 0) {
        native_refuse(); /* of what start() lets through, the library refuses only such a ring */
    }
    p->last_drain = p->prof.last;
    p->running = true;
    return MP_OBJ_FROM_PTR(p);
}
static MP_DEFINE_CONST_FUN_OBJ_VAR_BETWEEN(native_start_obj, 5, 6, native_start);

/* A type's methods into its locals table: names[i] is funs[i] (one loop: each method set apart
 * took 12 bytes of Thumb-1 code, in the board's RAM). */
static void native_methods(mp_map_elem_t *elem, const qstr *names, const void *const *funs, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        elem[i].key = MP_OBJ_NEW_QSTR(names[i]);
        elem[i].value = MP_OBJ_FROM_PTR(funs[i]);
    }
}

/* mpy_init is in aioprof_native_entry.c, which calls this (see there why). */
NATIVE_VISIBLE mp_obj_t aioprof_native_init(mp_obj_fun_bc_t *self, size_t n_args, size_t n_kw, mp_obj_t *args);
mp_obj_t aioprof_native_init(mp_obj_fun_bc_t *self, size_t n_args, size_t n_kw, mp_obj_t *args)
{
    MP_DYNRUNTIME_INIT_ENTRY

    native_coro_type.base.type = (void *)&mp_type_type;
    native_coro_type.flags = MP_TYPE_FLAG_ITER_IS_ITERNEXT;
    native_coro_type.name = MP_QSTR_Coro;
    MP_OBJ_TYPE_SET_SLOT(&native_coro_type, iter, coro_iternext, 0);
    MP_OBJ_TYPE_SET_SLOT(&native_coro_type, print, coro_print, 1);
    const qstr coro_names[] = {MP_QSTR_send, MP_QSTR_throw, MP_QSTR_close};
    static const void *const coro_funs[] = {&coro_send_obj, &coro_throw_obj, &coro_close_obj};
    _Static_assert(MP_ARRAY_SIZE(coro_funs) == MP_ARRAY_SIZE(coro_locals_table), "one entry a method");
    native_methods(coro_locals_table, coro_names, coro_funs, MP_ARRAY_SIZE(coro_funs));
    MP_OBJ_TYPE_SET_SLOT(&native_coro_type, locals_dict, (void *)&coro_locals, 2);

    native_prof_type.base.type = (void *)&mp_type_type;
    native_prof_type.flags = MP_TYPE_FLAG_NONE;
    native_prof_type.name = MP_QSTR_Profiler;
    const qstr prof_names[] = {MP_QSTR_wrap, MP_QSTR_label, MP_QSTR_drain, MP_QSTR_flush, MP_QSTR_stop,
        MP_QSTR_set_event_cost, MP_QSTR_bind, MP_QSTR_span, MP_QSTR_span_enter, MP_QSTR_span_exit};
    static const void *const prof_funs[] = {&prof_wrap_obj, &prof_label_obj, &prof_drain_obj, &prof_flush_obj,
        &prof_stop_obj, &prof_set_event_cost_obj, &prof_bind_obj, &prof_span_obj, &prof_span_enter_obj,
        &prof_span_exit_obj};
    _Static_assert(MP_ARRAY_SIZE(prof_funs) == MP_ARRAY_SIZE(prof_locals_table), "one entry a method");
    native_methods(prof_locals_table, prof_names, prof_funs, MP_ARRAY_SIZE(prof_funs));
    MP_OBJ_TYPE_SET_SLOT(&native_prof_type, locals_dict, (void *)&prof_locals, 0);

    mp_store_global(MP_QSTR_start, MP_OBJ_FROM_PTR(&native_start_obj));
    mp_store_global(MP_QSTR_Coro, MP_OBJ_FROM_PTR(&native_coro_type));
    mp_store_global(MP_QSTR_Profiler, MP_OBJ_FROM_PTR(&native_prof_type));

    MP_DYNRUNTIME_INIT_EXIT
}
