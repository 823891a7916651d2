/* The firmware module's profiler (modaioprof.c), shared with the wrapper of the port's collector
 * (modaioprof_gc.c). Included after MicroPython's headers. */
#ifndef MODAIOPROF_H
#define MODAIOPROF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "py/obj.h"

#include "aioprof.h"
#include "aioprof_mp_port.h" /* aioprof_mp_alloc_t: the library reads it in place */

#define PLATFORM_CAP (AIOPROF_PLATFORM_MAX + 1)

#ifndef AIOPROF_GC_WRAP
#define AIOPROF_GC_WRAP 0 /* 1: linked with --wrap=gc_collect (micropython.mk, micropython.cmake) */
#endif
/* Threads without the GIL (the unix port, rp2): another thread's collection may come while this one
 * records, so the wrapper records only the collections of the thread that started the hook. With
 * the GIL (esp32) the other thread runs only where this one let it go, never inside the hook
 * but in the write callable, which the wrapper knows of (writing). */
#define GC_OWN_THREAD (AIOPROF_GC_WRAP && MICROPY_PY_THREAD && !MICROPY_PY_THREAD_GIL)

/* Memory is reported when the hook is built with it and the allocator counts for its threshold. */
#if AIOPROF_ALLOC && MICROPY_GC_ALLOC_THRESHOLD
#define AIOPROF_MOD_MEM 1
#else
#define AIOPROF_MOD_MEM 0
#endif

typedef struct aioprof_mod {
    mp_obj_base_t base;
    aioprof_mp_alloc_t alloc; /* right after base: aioprof_mp_port.h reads it there */
    aioprof_t prof;
    aioprof_port_t port;
    uint8_t *ring;
    mp_obj_t write;         /* None: mp_hal_stdout_tx_strn */
    mp_obj_t cancelled;     /* asyncio.CancelledError */
    mp_obj_t c_task;        /* asyncio's Task type when it is the C one (_asyncio.Task), else NULL */
    uint32_t half_period_us;
    mp_uint_t now_ms;       /* ticks_ms at the last resume's lateness */
#if MICROPY_STACK_CHECK
    uintptr_t sp_floor;     /* a resume with its stack below it takes the guarded path (coro_send) */
#endif
    mp_obj_t park_event;    /* the drainer waits on it (park), or MP_OBJ_NULL: it does not */
    const struct c_queue_view *park_queue; /* asyncio's task queue while the drainer is parked */
    uint32_t last_drain_us; /* in the library's ticks (microseconds, 32 bits) */
    bool running;
    char platform[PLATFORM_CAP];
#if GC_OWN_THREAD
    void *thread;           /* the thread that started it: other threads' collections are not its */
#endif
#if AIOPROF_GC_WRAP
    bool writing;           /* inside the drain: a collection there is recorded after it */
    bool gc_owed;           /* one ran there: its record, gc_owed_us long, goes after the drain */
    uint32_t gc_owed_us;
#endif
} aioprof_mod_t;

extern const mp_obj_type_t aioprof_profiler_type;

#if AIOPROF_GC_WRAP
/* modaioprof_gc.c: the Profiler whose hook times collections (start() sets it, stop() clears it) */
extern aioprof_mod_t *aioprof_gc_prof;
#endif

/* aioprof_mp_port.h finds the allocation state right after the object header */
MP_STATIC_ASSERT(offsetof(aioprof_mod_t, alloc) == sizeof(mp_obj_base_t));

#endif
