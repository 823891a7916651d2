/* The device hook's spans (AIOPROF_SPANS=1): SPAN_NAME records, and the frame's span events as
 * one list, its SPANS record (docs/protocol.md, "Spans" and "The span list"). Compiled as a part
 * of aioprof.c, whose helpers it uses; see aioprof.h for the API. A span's time is a dt after the
 * frame's last event, never moving the events' own time line, and the list is a record a reader
 * that predates it skips: such a reader reads every event, and LATE, as before.
 *
 * The list is built in the frame's own space, from its top down, as the LATE list is: above it,
 * newest entry lowest, with its record head's 3 bytes kept back at the top. An entry pushed when
 * the frame has a LATE list moves that list down by the entry's bytes (about one byte per ENTER
 * of the frame so far, a word at a time). At close, the list and LATE trade places (a short LATE
 * list through a buffer of 48 bytes, a longer one by three reversals of at most the frame's space)
 * and move down behind the records: SPANS first, LATE last.
 *
 * A span entered is not written at once: its id and dt wait in the state (PENDING_SPAN), with
 * room kept for its entry. When it closes before anything else is written (a span inside one
 * slice: the common case) the two go as one PAIR entry; anything written first (an event, any
 * record, the frame's end) writes it as an ENTER before it. */

#define SPAN_NAME_MAX (CONTROL_HEAD_MAX + AIOPROF_VARINT_MAX + AIOPROF_SPAN_NAME_MAX)
/* The largest entry: its first byte, a step (a body offset: under 256, two varint bytes), dt, a
 * PAIR's duration, an id. */
#define SPAN_ENTRY_MAX (3u + 3u * AIOPROF_VARINT_MAX)
/* A span waits in the state only when its entry is this small (dt and id under 2^14): the room
 * kept for it, with the list's head when it is the frame's first. */
#define SPAN_PEND_LIMIT 0x4000u
#define SPAN_PEND_ROOM (7u + AIOPROF_SPANS_HEAD_MAX)
#define SPAN_ROOM (SPAN_ENTRY_MAX + AIOPROF_SPANS_HEAD_MAX)
/* A frame's LATE list up to this long trades places with the span list through a buffer on the
 * stack at close; a longer one by three reversals in place. */
#define SPAN_LATE_AT_HAND 48u

/* The bytes of the open frame's LATE list. */
AIOPROF_INLINE uint32_t span_late_len(const aioprof_t *p)
{
#if AIOPROF_LATE
    return p->fw.late_len;
#else
    (void)p;
    return 0u;
#endif
}

/* An entry of kind (AIOPROF_SPAN_ENTRY_*) in e, placed at the open frame's head: its step from the
 * newest entry's place, dt, a PAIR's duration, the id of an ENTER or a PAIR (0 for an EXIT).
 * Returns its length; the list's newest place is its own from now on. */
static uint32_t span_entry(aioprof_t *p, uint8_t *e, unsigned kind, uint32_t dt, uint32_t dur, uint32_t id)
{
    uint32_t step = (uint32_t)p->fw.head - p->span_at; /* a frame never wraps around the ring */
    uint32_t n = 1;
    unsigned first = kind;
    p->span_at = p->fw.head;
    /* (the varints out of line: this is the rare path, and code is RAM for a native module) */
    if (step <= AIOPROF_SPAN_STEP_INLINE_MAX) {
        first |= step << AIOPROF_SPAN_STEP_SHIFT;
    } else {
        first |= 7u << AIOPROF_SPAN_STEP_SHIFT;
        n += (uint32_t)aioprof_fw_varint(e + n, step);
    }
    n += (uint32_t)aioprof_fw_varint(e + n, dt);
    if (kind == AIOPROF_SPAN_ENTRY_PAIR) {
        n += (uint32_t)aioprof_fw_varint(e + n, dur);
    }
    if (id != 0u && id <= AIOPROF_SPAN_ID_INLINE_MAX) {
        first |= id;
    } else if (id != 0u) {
        n += (uint32_t)aioprof_fw_varint(e + n, id);
    }
    e[0] = (uint8_t)first;
    return n;
}

/* n bytes from `from` down to `to` (to < from; they may overlap): a machine word at a time, each
 * loaded before it is stored, so the bytes not read yet (above) are never written first. */
AIOPROF_INLINE void span_down_inline(uint8_t *to, const uint8_t *from, uint32_t n)
{
    uint32_t i = 0;
#if !AIOPROF_SMALL
    for (; i + sizeof(size_t) <= n; i += sizeof(size_t)) {
        size_t v;
        memcpy(&v, from + i, sizeof v);
        memcpy(to + i, &v, sizeof v);
    }
#endif
    for (; i < n; i++) {
        to[i] = from[i];
    }
}

/* The same out of line, for the rare paths (code is RAM for a native module). */
static void span_down(uint8_t *to, const uint8_t *from, uint32_t n)
{
    span_down_inline(to, from, n);
}

/* The room the list takes for an entry of n bytes: with its head's reserve if it is the first. */
AIOPROF_INLINE uint32_t span_room(const aioprof_t *p, uint32_t n)
{
    return n + (p->span_len ? 0u : AIOPROF_SPANS_HEAD_MAX);
}

/* The entry e[0..n) at the bottom of the open frame's list, which has room for it (span_room):
 * the LATE list below it moves down by as much. */
static void span_push(aioprof_t *p, const uint8_t *e, uint32_t n)
{
    aioprof_fw_t *w = &p->fw;
    uint32_t k = span_room(p, n);
    uint8_t *late = w->buf + w->head + w->budget + aioprof_fw_late_reserve(w);
    uint32_t ll = span_late_len(p);
    uint8_t *down = late - k;
    span_down(down, late, ll);
    down += ll;
    for (uint32_t i = 0; i < n; i++) {
        down[i] = e[i];
    }
    w->budget = (uint16_t)(w->budget - k);
    p->span_len = (uint8_t)(p->span_len + k);
}

/* The span waiting in the state goes into the list as an ENTER (its room was kept). */
static void span_flush(aioprof_t *p)
{
    uint8_t e[SPAN_ENTRY_MAX];
    p->pending &= (uint8_t)~AIOPROF_PENDING_SPAN;
    span_push(p, e, span_entry(p, e, AIOPROF_SPAN_ENTRY_ENTER, p->span_pend_dt, 0, p->span_pend_id));
}

/* The span waiting in the state closes at now, nothing written since it opened: one PAIR entry,
 * when the frame has room for it. Returns 0 when it has not (the caller writes an ENTER and an
 * EXIT). */
static int span_pair(aioprof_t *p, uint32_t now)
{
    uint8_t e[SPAN_ENTRY_MAX];
    uint16_t at = p->span_at;
    uint32_t dt = p->span_pend_dt;
    uint32_t dur = prof_wrap(p, now - p->last - dt);
    if (dur > p->mask / 2u) {
        dur = 0; /* the clock stepped back: a span of nothing, not most of a wrap */
    }
    uint32_t n = span_entry(p, e, AIOPROF_SPAN_ENTRY_PAIR, dt, dur, p->span_pend_id);
    if (span_room(p, n) > p->fw.budget) {
        p->span_at = at;
        return 0;
    }
    p->pending &= (uint8_t)~AIOPROF_PENDING_SPAN;
    span_push(p, e, n);
    return 1;
}

/* n bytes from `from` to `to`, which may overlap (device code has no memmove). Down, a word at a
 * time (each word loaded before it is stored: the bytes not read yet lie above what is written). */
static void span_move(uint8_t *to, const uint8_t *from, uint32_t n)
{
    if (to < from) {
        span_down(to, from, n);
    } else {
        while (n-- > 0) {
            to[n] = from[n];
        }
    }
}

static void span_reverse(uint8_t *a, uint32_t n)
{
    for (uint32_t i = 0, j = n; i + 1u < j; i++) {
        uint8_t b = a[i];
        a[i] = a[--j];
        a[j] = b;
    }
}

/* The frame closes: its list becomes the SPANS record after its records, and its LATE list (if
 * any) stays where the writer's close looks for it, at the top of the frame's space. */
static void span_list_close(aioprof_t *p)
{
    aioprof_fw_t *w = &p->fw;
    uint32_t ll = span_late_len(p);
    uint32_t len = p->span_len - AIOPROF_SPANS_HEAD_MAX;
    uint8_t *late = w->buf + w->head + w->budget + aioprof_fw_late_reserve(w);
    uint8_t *top = late + ll + p->span_len;
    uint8_t *list = late + ll;
    if (ll > SPAN_LATE_AT_HAND) {
        /* [LATE][entries, reserve] becomes [entries, reserve][LATE] */
        span_reverse(late, ll);
        span_reverse(list, p->span_len);
        span_reverse(late, ll + p->span_len);
        list = late;
    } else if (ll) {
        /* the same for a short LATE list (most: a byte per ENTER of the frame), through a buffer:
         * the entries move down once, and LATE goes to the top */
        uint8_t at_hand[SPAN_LATE_AT_HAND];
        memcpy(at_hand, late, ll);
        span_down(late, list, p->span_len);
        memcpy(top - ll, at_hand, ll);
        list = late;
    }
    /* the entries first: with no room left between, the head goes where they were */
    uint8_t *o = aioprof_fw_at(w);
    uint32_t h = len < 0x80u ? 2u : 3u;
    span_move(o + h, list, len);
    o[0] = (uint8_t)(AIOPROF_TAG_CONTROL | AIOPROF_OP_SPANS);
    aioprof_fw_encode_varint(o, 1, len);
    w->head = (uint16_t)(w->head + h + len);
    /* the LATE list lies at the top now: the budget that puts it where the close reads it */
    w->budget = ll ? (uint16_t)(top - ll - AIOPROF_LATE_HEAD_MAX - (w->buf + w->head)) : 0u;
    p->span_len = 0;
}

/* The general path of span_enter (sp) and span_exit (sp NULL), inside the critical section s,
 * which it leaves: the span's name first when it is new or last went sixteen periods ago; a
 * frame opened or closed for room; a drop counted without it. First of all an ALLOC of `amount`
 * (PROF_ALLOC_TAKE's, when not 0): what ran since the last event or span record allocated, so
 * that a reader credits it to the span that was open then (docs/protocol.md, "Memory"); the span
 * event's place in the list is after it. A span that allocated cannot close as a PAIR: its
 * ENTER goes into the list before the ALLOC, its EXIT after. */
static PROF_COLD void span_slow(aioprof_t *p, aioprof_span_t *sp, uint32_t s, uint32_t amount)
{
    uint32_t now = prof_now(p);
    if (!sp && amount == 0u && (p->pending & AIOPROF_PENDING_SPAN) && span_pair(p, now)) {
        prof_unlock(p, s);
        return;
    }
    int name_it = sp && (sp->id == 0 || (uint16_t)(p->period - sp->announced) >= ANNOUNCE_EVERY);
    if (sp && sp->id == 0) {
        if (++p->next_span == 0) {
            p->next_span = 1;
        }
        sp->id = p->next_span;
        sp->name_len = prof_cut(sp->name, sp->name_len, AIOPROF_SPAN_NAME_MAX);
    }
    /* a span waiting in the state is written first (prof_room does it) */
    if (!prof_room(p, now, SPAN_ROOM + (name_it ? SPAN_NAME_MAX : 0u) + (amount ? ALLOC_MAX : 0u))) {
        count_drop(p);
#if AIOPROF_ALLOC
        p->alloc_last -= amount; /* not lost: the next event's ALLOC counts it */
#endif
        if (name_it) {
            sp->announced = (uint16_t)(p->period - ANNOUNCE_EVERY); /* again at its next enter */
        }
        prof_unlock(p, s);
        return;
    }
    PROF_ALLOC_PUT(p, amount);
    if (name_it) {
        uint8_t id[AIOPROF_VARINT_MAX];
        uint32_t n = (uint32_t)aioprof_fw_varint(id, sp->id);
        aioprof_fw_control_head(&p->fw, AIOPROF_OP_SPAN_NAME, n + sp->name_len);
        aioprof_fw_write(&p->fw, id, n);
        aioprof_fw_write(&p->fw, (const uint8_t *)sp->name, sp->name_len);
        sp->announced = p->period;
    }
    /* after the frame's last event (or its base: prof_room may have opened the frame at now) */
    uint32_t dt = prof_wrap(p, now - p->last);
    if (sp && dt < SPAN_PEND_LIMIT && sp->id < SPAN_PEND_LIMIT) {
        p->span_pend_id = (uint16_t)sp->id;
        p->span_pend_dt = (uint16_t)dt;
        p->pending |= AIOPROF_PENDING_SPAN;
    } else {
        uint8_t e[SPAN_ENTRY_MAX];
        span_push(p, e, span_entry(p, e, sp ? AIOPROF_SPAN_ENTRY_ENTER : AIOPROF_SPAN_ENTRY_EXIT, dt, 0,
            sp ? sp->id : 0u));
    }
    prof_unlock(p, s);
}

void aioprof_span_enter(aioprof_t *p, aioprof_span_t *sp)
{
    if (p->pending & PROF_QUIET) {
        return;
    }
    uint32_t s = prof_lock(p);
    uint32_t amount = PROF_ALLOC_TAKE(p);
    uint32_t dt = prof_wrap(p, prof_now(p) - p->last);
    /* the common case (unless AIOPROF_SMALL): nothing owed, waiting or allocated, the name sent
     * less than sixteen periods ago, room kept for the entry: the span waits in the state */
    if (PROF_FAST_PATH && PROF_LIKELY(p->pending == 0 && amount == 0u && p->fw.budget >= SPAN_PEND_ROOM && dt < SPAN_PEND_LIMIT &&
        sp->id - 1u < SPAN_PEND_LIMIT - 1u && (uint16_t)(p->period - sp->announced) < ANNOUNCE_EVERY)) {
        p->span_pend_id = (uint16_t)sp->id;
        p->span_pend_dt = (uint16_t)dt;
        p->pending = AIOPROF_PENDING_SPAN;
        prof_unlock(p, s);
        return;
    }
    span_slow(p, sp, s, amount);
}

void aioprof_span_exit(aioprof_t *p)
{
    if (p->pending & PROF_QUIET) {
        return;
    }
    uint32_t s = prof_lock(p);
    uint32_t amount = PROF_ALLOC_TAKE(p);
    /* the common case: the span entered last closes, nothing written or allocated since, every
     * field small: one PAIR entry of 3 or 4 bytes, written in place (the room its enter kept holds
     * it, and the list's head if it is the frame's first) */
    if (PROF_FAST_PATH && PROF_LIKELY(p->pending == AIOPROF_PENDING_SPAN && amount == 0u)) {
        uint32_t dur = prof_wrap(p, prof_now(p) - p->last - p->span_pend_dt);
        aioprof_fw_t *w = &p->fw;
        uint32_t step = (uint32_t)w->head - p->span_at;
        uint32_t dt = p->span_pend_dt, id = p->span_pend_id;
        if (PROF_LIKELY(step <= AIOPROF_SPAN_STEP_INLINE_MAX && dt < 0x80u && dur < 0x4000u &&
            id <= AIOPROF_SPAN_ID_INLINE_MAX)) {
            uint32_t two = dur >= 0x80u;
            uint32_t k = span_room(p, 3u + two);
            uint8_t *late = w->buf + w->head + w->budget + aioprof_fw_late_reserve(w);
            uint32_t ll = span_late_len(p);
            uint8_t *down = late - k;
            if (ll) {
                span_down_inline(down, late, ll);
                down += ll;
            }
            down[0] = (uint8_t)(AIOPROF_SPAN_ENTRY_PAIR | step << AIOPROF_SPAN_STEP_SHIFT | id);
            down[1] = (uint8_t)dt;
            down[2] = (uint8_t)(dur | two << 7);
            if (two) {
                down[3] = (uint8_t)(dur >> 7);
            }
            w->budget = (uint16_t)(w->budget - k);
            p->span_len = (uint8_t)(p->span_len + k);
            p->span_at = w->head;
            p->pending = 0;
            prof_unlock(p, s);
            return;
        }
    }
    span_slow(p, NULL, s, amount);
}
