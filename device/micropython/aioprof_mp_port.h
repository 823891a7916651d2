/* The C module's port bound at compile time (AIOPROF_PORT_HEADER, device/aioprof.h): the device
 * library reads MicroPython's microsecond counter (and its allocation count) in place instead of
 * through the port structure,
 * and has no critical section (it records where the VM runs, never from an interrupt). Set for the
 * library's files by micropython.mk and micropython.cmake; the native module does not use it. */
#ifndef AIOPROF_MP_PORT_H
#define AIOPROF_MP_PORT_H

#include <stdint.h>

#include "py/mphal.h"
#include "py/mpstate.h"
#include "py/obj.h"

#define AIOPROF_PORT_TICKS(user) ((void)(user), (uint32_t)mp_hal_ticks_us())
#define AIOPROF_PORT_LOCK(user) ((void)(user), 0u)
#define AIOPROF_PORT_UNLOCK(user, state) ((void)(user), (void)(state))

/* Memory (docs/micropython.md, "Memory"): the allocation counter read in place at every event.
 * The port's user is the module's Profiler, which keeps this state right after its object header
 * (modaioprof.c checks it at compile time). */
typedef struct aioprof_mp_alloc {
    size_t raw;     /* gc_alloc_amount at the last read */
    uint32_t total; /* blocks counted so far (modulo 2^32): the hook's counter */
} aioprof_mp_alloc_t;

#define AIOPROF_MP_ALLOC_OF(user) ((aioprof_mp_alloc_t *)(void *)((char *)(user) + sizeof(mp_obj_base_t)))

#if AIOPROF_ALLOC && MICROPY_GC_ALLOC_THRESHOLD
/* blocks allocated since start, the amount before a collection inside the stretch left out (the
 * count went down: only what came after it) */
static inline uint32_t aioprof_mp_alloc_read(aioprof_mp_alloc_t *a)
{
    size_t cur = MP_STATE_MEM(gc_alloc_amount);
    a->total += (uint32_t)(cur >= a->raw ? cur - a->raw : cur);
    a->raw = cur;
    return a->total;
}
#define AIOPROF_PORT_ALLOC(user) aioprof_mp_alloc_read(AIOPROF_MP_ALLOC_OF(user))
#endif

#endif
