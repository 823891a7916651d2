/* _aioprof_native: the aioprof recorder as a dynamic native module (.mpy), for boards whose
 * firmware can not be rebuilt. It is the device library (device/aioprof.c) behind a small API
 * that aioprof.py's Python wrapper calls around each slice:
 *   start(write, ring_bytes, period_ms, platform)   write: a callable taking bytes
 *   task(name) -> rec        enter(rec)        exit(rec, kind)       label(rec, text)
 *   drain() -> int           flush()           pending() -> int
 *   close([until_next])      stops where the program may end; the next event reopens
 *   stop()                   stops for good, sends what is left
 *
 * What a dynamic module can not reach decides the rest: no mp_hal_ticks_us (time.ticks_us is
 * called instead: 30-bit ticks), no mp_hal_stdout_tx_strn (the write callable, normally
 * sys.stdout.buffer.write), no direct generator resume (the wrapper calls the coroutine's own
 * send/throw). */
#include "py/dynruntime.h"

#include "aioprof.h"

typedef struct native_prof {
    mp_obj_base_t base;
    aioprof_t prof;
    aioprof_port_t port;
    uint8_t *ring;
    mp_obj_t ticks_us;
    mp_obj_t write;
    bool running;
    char platform[AIOPROF_PLATFORM_MAX + 1];
} native_prof_t;

typedef struct native_rec {
    mp_obj_base_t base;
    native_prof_t *owner;
    mp_obj_t name;  /* keeps the bytes of task.name alive */
    mp_obj_t label;
    aioprof_task_t task;
} native_rec_t;

mp_obj_full_type_t native_prof_type;
mp_obj_full_type_t native_rec_type;
/* the profiler that records now; also held in the module's globals, which keeps it alive */
native_prof_t *native_active;

/* time.ticks_us(), 30 bits. A step back (a port whose tick reader races with its interrupt, as
 * the qemu port's does) goes on the wire as it is: the host counts it and gives it no time. */
static uint32_t native_ticks(void *user)
{
    native_prof_t *p = user;
    return (uint32_t)mp_obj_get_int_truncated(mp_call_function_n_kw(p->ticks_us, 0, 0, NULL));
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

static native_prof_t *native_running(void)
{
    native_prof_t *p = native_active;
    return p != NULL && p->running ? p : NULL;
}

/* The hook was closed where the program might have ended (a top-level task's end), and it goes
 * on: it records again, in the same run. */
static inline void native_reopen(native_prof_t *p)
{
    if (p->prof.pending & AIOPROF_PENDING_STOPPED) {
        aioprof_reopen(&p->prof);
    }
}

static native_rec_t *native_rec(mp_obj_t rec)
{
    if (mp_obj_get_type(rec) != (mp_obj_type_t *)&native_rec_type) {
        mp_raise_TypeError(MP_ERROR_TEXT("aioprof: not a task record"));
    }
    return MP_OBJ_TO_PTR(rec);
}

static mp_obj_t native_start(size_t n_args, const mp_obj_t *args)
{
    (void)n_args;
    if (native_running() != NULL) {
        mp_raise_msg(&mp_type_RuntimeError, MP_ERROR_TEXT("aioprof is already started"));
    }
    mp_int_t ring = mp_obj_get_int(args[1]);
    mp_int_t period_ms = mp_obj_get_int(args[2]);
    if (ring < 128 || ring > 65535 || period_ms < 10 || period_ms > 60000) {
        mp_raise_ValueError(MP_ERROR_TEXT("aioprof: ring must be 128..65535 bytes, period 10..60000 ms"));
    }
    native_prof_t *p = mp_obj_malloc(native_prof_t, (mp_obj_type_t *)&native_prof_type);
    memset(&p->prof, 0, sizeof *p - offsetof(native_prof_t, prof));
    p->ring = m_new(uint8_t, (size_t)ring);
    mp_obj_t time = mp_import_name(MP_QSTR_time, mp_const_none, MP_OBJ_NEW_SMALL_INT(0));
    p->ticks_us = mp_load_attr(time, MP_QSTR_ticks_us);
    p->write = args[0];
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
    if (aioprof_init(&p->prof, &p->port, p->ring, (uint32_t)ring) != 0) {
        mp_raise_ValueError(MP_ERROR_TEXT("aioprof: the device library refused its settings"));
    }
    p->running = true;
    native_active = p;
    mp_store_global(MP_QSTR__active, MP_OBJ_FROM_PTR(p));
    return mp_const_none;
}
static MP_DEFINE_CONST_FUN_OBJ_VAR_BETWEEN(native_start_obj, 4, 4, native_start);

static mp_obj_t native_task(mp_obj_t name)
{
    native_rec_t *r = mp_obj_malloc(native_rec_t, (mp_obj_type_t *)&native_rec_type);
    memset(&r->task, 0, sizeof r->task);
    r->name = name;
    r->label = mp_const_none;
    r->owner = native_running();
    if (r->owner != NULL) {
        size_t len;
        const char *s = mp_obj_str_get_data(name, &len);
        native_reopen(r->owner);
        aioprof_task_created(&r->owner->prof, &r->task, s, len);
    }
    return MP_OBJ_FROM_PTR(r);
}
static MP_DEFINE_CONST_FUN_OBJ_1(native_task_obj, native_task);

static mp_obj_t native_enter(mp_obj_t rec)
{
    native_rec_t *r = native_rec(rec);
    if (r->owner != NULL && r->owner->running) {
        native_reopen(r->owner);
        aioprof_enter(&r->owner->prof, &r->task);
    }
    return mp_const_none;
}
static MP_DEFINE_CONST_FUN_OBJ_1(native_enter_obj, native_enter);

static mp_obj_t native_exit(mp_obj_t rec, mp_obj_t kind)
{
    native_rec_t *r = native_rec(rec);
    if (r->owner != NULL && r->owner->running) {
        native_reopen(r->owner);
        aioprof_exit(&r->owner->prof, &r->task, (unsigned)mp_obj_get_int(kind) & 3u);
    }
    return mp_const_none;
}
static MP_DEFINE_CONST_FUN_OBJ_2(native_exit_obj, native_exit);

static mp_obj_t native_label(mp_obj_t rec, mp_obj_t text)
{
    native_rec_t *r = native_rec(rec);
    if (r->owner != NULL && r->owner->running) {
        size_t len;
        const char *s = mp_obj_str_get_data(text, &len);
        r->label = text;
        native_reopen(r->owner);
        aioprof_task_label(&r->owner->prof, &r->task, s, len);
    }
    return mp_const_none;
}
static MP_DEFINE_CONST_FUN_OBJ_2(native_label_obj, native_label);

/* Sends what is ready; nothing while a task's slice runs. */
static mp_obj_t native_drain(void)
{
    native_prof_t *p = native_running();
    if (p == NULL || p->prof.current != NULL) {
        return MP_OBJ_NEW_SMALL_INT(0);
    }
    return mp_obj_new_int_from_uint(aioprof_drain(&p->prof));
}
static MP_DEFINE_CONST_FUN_OBJ_0(native_drain_obj, native_drain);

static mp_obj_t native_flush(void)
{
    native_prof_t *p = native_running();
    if (p != NULL) {
        aioprof_flush(&p->prof);
    }
    return mp_const_none;
}
static MP_DEFINE_CONST_FUN_OBJ_0(native_flush_obj, native_flush);

static mp_obj_t native_pending(void)
{
    native_prof_t *p = native_running();
    return mp_obj_new_int_from_uint(p != NULL ? aioprof_pending(&p->prof) : 0);
}
static MP_DEFINE_CONST_FUN_OBJ_0(native_pending_obj, native_pending);

/* Where the program may end (a top-level task ended): the drop count owed and a last HELLO that
 * says the hook stopped go into the ring, the frame closed; drain() sends them. The next event
 * reopens the hook. */
static mp_obj_t native_close(size_t n_args, const mp_obj_t *args)
{
    (void)n_args;
    (void)args; /* until_next, as the Python engine's: this engine always reopens at an event */
    native_prof_t *p = native_running();
    if (p != NULL) {
        aioprof_close(&p->prof);
    }
    return mp_const_none;
}
static MP_DEFINE_CONST_FUN_OBJ_VAR_BETWEEN(native_close_obj, 0, 1, native_close);

/* Stops recording for good and sends what is left, the last HELLO included (the first one too, if
 * nothing was recorded: the host tells "no tasks" from "no hook"), in bounded tries. */
static mp_obj_t native_stop(void)
{
    native_prof_t *p = native_running();
    if (p == NULL) {
        return mp_const_none;
    }
    aioprof_close(&p->prof);
    for (int tries = 0; tries < 1000 && !aioprof_idle(&p->prof); tries++) {
        aioprof_drain(&p->prof);
    }
    p->running = false;
    native_active = NULL;
    mp_store_global(MP_QSTR__active, mp_const_none);
    return mp_const_none;
}
static MP_DEFINE_CONST_FUN_OBJ_0(native_stop_obj, native_stop);

mp_obj_t mpy_init(mp_obj_fun_bc_t *self, size_t n_args, size_t n_kw, mp_obj_t *args)
{
    MP_DYNRUNTIME_INIT_ENTRY

    native_prof_type.base.type = (void *)&mp_type_type;
    native_prof_type.name = MP_QSTR_Profiler;
    native_rec_type.base.type = (void *)&mp_type_type;
    native_rec_type.name = MP_QSTR_Rec;
    native_active = NULL;

    mp_store_global(MP_QSTR_start, MP_OBJ_FROM_PTR(&native_start_obj));
    mp_store_global(MP_QSTR_task, MP_OBJ_FROM_PTR(&native_task_obj));
    mp_store_global(MP_QSTR_enter, MP_OBJ_FROM_PTR(&native_enter_obj));
    mp_store_global(MP_QSTR_exit, MP_OBJ_FROM_PTR(&native_exit_obj));
    mp_store_global(MP_QSTR_label, MP_OBJ_FROM_PTR(&native_label_obj));
    mp_store_global(MP_QSTR_drain, MP_OBJ_FROM_PTR(&native_drain_obj));
    mp_store_global(MP_QSTR_flush, MP_OBJ_FROM_PTR(&native_flush_obj));
    mp_store_global(MP_QSTR_pending, MP_OBJ_FROM_PTR(&native_pending_obj));
    mp_store_global(MP_QSTR_close, MP_OBJ_FROM_PTR(&native_close_obj));
    mp_store_global(MP_QSTR_stop, MP_OBJ_FROM_PTR(&native_stop_obj));
    mp_store_global(MP_QSTR__active, mp_const_none);

    MP_DYNRUNTIME_INIT_EXIT
}
