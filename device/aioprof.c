/* The device hook: records task events into a ring of ready-to-send frames. See aioprof.h. */
#include "aioprof.h"

#include <string.h>

#include "aioprof_crc16.h" /* AIOPROF_NO_GC_SECTIONS */
#include "aioprof_varint.h"

/* Largest records (before the frame) the paths below write. */
#define ENTER_MAX (1u + 2u * AIOPROF_VARINT_MAX)
#define EXIT_MAX (1u + AIOPROF_VARINT_MAX)
#define CONTROL_HEAD_MAX 2u /* tag, a one-byte length: every body here is under 128 bytes */
#define TASK_BODY_MAX (3u * AIOPROF_VARINT_MAX + AIOPROF_NAME_MAX)
#define HELLO_BODY_MAX (9u * AIOPROF_VARINT_MAX + 3u + AIOPROF_PLATFORM_MAX)
#define DROPPED_MAX (CONTROL_HEAD_MAX + AIOPROF_VARINT_MAX)
#define HELLO_EVERY 8u /* periods: a power of two, so that the device never divides */
/* A running task's name goes again at its first ENTER this many periods or more after it last
 * went: a reader that joined late learns it then (docs/protocol.md section 5). Every period, as
 * before, was most of the link's bytes with thousands of tasks (8 of 12 bytes per event). */
#define ANNOUNCE_EVERY 16u
#define MIN_RING 128u

/* What keeps an entry point from recording: a refused start, and (unless AIOPROF_STOP=0, which
 * leaves the stop out and with it every test of it) aioprof_close. */
#if AIOPROF_STOP
#define PROF_STOPPED AIOPROF_PENDING_STOPPED
#else
#define PROF_STOPPED 0u
#endif
#define PROF_QUIET (AIOPROF_PENDING_OFF | PROF_STOPPED)

#if AIOPROF_ALLOC
/* An ALLOC record before an event (the tag, a one-byte length, the amount), a GC record (its dt
 * and duration), and the HELLO's mem field, reserved only on a port that sets mem: a port that
 * does not writes exactly the frames of a hook built without AIOPROF_ALLOC. */
#define ALLOC_MAX (CONTROL_HEAD_MAX + AIOPROF_VARINT_MAX)
#define GC_MAX (CONTROL_HEAD_MAX + 2u * AIOPROF_VARINT_MAX)
#define HELLO_MEM_MAX(p) ((p)->port->mem ? AIOPROF_VARINT_MAX : 0u)
#else
#define ALLOC_MAX 0u
#define HELLO_MEM_MAX(p) 0u
#endif

/* The rare half of each entry point lives out of line, so that the common half needs few registers
 * and no stack frame of its own. AIOPROF_SMALL=1 (aioprof_frame_writer.h) builds for code size
 * first: no separate common path (every call takes the general one, which does the same in more
 * instructions), and the CRC computed without its tables. */
#define PROF_FAST_PATH (!AIOPROF_SMALL)

#if defined(__GNUC__) && PROF_FAST_PATH
#define PROF_COLD __attribute__((noinline, cold))
#define PROF_LIKELY(x) __builtin_expect(!!(x), 1)
#else
#define PROF_COLD
#define PROF_LIKELY(x) (x)
#endif
/* Out of line in the small build: helpers called from a few places, where a call is shorter than
 * a copy. */
#if defined(__GNUC__) && AIOPROF_SMALL
#define PROF_SHARED __attribute__((noinline))
#else
#define PROF_SHARED
#endif
/* Inlined as it comes (on the event path), out of line in the small build. */
#if AIOPROF_SMALL
#define PROF_HELPER static PROF_SHARED
#else
#define PROF_HELPER AIOPROF_INLINE
#endif

/* A port may bind its clock and critical section at compile time (see aioprof.h): calls the
 * compiler can inline, in place of calls through the port structure. */
#ifdef AIOPROF_PORT_HEADER
#include AIOPROF_PORT_HEADER
#endif
#if defined(AIOPROF_PORT_LOCK) != defined(AIOPROF_PORT_UNLOCK)
#error "a port header defines AIOPROF_PORT_LOCK and AIOPROF_PORT_UNLOCK together, or neither"
#endif

AIOPROF_INLINE uint32_t prof_lock(const aioprof_t *p)
{
#ifdef AIOPROF_PORT_LOCK
    return AIOPROF_PORT_LOCK(p->port->user);
#else
    return p->port->lock ? p->port->lock(p->port->user) : 0u;
#endif
}

AIOPROF_INLINE void prof_unlock(const aioprof_t *p, uint32_t state)
{
#ifdef AIOPROF_PORT_UNLOCK
    AIOPROF_PORT_UNLOCK(p->port->user, state);
#else
    if (p->port->unlock) {
        p->port->unlock(p->port->user, state);
    }
#endif
}

/* Keeps the low tick_bits bits: ticks, and differences of ticks, wrap there. */
AIOPROF_INLINE uint32_t prof_wrap(const aioprof_t *p, uint32_t ticks)
{
    return ticks & p->mask;
}

/* The raw tick counter: only differences (wrapped) and frame bases (wrapped) go on the wire. */
AIOPROF_INLINE uint32_t prof_now(const aioprof_t *p)
{
#ifdef AIOPROF_PORT_TICKS
    return AIOPROF_PORT_TICKS(p->port->user);
#else
    return p->port->ticks(p->port->user);
#endif
}

#ifdef AIOPROF_PORT_TICKS
#define PROF_BOUND 1
#else
#define PROF_BOUND 0
#endif

#if AIOPROF_SPANS
/* aioprof_span.c: a span entered and not written yet goes into the open frame's span list as an
 * ENTER, before anything else is written (its room was kept); the list becomes the frame's SPANS
 * record when the frame closes. */
static void span_flush(aioprof_t *p);
static void span_list_close(aioprof_t *p);
#define PROF_SPAN_FLUSH(p) \
    do { \
        if ((p)->pending & AIOPROF_PENDING_SPAN) { \
            span_flush(p); \
        } \
    } while (0)
#else
#define PROF_SPAN_FLUSH(p) ((void)0)
#endif

/* Opens a frame at now for a first record of up to n bytes, with its header. Returns 0 when the
 * ring has no room for it. */
static int frame_open(aioprof_t *p, uint32_t now, uint32_t n)
{
    uint8_t *h = aioprof_fw_open(&p->fw, n);
    if (!h) {
        return 0;
    }
    uint32_t base = prof_wrap(p, now);
    h[0] = p->seq++;
    h[1] = AIOPROF_FORMAT(p->port->tick_bits);
    h[2] = (uint8_t)base;
    h[3] = (uint8_t)(base >> 8);
    h[4] = (uint8_t)(base >> 16);
    h[5] = (uint8_t)(base >> 24);
    aioprof_fw_advance(&p->fw,
        (uint32_t)(AIOPROF_HEADER_FIXED + aioprof_fw_varint(h + 6, p->current ? p->current->id : 0u)));
    p->last = now;
#if AIOPROF_SPANS
    /* the list's places count from the frame's first record, which goes here */
    p->span_len = 0;
    p->span_at = p->fw.head;
#endif
    return 1;
}

static void frame_close(aioprof_t *p);

/* Makes sure a record of up to n bytes can be written: in the open frame if it fits, else in a
 * new one. Returns 0 when the ring has no room (the caller counts a drop). The frame already
 * written is never lost: its closing bytes are always in reserve. */
static int frame_room(aioprof_t *p, uint32_t now, uint32_t n)
{
    if (aioprof_fw_fits(&p->fw, n)) {
        return 1;
    }
    if (p->fw.open) {
        frame_close(p);
    }
    return frame_open(p, now, n);
}

/* v as a varint at b; returns the byte after it. */
static uint8_t *put_varint(uint8_t *b, uint32_t v)
{
#if AIOPROF_SMALL
    return aioprof_fw_put(b, v, 0u, 7u);
#else
    return b + aioprof_fw_varint(b, v);
#endif
}

/* t's name (op TASK_NEW or TASK_INFO), announced in this period. */
static void write_task(aioprof_t *p, unsigned op, aioprof_task_t *t)
{
    t->announced = p->period;
    uint8_t body[TASK_BODY_MAX];
    uint8_t *b = put_varint(put_varint(body, t->id), t->parent);
    *b++ = t->name_len;
    memcpy(b, t->name, t->name_len);
    b += t->name_len;
#if AIOPROF_LABELS
    memcpy(b, t->label, t->label_len);
    b += t->label_len;
#endif
    aioprof_fw_control(&p->fw, op, body, (size_t)(b - body));
}

static uint32_t period_length(const aioprof_t *p);

/* The HELLO: its fields in the order of docs/protocol.md; the period, the cost of an event and the
 * lateness unit were added later, so after the platform string. */
static void write_hello(aioprof_t *p, unsigned flags)
{
    const aioprof_port_t *port = p->port;
    const char *platform = port->platform ? port->platform : "";
    uint8_t body[HELLO_BODY_MAX + AIOPROF_VARINT_MAX];
    uint8_t *b = body;
    *b++ = AIOPROF_PROTOCOL_VERSION;
    b = put_varint(b, port->tick_hz);
    *b++ = port->tick_bits;
    b = put_varint(b, p->fw.size);
    *b++ = (uint8_t)flags;
    b = put_varint(b, prof_wrap(p, p->boot_ticks));
    b = put_varint(b, p->drain_ticks);
    b = put_varint(b, p->dropped_total);
    uint8_t *len = b++;
    while ((size_t)(b - len) <= AIOPROF_PLATFORM_MAX && *platform != '\0') {
        *b++ = (uint8_t)*platform++;
    }
    *len = (uint8_t)(b - len - 1);
    b = put_varint(b, period_length(p));
    b = put_varint(b, port->event_cost);
    b = put_varint(b, AIOPROF_LATE ? port->late_unit : 0u);
#if AIOPROF_ALLOC
    if (port->mem) {
        b = put_varint(b, port->mem);
    }
#endif
    aioprof_fw_control(&p->fw, AIOPROF_OP_HELLO, body, (size_t)(b - body));
}

static void write_dropped(aioprof_t *p)
{
    uint8_t body[AIOPROF_VARINT_MAX];
    aioprof_fw_control(&p->fw, AIOPROF_OP_DROPPED, body, aioprof_fw_varint(body, p->dropped));
    p->dropped = 0;
    p->pending &= (uint8_t)~AIOPROF_PENDING_DROPPED;
}

/* Closes the open frame. A drop count still owed goes in first when it fits, even before a quarter
 * of the ring is free (the frame holds at most a HELLO then: nothing is recorded while the count
 * is owed): every frame that follows dropped events says so, and the host knows why frames
 * stopped coming. */
static void frame_close(aioprof_t *p)
{
    PROF_SPAN_FLUSH(p);
    /* (a frame is open here: every caller tests it) */
    if ((p->pending & AIOPROF_PENDING_DROPPED) && p->fw.budget >= DROPPED_MAX) {
        write_dropped(p);
    }
#if AIOPROF_SPANS
    if (p->span_len) {
        span_list_close(p);
    }
#endif
    aioprof_fw_close(&p->fw);
}

/* HELLO and DROPPED go before any event once there is room. Returns 0 while something is still
 * waiting: events must then be dropped too, or the count would arrive after them. After
 * aioprof_close the drop count goes first and at once, and the HELLO, last, says "stopped". */
/* The drop count owed, if it fits (in the open frame or a new one). */
static int send_dropped(aioprof_t *p, uint32_t now)
{
    if (!frame_room(p, now, DROPPED_MAX)) {
        return 0;
    }
    write_dropped(p);
    return 1;
}

static int write_pending(aioprof_t *p, uint32_t now)
{
    PROF_SPAN_FLUSH(p);
    unsigned stopped = p->pending & PROF_STOPPED;
    if (stopped && (p->pending & AIOPROF_PENDING_DROPPED) && !send_dropped(p, now)) {
        return 0;
    }
    if (p->pending & AIOPROF_PENDING_HELLO) {
        if (!frame_room(p, now, CONTROL_HEAD_MAX + HELLO_BODY_MAX + HELLO_MEM_MAX(p))) {
            return 0;
        }
        write_hello(p, ((p->pending & AIOPROF_PENDING_HELLO_BOOT) ? AIOPROF_HELLO_FLAG_BOOT : 0u) |
            (stopped ? AIOPROF_HELLO_FLAG_STOPPED : 0u));
        p->pending &= (uint8_t)~(AIOPROF_PENDING_HELLO | AIOPROF_PENDING_HELLO_BOOT);
    }
    if (p->pending & AIOPROF_PENDING_DROPPED) {
        /* once dropping, wait for a quarter of the ring: a port that takes a byte now and then
         * would otherwise get a stream of tiny frames that carry little but DROPPED */
        return aioprof_fw_room(&p->fw) >= p->fw.size / 4u && send_dropped(p, now);
    }
    return 1;
}

/* After aioprof_close: what is owed, as soon as it fits (an empty ring starts again at its
 * beginning, where the HELLO always fits), in a frame closed at once. */
static void write_final(aioprof_t *p, uint32_t now)
{
    if (!p->fw.open && p->fw.tail == p->fw.head) {
        aioprof_fw_rewind(&p->fw);
    }
    write_pending(p, now);
    if (p->fw.open) {
        frame_close(p);
    }
}

static PROF_SHARED void count_drop(aioprof_t *p)
{
    p->dropped++;
    p->dropped_total++;
    p->pending |= AIOPROF_PENDING_DROPPED;
}

/* Makes room for a record of n bytes after whatever must go first. 0: there is none, and the
 * record is lost (the caller decides whether it counts as a dropped event). */
static int prof_room(aioprof_t *p, uint32_t now, uint32_t n)
{
    return write_pending(p, now) && frame_room(p, now, n);
}

/* The length of a period in ticks: the port's, at most half the tick counter's wrap so that
 * "is the period over?" is a comparison of wrapped ticks. */
static uint32_t period_length(const aioprof_t *p)
{
    uint32_t period = p->port->period_ticks ? p->port->period_ticks : p->port->tick_hz;
    uint32_t half = p->mask / 2u;
    return period < half ? period : half;
}

/* What a refused aioprof_init leaves in place, so that the entry points need no test of their
 * own: a clock that stands still and a port that takes nothing; PENDING_OFF sends every call to
 * its slow path, which does nothing. The small build has none: its entry points that reach the
 * port first test PENDING_OFF (PROF_OFF), in fewer bytes than the idle port takes. */
#define PROF_IDLE_PORT (!AIOPROF_SMALL)
#define PROF_OFF(p) (!PROF_IDLE_PORT && ((p)->pending & AIOPROF_PENDING_OFF))
#if PROF_IDLE_PORT
static uint32_t prof_off_ticks(void *user)
{
    (void)user;
    return 0;
}

static size_t prof_off_write(void *user, const uint8_t *data, size_t len)
{
    (void)user;
    (void)data;
    (void)len;
    return 0;
}

static const aioprof_port_t prof_off_port = {
    .ticks = prof_off_ticks, .write = prof_off_write, .tick_hz = 1000000u, .tick_bits = 32,
};
#define PROF_OFF_PORT (&prof_off_port)
#else
#define PROF_OFF_PORT NULL
#endif

int aioprof_init(aioprof_t *p, const aioprof_port_t *port, uint8_t *ring, uint32_t ring_size)
{
    memset(p, 0, sizeof *p);
    /* a port bound at compile time is still called (its clock, its critical section), with the
     * user pointer it gave, so it needs nothing of its own for this case */
    p->port = PROF_BOUND && port ? port : PROF_OFF_PORT;
    p->pending = AIOPROF_PENDING_OFF;
    p->mask = 0xFFFFFFFFu;
    if (!port || !(PROF_BOUND || port->ticks) || !port->write || !ring || ring_size < MIN_RING ||
        ring_size > AIOPROF_FW_RING_MAX || port->tick_bits < 8 || port->tick_bits > 32) {
        return -1;
    }
    p->port = port;
    p->mask >>= 32u - port->tick_bits;
    /* the frame writer's state is all 0 but its ring */
    p->fw.buf = ring;
    p->fw.size = (uint16_t)ring_size;
    /* every ENTER carries its lateness, in a list at the end of its frame (AIOPROF_OP_LATE) */
    p->fw.late_room = AIOPROF_LATE && port->late_unit ? AIOPROF_VARINT_MAX : 0u;
    uint32_t now = prof_now(p);
    p->boot_ticks = p->last = now;
#if AIOPROF_ALLOC
    p->alloc_last = port->alloc && port->mem ? port->alloc(port->user) : 0u;
#endif
    p->deadline = now + period_length(p);
    p->pending = AIOPROF_PENDING_HELLO | AIOPROF_PENDING_HELLO_BOOT;
    return 0;
}

/* Sends t's name now (op TASK_NEW or TASK_INFO), or, when there is no room, again when it next
 * runs (its last announcement made ANNOUNCE_EVERY periods old); a TASK_NEW that could not be sent
 * counts as a dropped event. Leaves the critical section s. */
static void announce(aioprof_t *p, aioprof_task_t *t, unsigned op, uint32_t s)
{
    uint32_t now = prof_now(p);
    t->announced = (uint16_t)(p->period - ANNOUNCE_EVERY);
    if (prof_room(p, now, CONTROL_HEAD_MAX + TASK_BODY_MAX)) {
        write_task(p, op, t);
    } else if (op == AIOPROF_OP_TASK_NEW) {
        count_drop(p);
    }
    prof_unlock(p, s);
}

/* len cut to at most max bytes, at the start of a UTF-8 character: the reader shows names as text,
 * and half a character is not one. A limit inside a character moves back to its first byte (back
 * over the continuation bytes, 10xxxxxx; at most three, so bytes that are not UTF-8 cost no more). */
static uint8_t prof_cut(const char *s, size_t len, size_t max)
{
    size_t n = len < max ? len : max;
    while (n < len && n > 0 && max - n < 3u && ((uint8_t)s[n] & 0xC0u) == 0x80u) {
        n--;
    }
    return (uint8_t)n;
}

#if AIOPROF_LABELS
/* aioprof_task_created (op TASK_NEW: s is the name) and aioprof_task_label (TASK_INFO: the label),
 * one body. */
static void prof_name(aioprof_t *p, aioprof_task_t *t, const char *s, size_t len, unsigned op)
{
    if (p->pending & PROF_QUIET) {
        return;
    }
    uint32_t lk = prof_lock(p);
    /* a new task's label is none: its length 0 (a valid pointer, for the copy of no bytes) */
    t->label = s;
    uint8_t *cut = &t->label_len;
    if (op == AIOPROF_OP_TASK_NEW) {
        if (++p->next_id == 0) {
            p->next_id = 1;
        }
        t->id = p->next_id;
        t->parent = p->current ? p->current->id : 0u;
        t->outer = NULL;
        t->name = s;
        t->name_len = 0;
        t->label_len = 0;
        cut = &t->name_len;
    }
    /* the label takes what the name leaves */
    *cut = prof_cut(s, len, AIOPROF_NAME_MAX - t->name_len);
    announce(p, t, op, lk);
}

void aioprof_task_created(aioprof_t *p, aioprof_task_t *t, const char *name, size_t name_len)
{
    prof_name(p, t, name, name_len, AIOPROF_OP_TASK_NEW);
}

void aioprof_task_label(aioprof_t *p, aioprof_task_t *t, const char *label, size_t label_len)
{
    prof_name(p, t, label, label_len, AIOPROF_OP_TASK_INFO);
}
#else
void aioprof_task_created(aioprof_t *p, aioprof_task_t *t, const char *name, size_t name_len)
{
    if (p->pending & PROF_QUIET) {
        return;
    }
    uint32_t s = prof_lock(p);
    if (++p->next_id == 0) {
        p->next_id = 1;
    }
    t->id = p->next_id;
    t->parent = p->current ? p->current->id : 0u;
    t->outer = NULL;
    t->name = name;
    t->name_len = prof_cut(name, name_len, AIOPROF_NAME_MAX);
    announce(p, t, AIOPROF_OP_TASK_NEW, s);
}
#endif

/* An ENTER (what = PROF_ENTER) or an EXIT (what = its enum aioprof_exit_kind). */
#define PROF_ENTER 4u

/* Writes the event's record at now into the open frame, which has room for it (an ENTER's
 * lateness, when the port reports it, is its caller's: aioprof_fw_late). */
#if AIOPROF_SMALL
/* For size: one encoding for every kind, its tag and the bits of dt it holds from a table (the
 * tags' low nibbles are 0: the bits go there), by what. */
static const uint8_t prof_tag_bits[PROF_ENTER + 1u] = {
    AIOPROF_TAG_EXIT_YIELD | AIOPROF_YIELD_DT_BITS, AIOPROF_TAG_EXIT_RETURN | AIOPROF_END_DT_BITS,
    AIOPROF_TAG_EXIT_RAISE | AIOPROF_END_DT_BITS, AIOPROF_TAG_EXIT_CANCEL | AIOPROF_END_DT_BITS,
    AIOPROF_TAG_ENTER | AIOPROF_ENTER_DT_BITS,
};

static void prof_put(aioprof_t *p, const aioprof_task_t *t, unsigned what, uint32_t now)
{
    aioprof_fw_t *w = &p->fw;
    uint8_t *o = aioprof_fw_at(w);
    unsigned tb = prof_tag_bits[what];
    unsigned tag = tb & 0xF0u;
    uint32_t id = t->id;
    uint32_t inline_id = id <= AIOPROF_ENTER_ID_INLINE_MAX ? id : 0u;
    int enter = what == PROF_ENTER;
    if (enter) {
        tag |= inline_id << AIOPROF_ENTER_ID_SHIFT;
    }
    uint32_t n = aioprof_fw_encode_event(o, (uint8_t)tag, tb & 0x0Fu, prof_wrap(p, now - p->last));
    if (enter && inline_id == 0) {
        n = aioprof_fw_encode_varint(o, n, id);
    }
    aioprof_fw_advance(w, n);
    p->last = now;
}
#else
AIOPROF_INLINE void prof_put(aioprof_t *p, const aioprof_task_t *t, unsigned what, uint32_t now)
{
    aioprof_fw_t *w = &p->fw;
    uint32_t dt = prof_wrap(p, now - p->last);
    aioprof_fw_advance(w, what == PROF_ENTER ? aioprof_fw_encode_enter(aioprof_fw_at(w), t->id, dt)
                                             : aioprof_fw_encode_exit(aioprof_fw_at(w), what, dt));
    p->last = now;
}
#endif

#if AIOPROF_ALLOC
/* What the running task (or the scheduler, between slices) allocated since the last event, in
 * the port's unit; 0 when the port does not count. Read at every event, recorded or not, so that
 * each amount covers exactly the time since the event before. */
AIOPROF_INLINE uint32_t prof_alloc_take(aioprof_t *p)
{
    const aioprof_port_t *port = p->port;
    if (!port->alloc || !port->mem) {
        return 0;
    }
#ifdef AIOPROF_PORT_ALLOC
    uint32_t a = AIOPROF_PORT_ALLOC(port->user);
#else
    uint32_t a = port->alloc(port->user);
#endif
    uint32_t d = a - p->alloc_last;
    p->alloc_last = a;
    return d;
}

/* The ALLOC record of amount (nothing for 0), into the open frame, which has room for it. */
AIOPROF_INLINE void prof_alloc_put(aioprof_t *p, uint32_t amount)
{
    if (amount) {
        uint8_t *o = aioprof_fw_at(&p->fw);
        uint32_t n = aioprof_fw_encode_varint(o, 2u, amount);
        o[0] = (uint8_t)(AIOPROF_TAG_CONTROL | AIOPROF_OP_ALLOC);
        o[1] = (uint8_t)(n - 2u);
        aioprof_fw_advance(&p->fw, n);
    }
}
#define PROF_ALLOC_TAKE(p) prof_alloc_take(p)
#define PROF_ALLOC_PUT(p, amount) prof_alloc_put((p), (amount))
#else
#define PROF_ALLOC_TAKE(p) 0u
#define PROF_ALLOC_PUT(p, amount) ((void)(amount))
#endif

/* The running task: t from an ENTER on, the task it interrupted again after its EXIT. (Out of
 * line in the small build: its two calls share one copy.) */
PROF_HELPER void prof_switch(aioprof_t *p, aioprof_task_t *t, unsigned what)
{
    if (what == PROF_ENTER) {
        t->outer = p->current;
        p->current = t;
    } else {
        p->current = t->outer;
        t->outer = NULL;
    }
}

/* The general path of an event at now, inside the critical section s, which it leaves: sends what
 * must go first (HELLO, DROPPED, the task's name), closes or opens frames, counts a drop when there
 * is no room. The common case of aioprof_enter and aioprof_exit is inlined there (unless
 * AIOPROF_SMALL). */
static PROF_COLD void record(aioprof_t *p, aioprof_task_t *t, unsigned what, uint32_t now, uint32_t s,
    uint32_t late)
{
    if (!(p->pending & PROF_QUIET)) {
        int enter = what == PROF_ENTER;
        int announce_it = enter && (uint16_t)(p->period - t->announced) >= ANNOUNCE_EVERY;
        uint32_t n = enter ? ENTER_MAX + aioprof_fw_late_room(&p->fw) : EXIT_MAX;
        uint32_t amount = PROF_ALLOC_TAKE(p);
        if (announce_it) {
            n += CONTROL_HEAD_MAX + TASK_BODY_MAX;
        }
        if (amount) {
            n += ALLOC_MAX;
        }
        if (!prof_room(p, now, n)) {
            count_drop(p);
        } else {
            if (announce_it) {
                write_task(p, AIOPROF_OP_TASK_INFO, t);
            }
            PROF_ALLOC_PUT(p, amount);
#if AIOPROF_LATE
            if (enter && p->fw.late_room) {
                aioprof_fw_late(&p->fw, late);
            }
#else
            (void)late;
#endif
            prof_put(p, t, what, now);
        }
        prof_switch(p, t, what);
    }
    prof_unlock(p, s);
}

/* aioprof_enter and aioprof_enter_late: one body, made twice (unless AIOPROF_SMALL), so that a
 * port that reports no lateness pays for it with one test. The lateness goes in first: its value is
 * then done with before the ENTER's record needs the registers. */
#if !AIOPROF_SMALL
AIOPROF_INLINE void prof_enter(aioprof_t *p, aioprof_task_t *t, uint32_t late)
{
    uint32_t s = prof_lock(p);
    uint32_t now = prof_now(p);
    /* the common case: nothing to send first, the name sent less than ANNOUNCE_EVERY periods
     * ago, room in the open frame for the record and its lateness (the budget is 0 while no frame
     * is open) */
    if (!PROF_LIKELY(p->pending == 0 && (uint16_t)(p->period - t->announced) < ANNOUNCE_EVERY &&
        p->fw.budget >= ENTER_MAX + ALLOC_MAX + aioprof_fw_late_room(&p->fw))) {
        record(p, t, PROF_ENTER, now, s, late);
        return;
    }
    PROF_ALLOC_PUT(p, PROF_ALLOC_TAKE(p));
#if AIOPROF_LATE
    if (p->fw.late_room) {
        aioprof_fw_late(&p->fw, late);
    }
#endif
    (void)late;
    prof_put(p, t, PROF_ENTER, now);
    prof_switch(p, t, PROF_ENTER);
    prof_unlock(p, s);
}
#endif

#if AIOPROF_STOP
static void prof_stop_set(aioprof_t *p, unsigned stop, uint32_t now);
#endif

static size_t drain_locked(aioprof_t *p, uint32_t start, int due, uint32_t s);

/* Is the period over? Once the deadline is behind now: less than half the wrap past it. */
AIOPROF_INLINE int prof_due(const aioprof_t *p, uint32_t now)
{
    return prof_wrap(p, now - p->deadline) <= p->mask / 2u;
}

#if AIOPROF_SMALL
/* The small build: every entry point that records, but the tasks', through one body that tests
 * for a refused start, takes the lock and the clock, and leaves the lock. Returns what the drain
 * wrote (0 for the others). */
#define PROF_FLUSH 5u
#define PROF_CLOSE 6u
#define PROF_REOPEN 7u
#define PROF_DRAIN 8u

static size_t prof_event(aioprof_t *p, aioprof_task_t *t, uint32_t late, unsigned what)
{
    if (PROF_OFF(p)) {
        return 0;
    }
    uint32_t s = prof_lock(p);
    uint32_t now = prof_now(p);
    if (what <= PROF_ENTER) {
        record(p, t, what, now, s, late);
        return 0;
    }
    if (what == PROF_DRAIN) {
        return drain_locked(p, now, prof_due(p, now), s);
    }
#if AIOPROF_STOP
    if (what != PROF_FLUSH) {
        prof_stop_set(p, what == PROF_CLOSE, now);
    } else
#endif
    if (p->fw.open) {
        frame_close(p);
    }
    prof_unlock(p, s);
    return 0;
}

void aioprof_enter_late(aioprof_t *p, aioprof_task_t *t, uint32_t late)
{
    (void)prof_event(p, t, late, PROF_ENTER);
}
#else
void aioprof_enter_late(aioprof_t *p, aioprof_task_t *t, uint32_t late)
{
    prof_enter(p, t, late);
}
#endif

void aioprof_enter(aioprof_t *p, aioprof_task_t *t)
{
#if AIOPROF_SMALL || AIOPROF_NO_GC_SECTIONS
    /* one copy of the enter path: a link without --gc-sections (a MicroPython native module,
     * which calls aioprof_enter_late) would keep a second one it never calls */
    aioprof_enter_late(p, t, 0);
#else
    prof_enter(p, t, 0);
#endif
}

void aioprof_exit(aioprof_t *p, aioprof_task_t *t, unsigned kind)
{
#if AIOPROF_SMALL
    /* late: any value (an EXIT has none), the one in its register */
    (void)prof_event(p, t, kind, kind & 3u);
#else
    uint32_t s = prof_lock(p);
    uint32_t now = prof_now(p);
    kind &= 3u;
    if (!PROF_LIKELY(p->pending == 0 && p->fw.budget >= EXIT_MAX + ALLOC_MAX)) {
        record(p, t, kind, now, s, 0);
        return;
    }
    PROF_ALLOC_PUT(p, PROF_ALLOC_TAKE(p));
    prof_put(p, t, kind, now);
    prof_switch(p, t, kind);
    prof_unlock(p, s);
#endif
}

void aioprof_flush(aioprof_t *p)
{
#if AIOPROF_SMALL
    (void)prof_event(p, NULL, 0, PROF_FLUSH);
#else
    uint32_t s = prof_lock(p);
    if (p->fw.open) {
        frame_close(p);
    }
    prof_unlock(p, s);
#endif
}

#if AIOPROF_STOP
/* aioprof_close (stop 1: unless stopped) and aioprof_reopen (0: if stopped), inside the lock. */
static void prof_stop_set(aioprof_t *p, unsigned stop, uint32_t now)
{
    if (((p->pending & AIOPROF_PENDING_STOPPED) != 0) == stop) {
        return;
    }
#if AIOPROF_ALLOC
    /* what was allocated since the last event goes before the HELLO after which nothing comes;
     * what was allocated while stopped was no task's */
    uint32_t amount = PROF_ALLOC_TAKE(p);
    if (stop && amount && prof_room(p, now, ALLOC_MAX)) {
        PROF_ALLOC_PUT(p, amount);
    }
#endif
    /* a stop HELLO that could not go yet goes as the reopen's HELLO, which says nothing stopped */
    p->pending = (uint8_t)((p->pending ^ AIOPROF_PENDING_STOPPED) | AIOPROF_PENDING_HELLO);
    if (stop) {
        write_final(p, now);
    } else {
        p->deadline = now + period_length(p);
    }
}

void aioprof_close(aioprof_t *p)
{
#if AIOPROF_SMALL
    (void)prof_event(p, NULL, 0, PROF_CLOSE);
#else
    if (p->pending & AIOPROF_PENDING_OFF) {
        return;
    }
    uint32_t s = prof_lock(p);
    prof_stop_set(p, 1, prof_now(p));
    prof_unlock(p, s);
#endif
}

void aioprof_reopen(aioprof_t *p)
{
#if AIOPROF_SMALL
    (void)prof_event(p, NULL, 0, PROF_REOPEN);
#else
    if (p->pending & AIOPROF_PENDING_OFF) {
        return;
    }
    uint32_t s = prof_lock(p);
    prof_stop_set(p, 0, prof_now(p));
    prof_unlock(p, s);
#endif
}
#endif

/* At a period's end: close the open frame, or send an empty one if nothing went out in this
 * period (the heartbeat: the host sees time pass and no wrap goes unseen); every eighth period a
 * HELLO. Either carries a drop count still owed. */
static void period_end(aioprof_t *p, uint32_t now)
{
    p->deadline = now + period_length(p);
    p->period++;
    if ((p->period & (HELLO_EVERY - 1u)) == 0) {
        p->pending |= AIOPROF_PENDING_HELLO;
    }
    write_pending(p, now);
    if (!p->fw.open && !p->fw.closed) {
        uint32_t n = (p->pending & AIOPROF_PENDING_DROPPED) ? DROPPED_MAX : 0u;
        /* no frame is open here: frame_room opens one if it can */
        if (!frame_room(p, now, n)) {
            /* no room for the heartbeat: the next frame says so (a DROPPED, of no events if none
             * were), so the host does not take the silence for lost frames */
            p->pending |= AIOPROF_PENDING_DROPPED;
        }
    }
    if (p->fw.open) {
        frame_close(p);
    }
    p->fw.closed = 0;
}

/* Drain's work, when there is some (a period over, or committed bytes to offer), inside the
 * critical section s, which it leaves. */
static size_t drain_locked(aioprof_t *p, uint32_t start, int due, uint32_t s)
{
    const aioprof_port_t *port = p->port;
    size_t total = 0;
    int stopped = (p->pending & PROF_STOPPED) != 0;
    if (due && !stopped) {
        period_end(p, start);
    }
    for (;;) {
        const uint8_t *span;
        size_t len = aioprof_fw_pending(&p->fw, &span);
        if (len == 0) {
            break;
        }
        /* the committed bytes do not move while we write them: records are added at the head */
        prof_unlock(p, s);
        size_t n = port->write(port->user, span, len);
        s = prof_lock(p);
        if (n > len) {
            n = len;
        }
#if AIOPROF_SPANS
        /* the open frame's span list stays where it is, as its LATE list does: the budget does
         * not grow under it */
        uint16_t budget = p->fw.budget;
        aioprof_fw_consume(&p->fw, n);
        if (p->span_len) {
            p->fw.budget = budget;
        }
#else
        aioprof_fw_consume(&p->fw, n);
#endif
        total += n;
        if (n < len) {
            break;
        }
    }
    if (total) {
        if (stopped) {
            /* what did not fit when the hook stopped, now that the port took bytes: the next
             * drain sends it */
            write_final(p, start);
        }
        /* a clock that stepped back meanwhile (a difference in the upper half of the range, as the
         * host reads steps back) spent no time here, not most of a wrap */
        uint32_t spent = prof_wrap(p, prof_now(p) - start);
        p->drain_ticks += spent <= p->mask / 2u ? spent : 0u;
    }
    prof_unlock(p, s);
    return total;
}

#if !AIOPROF_SMALL
/* Out of line, so that the drain's common call keeps a small frame. */
static PROF_COLD size_t drain_slow(aioprof_t *p, uint32_t start, int due)
{
    /* a refused start's idle port sends every call here */
    if (p->pending & AIOPROF_PENDING_OFF) {
        return 0;
    }
    return drain_locked(p, start, due, prof_lock(p));
}
#endif

size_t aioprof_drain(aioprof_t *p)
{
#if AIOPROF_SMALL
    return prof_event(p, NULL, 0, PROF_DRAIN);
#else
    uint32_t start = prof_now(p);
    int due = prof_due(p, start);
    /* the common call between two slices: nothing to send, no period over; a frame closed by an
     * interrupt meanwhile waits for the next call */
    if (PROF_LIKELY(!due && p->fw.commit == p->fw.tail)) {
        return 0;
    }
    return drain_slow(p, start, due);
#endif
}

int aioprof_idle(const aioprof_t *p)
{
    /* nothing committed waits when the commit mark is the tail; a refused start leaves the ring
     * empty and closed, and nothing but PENDING_OFF pending */
    return !p->fw.open && (p->pending & (uint8_t)~(AIOPROF_PENDING_STOPPED | AIOPROF_PENDING_OFF)) == 0 &&
        p->fw.commit == p->fw.tail;
}

size_t aioprof_pending(const aioprof_t *p)
{
    const aioprof_fw_t *w = &p->fw;
    return w->commit >= w->tail ? (size_t)(w->commit - w->tail) : (size_t)(w->size - w->tail + w->commit);
}

/* Spans share this file's helpers (its lock, clock and room), so they are compiled as a part of
 * it: nothing of them is built unless AIOPROF_SPANS=1. */
#if AIOPROF_SPANS
#include "aioprof_span.c"
#endif

#if AIOPROF_ALLOC
void aioprof_gc(aioprof_t *p, uint32_t duration)
{
    if ((p->pending & PROF_QUIET) || !p->port->mem) {
        return;
    }
    uint32_t s = prof_lock(p);
    uint32_t now = prof_now(p);
    if (!prof_room(p, now, GC_MAX)) {
        count_drop(p);
    } else {
        /* after the frame's last event (or its base: prof_room may have opened the frame at now);
         * the events' own time line does not move, as with spans */
        uint8_t body[2u * AIOPROF_VARINT_MAX];
        uint32_t n = (uint32_t)aioprof_fw_varint(body, prof_wrap(p, now - p->last));
        n += (uint32_t)aioprof_fw_varint(body + n, duration);
        aioprof_fw_control(&p->fw, AIOPROF_OP_GC, body, n);
    }
    prof_unlock(p, s);
}
#endif
