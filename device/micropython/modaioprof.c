/* _aioprof: the aioprof hook as a MicroPython user C module (firmware builds).
 *
 * aioprof.py (the front end) replaces asyncio's create_task with a function that wraps each new
 * task's coroutine in a Coro object from here. asyncio resumes the task through Coro.send /
 * Coro.throw; each resume is one slice: aioprof_enter before it, aioprof_exit after it, in every
 * path. The device library (device/aioprof.c) records into its ring; the bytes go out between
 * slices, when a quarter of the ring is waiting or half a period passed (coro_after), and from a
 * drain task in aioprof.py when the application is idle. Nothing is written while a slice runs.
 *
 * Output: mp_hal_stdout_tx_strn (raw bytes, no \n -> \r\n) by default, or a Python callable such
 * as machine.UART(...).write. */
#include <string.h>

#include "py/mphal.h"
#include "py/objgenerator.h"
#include "py/runtime.h"

#include "aioprof.h"

#define PLATFORM_CAP (AIOPROF_PLATFORM_MAX + 1)

typedef struct aioprof_mod {
    aioprof_t prof;
    aioprof_port_t port;
    uint8_t *ring;
    mp_obj_t write;         /* None: mp_hal_stdout_tx_strn */
    mp_obj_t cancelled;     /* asyncio.CancelledError */
    uint32_t bulk;          /* drain once this many bytes wait */
    uint32_t half_period_us;
    uint32_t last_drain_us; /* in the library's ticks (microseconds, 32 bits) */
    bool running;
    char platform[PLATFORM_CAP];
} aioprof_mod_t;

MP_REGISTER_ROOT_POINTER(struct aioprof_mod *aioprof_active);

typedef struct coro_obj {
    mp_obj_base_t base;
    mp_obj_t coro;
    aioprof_mod_t *owner;
    mp_obj_t name;          /* keeps the bytes of task.name alive */
    mp_obj_t label;
    aioprof_task_t task;
    bool done;              /* the coroutine returned or raised: later throws are not run time */
} coro_obj_t;

static uint32_t mod_ticks(void *user)
{
    (void)user;
    return (uint32_t)mp_hal_ticks_us();
}

static size_t mod_write(void *user, const uint8_t *data, size_t len)
{
    aioprof_mod_t *m = user;
    if (m->write == mp_const_none) {
        mp_hal_stdout_tx_strn((const char *)data, len);
        return len;
    }
    mp_obj_t n = mp_call_function_1(m->write, mp_obj_new_bytearray_by_ref(len, (void *)data));
    if (n == mp_const_none) {
        return 0; /* a non-blocking stream that took nothing */
    }
    mp_int_t taken = mp_obj_get_int(n);
    return taken < 0 ? 0 : (size_t)taken;
}

/* Drains without ever raising: an exception from the write callable (a UART error) is dropped
 * here rather than surfacing in the task that happened to end a slice. */
static size_t mod_drain(aioprof_mod_t *m)
{
    size_t n = 0;
    nlr_buf_t nlr;
    if (nlr_push(&nlr) == 0) {
        n = aioprof_drain(&m->prof);
        nlr_pop();
    }
    m->last_drain_us = m->prof.last;
    return n;
}

/* Between slices (no task runs): send in bulk when enough waits or half a period passed. The
 * time is the tick of the exit just recorded, so this costs no clock read. */
static void coro_after(aioprof_mod_t *m)
{
    if (m->prof.current != NULL) {
        return;
    }
    if ((uint32_t)(m->prof.last - m->last_drain_us) >= m->half_period_us || aioprof_pending(&m->prof) >= m->bulk) {
        mod_drain(m);
    }
}

/* One slice: resume the coroutine with send (throw == MP_OBJ_NULL) or throw, record it. */
static mp_vm_return_kind_t coro_step(coro_obj_t *self, mp_obj_t send, mp_obj_t throw, mp_obj_t *ret)
{
    aioprof_mod_t *m = self->owner;
    bool gen = mp_obj_is_type(self->coro, &mp_type_gen_instance);
    if (self->done || !m->running) {
        /* a detached task that died is thrown into once more: forward, record nothing */
        if (gen) {
            return mp_obj_gen_resume(self->coro, send, throw, ret);
        }
        return mp_resume(self->coro, throw == MP_OBJ_NULL ? send : MP_OBJ_NULL, throw, ret);
    }
    mp_vm_return_kind_t kind;
    aioprof_enter(&m->prof, &self->task);
    nlr_buf_t nlr;
    if (nlr_push(&nlr) == 0) {
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
    aioprof_exit(&m->prof, &self->task, exit_kind);
    coro_after(m);
    return kind;
}

static mp_obj_t coro_finish(mp_vm_return_kind_t kind, mp_obj_t ret)
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
    mp_obj_t ret;
    mp_vm_return_kind_t kind = coro_step(MP_OBJ_TO_PTR(self_in), value, MP_OBJ_NULL, &ret);
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

static aioprof_mod_t *mod_active(void)
{
    aioprof_mod_t *m = MP_STATE_VM(aioprof_active);
    if (m == NULL || !m->running) {
        mp_raise_msg(&mp_type_RuntimeError, MP_ERROR_TEXT("aioprof is not started"));
    }
    return m;
}

/* start(write, ring_bytes, period_ms, platform, cancelled_error) */
static mp_obj_t aioprof_start(size_t n_args, const mp_obj_t *args)
{
    (void)n_args;
    aioprof_mod_t *old = MP_STATE_VM(aioprof_active);
    if (old != NULL && old->running) {
        mp_raise_msg(&mp_type_RuntimeError, MP_ERROR_TEXT("aioprof is already started"));
    }
    mp_int_t ring = mp_obj_get_int(args[1]);
    mp_int_t period_ms = mp_obj_get_int(args[2]);
    if (ring < 128 || ring > 65535 || period_ms < 10 || period_ms > 60000) {
        mp_raise_ValueError(MP_ERROR_TEXT("aioprof: ring must be 128..65535 bytes, period 10..60000 ms"));
    }
    aioprof_mod_t *m = m_new0(aioprof_mod_t, 1);
    m->ring = m_new(uint8_t, (size_t)ring);
    m->write = args[0];
    m->cancelled = args[4];
    size_t len;
    const char *platform = mp_obj_str_get_data(args[3], &len);
    len = len < AIOPROF_PLATFORM_MAX ? len : AIOPROF_PLATFORM_MAX;
    memcpy(m->platform, platform, len);
    m->port.ticks = mod_ticks;
    m->port.write = mod_write;
    m->port.user = m;
    m->port.tick_hz = 1000000;
    m->port.tick_bits = 32;
    m->port.platform = m->platform;
    m->port.period_ticks = (uint32_t)period_ms * 1000u;
    m->bulk = (uint32_t)ring / 4u;
    m->half_period_us = (uint32_t)period_ms * 500u;
    if (aioprof_init(&m->prof, &m->port, m->ring, (uint32_t)ring) != 0) {
        mp_raise_ValueError(MP_ERROR_TEXT("aioprof: the device library refused its settings"));
    }
    m->last_drain_us = m->prof.last;
    m->running = true;
    MP_STATE_VM(aioprof_active) = m;
    return mp_const_none;
}
static MP_DEFINE_CONST_FUN_OBJ_VAR_BETWEEN(aioprof_start_obj, 5, 5, aioprof_start);

/* wrap(coro, name): records TASK_NEW (parent: the task running now) and returns the wrapper. */
static mp_obj_t aioprof_wrap(mp_obj_t coro, mp_obj_t name)
{
    aioprof_mod_t *m = mod_active();
    size_t len;
    const char *s = mp_obj_str_get_data(name, &len);
    coro_obj_t *w = mp_obj_malloc(coro_obj_t, &aioprof_coro_type);
    w->coro = coro;
    w->owner = m;
    w->name = name;
    w->label = mp_const_none;
    w->done = false;
    memset(&w->task, 0, sizeof w->task);
    aioprof_task_created(&m->prof, &w->task, s, len);
    return MP_OBJ_FROM_PTR(w);
}
static MP_DEFINE_CONST_FUN_OBJ_2(aioprof_wrap_obj, aioprof_wrap);

static mp_obj_t aioprof_label(mp_obj_t wrapper, mp_obj_t text)
{
    if (!mp_obj_is_type(wrapper, &aioprof_coro_type)) {
        mp_raise_TypeError(MP_ERROR_TEXT("aioprof: not a task created while aioprof was enabled"));
    }
    coro_obj_t *w = MP_OBJ_TO_PTR(wrapper);
    size_t len;
    const char *s = mp_obj_str_get_data(text, &len);
    w->label = text;
    aioprof_task_label(&w->owner->prof, &w->task, s, len);
    return mp_const_none;
}
static MP_DEFINE_CONST_FUN_OBJ_2(aioprof_label_obj, aioprof_label);

static mp_obj_t aioprof_drain_fn(void)
{
    aioprof_mod_t *m = MP_STATE_VM(aioprof_active);
    if (m == NULL || !m->running || m->prof.current != NULL) {
        return MP_OBJ_NEW_SMALL_INT(0);
    }
    return mp_obj_new_int_from_uint(mod_drain(m));
}
static MP_DEFINE_CONST_FUN_OBJ_0(aioprof_drain_obj, aioprof_drain_fn);

static mp_obj_t aioprof_flush_fn(void)
{
    aioprof_mod_t *m = MP_STATE_VM(aioprof_active);
    if (m != NULL && m->running) {
        aioprof_flush(&m->prof);
    }
    return mp_const_none;
}
static MP_DEFINE_CONST_FUN_OBJ_0(aioprof_flush_obj, aioprof_flush_fn);

static mp_obj_t aioprof_pending_fn(void)
{
    aioprof_mod_t *m = MP_STATE_VM(aioprof_active);
    return mp_obj_new_int_from_uint(m != NULL && m->running ? aioprof_pending(&m->prof) : 0);
}
static MP_DEFINE_CONST_FUN_OBJ_0(aioprof_pending_obj, aioprof_pending_fn);

/* Closes the open frame, sends what is left (bounded: a port that takes nothing must not hang
 * the caller) and stops recording; wrappers then only forward. */
static mp_obj_t aioprof_stop(void)
{
    aioprof_mod_t *m = MP_STATE_VM(aioprof_active);
    if (m == NULL || !m->running) {
        return mp_const_none;
    }
    aioprof_flush(&m->prof);
    for (int tries = 0; tries < 1000 && aioprof_pending(&m->prof) > 0; tries++) {
        mod_drain(m);
    }
    m->running = false;
    MP_STATE_VM(aioprof_active) = NULL;
    return mp_const_none;
}
static MP_DEFINE_CONST_FUN_OBJ_0(aioprof_stop_obj, aioprof_stop);

static const mp_rom_map_elem_t aioprof_module_globals_table[] = {
    { MP_ROM_QSTR(MP_QSTR___name__), MP_ROM_QSTR(MP_QSTR__aioprof) },
    { MP_ROM_QSTR(MP_QSTR_start), MP_ROM_PTR(&aioprof_start_obj) },
    { MP_ROM_QSTR(MP_QSTR_wrap), MP_ROM_PTR(&aioprof_wrap_obj) },
    { MP_ROM_QSTR(MP_QSTR_label), MP_ROM_PTR(&aioprof_label_obj) },
    { MP_ROM_QSTR(MP_QSTR_drain), MP_ROM_PTR(&aioprof_drain_obj) },
    { MP_ROM_QSTR(MP_QSTR_flush), MP_ROM_PTR(&aioprof_flush_obj) },
    { MP_ROM_QSTR(MP_QSTR_pending), MP_ROM_PTR(&aioprof_pending_obj) },
    { MP_ROM_QSTR(MP_QSTR_stop), MP_ROM_PTR(&aioprof_stop_obj) },
    { MP_ROM_QSTR(MP_QSTR_Coro), MP_ROM_PTR(&aioprof_coro_type) },
};
static MP_DEFINE_CONST_DICT(aioprof_module_globals, aioprof_module_globals_table);

const mp_obj_module_t aioprof_user_cmodule = {
    .base = { &mp_type_module },
    .globals = (mp_obj_dict_t *)&aioprof_module_globals,
};

MP_REGISTER_MODULE(MP_QSTR__aioprof, aioprof_user_cmodule);
