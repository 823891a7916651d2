/* Replaying a recording (source_file.h): the recording reader's steps (source_recording.c) turned
 * into the source's answers (bytes, link down and up, a hole, the end), paced by --speed, and the
 * notes on how the file ended or was damaged, said once each. */
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE
#endif
#include "source_file.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "escape.h"
#include "monotonic.h"

#define FILE_PACE_MAX_US 1e15 /* 30 years: the furthest a paced chunk is ever due */

static void file_sleep_us(uint64_t us)
{
    struct timespec ts = {.tv_sec = (time_t)(us / 1000000u), .tv_nsec = (long)(us % 1000000u) * 1000L};
    nanosleep(&ts, NULL);
}

/* Where the replay clock is, in recorded time (absolute, as the chunks' times), at monotonic now.
 * It never runs past the chunk waiting to be given (a machine too busy to keep the pace). */
uint64_t file_clock_us(const file_source_t *f, uint64_t now)
{
    if (f->paused) {
        /* held where it was, or at a seek's target once it is there */
        return f->seeking && f->last_us < f->paused_at_us ? f->last_us : f->paused_at_us;
    }
    if (f->speed <= 0 || !f->paced || f->seeking || f->at_end) {
        return f->last_us;
    }
    double ran = (double)(now > f->pace_origin_us ? now - f->pace_origin_us : 0) * f->speed;
    uint64_t at = f->pace_first_us + (ran < FILE_PACE_MAX_US ? (uint64_t)ran : (uint64_t)FILE_PACE_MAX_US);
    if (f->have_step && f->step.time_us < at) {
        at = f->step.time_us;
    }
    return at > f->last_us ? at : f->last_us;
}

/* The clock starts again at recorded time at_us, now. */
void file_clock_start(file_source_t *f, uint64_t at_us, uint64_t now)
{
    f->paced = 1;
    f->pace_first_us = at_us;
    f->pace_origin_us = now;
}

/* --speed: a chunk is due when the replay clock reaches its recorded time (at once as fast as
 * possible, and before a seek's target). Returns 1 when due; otherwise it waits up to timeout_ms
 * and returns whether it became due. */
static int file_pace(file_source_t *f, uint64_t time_us, int timeout_ms)
{
    if (!f->have_first) {
        f->have_first = 1;
        f->first_us = time_us;
        f->last_us = time_us;
        if (f->seeking && f->seek_relative) {
            f->seek_to_us += time_us; /* set before the first chunk was known */
            f->paused_at_us = f->seek_to_us;
            f->seek_relative = 0;
        }
    }
    uint64_t now = monotonic_us();
    if (f->seeking) {
        if (time_us < f->seek_to_us) {
            f->last_us = time_us;
            return 1;
        }
        /* the target: the clock starts there, so the chunk after it comes when it is due */
        f->seeking = 0;
        f->last_us = f->seek_to_us;
        file_clock_start(f, f->seek_to_us, now);
    }
    if (f->speed <= 0) {
        f->last_us = time_us;
        return 1;
    }
    if (!f->paced) {
        file_clock_start(f, time_us, now);
        f->last_us = time_us;
        return 1;
    }
    uint64_t rec = time_us > f->pace_first_us ? time_us - f->pace_first_us : 0;
    /* the times are the file's word: a pace that would land past any session is clamped before
     * the cast, which would overflow */
    double wait_us = (double)rec / f->speed;
    uint64_t due = f->pace_origin_us + (wait_us < FILE_PACE_MAX_US ? (uint64_t)wait_us : (uint64_t)FILE_PACE_MAX_US);
    if (now >= due) {
        f->last_us = time_us;
        return 1;
    }
    uint64_t wait = due - now, limit = (uint64_t)(timeout_ms > 0 ? timeout_ms : 0) * 1000u;
    file_sleep_us(wait < limit ? wait : limit);
    if (wait > limit) {
        return 0;
    }
    f->last_us = time_us;
    return 1;
}

/* A string of a recording's metadata for a message: escaped, or "?" when it is not a string. */
static void file_meta_text(char *out, size_t size, const cJSON *item)
{
    if (!cJSON_IsString(item)) {
        snprintf(out, size, "?");
        return;
    }
    escape_bytes(out, size, (const uint8_t *)item->valuestring, strlen(item->valuestring), 0);
}

static void file_say_metadata(file_source_t *f, const uint8_t *meta, size_t len)
{
    /* the file's words, not ours: shown escaped */
    cJSON *m = cJSON_ParseWithLength((const char *)meta, len);
    char src_text[128], started_text[64];
    file_meta_text(src_text, sizeof src_text, cJSON_GetObjectItemCaseSensitive(m, "source"));
    file_meta_text(started_text, sizeof started_text, cJSON_GetObjectItemCaseSensitive(m, "started_utc"));
    fprintf(stderr, "aioprof-top: %s: recording of %s started %s\n", f->shown, src_text, started_text);
    cJSON_Delete(m);
}

/* The end of a recording: how it ended, said once. */
static void file_say_end(file_source_t *f)
{
    const recording_reader_t *r = &f->rec;
    unsigned long long at = (unsigned long long)(r->offset - r->trailing);
    if (f->ended || f->quiet) {
        return;
    }
    f->ended = 1;
    if (r->cut) {
        fprintf(stderr, "aioprof-top: note: %s is cut off inside a chunk; replayed what it holds (up to byte %llu).\n",
                f->shown, at);
    } else if (!r->clean_end) {
        fprintf(stderr, "aioprof-top: note: %s has no end marker (the session did not close cleanly); replayed what "
                "it holds (up to byte %llu).\n", f->shown, at);
    }
    if (r->trailing > 0) {
        fprintf(stderr, "aioprof-top: note: %s: %llu bytes after the end of the recording (from byte %llu) ignored: "
                "they are not a recording.\n", f->shown, (unsigned long long)r->trailing,
                (unsigned long long)r->trailing_at);
    }
    if (r->damaged > 1) {
        fprintf(stderr, "aioprof-top: note: %s: %llu damaged stretches in all (%llu bytes), each read on from the "
                "next intact chunk.\n", f->shown, (unsigned long long)r->damaged,
                (unsigned long long)r->damaged_bytes);
    }
}

static void file_say_damage(file_source_t *f)
{
    if (f->damage_noted || f->quiet) {
        return;
    }
    f->damage_noted = 1;
    fprintf(stderr, "aioprof-top: note: %s is damaged at byte %llu: read on from the next intact chunk; the "
            "figures from there on are marked as possibly low.\n", f->shown,
            (unsigned long long)f->rec.first_damage_at);
}

/* The first header cannot be read: the sentence for it. */
static void file_header_error(file_source_t *f, char *err, size_t errlen)
{
    switch (f->rec.error) {
    case RECORDING_BAD_VERSION:
        snprintf(err, errlen, "%s is an aioprof recording of version %u; this aioprof-top reads version %u "
                 "(a newer aioprof-top may read it).", f->shown, f->rec.version, RECORDING_VERSION);
        break;
    case RECORDING_HEADER_CUT:
        snprintf(err, errlen, "%s is an aioprof recording cut off inside its header.", f->shown);
        break;
    default:
        snprintf(err, errlen, "%s is a damaged aioprof recording (its header is unreadable).", f->shown);
        break;
    }
}

/* The next step that is something to the caller (pending in f->step), or 0 when none is there yet
 * (the bytes have not come: SOURCE_TIMEOUT; a read error: read_errno). */
static int file_step(file_source_t *f, size_t max, int timeout_ms)
{
    while (!f->have_step) {
        int full = file_avail(f) == FILE_BUFFER;
        recording_step_t st = recording_reader_step(&f->rec, f->buf + f->pos, file_avail(f), f->eof, full, max);
        if (st.kind == RECORDING_STEP_NONE) {
            file_drop(f, st.used);
        } else if (st.kind == RECORDING_STEP_MORE) {
            if (!file_more(f, timeout_ms)) {
                return 0;
            }
        } else {
            f->step = st;
            f->have_step = 1;
            f->hole_told = 0;
        }
    }
    return 1;
}

static void file_step_done(file_source_t *f)
{
    file_drop(f, f->step.used);
    f->have_step = 0;
}

long file_replay_read(file_source_t *f, uint8_t *buf, size_t len, int timeout_ms, uint64_t *host_us)
{
    for (;;) {
        if (!file_step(f, len, timeout_ms)) {
            return f->read_errno ? file_read_error(f) : SOURCE_TIMEOUT;
        }
        recording_step_t *st = &f->step;
        *host_us = st->time_us;
        switch (st->kind) {
        case RECORDING_STEP_HEADER:
            if (st->concatenated) {
                if (!f->quiet) {
                    fprintf(stderr, "aioprof-top: note: %s: another recording follows at byte %llu; read on as the "
                            "same session, after a gap.\n", f->shown, (unsigned long long)(f->rec.offset - st->used));
                }
                file_step_done(f);
                return SOURCE_GONE;
            }
            if (f->verbose && !f->quiet && st->data_len > 0) {
                file_say_metadata(f, f->buf + f->pos + st->data_at, st->data_len);
            }
            file_step_done(f);
            continue;
        case RECORDING_STEP_END:
            file_step_done(f);
            file_say_end(f);
            f->at_end = 1;
            f->seeking = 0; /* a seek past the end ends there */
            return SOURCE_EOF;
        case RECORDING_STEP_DOWN:
            if (!file_pace(f, st->time_us, timeout_ms)) {
                return SOURCE_TIMEOUT;
            }
            file_step_done(f);
            return SOURCE_GONE;
        case RECORDING_STEP_UP:
            file_step_done(f); /* up without a down before it: nothing to undo */
            continue;
        case RECORDING_STEP_BYTES:
            if (st->first && !file_pace(f, st->time_us, timeout_ms)) {
                return SOURCE_TIMEOUT;
            }
            if (st->damaged && st->first && !f->hole_told) {
                f->hole_told = 1;
                file_say_damage(f);
                return SOURCE_HOLE;
            }
            if (st->data_len > len) {
                /* parsed for a larger read (a reconnect's): given in parts */
                memcpy(buf, f->buf + f->pos + st->data_at, len);
                file_drop(f, st->data_at + len);
                st->used -= st->data_at + len;
                st->data_at = 0;
                st->data_len -= len;
                st->first = 0;
                return (long)len;
            }
            memcpy(buf, f->buf + f->pos + st->data_at, st->data_len);
            long n = (long)st->data_len;
            file_step_done(f);
            if (n > 0) {
                return n;
            }
            continue;
        default: /* ERROR is only for the first header, handled at open */
            file_step_done(f);
            f->at_end = 1;
            f->seeking = 0; /* a seek past the end ends there */
            return SOURCE_EOF;
        }
    }
}

/* The recording says when the port came back; anything but an up also means it was back. */
int file_replay_reconnect(file_source_t *f, int timeout_ms, uint64_t *host_us)
{
    if (!file_step(f, 4096, timeout_ms)) {
        return f->read_errno ? (int)file_read_error(f) : SOURCE_TIMEOUT;
    }
    recording_step_t *st = &f->step;
    *host_us = st->time_us;
    if (st->kind == RECORDING_STEP_END) {
        file_step_done(f);
        file_say_end(f);
        f->at_end = 1;
        f->seeking = 0; /* a seek past the end ends there */
        return SOURCE_EOF;
    }
    if (!file_pace(f, st->time_us, timeout_ms)) {
        return SOURCE_TIMEOUT;
    }
    if (st->kind == RECORDING_STEP_UP) {
        file_step_done(f);
    }
    return SOURCE_BACK;
}

/* A recording's first header, at once: its problems are the open's errors. */
int file_replay_start(file_source_t *f, int timeout_ms, char *err, size_t errlen)
{
    recording_reader_init(&f->rec);
    if (!file_step(f, 4096, timeout_ms)) {
        return 0; /* a stream still bringing its header */
    }
    if (f->step.kind == RECORDING_STEP_ERROR) {
        file_header_error(f, err, errlen);
        return -1;
    }
    file_decided(f, FILE_RECORDING);
    return 1;
}
