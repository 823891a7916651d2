/* _aioprof: the aioprof hook as a MicroPython user C module (firmware builds).
 *
 * _aioprof.start(...) returns a Profiler; aioprof.py (the front end) keeps it and replaces asyncio's
 * create_task with a function that wraps each new task's coroutine in a Coro object from
 * Profiler.wrap. asyncio resumes the task through Coro.send / Coro.throw; each resume is one
 * slice: aioprof_enter before it, aioprof_exit after it, in every path. The device library
 * (device/aioprof.c) records into its ring; the bytes go out between slices, as soon as a frame is
 * complete or half a period passed (coro_after), and from a drain task in aioprof.py when the
 * application is idle: while it is busy that task waits on an event (park) instead of sleeping in
 * asyncio's queue, and the wrapper sets the event when the application goes idle (mod_wake).
 * Nothing is written while a slice runs.
 *
 * Lateness: aioprof.py hands each wrapper the asyncio Task that resumes it (Profiler.bind), and at
 * every resume the wrapper reads when that Task was due (its ph_key, see coro_late) and passes how
 * long ago that was to aioprof_enter_late, in milliseconds (the port's late_unit: 1000 ticks).
 *
 * Memory (AIOPROF_ALLOC=1, set by micropython.mk and micropython.cmake; docs/micropython.md,
 * "Memory"): on a build whose allocator counts for its threshold (MICROPY_GC_ALLOC_THRESHOLD), the
 * hook reads MP_STATE_MEM(gc_alloc_amount), the heap blocks allocated since the last collection, at
 * every event (mod_alloc); a collection resets it, so a count that went down says one ran since
 * the last event: it goes on the wire (aioprof_gc, untimed) before the event, and what was
 * allocated before it in that stretch is not known (the amounts are lower bounds). A collection
 * that the allocations after it hid (the count back above where it was) is not seen. A firmware
 * linked with --wrap=gc_collect (AIOPROF_GC_WRAP=1) times every collection instead
 * (__wrap_gc_collect; docs/micropython.md, "Collections timed").
 *
 * No state outside the heap (but the pointer of the collections' wrapper, checked against the heap
 * before each use): the Profiler lives as long as aioprof.py (or a Coro) refers to it, so a
 * soft reset, which empties the heap and re-imports aioprof.py, leaves the module as at boot.
 *
 * Output: mp_hal_stdout_tx_strn (raw bytes, no \n -> \r\n) by default, or a Python callable such
 * as machine.UART(...).write, which returns how many bytes it took (None: all of them). */
#include <stddef.h>
#include <string.h>

#include "py/mphal.h"
#include "py/objgenerator.h"
#include "py/runtime.h"
#include "py/smallint.h" /* MICROPY_PY_TIME_TICKS_PERIOD */

#include "aioprof_mp_task.h"
#include "modaioprof.h"


typedef struct coro_obj {
    mp_obj_base_t base;
    mp_obj_t coro;
    aioprof_mod_t *owner;
    mp_obj_t name;          /* keeps the bytes of task.name alive */
    mp_obj_t label;
    mp_obj_t due_task;      /* the asyncio Task that resumes this one (bind), or MP_OBJ_NULL */
    const mp_obj_t *due_at; /* where that Task keeps ph_key when it is the C one, else NULL */
    aioprof_task_t task;
    bool done;              /* the coroutine returned or raised: later throws are not run time */
    bool gen;               /* coro is a generator (an async def's coroutine): resumed in place */
} coro_obj_t;

/* How MicroPython lays out a generator (py/objgenerator.c, the same from v1.21 to v1.29): its
 * second word is MP_OBJ_NULL while it runs. */
typedef struct gen_view {
    mp_obj_base_t base;
    mp_obj_t pend_exc;
} gen_view_t;

/* The port's microsecond counter, 32 bits. A step back (the qemu port reads its counter in two
 * halves that race with the interrupt) goes on the wire as it is: the host counts it and gives it
 * no time (docs/protocol.md section 4). The library reads it in place (aioprof_mp_port.h); this
 * is for a build that does not bind the port. */
static uint32_t mod_ticks(void *user)
{
    (void)user;
    return (uint32_t)mp_hal_ticks_us();
}

#if AIOPROF_MOD_MEM
/* The allocation counter the hook reads at every event (aioprof_port_t.alloc): blocks allocated
 * since start, the amount before a collection inside the stretch left out. */
static uint32_t mod_alloc(void *user)
{
    return aioprof_mp_alloc_read(&((aioprof_mod_t *)user)->alloc);
}
/* Before an event: a collection since the last one (the count went down) is sent, so that it
 * belongs to what ran in that stretch. */
static inline MP_ALWAYSINLINE void mod_gc_check(aioprof_mod_t *m)
{
    /* (with memory off the count is never read: raw stays 0) */
    if (MP_STATE_MEM(gc_alloc_amount) < m->alloc.raw) {
        aioprof_gc(&m->prof, 0);
    }
}
#else
#define mod_gc_check(m) ((void)(m))
#endif

static size_t mod_write(void *user, const uint8_t *data, size_t len)
{
    aioprof_mod_t *m = user;
    if (m->write == mp_const_none) {
        mp_hal_stdout_tx_strn((const char *)data, len);
        return len;
    }
    mp_obj_t n = mp_call_function_1(m->write, mp_obj_new_bytearray_by_ref(len, (void *)data));
    if (n == mp_const_none) {
        return len; /* a write that does not say: it took everything, as in the other engines */
    }
    mp_int_t taken = mp_obj_get_int(n);
    return taken < 0 ? 0 : (size_t)taken;
}

#if AIOPROF_GC_WRAP
/* A collection that ran inside the write callable, recorded now that the drain is over (its time:
 * now, later than its end by the rest of the write). */
static void mod_gc_owed(aioprof_mod_t *m)
{
    if (m->gc_owed) {
        m->gc_owed = false;
        aioprof_gc(&m->prof, m->gc_owed_us);
        m->gc_owed_us = 0;
    }
}
#else
#define mod_gc_owed(m) ((void)(m))
#endif

/* Drains without ever raising: an exception from the write callable (a UART error) is dropped
 * here rather than surfacing in the task that happened to end a slice. A Ctrl-C that arrived while
 * the write callable ran is raised again at the next opportunity. */
static size_t mod_drain(aioprof_mod_t *m)
{
    size_t n = 0;
    nlr_buf_t nlr;
#if AIOPROF_GC_WRAP
    /* the write callable may allocate, and so collect, and a port's write may let another thread
     * run (the GIL let go around a blocking write), while the library is in its drain: such a
     * collection must not write into the ring then; its record waits for the drain's end */
    m->writing = true;
#endif
    if (nlr_push(&nlr) == 0) {
        n = aioprof_drain(&m->prof);
        nlr_pop();
    } else if (mp_obj_is_subclass_fast(MP_OBJ_FROM_PTR(((mp_obj_base_t *)nlr.ret_val)->type),
                   MP_OBJ_FROM_PTR(&mp_type_KeyboardInterrupt))) {
        mp_sched_exception(MP_OBJ_FROM_PTR(nlr.ret_val));
    }
    m->last_drain_us = m->prof.last;
#if AIOPROF_GC_WRAP
    m->writing = false;
#endif
    mod_gc_owed(m);
    return n;
}

/* The hook was closed where the program might have ended (a top-level task's end), and it goes
 * on: it records again, in the same run. */
static inline MP_ALWAYSINLINE void mod_reopen(aioprof_mod_t *m)
{
    if (m->prof.pending & AIOPROF_PENDING_STOPPED) {
        aioprof_reopen(&m->prof);
    }
}

/* How long the task waited since it was due, in milliseconds (0: on time, or not known).
 * asyncio keeps on a queued Task the ticks_ms at which it is due (ph_key): its sleep's deadline,
 * or when it was made runnable (created, cancelled, woken by an event, a lock, a stream or the end
 * of a task it awaited); the scheduler pops the Task without touching the key and resumes it at
 * once, so here the key still says when this resume was due. It is a ticks_ms value: the
 * difference wraps at MICROPY_PY_TIME_TICKS_PERIOD, as time.ticks_diff's. */
#define LATE_HALF (MICROPY_PY_TIME_TICKS_PERIOD / 2)
/* Above this a difference takes the rare path: the half period (32-bit ports), or 2^31 ms where the
 * period is wider (64-bit ports), so that the common case is one comparison. */
#define LATE_RARE (LATE_HALF < 0x80000000u ? LATE_HALF : 0x80000000u)

/* How MicroPython's C TaskQueue (extmod/modasyncio.c) lays out its root, read only after park()
 * found it where it says (mod_queue_ok). */
typedef struct c_queue_view {
    mp_obj_base_t base;
    const c_task_view_t *heap;
} c_queue_view_t;

/* Is the application busy: the next timed resume in asyncio's queue due within half a period of
 * the last resume (its lateness's clock read: no clock read here)? */
static inline MP_ALWAYSINLINE bool mod_busy(const aioprof_mod_t *m, const c_queue_view_t *q)
{
    const c_task_view_t *head = q->heap;
    if (head == NULL || !mp_obj_is_small_int(head->ph_key)) {
        return false;
    }
    mp_uint_t ahead = ((mp_uint_t)MP_OBJ_SMALL_INT_VALUE(head->ph_key) - m->now_ms) & (MICROPY_PY_TIME_TICKS_PERIOD - 1);
    return ahead >= LATE_HALF || ahead <= m->half_period_us / 1000u;
}

/* The application went idle: the parked drainer is woken (its event set), to drain every half
 * period until the application is busy again. An exception from it is dropped, as the drain's. */
static MP_NOINLINE void mod_wake(aioprof_mod_t *m)
{
    mp_obj_t ev = m->park_event;
    m->park_event = MP_OBJ_NULL;
    m->park_queue = NULL;
    nlr_buf_t nlr;
    if (nlr_push(&nlr) == 0) {
        mp_obj_t dest[2];
        mp_load_method(ev, MP_QSTR_set, dest);
        mp_call_method_n_kw(0, 0, dest);
        nlr_pop();
    } else if (mp_obj_is_subclass_fast(MP_OBJ_FROM_PTR(((mp_obj_base_t *)nlr.ret_val)->type),
                   MP_OBJ_FROM_PTR(&mp_type_KeyboardInterrupt))) {
        mp_sched_exception(MP_OBJ_FROM_PTR(nlr.ret_val));
    }
}

/* Between slices (no task runs): send every frame as soon as it is complete, so that a link that
 * keeps up leaves the ring empty for the next burst (one slice that creates hundreds of tasks);
 * and at least every half period. A frame holds up to 254 bytes, so this is one write per few
 * dozen events. The time is the tick of the exit just recorded: no clock read. */
static inline MP_ALWAYSINLINE void coro_after(aioprof_mod_t *m)
{
    if (m->prof.current != NULL) {
        return;
    }
    if (m->prof.fw.commit != m->prof.fw.tail || (uint32_t)(m->prof.last - m->last_drain_us) >= m->half_period_us) {
        mod_drain(m);
    }
    if (m->park_queue != NULL && !mod_busy(m, m->park_queue)) {
        mod_wake(m);
    }
}


static inline MP_ALWAYSINLINE uint32_t coro_late_from(mp_uint_t now, mp_obj_t key)
{
    mp_uint_t late = (now - (mp_uint_t)MP_OBJ_SMALL_INT_VALUE(key)) & (MICROPY_PY_TIME_TICKS_PERIOD - 1);
    if (late >= LATE_RARE) {
        /* due later than now (asyncio does not resume early): on time; or 24 days late and more
         * (64-bit ports), at most what the argument holds */
        return late >= LATE_HALF ? 0 : late >> 16 >> 16 ? UINT32_MAX : (uint32_t)late;
    }
    return (uint32_t)late;
}

/* A Task that is not MicroPython's C one (or not laid out as bind() expects): its attribute. */
static MP_NOINLINE uint32_t coro_late_slow(coro_obj_t *self)
{
    if (self->due_task == MP_OBJ_NULL) {
        return 0;
    }
    mp_obj_t dest[2];
    mp_load_method_maybe(self->due_task, MP_QSTR_ph_key, dest);
    mp_uint_t now = mp_hal_ticks_ms();
    self->owner->now_ms = now;
    return !mp_obj_is_small_int(dest[0]) ? 0 : coro_late_from(now, dest[0]);
}

static inline MP_ALWAYSINLINE uint32_t coro_late(coro_obj_t *self)
{
    const mp_obj_t *at = self->due_at;
    if (at == NULL) {
        return coro_late_slow(self);
    }
    /* a small int: bind() saw one there, and the C Task's key never holds anything else */
    mp_uint_t now = mp_hal_ticks_ms();
    self->owner->now_ms = now;
    return coro_late_from(now, *at);
}

/* One slice: resume the coroutine with send (throw == MP_OBJ_NULL) or throw, record it. fast: the
 * caller found what coro_fast says, so that the resume can not raise (below). */
static inline MP_ALWAYSINLINE mp_vm_return_kind_t coro_step_body(coro_obj_t *self, mp_obj_t send, mp_obj_t throw,
    mp_obj_t *ret, bool fast)
{
    aioprof_mod_t *m = self->owner;
    bool gen = self->gen;
    if (!fast && (self->done || !m->running)) {
        /* a detached task that died is thrown into once more: forward, record nothing */
        if (gen) {
            return mp_obj_gen_resume(self->coro, send, throw, ret);
        }
        return mp_resume(self->coro, throw == MP_OBJ_NULL ? send : MP_OBJ_NULL, throw, ret);
    }
    mp_vm_return_kind_t kind;
    mod_reopen(m);
    mod_gc_check(m);
    aioprof_enter_late(&m->prof, &self->task, coro_late(self));
    nlr_buf_t nlr;
    if (fast) {
        /* a generator returns what its code raised (MP_VM_RETURN_EXCEPTION); it raises itself only
         * before it runs, where coro_fast looked: no exception context needed (it cost about 55
         * instructions a switch on the unix port, its thread state read twice) */
        kind = mp_obj_gen_resume(self->coro, send, throw, ret);
    } else if (nlr_push(&nlr) == 0) {
        if (gen) {
            /* a throw into a just-started generator needs None as the sent value, as the
             * generator's own throw() does */
            kind = mp_obj_gen_resume(self->coro, send, throw, ret);
        } else {
            kind = mp_resume(self->coro, throw == MP_OBJ_NULL ? send : MP_OBJ_NULL, throw, ret);
        }
        nlr_pop();
    } else {
        kind = MP_VM_RETURN_EXCEPTION;
        *ret = MP_OBJ_FROM_PTR(nlr.ret_val);
    }
    unsigned exit_kind = AIOPROF_EXIT_YIELD;
    if (kind == MP_VM_RETURN_NORMAL) {
        exit_kind = AIOPROF_EXIT_RETURN;
        self->done = true;
    } else if (kind == MP_VM_RETURN_EXCEPTION) {
        self->done = true;
        exit_kind = mp_obj_exception_match(*ret, m->cancelled) ? AIOPROF_EXIT_CANCEL : AIOPROF_EXIT_RAISE;
        if (mp_obj_exception_match(*ret, MP_OBJ_FROM_PTR(&mp_type_StopIteration))) {
            exit_kind = AIOPROF_EXIT_RETURN;
        }
    }
    mod_gc_check(m);
    aioprof_exit(&m->prof, &self->task, exit_kind);
    if (exit_kind != AIOPROF_EXIT_YIELD && self->task.parent == 0) {
        /* a task created outside any task (asyncio.run's main) ended: the program may end now,
         * and on a board nothing runs at its end (sys.atexit is the unix port's only), so the hook
         * stops (its last HELLO says so) and everything goes out; the next event reopens it */
        aioprof_close(&m->prof);
    }
    coro_after(m);
    return kind;
}

/* The slice for throw(), iteration and the rare send() that needs the exception context; send(),
 * every resume of asyncio's, has the body inlined. */
static MP_NOINLINE mp_vm_return_kind_t coro_step(coro_obj_t *self, mp_obj_t send, mp_obj_t throw, mp_obj_t *ret)
{
    return coro_step_body(self, send, throw, ret, false);
}

/* Can send(value) resume the generator without an exception context? mp_obj_gen_resume raises only
 * before the generator runs: when it runs already ("generator already executing"), when a value
 * other than None goes to one just started (asyncio sends None), and when the C stack is nearly
 * used up (its stack check, MICROPY_STACK_CHECK): here with a margin of 1 KB below where that
 * check fails, from start()'s thread's limits (another thread's resume takes the guarded path or
 * has the margin of its own stack). */
static inline MP_ALWAYSINLINE bool coro_fast(const coro_obj_t *self, mp_obj_t value)
{
    const aioprof_mod_t *m = self->owner;
    return self->gen && !self->done && value == mp_const_none && m->running &&
           ((const gen_view_t *)MP_OBJ_TO_PTR(self->coro))->pend_exc != MP_OBJ_NULL
#if MICROPY_STACK_CHECK
           && (uintptr_t)__builtin_frame_address(0) > m->sp_floor
#endif
    ;
}

static inline MP_ALWAYSINLINE mp_obj_t coro_finish(mp_vm_return_kind_t kind, mp_obj_t ret)
{
    switch (kind) {
    case MP_VM_RETURN_YIELD:
        return ret;
    case MP_VM_RETURN_EXCEPTION:
        nlr_raise(ret);
    case MP_VM_RETURN_NORMAL:
    default:
        /* send/throw finish the way the generator's own do: StopIteration(value) */
        mp_raise_StopIteration(ret == mp_const_none ? MP_OBJ_NULL : ret);
    }
}

static mp_obj_t coro_send(mp_obj_t self_in, mp_obj_t value)
{
    coro_obj_t *self = MP_OBJ_TO_PTR(self_in);
    mp_obj_t ret;
    mp_vm_return_kind_t kind = coro_fast(self, value) ? coro_step_body(self, value, MP_OBJ_NULL, &ret, true)
                                                      : coro_step(self, value, MP_OBJ_NULL, &ret);
    return coro_finish(kind, ret);
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
    mp_vm_return_kind_t kind = coro_step(MP_OBJ_TO_PTR(args[0]), mp_const_none, exc, &ret);
    return coro_finish(kind, ret);
}
static MP_DEFINE_CONST_FUN_OBJ_VAR_BETWEEN(coro_throw_obj, 2, 4, coro_throw);

static mp_obj_t coro_close(mp_obj_t self_in)
{
    coro_obj_t *self = MP_OBJ_TO_PTR(self_in);
    mp_obj_t dest[2];
    mp_load_method(self->coro, MP_QSTR_close, dest);
    return mp_call_method_n_kw(0, 0, dest);
}
static MP_DEFINE_CONST_FUN_OBJ_1(coro_close_obj, coro_close);

static mp_obj_t coro_iternext(mp_obj_t self_in)
{
    mp_obj_t ret;
    mp_vm_return_kind_t kind = coro_step(MP_OBJ_TO_PTR(self_in), mp_const_none, MP_OBJ_NULL, &ret);
    if (kind == MP_VM_RETURN_NORMAL) {
        return mp_make_stop_iteration(ret == mp_const_none ? MP_OBJ_NULL : ret);
    }
    return coro_finish(kind, ret);
}

static void coro_print(const mp_print_t *print, mp_obj_t self_in, mp_print_kind_t kind)
{
    coro_obj_t *self = MP_OBJ_TO_PTR(self_in);
    mp_obj_print_helper(print, self->coro, kind);
}

static const mp_rom_map_elem_t coro_locals_table[] = {
    { MP_ROM_QSTR(MP_QSTR_send), MP_ROM_PTR(&coro_send_obj) },
    { MP_ROM_QSTR(MP_QSTR_throw), MP_ROM_PTR(&coro_throw_obj) },
    { MP_ROM_QSTR(MP_QSTR_close), MP_ROM_PTR(&coro_close_obj) },
};
static MP_DEFINE_CONST_DICT(coro_locals, coro_locals_table);

MP_DEFINE_CONST_OBJ_TYPE(
    aioprof_coro_type,
    MP_QSTR_Coro,
    MP_TYPE_FLAG_ITER_IS_ITERNEXT,
    iter, coro_iternext,
    print, coro_print,
    locals_dict, &coro_locals
    );

static aioprof_mod_t *mod_self(mp_obj_t self_in)
{
    return MP_OBJ_TO_PTR(self_in);
}

/* wrap(coro, name): records TASK_NEW (parent: the task running now) and returns the wrapper.
 * After stop() the wrapper only forwards. */
static mp_obj_t prof_wrap(mp_obj_t self_in, mp_obj_t coro, mp_obj_t name)
{
    aioprof_mod_t *m = mod_self(self_in);
    size_t len;
    const char *s = mp_obj_str_get_data(name, &len);
    coro_obj_t *w = mp_obj_malloc(coro_obj_t, &aioprof_coro_type);
    w->coro = coro;
    w->owner = m;
    w->name = name;
    w->label = mp_const_none;
    w->due_task = MP_OBJ_NULL;
    w->due_at = NULL;
    w->done = false;
    w->gen = mp_obj_is_type(coro, &mp_type_gen_instance);
    memset(&w->task, 0, sizeof w->task);
    if (m->running) {
        mod_reopen(m);
        aioprof_task_created(&m->prof, &w->task, s, len);
    }
    return MP_OBJ_FROM_PTR(w);
}
static MP_DEFINE_CONST_FUN_OBJ_3(prof_wrap_obj, prof_wrap);

/* label(wrapper, text): one behaviour in every engine: a task this profiler did not wrap (created
 * before enable()) is left alone, as after disable(). */
static mp_obj_t prof_label(mp_obj_t self_in, mp_obj_t wrapper, mp_obj_t text)
{
    aioprof_mod_t *m = mod_self(self_in);
    size_t len;
    const char *s = mp_obj_str_get_data(text, &len);
    if (!mp_obj_is_type(wrapper, &aioprof_coro_type)) {
        return mp_const_none;
    }
    coro_obj_t *w = MP_OBJ_TO_PTR(wrapper);
    if (w->owner != m || !m->running) {
        return mp_const_none;
    }
    w->label = text;
    mod_reopen(m);
    aioprof_task_label(&m->prof, &w->task, s, len);
    return mp_const_none;
}
static MP_DEFINE_CONST_FUN_OBJ_3(prof_label_obj, prof_label);

/* bind(wrapper, task): the asyncio Task that was made for this wrapper and resumes it; each
 * resume then says how late it was. The C Task's key is read in place when this Task has the
 * layout c_task_view_t expects (its coroutine is the wrapper, its key the attribute's value and
 * no other field holds that same small int); any other Task through its attribute. */
static mp_obj_t prof_bind(mp_obj_t self_in, mp_obj_t wrapper, mp_obj_t task)
{
    aioprof_mod_t *m = mod_self(self_in);
    if (!mp_obj_is_type(wrapper, &aioprof_coro_type)) {
        return mp_const_none;
    }
    coro_obj_t *w = MP_OBJ_TO_PTR(wrapper);
    w->due_task = task;
    mp_obj_t key[2];
    mp_load_method_maybe(task, MP_QSTR_ph_key, key);
    w->due_at = aioprof_mp_key_at(m->c_task, wrapper, task, key[0]);
    return mp_const_none;
}
static MP_DEFINE_CONST_FUN_OBJ_3(prof_bind_obj, prof_bind);

static mp_obj_t prof_drain(mp_obj_t self_in)
{
    aioprof_mod_t *m = mod_self(self_in);
    if (!m->running || m->prof.current != NULL) {
        return MP_OBJ_NEW_SMALL_INT(0);
    }
    return mp_obj_new_int_from_uint(mod_drain(m));
}
static MP_DEFINE_CONST_FUN_OBJ_1(prof_drain_obj, prof_drain);

/* Is queue MicroPython's C TaskQueue, laid out as c_queue_view_t says: its root where peek() finds
 * it, a Task of the C type whose key is where c_task_view_t says? */
static bool mod_queue_ok(aioprof_mod_t *m, mp_obj_t queue)
{
    if (m->c_task == MP_OBJ_NULL || !mp_obj_is_obj(queue)) {
        return false;
    }
    mp_obj_t dest[2];
    mp_load_method_maybe(queue, MP_QSTR_peek, dest);
    if (dest[0] == MP_OBJ_NULL) {
        return false;
    }
    mp_obj_t head = mp_call_method_n_kw(0, 0, dest);
    const c_queue_view_t *q = MP_OBJ_TO_PTR(queue);
    if (head == mp_const_none) {
        return q->heap == NULL;
    }
    if (MP_OBJ_FROM_PTR(q->heap) != head || MP_OBJ_FROM_PTR(mp_obj_get_type(head)) != m->c_task) {
        return false;
    }
    mp_obj_t key[2];
    mp_load_method_maybe(head, MP_QSTR_ph_key, key);
    return key[0] == q->heap->ph_key;
}

/* park(event, queue) -> bool: the drain task asks whether to wait on event (True) rather than
 * drain every half period: while the application is busy (the next timed resume in queue, asyncio's
 * _task_queue, is due within half a period) the wrapper drains between slices, and a task asleep
 * in the queue costs every push and pop of it; the wrapper sets event when the application goes
 * idle. False (drain on): the application is idle, or the queue is not the C one. */
static mp_obj_t prof_park(mp_obj_t self_in, mp_obj_t event, mp_obj_t queue)
{
    aioprof_mod_t *m = mod_self(self_in);
    if (!m->running || !mod_queue_ok(m, queue)) {
        return mp_const_false;
    }
    const c_queue_view_t *q = MP_OBJ_TO_PTR(queue);
    m->now_ms = mp_hal_ticks_ms();
    if (!mod_busy(m, q)) {
        return mp_const_false;
    }
    m->park_event = event;
    m->park_queue = q;
    return mp_const_true;
}
static MP_DEFINE_CONST_FUN_OBJ_3(prof_park_obj, prof_park);

static mp_obj_t prof_flush(mp_obj_t self_in)
{
    aioprof_mod_t *m = mod_self(self_in);
    if (m->running) {
        aioprof_flush(&m->prof);
    }
    return mp_const_none;
}
static MP_DEFINE_CONST_FUN_OBJ_1(prof_flush_obj, prof_flush);

static mp_obj_t prof_pending(mp_obj_t self_in)
{
    aioprof_mod_t *m = mod_self(self_in);
    return mp_obj_new_int_from_uint(m->running ? aioprof_pending(&m->prof) : 0);
}
static MP_DEFINE_CONST_FUN_OBJ_1(prof_pending_obj, prof_pending);

/* Stops recording for good and sends what is left: the open frame, the drop count owed and the
 * last HELLO, which says the hook stopped (the first one too, if nothing was recorded: the host
 * tells "no tasks" from "no hook"). Bounded: a port that takes nothing must not hang the caller.
 * Wrappers then only forward. */
static mp_obj_t prof_stop(mp_obj_t self_in)
{
    aioprof_mod_t *m = mod_self(self_in);
    if (!m->running) {
        return mp_const_none;
    }
    aioprof_close(&m->prof);
    for (int tries = 0; tries < 1000 && !aioprof_idle(&m->prof); tries++) {
        mod_drain(m);
    }
    m->running = false;
    m->park_event = MP_OBJ_NULL;
    m->park_queue = NULL;
#if AIOPROF_GC_WRAP
    if (aioprof_gc_prof == m) {
        aioprof_gc_prof = NULL;
    }
#endif
    return mp_const_none;
}
static MP_DEFINE_CONST_FUN_OBJ_1(prof_stop_obj, prof_stop);

/* set_event_cost(cost): what an event costs, in 1/1024 tick (aioprof_port_t.event_cost), sent in
 * the HELLOs from now on; aioprof.py measures it before the first one goes. */
static mp_obj_t prof_set_event_cost(mp_obj_t self_in, mp_obj_t cost)
{
    mod_self(self_in)->port.event_cost = (uint32_t)mp_obj_get_int(cost);
    return mp_const_none;
}
static MP_DEFINE_CONST_FUN_OBJ_2(prof_set_event_cost_obj, prof_set_event_cost);

#if AIOPROF_SPANS
/* span(name) -> a handle for span_enter: a bytearray that holds the library's aioprof_span_t and
 * the name's bytes it points to (they live as long as the handle; aioprof.py keeps one per name,
 * so that a name is interned: its id and its SPAN_NAME once). */
static mp_obj_t prof_span(mp_obj_t self_in, mp_obj_t name)
{
    (void)self_in;
    size_t len;
    const char *s = mp_obj_str_get_data(name, &len);
    /* one byte past the wire's limit: the hook cuts it there at a whole character (prof_cut) */
    len = len <= AIOPROF_SPAN_NAME_MAX ? len : AIOPROF_SPAN_NAME_MAX + 1u;
    uint8_t init[sizeof(aioprof_span_t) + AIOPROF_SPAN_NAME_MAX + 1u] = {0};
    memcpy(init + sizeof(aioprof_span_t), s, len);
    mp_obj_t h = mp_obj_new_bytearray(sizeof(aioprof_span_t) + len, init);
    mp_buffer_info_t bi;
    mp_get_buffer_raise(h, &bi, MP_BUFFER_RW);
    aioprof_span_t *sp = bi.buf; /* the heap's blocks are aligned for it */
    sp->name = (const char *)bi.buf + sizeof(aioprof_span_t);
    sp->name_len = (uint8_t)len;
    return h;
}
static MP_DEFINE_CONST_FUN_OBJ_2(prof_span_obj, prof_span);

/* span_enter(handle): the running task enters the span (a handle from span() of this module). */
static mp_obj_t prof_span_enter(mp_obj_t self_in, mp_obj_t handle)
{
    aioprof_mod_t *m = mod_self(self_in);
    mp_buffer_info_t bi;
    mp_get_buffer_raise(handle, &bi, MP_BUFFER_RW);
    if (bi.len < sizeof(aioprof_span_t)) {
        mp_raise_ValueError(MP_ERROR_TEXT("aioprof: not a span handle"));
    }
    if (m->running) {
        aioprof_span_enter(&m->prof, bi.buf);
    }
    return mp_const_none;
}
static MP_DEFINE_CONST_FUN_OBJ_2(prof_span_enter_obj, prof_span_enter);

static mp_obj_t prof_span_exit(mp_obj_t self_in)
{
    aioprof_mod_t *m = mod_self(self_in);
    if (m->running) {
        aioprof_span_exit(&m->prof);
    }
    return mp_const_none;
}
static MP_DEFINE_CONST_FUN_OBJ_1(prof_span_exit_obj, prof_span_exit);
#endif

static const mp_rom_map_elem_t prof_locals_table[] = {
#if AIOPROF_SPANS
    { MP_ROM_QSTR(MP_QSTR_span), MP_ROM_PTR(&prof_span_obj) },
    { MP_ROM_QSTR(MP_QSTR_span_enter), MP_ROM_PTR(&prof_span_enter_obj) },
    { MP_ROM_QSTR(MP_QSTR_span_exit), MP_ROM_PTR(&prof_span_exit_obj) },
#endif
    { MP_ROM_QSTR(MP_QSTR_wrap), MP_ROM_PTR(&prof_wrap_obj) },
    { MP_ROM_QSTR(MP_QSTR_set_event_cost), MP_ROM_PTR(&prof_set_event_cost_obj) },
    { MP_ROM_QSTR(MP_QSTR_label), MP_ROM_PTR(&prof_label_obj) },
    { MP_ROM_QSTR(MP_QSTR_bind), MP_ROM_PTR(&prof_bind_obj) },
    { MP_ROM_QSTR(MP_QSTR_drain), MP_ROM_PTR(&prof_drain_obj) },
    { MP_ROM_QSTR(MP_QSTR_park), MP_ROM_PTR(&prof_park_obj) },
    { MP_ROM_QSTR(MP_QSTR_flush), MP_ROM_PTR(&prof_flush_obj) },
    { MP_ROM_QSTR(MP_QSTR_pending), MP_ROM_PTR(&prof_pending_obj) },
    { MP_ROM_QSTR(MP_QSTR_stop), MP_ROM_PTR(&prof_stop_obj) },
};
static MP_DEFINE_CONST_DICT(prof_locals, prof_locals_table);

MP_DEFINE_CONST_OBJ_TYPE(
    aioprof_profiler_type,
    MP_QSTR_Profiler,
    MP_TYPE_FLAG_NONE,
    locals_dict, &prof_locals
    );

/* start(write, ring_bytes, period_ms, platform, cancelled_error[, c_task[, memory]]) -> Profiler.
 * c_task: asyncio's Task type when it is the C one (_asyncio.Task), else None. memory (default
 * True): report allocations and collections, when this build can (AIOPROF_MOD_MEM). Each call makes
 * a new one; aioprof.py keeps one at a time. */
static mp_obj_t aioprof_start(size_t n_args, const mp_obj_t *args)
{
    mp_int_t ring = mp_obj_get_int(args[1]);
    mp_int_t period_ms = mp_obj_get_int(args[2]);
    if (ring < 128 || ring > 65535 || period_ms < 10 || period_ms > 60000) {
        mp_raise_ValueError(MP_ERROR_TEXT("aioprof: ring must be 128..65535 bytes, period 10..60000 ms"));
    }
    size_t len;
    const char *platform = mp_obj_str_get_data(args[3], &len);
    aioprof_mod_t *m = mp_obj_malloc(aioprof_mod_t, &aioprof_profiler_type);
    memset(&m->alloc, 0, sizeof *m - offsetof(aioprof_mod_t, alloc));
    m->ring = m_new(uint8_t, (size_t)ring);
    m->write = args[0];
    m->cancelled = args[4];
    if (n_args > 5 && args[5] != mp_const_none) {
        m->c_task = args[5];
    }
    len = len < AIOPROF_PLATFORM_MAX ? len : AIOPROF_PLATFORM_MAX;
    memcpy(m->platform, platform, len);
    m->port.ticks = mod_ticks;
    m->port.write = mod_write;
    m->port.user = m;
    m->port.tick_hz = 1000000;
    m->port.tick_bits = 32;
    m->port.platform = m->platform;
    m->port.period_ticks = (uint32_t)period_ms * 1000u;
    m->port.late_unit = 1000; /* lateness in milliseconds: asyncio's keys are ticks_ms values */
#if AIOPROF_MOD_MEM
    if (n_args <= 6 || mp_obj_is_true(args[6])) {
        /* heap blocks, lower bounds (a collection in the stretch hides what came before it), some
         * collections (one the allocations after it hid is not seen), untimed */
        m->port.alloc = mod_alloc;
        m->port.mem = AIOPROF_MEM_ALLOC_LOWER | AIOPROF_MEM_GC_SOME |
            (uint32_t)MICROPY_BYTES_PER_GC_BLOCK << AIOPROF_MEM_UNIT_SHIFT;
#if AIOPROF_GC_WRAP
        /* every collection comes through __wrap_gc_collect: timed, and the amounts exact; with
         * threads but no GIL another thread's collection is only seen (at least, lower bounds) */
        m->port.mem = (GC_OWN_THREAD ? AIOPROF_MEM_ALLOC_LOWER | AIOPROF_MEM_GC_SOME :
            AIOPROF_MEM_ALLOC_EXACT | AIOPROF_MEM_GC_COUNT) | AIOPROF_MEM_GC_TIME |
            (uint32_t)MICROPY_BYTES_PER_GC_BLOCK << AIOPROF_MEM_UNIT_SHIFT;
#endif
        m->alloc.raw = MP_STATE_MEM(gc_alloc_amount);
    }
#endif
    m->half_period_us = (uint32_t)period_ms * 500u;
    if (aioprof_init(&m->prof, &m->port, m->ring, (uint32_t)ring) != 0) {
        mp_raise_ValueError(MP_ERROR_TEXT("aioprof: the device library refused its settings"));
    }
    m->last_drain_us = m->prof.last;
#if MICROPY_STACK_CHECK
    /* the generator's stack check fails where the stack's use reaches stack_limit below its top */
    uintptr_t top = (uintptr_t)MP_STATE_THREAD(stack_top), room = MP_STATE_THREAD(stack_limit) + 1024u;
    m->sp_floor = top > room ? top - room : UINTPTR_MAX;
#endif
    m->running = true;
#if GC_OWN_THREAD
    m->thread = (void *)mp_thread_get_state();
#endif
#if AIOPROF_GC_WRAP
    aioprof_gc_prof = m;
#endif
    return MP_OBJ_FROM_PTR(m);
}
static MP_DEFINE_CONST_FUN_OBJ_VAR_BETWEEN(aioprof_start_obj, 5, 7, aioprof_start);

static const mp_rom_map_elem_t aioprof_module_globals_table[] = {
    { MP_ROM_QSTR(MP_QSTR___name__), MP_ROM_QSTR(MP_QSTR__aioprof) },
    { MP_ROM_QSTR(MP_QSTR_start), MP_ROM_PTR(&aioprof_start_obj) },
    { MP_ROM_QSTR(MP_QSTR_Coro), MP_ROM_PTR(&aioprof_coro_type) },
    { MP_ROM_QSTR(MP_QSTR_Profiler), MP_ROM_PTR(&aioprof_profiler_type) },
};
static MP_DEFINE_CONST_DICT(aioprof_module_globals, aioprof_module_globals_table);

const mp_obj_module_t aioprof_user_cmodule = {
    .base = { &mp_type_module },
    .globals = (mp_obj_dict_t *)&aioprof_module_globals,
};

MP_REGISTER_MODULE(MP_QSTR__aioprof, aioprof_user_cmodule);
