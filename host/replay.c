/* Replay control (replay.h): pace, pause, position, length and seeking of a replay. */
#include "replay.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "options.h"
#include "pipeline.h"
#include "stats.h"
#include "monotonic.h"

#define REPLAY_PAST_END_US (UINT64_MAX / 4) /* a seek's target after every chunk */
#define REPLAY_WAIT_MAX_MS 50          /* a raw capture's wait is cut in pieces: keys, signals */
#define REPLAY_RAW_PIECE 256u          /* bytes per read of a paced raw capture: about a frame */
#define REPLAY_SEEK_PIECE_MIN 16u      /* the smallest read of a seek, near its target */
#define REPLAY_SCAN_RECORDING (4u << 20) /* bytes the length scan reads per step */
#define REPLAY_SCAN_RAW (512u << 10)   /* a raw capture's scan decodes them: fewer */

struct replay {
    source_t *src;
    int raw;
    double speed;
    int paused;

    /* a raw capture's clock, in device time since the start: dev_us is what was fed, the clock
     * where the pace is (it started at clock_at_us at monotonic clock_origin_us); fed_bytes the
     * bytes that made dev_us */
    uint64_t dev_us, fed_bytes;
    int paced;
    uint64_t clock_at_us, clock_origin_us, paused_at_us;
    int seeking;
    uint64_t seek_to_us;

    /* the length scan: a second, quiet reader of the same file (and, for a raw capture, a
     * pipeline of its own to find the device time) */
    source_t *scan;
    pipeline_t *scan_p;
    int length_known;
    uint64_t length_us;
};

static void replay_scan_stop(replay_t *r)
{
    source_close(r->scan);
    r->scan = NULL;
    pipeline_free(r->scan_p);
    r->scan_p = NULL;
}

replay_t *replay_new(source_t *src, const char *path, double speed, int want_length)
{
    replay_t *r = calloc(1, sizeof *r);
    if (r == NULL) {
        return NULL;
    }
    r->src = src;
    r->raw = source_file_is_raw(src);
    r->speed = speed;
    if (want_length) {
        char err[600];
        /* a stream (standard input, a FIFO) cannot be read twice: its length stays unknown */
        struct stat st;
        if (strcmp(path, "-") != 0 && stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
            r->scan = source_file_open(path, 0, 0, err, sizeof err);
        }
        if (r->scan != NULL) {
            source_file_quiet(r->scan);
            if (r->raw) {
                pipeline_config_t pc = {0};
                r->scan_p = pipeline_new(&pc);
            }
            if (r->raw != source_file_is_raw(r->scan) || (r->raw && r->scan_p == NULL)) {
                replay_scan_stop(r); /* it changed under us, or no memory: no length */
            }
        }
    }
    return r;
}

void replay_free(replay_t *r)
{
    if (r == NULL) {
        return;
    }
    replay_scan_stop(r);
    free(r);
}

/* ---- a raw capture's clock ---- */

static uint64_t raw_clock(const replay_t *r, uint64_t now)
{
    if (r->paused) {
        /* held where it was, or at a seek's target once it is there */
        return r->seeking && r->dev_us < r->paused_at_us ? r->dev_us : r->paused_at_us;
    }
    if (r->speed <= 0 || !r->paced || r->seeking) {
        return r->dev_us;
    }
    double ran = (double)(now > r->clock_origin_us ? now - r->clock_origin_us : 0) * r->speed;
    uint64_t at = r->clock_at_us + (ran < 1e15 ? (uint64_t)ran : (uint64_t)1e15);
    return at < r->dev_us ? at : r->dev_us;
}

static void raw_clock_start(replay_t *r, uint64_t at_us, uint64_t now)
{
    r->paced = 1;
    r->clock_at_us = at_us;
    r->clock_origin_us = now;
}

int replay_due_ms(replay_t *r, uint64_t now_us)
{
    if (!r->raw || r->speed <= 0 || !r->paced || r->seeking || r->paused) {
        return 0;
    }
    /* the clock, not capped by what was fed: the piece fed last is due when the clock reaches it */
    double ran = (double)(now_us > r->clock_origin_us ? now_us - r->clock_origin_us : 0) * r->speed;
    double ahead_us = (double)r->dev_us - ((double)r->clock_at_us + ran);
    if (ahead_us <= 0) {
        return 0;
    }
    double ms = ahead_us / r->speed / 1000.0 + 1;
    return ms < REPLAY_WAIT_MAX_MS ? (int)ms : REPLAY_WAIT_MAX_MS;
}

size_t replay_read_size(const replay_t *r, size_t max)
{
    if (r->raw && r->seeking && r->dev_us > 0 && r->fed_bytes > 0 && r->seek_to_us > r->dev_us) {
        /* seeking: a quarter of the bytes the target seems to be away at the bytes per device
         * second so far (the first frames, with the names, are denser than the rest), so that the
         * reads grow small near it and the seek stops within a frame of it however much device
         * time a frame holds (a quiet device's frame is about its period) */
        double away = (double)(r->seek_to_us - r->dev_us) * (double)r->fed_bytes / (double)r->dev_us / 4.0;
        size_t piece = away < (double)max ? (size_t)away : max;
        return piece > REPLAY_SEEK_PIECE_MIN ? piece : (max < REPLAY_SEEK_PIECE_MIN ? max : REPLAY_SEEK_PIECE_MIN);
    }
    /* paced, or a seek's start: a piece about a frame long, so that neither runs far past its time */
    if (r->raw && (r->speed > 0 || r->seeking) && max > REPLAY_RAW_PIECE) {
        return REPLAY_RAW_PIECE;
    }
    return max;
}

void replay_fed(replay_t *r, size_t bytes, uint64_t elapsed_before_us, uint64_t elapsed_after_us)
{
    if (!r->raw) {
        return;
    }
    /* the statistics' device time; a reset (the table's r key) between feeds starts it at 0 */
    if (elapsed_after_us >= elapsed_before_us) {
        r->dev_us += elapsed_after_us - elapsed_before_us;
    }
    r->fed_bytes += bytes;
    uint64_t now = 0;
    if (r->seeking && r->dev_us >= r->seek_to_us) {
        r->seeking = 0;
        now = monotonic_us();
        raw_clock_start(r, r->seek_to_us, now);
        r->paused_at_us = r->seek_to_us;
    } else if (!r->paced && r->speed > 0) {
        raw_clock_start(r, 0, monotonic_us());
    }
}

/* ---- the pace ---- */

double replay_speed(const replay_t *r)
{
    return r->speed;
}

static void replay_set_speed(replay_t *r, double speed)
{
    uint64_t now = monotonic_us();
    if (r->raw) {
        uint64_t at = raw_clock(r, now);
        r->speed = speed;
        if (r->paced && !r->paused) {
            raw_clock_start(r, at, now);
        }
        return;
    }
    r->speed = speed;
    source_file_set_speed(r->src, speed);
}

void replay_faster(replay_t *r)
{
    if (r->speed <= 0) {
        return; /* already as fast as it goes */
    }
    double s = r->speed * 2;
    replay_set_speed(r, s < OPTIONS_SPEED_MAX ? s : (r->speed > OPTIONS_SPEED_MAX ? r->speed : OPTIONS_SPEED_MAX));
}

void replay_slower(replay_t *r)
{
    if (r->speed <= 0) {
        return;
    }
    double s = r->speed / 2;
    replay_set_speed(r, s > OPTIONS_SPEED_MIN ? s : (r->speed < OPTIONS_SPEED_MIN ? r->speed : OPTIONS_SPEED_MIN));
}

void replay_pause(replay_t *r, int paused)
{
    paused = paused != 0;
    if (paused == r->paused) {
        return;
    }
    uint64_t now = monotonic_us();
    if (r->raw) {
        if (paused) {
            r->paused_at_us = raw_clock(r, now);
        } else if (r->paced) {
            raw_clock_start(r, r->paused_at_us, now);
        }
    } else {
        source_file_pause(r->src, paused);
    }
    r->paused = paused;
}

int replay_paused(const replay_t *r)
{
    return r->paused;
}

/* ---- position, length ---- */

uint64_t replay_position_us(const replay_t *r, uint64_t now_us)
{
    uint64_t at = r->raw ? raw_clock(r, now_us) : source_file_position_us(r->src);
    return r->length_known && at > r->length_us ? r->length_us : at;
}

void replay_ended(replay_t *r)
{
    r->seeking = 0; /* a seek past the end ends there */
    if (!r->length_known) {
        r->length_us = replay_position_us(r, monotonic_us());
        r->length_known = 1;
    }
    replay_scan_stop(r);
}

int replay_length_us(const replay_t *r, uint64_t *len_us)
{
    if (r->length_known) {
        *len_us = r->length_us;
    }
    return r->length_known;
}

void replay_scan(replay_t *r)
{
    static uint8_t buf[64 * 1024];
    size_t budget = r->raw ? REPLAY_SCAN_RAW : REPLAY_SCAN_RECORDING;
    uint64_t t;
    if (r->speed <= 0 && !replay_seeking(r)) {
        return; /* as fast as possible: the replay finds the end as soon as the scan would */
    }
    while (r->scan != NULL && budget > 0) {
        long n = source_read(r->scan, buf, sizeof buf, 0, &t);
        if (n > 0) {
            if (r->scan_p != NULL) {
                pipeline_feed(r->scan_p, buf, (size_t)n);
            }
            budget = (size_t)n < budget ? budget - (size_t)n : 0;
        } else if (n == SOURCE_GONE) {
            /* a gap in a recording: its end comes back at once (speed 0); a raw capture has none */
            int back = source_reconnect(r->scan, 0, &t);
            if (back == SOURCE_EOF) {
                n = SOURCE_EOF;
            } else if (back != SOURCE_BACK) {
                replay_scan_stop(r);
                return;
            }
        } else if (n == SOURCE_TIMEOUT || n == SOURCE_HOLE) {
            continue;
        }
        if (n == SOURCE_EOF) {
            r->length_us = r->raw ? pipeline_elapsed_us(r->scan_p) : source_file_position_us(r->scan);
            r->length_known = 1;
            replay_scan_stop(r);
        } else if (n == SOURCE_ERROR) {
            replay_scan_stop(r); /* the replay itself will say what is wrong */
        }
    }
}

/* ---- seeking ---- */

int replay_seeking(const replay_t *r)
{
    return r->raw ? r->seeking : source_file_seeking(r->src);
}

int replay_seek(replay_t *r, uint64_t to_us, const char *no_rewind, char *err, size_t errlen)
{
    uint64_t now = monotonic_us();
    uint64_t at = replay_position_us(r, now);
    if (r->length_known && to_us >= r->length_us) {
        to_us = REPLAY_PAST_END_US; /* on to the end itself, even paused */
    }
    int back = to_us < at || (r->raw && to_us < r->dev_us);
    if (back) {
        if (no_rewind != NULL) {
            snprintf(err, errlen, "seeking back is off while %s.", no_rewind);
            return REPLAY_SEEK_REFUSED;
        }
        if (source_file_rewind(r->src, err, errlen) < 0) {
            return REPLAY_SEEK_REFUSED;
        }
        r->dev_us = r->fed_bytes = 0;
        r->paced = 0;
        r->seeking = 0;
    }
    if (r->raw) {
        r->seeking = to_us > r->dev_us;
        r->seek_to_us = to_us;
        r->paused_at_us = to_us;
        if (!r->seeking && r->speed > 0) {
            raw_clock_start(r, to_us, now);
        }
    } else if (to_us > 0 || back) {
        source_file_seek(r->src, to_us); /* a pause holds, at the target */
    }
    return back ? REPLAY_SEEK_RESTART : REPLAY_SEEK_ON;
}
