/* aioprof: the hook a cooperative scheduler calls on every task creation, resume (enter) and
 * yield (exit). It records into a static ring of ready-to-send frames (docs/protocol.md) and hands
 * them to the port's write function when the port calls aioprof_drain().
 *
 * C11, no malloc, nothing from libc beyond memcpy/memset; every call is O(1) (drain: O(bytes)),
 * never blocks and never fails its caller: when the ring is full, events are counted as dropped and
 * the count is sent once there is room again.
 *
 * Interrupt safety: every entry point runs inside the port's lock/unlock pair (the critical
 * section), except the write callback, which drain calls outside it.
 *
 * Build options (defined for every hook file alike): AIOPROF_PORT_HEADER binds the port at compile
 * time (below); AIOPROF_SMALL=1 trades instructions for code size; AIOPROF_LATE=0 leaves lateness
 * out: the hook then sends what a port whose late_unit is 0 sends (docs/porting.md);
 * AIOPROF_SPANS=1 adds spans (aioprof_span_enter/exit, device/aioprof_span.c): 12 bytes of state,
 * and nothing on the wire until a span is entered; AIOPROF_ALLOC=1 adds allocations and collections
 * (aioprof_port_t.alloc and .mem, aioprof_gc): 4 bytes of state, and nothing on the wire unless the
 * port sets mem. */
#ifndef AIOPROF_H
#define AIOPROF_H

#include <stddef.h>
#include <stdint.h>

#include "aioprof_frame_writer.h"
#include "aioprof_wire.h"

#ifndef AIOPROF_SPANS
#define AIOPROF_SPANS 0
#endif
#ifndef AIOPROF_ALLOC
#define AIOPROF_ALLOC 0
#endif
/* AIOPROF_LABELS=0 leaves out aioprof_task_label (and a task's label: TASK_NEW and TASK_INFO carry
 * the name alone, as from a firmware that never labels one). AIOPROF_STOP=0 leaves out
 * aioprof_close and aioprof_reopen: the hook never says it stopped, so the host marks a
 * recording's last figures as possibly low (docs/porting.md, "Building for size"). */
#ifndef AIOPROF_LABELS
#define AIOPROF_LABELS 1
#endif
#ifndef AIOPROF_STOP
#define AIOPROF_STOP 1
#endif

/* What the port provides. Lives as long as the profiler (usually const, in flash).
 *
 * Binding at compile time: a port that compiles aioprof.c with -DAIOPROF_PORT_HEADER='"file.h"'
 * may define in that header, instead of the ticks, lock and unlock members below (which may then
 * be NULL):
 *   AIOPROF_PORT_TICKS(user)          an expression giving the tick counter (uint32_t);
 *   AIOPROF_PORT_LOCK(user)           enters the critical section, giving a uint32_t state;
 *   AIOPROF_PORT_UNLOCK(user, state)  leaves it (defined together with AIOPROF_PORT_LOCK);
 *   AIOPROF_PORT_ALLOC(user)          the allocation counter (uint32_t), read in place of alloc
 *                                     (which must still be set, with mem, to turn it on).
 * user is the port's user pointer. They are inlined into every event: on a Cortex-M, reading a
 * timer register and PRIMASK directly instead of calling through pointers. They may be called
 * even after aioprof_init refused its arguments (with the port's user, or NULL if port was NULL;
 * the small build does not call them then); the hook then records nothing. */
typedef struct aioprof_port {
    /* The tick counter, any value; only its low tick_bits bits are used. */
    uint32_t (*ticks)(void *user);
    /* Writes up to len bytes without blocking; returns how many it took (0 when busy). The rest
     * is offered again on the next drain. */
    size_t (*write)(void *user, const uint8_t *data, size_t len);
    /* The critical section, or NULL for none (a scheduler with no interrupts that record). */
    uint32_t (*lock)(void *user);
    void (*unlock)(void *user, uint32_t state);
    void *user;
    uint32_t tick_hz;      /* 1000000 for microseconds */
    uint8_t tick_bits;     /* 30 for MicroPython's time.ticks_us(), 32 for mp_hal_ticks_us() */
    const char *platform;  /* e.g. "rp2 MicroPython 1.24"; at most 32 bytes are sent */
    /* The period in ticks (0: one second). Each period the open frame is closed (or an empty
     * one sent), every eighth period brings a HELLO, and a task that runs has its name announced
     * again when it last went sixteen periods ago or more. */
    uint32_t period_ticks;
    /* What one event (an ENTER or an EXIT, with the scheduler's own work around it for the hook)
     * costs the device, in 1/1024 of a tick; 0: not known. Sent in every HELLO, read when it is
     * written, so a port may set it after aioprof_init (a binding that times itself at start-up,
     * as the MicroPython one does): the host adds events times this to the drain time it shows
     * as the hook's overhead. docs/porting.md says how a port measures it. */
    uint32_t event_cost;
    /* Lateness (docs/protocol.md, "Lateness"): the unit, in ticks, of the `late` that
     * aioprof_enter_late is given: 1 for ticks; 1000 with microsecond ticks and due times kept in
     * milliseconds (MicroPython's asyncio: Task.ph_key is a ticks_ms value). 0 (the default): the
     * port does not report lateness. Sent in every HELLO, so that the host knows the device
     * reports it, and at what resolution. Set it before aioprof_init: it decides there whether
     * every ENTER carries its lateness. */
    uint32_t late_unit;
#if AIOPROF_ALLOC
    /* Allocations (docs/protocol.md, "Memory"): a counter of what the program allocated, in the
     * unit that mem gives, that only grows (modulo 2^32); read at every ENTER and EXIT, inside the
     * critical section. NULL: not read (what the task ran between two events allocated is not
     * sent). */
    uint32_t (*alloc)(void *user);
    /* The HELLO's mem field: AIOPROF_MEM_* flags | unit << AIOPROF_MEM_UNIT_SHIFT (aioprof_wire.h).
     * 0: the device reports neither allocations nor collections and sends what a hook built
     * without AIOPROF_ALLOC sends. Read when a HELLO is written. */
    uint32_t mem;
#endif
} aioprof_port_t;

/* Bits of aioprof_t.pending. While any is set, events take the slow path, which sends them first. */
#define AIOPROF_PENDING_HELLO 0x01u
#define AIOPROF_PENDING_HELLO_BOOT 0x02u /* the HELLO due is the first since start-up */
#define AIOPROF_PENDING_DROPPED 0x04u
#define AIOPROF_PENDING_STOPPED 0x08u    /* aioprof_close was called: record nothing, send the rest */
#define AIOPROF_PENDING_SPAN 0x10u       /* a span entered, its entry not written yet (AIOPROF_SPANS) */
#define AIOPROF_PENDING_OFF 0x80u        /* aioprof_init refused its arguments: record nothing */

/* Per task: embed one in the scheduler's task structure. The library owns its fields. */
typedef struct aioprof_task {
    struct aioprof_task *outer; /* the task that was running when this one was entered */
    const char *name;           /* must outlive the task (a qstr, a literal) */
#if AIOPROF_LABELS
    const char *label;
#endif
    uint32_t id;
    uint32_t parent;
    uint16_t announced;         /* the period its name was last sent in (modulo 2^16) */
    uint8_t name_len;
#if AIOPROF_LABELS
    uint8_t label_len;
#endif
} aioprof_task_t;

/* The profiler's state: 64 bytes on a 32-bit core, besides the ring (76 with AIOPROF_SPANS). */
typedef struct aioprof {
    aioprof_fw_t fw;
    /* the byte fields first: a Cortex-M0's byte loads reach only 31 bytes past a pointer */
    uint16_t period;
    uint8_t seq;
    uint8_t pending;        /* what must go out before the next event: AIOPROF_PENDING_* */
    const aioprof_port_t *port;
    aioprof_task_t *current;
    uint32_t last;          /* tick of the last event (or of the open frame's base) */
    uint32_t deadline;      /* tick at which the current period ends */
    uint32_t boot_ticks;
    uint32_t next_id;
    uint32_t dropped;       /* events not recorded since the last DROPPED */
    uint32_t dropped_total;
    uint32_t drain_ticks;   /* time spent in aioprof_drain, sent as is in HELLO */
    uint32_t mask;          /* the tick bits: ticks, and differences of ticks, wrap there */
#if AIOPROF_SPANS
    uint32_t next_span;     /* the last span name id given */
    /* The open frame's span list (docs/protocol.md, "The span list"), built from the top of the
     * frame's space down, above its LATE list: its bytes, the record head's reserve included (0:
     * none yet), and where its newest entry's place is. A span entered and not yet
     * written (AIOPROF_PENDING_SPAN): its id and its ticks after the last event, written as a
     * PAIR when it closes before anything else is written, else as an ENTER. */
    uint16_t span_at;       /* the ring position of the newest entry's place (at first, the
                               frame's first record) */
    uint16_t span_pend_id;
    uint16_t span_pend_dt;
    uint8_t span_len;
#endif
#if AIOPROF_ALLOC
    uint32_t alloc_last;    /* the port's allocation counter at the last event */
#endif
} aioprof_t;

/* Starts the profiler on ring[0..ring_size). Returns 0, or -1 when an argument is unusable (ring
 * under 128 or over 65535 bytes, no ticks (nor AIOPROF_PORT_TICKS) or write function, tick_bits outside 8..32); it then records nothing. */
int aioprof_init(aioprof_t *p, const aioprof_port_t *port, uint8_t *ring, uint32_t ring_size);

/* A task was created, by the task running now. name need not be terminated; it is cut to fit
 * AIOPROF_NAME_MAX with the label, before a UTF-8 character the limit would split. */
void aioprof_task_created(aioprof_t *p, aioprof_task_t *t, const char *name, size_t name_len);

#if AIOPROF_LABELS
/* Gives one task instance a label (e.g. "sensor 3"), sent with its name from now on. */
void aioprof_task_label(aioprof_t *p, aioprof_task_t *t, const char *label, size_t label_len);
#endif

/* The scheduler resumes t: on time, or in the manner of a port that does not know when t was due
 * (aioprof_enter_late(p, t, 0)). */
void aioprof_enter(aioprof_t *p, aioprof_task_t *t);

/* The scheduler resumes t, `late` units of the port's late_unit after t was due: the time from
 * when t became runnable (its sleep's deadline, the moment an event or a finished task made it
 * runnable) until now, rounded down to the unit (a port that counts in the unit may give the
 * difference of its readings). 0: on time. Values are sent as they are, modulo 2^32. On a port whose
 * late_unit is 0, the same as aioprof_enter. */
void aioprof_enter_late(aioprof_t *p, aioprof_task_t *t, uint32_t late);

/* The innermost running task's slice ended: kind is an enum aioprof_exit_kind. t is that task. */
void aioprof_exit(aioprof_t *p, aioprof_task_t *t, unsigned kind);

/* Closes the open frame so that drain sends it now. */
void aioprof_flush(aioprof_t *p);

#if AIOPROF_STOP
/* The profiler stops: the drop count still owed and a last HELLO with the flag "stopped" go into
 * the ring, and the frame is closed, so that the host knows nothing is left behind. From here on
 * nothing is recorded and no period ends; drain sends what is left (and writes what did not fit
 * yet once the port has taken enough), then the hook is idle and quiet. Call it where the
 * scheduler runs (not from an interrupt, not while a task is being created), then drain until
 * aioprof_idle. */
void aioprof_close(aioprof_t *p);

/* Records again after aioprof_close, in the same run (task ids, sequence numbers and the time line
 * go on): the next frame starts with a HELLO, not a start's, that says so. For a binding that
 * closes where its program may end (the end of a MicroPython program's main task) but cannot know
 * it does. No effect unless closed. */
void aioprof_reopen(aioprof_t *p);
#endif

/* Sends what is ready: at a period's end closes the open frame (or sends an empty one, the
 * heartbeat), then offers the committed bytes to the port's write function until it takes no
 * more. Call it between slices (an idle hook, the main loop), at least a few times a second.
 * Returns the bytes written. */
size_t aioprof_drain(aioprof_t *p);

/* Committed bytes not yet taken by the port. */
size_t aioprof_pending(const aioprof_t *p);

/* 1 when the hook owes the port nothing: no open frame, no drop count or HELLO waiting, nothing
 * committed. A firmware that is about to stop calls aioprof_close and drains until then. */
int aioprof_idle(const aioprof_t *p);

#if AIOPROF_SPANS
/* A span: a named stretch of code inside the running task (docs/protocol.md, "Spans"). One per
 * place in the code, static (AIOPROF_SPAN_INIT), or one per interned name (a binding's table):
 * its name goes on the wire once, with the id the hook gives it at its first enter, and again
 * every sixteen periods for a reader that joined late. The library owns the fields but name. */
typedef struct aioprof_span {
    const char *name;    /* must outlive the span (a literal, a qstr) */
    uint32_t id;         /* 0 until first entered */
    uint16_t announced;  /* the period its name last went in */
    uint8_t name_len;
} aioprof_span_t;

#define AIOPROF_SPAN_INIT(literal) {(literal), 0u, 0u, (uint8_t)(sizeof(literal) - 1u)}

/* The running task (or, outside any task, the scheduler) enters span s; spans nest. Never fails
 * its caller: without room the record is counted as a dropped event. O(1), no malloc. */
void aioprof_span_enter(aioprof_t *p, aioprof_span_t *s);

/* The innermost open span of the running task ends. A task that ends closes its open spans (the
 * host does it at the task's EXIT: an exception or a cancellation that skips the exit). */
void aioprof_span_exit(aioprof_t *p);
#endif

#if AIOPROF_ALLOC
/* A garbage collection ended now; it took duration ticks (0: not known). Sent as a GC record (when
 * the port's mem is not 0) that belongs to the running task, or, when none runs, to the
 * scheduler's time between slices: the host names it `(gc)` there. Not from inside the
 * collector's own critical section if the port's lock is not reentrant. */
void aioprof_gc(aioprof_t *p, uint32_t duration);
#endif

#endif
