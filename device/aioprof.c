/* The device hook: records task events into a ring of ready-to-send frames. See aioprof.h. */
#include "aioprof.h"

#include <string.h>

#include "aioprof_varint.h"

/* Largest record bodies (before COBS) the hot paths write. */
#define ENTER_MAX (1u + 2u * AIOPROF_VARINT_MAX)
#define EXIT_MAX (1u + AIOPROF_VARINT_MAX)
#define CONTROL_HEAD_MAX (1u + 1u)              /* tag, a one-byte length (bodies < 128) */
#define TASK_BODY_MAX (3u * AIOPROF_VARINT_MAX + AIOPROF_NAME_MAX)
#define HELLO_BODY_MAX (7u * AIOPROF_VARINT_MAX + 3u + AIOPROF_PLATFORM_MAX)
#define DROPPED_MAX (CONTROL_HEAD_MAX + AIOPROF_VARINT_MAX)
#define MIN_RING 128u

static inline uint32_t prof_lock(const aioprof_t *p)
{
    return p->port->lock ? p->port->lock(p->port->user) : 0u;
}

static inline void prof_unlock(const aioprof_t *p, uint32_t state)
{
    if (p->port->unlock) {
        p->port->unlock(p->port->user, state);
    }
}

static inline uint32_t prof_now(const aioprof_t *p)
{
    return p->port->ticks(p->port->user) & p->mask;
}

static void frame_close(aioprof_t *p, uint32_t now)
{
    aioprof_fw_close(&p->fw);
    p->last_close = now;
}

static void frame_open(aioprof_t *p, uint32_t now)
{
    aioprof_fw_open(&p->fw, p->seq++, p->format, now, p->current ? p->current->id : 0u);
    p->frame_start = now;
    p->last = now;
}

/* Makes sure a record of up to n body bytes can be written: in the open frame if it fits, else in
 * a new one. Returns 0 when the ring has no room (the caller counts a drop). The reserve for
 * closing is always kept, so the frame already written is never lost. */
static int frame_room(aioprof_t *p, uint32_t now, uint32_t n)
{
    aioprof_fw_t *w = &p->fw;
    uint32_t need = AIOPROF_FW_RECORD_COST(n) + AIOPROF_FW_CLOSE_COST;
    if (w->open) {
        if (w->body_len + n + 2u <= AIOPROF_BODY_MAX && aioprof_fw_room(w) >= need) {
            return 1;
        }
        frame_close(p, now);
    }
    if (aioprof_fw_room(w) < AIOPROF_FW_OPEN_COST + need) {
        return 0;
    }
    frame_open(p, now);
    return 1;
}

static uint32_t task_body_len(const aioprof_task_t *t)
{
    return (uint32_t)(aioprof_varint_len(t->id) + aioprof_varint_len(t->parent) + 1u + t->name_len +
        t->label_len);
}

static void write_task(aioprof_t *p, unsigned op, const aioprof_task_t *t)
{
    aioprof_fw_t *w = &p->fw;
    aioprof_fw_put(w, (uint8_t)(AIOPROF_TAG_CONTROL | op));
    aioprof_fw_varint(w, task_body_len(t));
    aioprof_fw_varint(w, t->id);
    aioprof_fw_varint(w, t->parent);
    aioprof_fw_put(w, t->name_len);
    for (unsigned i = 0; i < t->name_len; i++) {
        aioprof_fw_put(w, (uint8_t)t->name[i]);
    }
    for (unsigned i = 0; i < t->label_len; i++) {
        aioprof_fw_put(w, (uint8_t)t->label[i]);
    }
}

static uint32_t drain_us(const aioprof_t *p)
{
    uint32_t hz = p->port->tick_hz;
    if (hz == 1000000u || hz == 0u) {
        return p->drain_ticks;
    }
    return (uint32_t)((uint64_t)p->drain_ticks * 1000000u / hz);
}

static void write_hello(aioprof_t *p, unsigned flags)
{
    uint8_t body[HELLO_BODY_MAX];
    size_t n = 0;
    const char *platform = p->port->platform ? p->port->platform : "";
    n += aioprof_varint_put(body + n, AIOPROF_PROTOCOL_VERSION);
    n += aioprof_varint_put(body + n, p->port->tick_hz);
    body[n++] = p->port->tick_bits;
    n += aioprof_varint_put(body + n, p->fw.size);
    body[n++] = (uint8_t)flags;
    n += aioprof_varint_put(body + n, p->boot_ticks);
    n += aioprof_varint_put(body + n, drain_us(p));
    n += aioprof_varint_put(body + n, p->dropped_total);
    size_t platform_len = 0;
    while (platform_len < AIOPROF_PLATFORM_MAX && platform[platform_len] != '\0') {
        platform_len++;
    }
    body[n++] = (uint8_t)platform_len;
    memcpy(body + n, platform, platform_len);
    n += platform_len;
    aioprof_fw_control(&p->fw, AIOPROF_OP_HELLO, body, n);
}

/* HELLO and DROPPED go before any event once there is room. Returns 0 while something is still
 * waiting: events must then be dropped too, or the count would arrive after them. */
static int write_pending(aioprof_t *p, uint32_t now)
{
    if (p->hello_due) {
        if (!frame_room(p, now, CONTROL_HEAD_MAX + HELLO_BODY_MAX)) {
            return 0;
        }
        write_hello(p, p->hello_due - 1u);
        p->hello_due = 0;
    }
    if (p->dropped) {
        uint8_t body[AIOPROF_VARINT_MAX];
        if (!frame_room(p, now, DROPPED_MAX)) {
            return 0;
        }
        aioprof_fw_control(&p->fw, AIOPROF_OP_DROPPED, body, aioprof_varint_put(body, p->dropped));
        p->dropped = 0;
    }
    return 1;
}

static inline void count_drop(aioprof_t *p)
{
    p->dropped++;
    p->dropped_total++;
}

int aioprof_init(aioprof_t *p, const aioprof_port_t *port, uint8_t *ring, uint32_t ring_size)
{
    memset(p, 0, sizeof *p);
    if (!port || !port->ticks || !port->write || !ring || ring_size < MIN_RING || port->tick_bits < 8 ||
        port->tick_bits > 32) {
        return -1;
    }
    p->port = port;
    p->mask = port->tick_bits == 32 ? 0xFFFFFFFFu : (1u << port->tick_bits) - 1u;
    p->format = AIOPROF_FORMAT(port->tick_bits);
    aioprof_fw_init(&p->fw, ring, ring_size);
    uint32_t now = prof_now(p);
    p->boot_ticks = now;
    p->last = p->frame_start = p->last_close = p->period_start = p->hello_last = now;
    p->hello_due = 1u + AIOPROF_HELLO_FLAG_BOOT;
    return 0;
}

void aioprof_task_created(aioprof_t *p, aioprof_task_t *t, const char *name, size_t name_len)
{
    if (!p->port) {
        return;
    }
    uint32_t s = prof_lock(p);
    uint32_t now = prof_now(p);
    if (++p->next_id == 0) {
        p->next_id = 1;
    }
    t->id = p->next_id;
    t->parent = p->current ? p->current->id : 0u;
    t->outer = NULL;
    t->name = name;
    t->name_len = (uint8_t)(name_len < AIOPROF_NAME_MAX ? name_len : AIOPROF_NAME_MAX);
    t->label = NULL;
    t->label_len = 0;
    t->announced = p->period;
    if (write_pending(p, now) && frame_room(p, now, CONTROL_HEAD_MAX + TASK_BODY_MAX)) {
        write_task(p, AIOPROF_OP_TASK_NEW, t);
    } else {
        count_drop(p);
        t->announced = (uint16_t)(p->period - 1u);
    }
    prof_unlock(p, s);
}

void aioprof_task_label(aioprof_t *p, aioprof_task_t *t, const char *label, size_t label_len)
{
    if (!p->port) {
        return;
    }
    uint32_t s = prof_lock(p);
    size_t room = AIOPROF_NAME_MAX - t->name_len;
    t->label = label;
    t->label_len = (uint8_t)(label_len < room ? label_len : room);
    /* sent with its name at the task's next enter */
    t->announced = (uint16_t)(p->period - 1u);
    prof_unlock(p, s);
}

void aioprof_enter(aioprof_t *p, aioprof_task_t *t)
{
    if (!p->port) {
        return;
    }
    uint32_t s = prof_lock(p);
    uint32_t now = prof_now(p);
    uint32_t n = ENTER_MAX;
    int announce = t->announced != p->period;
    if (announce) {
        n += CONTROL_HEAD_MAX + TASK_BODY_MAX;
    }
    if (write_pending(p, now) && frame_room(p, now, n)) {
        if (announce) {
            write_task(p, AIOPROF_OP_TASK_INFO, t);
            t->announced = p->period;
        }
        aioprof_fw_enter(&p->fw, t->id, (now - p->last) & p->mask);
        p->last = now;
    } else {
        count_drop(p);
    }
    t->outer = p->current;
    p->current = t;
    prof_unlock(p, s);
}

void aioprof_exit(aioprof_t *p, aioprof_task_t *t, unsigned kind)
{
    if (!p->port) {
        return;
    }
    uint32_t s = prof_lock(p);
    uint32_t now = prof_now(p);
    if (write_pending(p, now) && frame_room(p, now, EXIT_MAX)) {
        aioprof_fw_exit(&p->fw, kind & 3u, (now - p->last) & p->mask);
        p->last = now;
    } else {
        count_drop(p);
    }
    p->current = t->outer;
    t->outer = NULL;
    prof_unlock(p, s);
}

void aioprof_flush(aioprof_t *p)
{
    if (!p->port) {
        return;
    }
    uint32_t s = prof_lock(p);
    if (p->fw.open) {
        frame_close(p, prof_now(p));
    }
    prof_unlock(p, s);
}

static uint32_t interval(const aioprof_t *p, uint32_t ticks, uint32_t seconds)
{
    uint64_t v = ticks ? ticks : (uint64_t)p->port->tick_hz * seconds;
    return v > p->mask / 2u ? p->mask / 2u : (uint32_t)v;
}

/* The timed duties: announcement periods, the periodic HELLO, closing old frames, the heartbeat. */
static void drain_duties(aioprof_t *p, uint32_t now)
{
    const aioprof_port_t *port = p->port;
    if (((now - p->period_start) & p->mask) >= interval(p, port->announce_ticks, 1)) {
        p->period++;
        p->period_start = now;
    }
    if (((now - p->hello_last) & p->mask) >= interval(p, port->hello_ticks, 5)) {
        p->hello_last = now;
        if (!p->hello_due) {
            p->hello_due = 1;
        }
    }
    write_pending(p, now);
    /* a frame goes out at least once a second: the host sees time pass, and no wrap goes unseen */
    uint32_t quiet = (now - p->last_close) & p->mask;
    uint32_t heartbeat = interval(p, 0, 1);
    if (p->fw.open) {
        if (quiet >= heartbeat || ((now - p->frame_start) & p->mask) >= interval(p, port->flush_ticks, 1)) {
            frame_close(p, now);
        }
    } else if (quiet >= heartbeat && aioprof_fw_room(&p->fw) >= AIOPROF_FW_OPEN_COST + AIOPROF_FW_CLOSE_COST) {
        frame_open(p, now);
        frame_close(p, now);
    }
}

size_t aioprof_drain(aioprof_t *p)
{
    if (!p->port) {
        return 0;
    }
    const aioprof_port_t *port = p->port;
    size_t total = 0;
    uint32_t s = prof_lock(p);
    uint32_t start = prof_now(p);
    drain_duties(p, start);
    for (;;) {
        const uint8_t *span[2];
        size_t span_len[2];
        if (aioprof_fw_pending(&p->fw, span, span_len) == 0) {
            break;
        }
        /* the committed bytes do not move while we write them: recording only adds at the head */
        prof_unlock(p, s);
        size_t n = port->write(port->user, span[0], span_len[0]);
        s = prof_lock(p);
        if (n > span_len[0]) {
            n = span_len[0];
        }
        aioprof_fw_consume(&p->fw, n);
        total += n;
        if (n < span_len[0]) {
            break;
        }
    }
    p->drain_ticks += (prof_now(p) - start) & p->mask;
    prof_unlock(p, s);
    return total;
}

size_t aioprof_pending(const aioprof_t *p)
{
    const uint8_t *span[2];
    size_t span_len[2];
    if (!p->port) {
        return 0;
    }
    unsigned n = aioprof_fw_pending(&p->fw, span, span_len);
    return (n > 0 ? span_len[0] : 0) + (n > 1 ? span_len[1] : 0);
}
