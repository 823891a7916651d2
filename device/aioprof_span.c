/* The device hook's spans (AIOPROF_SPANS=1): SPAN_NAME, SPAN_ENTER and SPAN_EXIT records
 * (docs/protocol.md, "Spans"). Compiled as a part of aioprof.c, whose helpers it uses; see
 * aioprof.h for the API. A span's time is a dt after the frame's last event, never moving the
 * events' own time line: a reader that predates spans skips the records and reads every event as
 * before. */

#define SPAN_NAME_MAX (CONTROL_HEAD_MAX + AIOPROF_VARINT_MAX + AIOPROF_SPAN_NAME_MAX)
#define SPAN_RECORD_MAX (CONTROL_HEAD_MAX + 2u * AIOPROF_VARINT_MAX)

/* A span record (op ENTER or EXIT; id 0 for an EXIT) at now, inside the critical section s,
 * which it leaves; with the span's name first when it is new or last went sixteen periods ago,
 * and first of all an ALLOC of `amount` (PROF_ALLOC_TAKE's, when not 0): what ran since the last
 * event or span record allocated, so that a reader credits it to the span that was open then
 * (docs/protocol.md, "Memory"). */
static void span_record(aioprof_t *p, unsigned op, aioprof_span_t *sp, uint32_t s, uint32_t amount)
{
    uint32_t now = prof_now(p);
    int name_it = sp && (sp->id == 0 || (uint16_t)(p->period - sp->announced) >= ANNOUNCE_EVERY);
    if (sp && sp->id == 0) {
        if (++p->next_span == 0) {
            p->next_span = 1;
        }
        sp->id = p->next_span;
        sp->name_len = prof_cut(sp->name, sp->name_len, AIOPROF_SPAN_NAME_MAX);
    }
    if (!prof_room(p, now, SPAN_RECORD_MAX + (name_it ? SPAN_NAME_MAX : 0u) + (amount ? ALLOC_MAX : 0u))) {
        count_drop(p);
        if (name_it) {
            sp->announced = (uint16_t)(p->period - ANNOUNCE_EVERY); /* again at its next enter */
        }
#if AIOPROF_ALLOC
        p->alloc_last -= amount; /* not lost: the next event's ALLOC counts it */
#endif
        prof_unlock(p, s);
        return;
    }
    PROF_ALLOC_PUT(p, amount);
    uint8_t body[2u * AIOPROF_VARINT_MAX];
    uint32_t n;
    if (name_it) {
        n = (uint32_t)aioprof_varint_put(body, sp->id);
        aioprof_fw_control_head(&p->fw, AIOPROF_OP_SPAN_NAME, n + sp->name_len);
        aioprof_fw_write(&p->fw, body, n);
        aioprof_fw_write(&p->fw, (const uint8_t *)sp->name, sp->name_len);
        sp->announced = p->period;
    }
    /* after the frame's last event (or its base: prof_room may have opened the frame at now) */
    n = (uint32_t)aioprof_varint_put(body, prof_wrap(p, now - p->last));
    if (sp) {
        n += (uint32_t)aioprof_varint_put(body + n, sp->id);
    }
    aioprof_fw_control(&p->fw, op, body, n);
    prof_unlock(p, s);
}

/* The common case inline (unless AIOPROF_SMALL): nothing owed, the name sent less than sixteen
 * periods ago, room in the open frame, dt under 2^14 ticks (two varint bytes), an id of one byte. Returns 0 to take the general
 * path (the clock read again there: a few ticks later, still after the last event). */
AIOPROF_INLINE int span_fast(aioprof_t *p, unsigned op, const aioprof_span_t *sp, uint32_t now)
{
    uint32_t dt = prof_wrap(p, now - p->last);
    uint32_t id = sp ? sp->id : 0u;
    if (!PROF_FAST_PATH || !PROF_LIKELY(p->pending == 0 && p->fw.budget >= SPAN_RECORD_MAX && dt < 0x4000u &&
        id < 0x80u && (!sp || (id != 0u && (uint16_t)(p->period - sp->announced) < ANNOUNCE_EVERY)))) {
        return 0;
    }
    uint8_t *o = aioprof_fw_at(&p->fw);
    o[0] = (uint8_t)(AIOPROF_TAG_CONTROL | op);
    uint32_t n = 2;
    if (dt < 0x80u) {
        o[n++] = (uint8_t)dt;
    } else {
        o[n++] = (uint8_t)(dt | 0x80u);
        o[n++] = (uint8_t)(dt >> 7);
    }
    if (sp) {
        o[n++] = (uint8_t)id;
    }
    o[1] = (uint8_t)(n - 2u);
    aioprof_fw_advance(&p->fw, n);
    return 1;
}

void aioprof_span_enter(aioprof_t *p, aioprof_span_t *sp)
{
    if (p->pending & (AIOPROF_PENDING_OFF | AIOPROF_PENDING_STOPPED)) {
        return;
    }
    uint32_t s = prof_lock(p);
    uint32_t amount = PROF_ALLOC_TAKE(p);
    if (amount == 0u && span_fast(p, AIOPROF_OP_SPAN_ENTER, sp, prof_now(p))) {
        prof_unlock(p, s);
        return;
    }
    span_record(p, AIOPROF_OP_SPAN_ENTER, sp, s, amount);
}

void aioprof_span_exit(aioprof_t *p)
{
    if (p->pending & (AIOPROF_PENDING_OFF | AIOPROF_PENDING_STOPPED)) {
        return;
    }
    uint32_t s = prof_lock(p);
    uint32_t amount = PROF_ALLOC_TAKE(p);
    if (amount == 0u && span_fast(p, AIOPROF_OP_SPAN_EXIT, NULL, prof_now(p))) {
        prof_unlock(p, s);
        return;
    }
    span_record(p, AIOPROF_OP_SPAN_EXIT, NULL, s, amount);
}
