/* Where an asyncio Task keeps its due time (Task.ph_key), for the two C engines: the firmware
 * module (modaioprof.c, built with py/runtime.h) and the native module (natmod/aioprof_native.c,
 * built with py/dynruntime.h), which include this after their MicroPython headers. */
#ifndef AIOPROF_MP_TASK_H
#define AIOPROF_MP_TASK_H

/* How MicroPython's C Task (extmod/modasyncio.c) lays out its fields after its pairing-heap node.
 * Not a header of theirs: a Task is read through it only after aioprof_mp_key_at found, on that
 * Task, the coroutine and the key where it says. */
typedef struct c_task_view {
    mp_obj_base_t base;
    void *heap_links[3];
    mp_obj_t coro;
    mp_obj_t data;
    mp_obj_t state;
    mp_obj_t ph_key;
} c_task_view_t;

/* Where `task` keeps its ph_key, to be read in place at each resume of `wrapper`, or NULL: read it
 * as an attribute. In place only when task is of the C Task type c_task (MP_OBJ_NULL: none), its
 * coroutine is wrapper, and its key holds `key`, the attribute's value (a small int; MP_OBJ_NULL
 * when it has none), in no other field. The caller loads the attribute: a QSTR named in a header
 * included first breaks MicroPython's QSTR scan (py/makeqstrdefs.py takes it for no file's). */
static inline const mp_obj_t *aioprof_mp_key_at(mp_obj_t c_task, mp_obj_t wrapper, mp_obj_t task, mp_obj_t key)
{
    if (c_task == MP_OBJ_NULL || MP_OBJ_FROM_PTR(mp_obj_get_type(task)) != c_task) {
        return NULL;
    }
    const c_task_view_t *v = MP_OBJ_TO_PTR(task);
    if (v->coro == wrapper && mp_obj_is_small_int(key) && v->ph_key == key && v->data != key && v->state != key) {
        return &v->ph_key;
    }
    return NULL;
}

#endif
