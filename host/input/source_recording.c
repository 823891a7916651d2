/* The recording reader (source_recording.h): chunks from memory, checked as a chain, damage
 * skipped over by looking for the next place where chunks follow each other intact. */
#include "source_recording.h"

#include <string.h>

#include "recording.h"

enum { ST_HEADER, ST_CHUNK, ST_DATA, ST_AFTER_END, ST_TRAILING, ST_DONE };
enum { NO, YES, MORE, SHORT };

/* While a damaged stretch is longer than the window, its search resumes this far before the
 * window's end, so that a chain starting there is not missed. */
#define RECORDING_SEARCH_KEEP (RECORDING_CHAIN * RECORDING_CHUNK_HEAD_MAX)

typedef struct head {
    unsigned type;
    uint64_t time_us;
    uint64_t len;
    size_t size; /* of the header */
} head_t;

void recording_reader_init(recording_reader_t *r)
{
    memset(r, 0, sizeof *r);
    r->state = ST_HEADER;
}

/* "More" is only an answer while more can come: at the end of the file, or with the window as
 * full as it gets, what is there decides. */
static int more_or(int eof, int full, int otherwise)
{
    return eof || full ? otherwise : MORE;
}

static size_t min_size(uint64_t a, size_t b)
{
    return a < b ? (size_t)a : b;
}

/* Times are the file's word: a sum that would wrap stays at the largest instead, never going back. */
static uint64_t add_time(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* The recording magic at w[pos]? */
static int magic_at(const uint8_t *w, size_t len, size_t pos, int eof, int full)
{
    size_t have = min_size(len - pos, RECORDING_MAGIC_LEN);
    if (memcmp(w + pos, RECORDING_MAGIC, have) != 0) {
        return NO;
    }
    return have == RECORDING_MAGIC_LEN ? YES : more_or(eof, full, NO);
}

/* A chunk header at w[pos] that can be one: a known type, whole varints, no data but in DATA, and
 * at most RECORDING_CHUNK_DATA_MAX of it. SHORT: the window ends inside it. */
static int head_at(const uint8_t *w, size_t len, size_t pos, head_t *h)
{
    size_t avail = len - pos;
    if (avail == 0) {
        return SHORT;
    }
    h->type = w[pos];
    if (h->type < RECORDING_CHUNK_DATA || h->type > RECORDING_CHUNK_END) {
        return NO;
    }
    int a = recording_varint_get(w + pos + 1, avail - 1, &h->time_us);
    int b = a > 0 ? recording_varint_get(w + pos + 1 + a, avail - 1 - (size_t)a, &h->len) : a;
    if (a == 0 || b == 0) {
        return SHORT;
    }
    if (a < 0 || b < 0 || h->len > RECORDING_CHUNK_DATA_MAX || (h->type != RECORDING_CHUNK_DATA && h->len != 0)) {
        return NO;
    }
    h->size = 1 + (size_t)a + (size_t)b;
    return YES;
}

/* Do `depth` chunks follow each other from w[pos], their times never decreasing from t_min? A
 * chain also ends well at an END chunk, where a concatenated recording begins, and at the end of
 * the file (a last chunk cut off is judged when it is reached). */
static int chain_at(const uint8_t *w, size_t len, size_t pos, int eof, int full, uint64_t t_min, int depth)
{
    for (int i = 0; i < depth; i++) {
        if (pos >= len) {
            return i == 0 ? more_or(eof, full, NO) : more_or(eof, full, YES);
        }
        if (i > 0) {
            int m = magic_at(w, len, pos, eof, full);
            if (m != NO) {
                return m;
            }
        }
        head_t h;
        int r = head_at(w, len, pos, &h);
        if (r == SHORT) {
            return more_or(eof, full, i > 0 ? YES : NO);
        }
        if (r == NO || h.time_us < t_min) {
            return NO;
        }
        if (h.type == RECORDING_CHUNK_END) {
            return YES;
        }
        t_min = h.time_us;
        pos += h.size + (size_t)h.len;
    }
    return YES;
}

/* The first place at or after `from` where a recording header or an intact chain begins: found
 * (YES, *at), MORE (the search resumes where it stopped when more bytes come), or NO (none in a
 * window that will not grow). */
static int search(recording_reader_t *r, const uint8_t *w, size_t len, size_t from, int eof, int full,
    uint64_t t_min, size_t *at)
{
    size_t q = r->search_at > from ? r->search_at : from;
    for (; q < len; q++) {
        int m = magic_at(w, len, q, eof, full);
        int c = m == NO ? chain_at(w, len, q, eof, full, t_min, RECORDING_CHAIN) : m;
        if (c == YES) {
            r->search_at = 0;
            *at = q;
            return YES;
        }
        if (c == MORE) {
            r->search_at = q;
            return MORE;
        }
    }
    /* none so far: while more can come, the search goes on from here with it */
    r->search_at = len;
    return more_or(eof, full, NO);
}

static recording_step_t step_of(recording_step_kind_t kind, size_t used)
{
    recording_step_t st;
    memset(&st, 0, sizeof st);
    st.kind = kind;
    st.used = used;
    return st;
}

/* The first bytes of a chunk's data or of a damaged stretch, at w[at]; the rest comes in ST_DATA. */
static recording_step_t give_first(recording_reader_t *r, size_t len, size_t at, uint64_t n, int damaged, size_t max)
{
    recording_step_t st = step_of(RECORDING_STEP_BYTES, 0);
    r->state = ST_DATA;
    r->data_damaged = damaged;
    st.data_at = at;
    st.data_len = min_size(n, min_size(len - at, max));
    st.used = at + st.data_len;
    st.time_us = r->chunk_us;
    st.first = 1;
    st.damaged = damaged;
    r->data_left = n - st.data_len;
    if (r->data_left == 0) {
        r->state = ST_CHUNK;
    }
    return st;
}

/* Bytes from `start` on could not be read as chunks: up to the next intact place (or, when none is
 * in a full window, most of the window) they are given as damaged port bytes. */
static recording_step_t damage(recording_reader_t *r, const uint8_t *w, size_t len, size_t start, int eof, int full,
    size_t max)
{
    size_t q;
    int found = search(r, w, len, start > 0 ? start : 1, eof, full, r->last_us, &q);
    if (found == MORE) {
        return step_of(RECORDING_STEP_MORE, 0);
    }
    int longer = 0;
    if (found == NO) {
        q = len;
        if (!eof && len > start + RECORDING_SEARCH_KEEP) {
            /* the stretch goes on past the window: give most of it, look again from there */
            q = len - RECORDING_SEARCH_KEEP;
            longer = 1;
        }
        r->search_at = 0;
    }
    int fresh = !r->continuing;
    if (fresh) {
        if (r->damaged == 0) {
            r->first_damage_at = r->offset + start;
        }
        r->damaged++;
    }
    r->continuing = longer;
    r->damaged_bytes += q - start;
    r->chunk_us = add_time(r->base_us, r->last_us); /* no time of its own: no pacing jump either */
    recording_step_t st = give_first(r, len, start, q - start, 1, max);
    st.first = fresh;
    return st;
}

static recording_step_t chunk_step(recording_reader_t *r, const uint8_t *w, size_t len, int eof, int full, size_t max)
{
    if (len == 0) {
        if (!eof) {
            return step_of(RECORDING_STEP_MORE, 0);
        }
        r->state = ST_DONE;
        return step_of(RECORDING_STEP_END, 0); /* without an END chunk */
    }
    int m = magic_at(w, len, 0, eof, full);
    if (m == MORE) {
        return step_of(RECORDING_STEP_MORE, 0);
    }
    if (m == YES) {
        r->state = ST_HEADER; /* a recording follows one that did not end cleanly */
        r->clean_end = 0;
        return step_of(RECORDING_STEP_NONE, 0);
    }
    head_t h;
    int hr = head_at(w, len, 0, &h);
    if (hr == SHORT && !eof && !full) {
        return step_of(RECORDING_STEP_MORE, 0);
    }
    if (hr == SHORT && eof) {
        r->cut = 1; /* inside a chunk's header */
        r->state = ST_DONE;
        return step_of(RECORDING_STEP_END, len);
    }
    /* In the flow of intact chunks this header was checked as the one after the last: it is
     * taken when the one after it can be a header too (a longer chain is for finding a place). */
    int ok = hr == YES && h.time_us >= r->last_us;
    int c = ok ? chain_at(w, len, 0, eof, full, r->last_us, 2) : NO;
    if (c == MORE) {
        return step_of(RECORDING_STEP_MORE, 0);
    }
    if (c == YES && h.type == RECORDING_CHUNK_DATA && eof && h.size + h.len > len) {
        /* its data runs past the end of the file: cut off, unless an intact chain starts inside
         * it, which means its length is what is damaged */
        size_t q;
        if (search(r, w, len, h.size, eof, full, h.time_us, &q) == YES) {
            c = NO;
        }
        r->search_at = 0;
    }
    if (c != YES) {
        /* a header that can be one keeps its place; only what follows it is in doubt */
        return damage(r, w, len, ok ? h.size : 0, eof, full, max);
    }
    r->continuing = 0;
    r->last_us = h.time_us;
    r->chunk_us = add_time(r->base_us, h.time_us);
    recording_step_t st;
    switch (h.type) {
    case RECORDING_CHUNK_DATA:
        return give_first(r, len, h.size, h.len, 0, max);
    case RECORDING_CHUNK_LINK_DOWN:
        st = step_of(RECORDING_STEP_DOWN, h.size);
        break;
    case RECORDING_CHUNK_LINK_UP:
        st = step_of(RECORDING_STEP_UP, h.size);
        break;
    default:
        r->state = ST_AFTER_END;
        r->clean_end = 1;
        st = step_of(RECORDING_STEP_NONE, h.size);
        break;
    }
    st.time_us = r->chunk_us;
    return st;
}

/* After an END chunk: the end of the file, a concatenated recording, chunks after all (the END was
 * a damaged byte), or bytes that are none of these. */
static recording_step_t after_end_step(recording_reader_t *r, const uint8_t *w, size_t len, int eof, int full)
{
    if (len == 0) {
        if (!eof) {
            return step_of(RECORDING_STEP_MORE, 0);
        }
        r->state = ST_DONE;
        return step_of(RECORDING_STEP_END, 0);
    }
    int m = magic_at(w, len, 0, eof, full);
    int c = m == NO ? chain_at(w, len, 0, eof, full, r->last_us, RECORDING_CHAIN) : m;
    if (c == MORE) {
        return step_of(RECORDING_STEP_MORE, 0);
    }
    if (m == YES) {
        r->state = ST_HEADER;
        return step_of(RECORDING_STEP_NONE, 0);
    }
    if (c == YES) {
        /* not the end: the END chunk was a damaged one, and there is no telling what it was */
        if (r->damaged == 0) {
            r->first_damage_at = r->offset;
        }
        r->damaged++;
        r->clean_end = 0;
        r->state = ST_CHUNK;
        recording_step_t st = step_of(RECORDING_STEP_BYTES, 0);
        st.first = st.damaged = 1;
        st.time_us = r->chunk_us;
        return st;
    }
    r->state = ST_TRAILING;
    r->trailing_at = r->offset;
    return step_of(RECORDING_STEP_NONE, 0);
}

/* A recording's header: the first one (errors are the caller's to say), or one concatenated. */
static recording_step_t header_step(recording_reader_t *r, const uint8_t *w, size_t len, int eof, int full)
{
    int first = r->recordings == 0;
    if (len < RECORDING_HEADER_FIXED && !eof && !full) {
        return step_of(RECORDING_STEP_MORE, 0);
    }
    if (memcmp(w, RECORDING_MAGIC, min_size(len, RECORDING_MAGIC_LEN)) != 0) {
        r->error = RECORDING_NOT_A_RECORDING;
        goto unreadable;
    }
    if (len < RECORDING_HEADER_FIXED) {
        r->error = RECORDING_HEADER_CUT;
        goto unreadable;
    }
    r->version = (unsigned)w[8] | (unsigned)w[9] << 8;
    if (r->version != RECORDING_VERSION) {
        r->error = RECORDING_BAD_VERSION;
        goto unreadable;
    }
    uint32_t meta_len = 0;
    for (unsigned i = 0; i < 4; i++) {
        meta_len |= (uint32_t)w[10 + i] << (8 * i);
    }
    size_t used = RECORDING_HEADER_FIXED + (size_t)meta_len;
    int fits = meta_len <= RECORDING_METADATA_MAX && used <= len;
    if (!fits && meta_len <= RECORDING_METADATA_MAX && !eof && !full) {
        return step_of(RECORDING_STEP_MORE, 0);
    }
    size_t data_len = meta_len;
    if (!fits) {
        /* a length that cannot be right: the chunks begin where the first intact chain does */
        size_t q;
        int found = search(r, w, len, RECORDING_HEADER_FIXED, eof, full, 0, &q);
        if (found == MORE) {
            return step_of(RECORDING_STEP_MORE, 0);
        }
        if (found == NO) {
            r->error = RECORDING_HEADER_CUT;
            goto unreadable;
        }
        if (r->damaged == 0) {
            r->first_damage_at = r->offset + RECORDING_HEADER_FIXED;
        }
        r->damaged++;
        r->damaged_bytes += q - RECORDING_HEADER_FIXED;
        used = q;
        data_len = 0;
    }
    recording_step_t st = step_of(RECORDING_STEP_HEADER, used);
    st.data_at = RECORDING_HEADER_FIXED;
    st.data_len = data_len;
    st.concatenated = !first;
    /* a concatenated recording's times start again at 0: they follow on from where the last ended */
    r->base_us = add_time(r->base_us, r->last_us);
    r->last_us = 0;
    r->chunk_us = r->base_us;
    st.time_us = r->base_us;
    r->recordings++;
    r->state = ST_CHUNK;
    r->clean_end = 0; /* this recording's own END says, not the one before it */
    return st;

unreadable:
    if (first) {
        r->state = ST_DONE;
        return step_of(RECORDING_STEP_ERROR, 0);
    }
    /* a later recording that cannot be read is not read: the rest counts as after the end */
    r->error = RECORDING_OK;
    r->state = ST_TRAILING;
    r->trailing_at = r->offset;
    return step_of(RECORDING_STEP_NONE, 0);
}

recording_step_t recording_reader_step(recording_reader_t *r, const uint8_t *w, size_t len, int eof, int full,
    size_t max)
{
    recording_step_t st;
    if (max == 0) {
        max = 1;
    }
    switch (r->state) {
    case ST_HEADER:
        st = header_step(r, w, len, eof, full);
        break;
    case ST_CHUNK:
        st = chunk_step(r, w, len, eof, full, max);
        break;
    case ST_DATA:
        if (r->data_left == 0) {
            r->state = ST_CHUNK;
            st = step_of(RECORDING_STEP_NONE, 0);
        } else if (len == 0) {
            if (eof) {
                r->cut = !r->data_damaged;
                r->state = ST_DONE;
                st = step_of(RECORDING_STEP_END, 0);
            } else {
                st = step_of(RECORDING_STEP_MORE, 0);
            }
        } else {
            st = step_of(RECORDING_STEP_BYTES, 0);
            st.data_len = min_size(r->data_left, min_size(len, max));
            st.used = st.data_len;
            st.damaged = r->data_damaged;
            st.time_us = r->chunk_us;
            r->data_left -= st.data_len;
        }
        break;
    case ST_AFTER_END:
        st = after_end_step(r, w, len, eof, full);
        break;
    case ST_TRAILING:
        r->trailing += len;
        st = step_of(eof ? RECORDING_STEP_END : RECORDING_STEP_NONE, len);
        if (eof) {
            r->state = ST_DONE;
        } else if (len == 0) {
            st.kind = RECORDING_STEP_MORE;
        }
        break;
    default:
        st = step_of(RECORDING_STEP_END, 0);
        break;
    }
    r->offset += st.used;
    return st;
}
