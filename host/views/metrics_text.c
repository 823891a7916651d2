/* The OpenMetrics text of --metrics (metrics_text.h). */
#include "metrics_text.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* A growing text; failed once a realloc did. */
typedef struct text {
    char *b;
    size_t len, cap;
    int failed;
    int om; /* OpenMetrics; else the older text format */
} text_t;

static void put(text_t *t, const char *fmt, ...)
{
    if (t->failed) {
        return;
    }
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(t->b ? t->b + t->len : NULL, t->b ? t->cap - t->len : 0, fmt, ap);
        va_end(ap);
        if (n < 0) {
            t->failed = 1;
            return;
        }
        if (t->b != NULL && (size_t)n < t->cap - t->len) {
            t->len += (size_t)n;
            return;
        }
        size_t cap = t->cap ? t->cap * 2 : 16384;
        while (cap - t->len <= (size_t)n) {
            cap *= 2;
        }
        char *b = realloc(t->b, cap);
        if (b == NULL) {
            t->failed = 1;
            return;
        }
        t->b = b;
        t->cap = cap;
    }
}

/* A label value as OpenMetrics writes it: backslash, double quote and newline escaped. The names
 * are escaped already (no control characters), at most STATS_TEXT_MAX bytes. */
static const char *label(const char *v, char *out, size_t size)
{
    size_t o = 0;
    for (; *v && o + 3 < size; v++) {
        if (*v == '\\' || *v == '"') {
            out[o++] = '\\';
            out[o++] = *v;
        } else if (*v == '\n') {
            out[o++] = '\\';
            out[o++] = 'n';
        } else {
            out[o++] = *v;
        }
    }
    out[o] = '\0';
    return out;
}

/* Seconds from microseconds, exactly as decimal digits (no rounding of a double's printing). */
static void put_seconds(text_t *t, uint64_t us)
{
    put(t, "%llu.%06llu", (unsigned long long)(us / 1000000u), (unsigned long long)(us % 1000000u));
}

/* A histogram's samples: h's counts below each bound, +Inf, _count and _sum. */
static void put_hist(text_t *t, const char *family, const char *labels, const stats_hist_t *h, uint64_t sum_us)
{
    uint64_t below = 0;
    unsigned at = 0; /* buckets [0, at) of the percentiles' counted in below */
    for (unsigned k = METRICS_LE_FIRST; k <= METRICS_LE_LAST; k++) {
        /* values below 2^k us are the buckets below 8 + (k - 3) * 8 */
        unsigned end = 8u + (k - 3u) * 8u;
        for (; at < end; at++) {
            if (at >= h->lo && at < (unsigned)h->lo + h->len) {
                below += h->counts[at - h->lo];
            }
        }
        put(t, "%s_bucket{%s,le=\"", family, labels);
        put_seconds(t, (1ull << k) - 1u);
        put(t, "\"} %llu\n", (unsigned long long)below);
    }
    uint64_t n = stats_hist_total(h);
    put(t, "%s_bucket{%s,le=\"+Inf\"} %llu\n", family, labels, (unsigned long long)n);
    put(t, "%s_count{%s} %llu\n", family, labels, (unsigned long long)n);
    put(t, "%s_sum{%s} ", family, labels);
    put_seconds(t, sum_us);
    put(t, "\n");
}

/* A family's metadata. */
static void family(text_t *t, const char *name, const char *type, const char *unit, const char *help)
{
    /* the older format names a counter by its sample's name */
    const char *total = !t->om && strcmp(type, "counter") == 0 ? "_total" : "";
    put(t, "# TYPE %s%s %s\n", name, total, type);
    if (unit != NULL && t->om) {
        put(t, "# UNIT %s %s\n", name, unit);
    }
    put(t, "# HELP %s%s %s\n", name, total, help);
}

typedef struct name_pick {
    size_t row;
    uint64_t total_us;
} name_pick_t;

static int by_total_desc(const void *a, const void *b)
{
    const name_pick_t *x = a, *y = b;
    return x->total_us < y->total_us ? 1 : x->total_us > y->total_us ? -1 : (x->row > y->row) - (x->row < y->row);
}

/* The stream's counters: one family each. */
static void put_stream(text_t *t, const stats_t *s, const char *dev)
{
    static const struct {
        const char *name, *help;
        size_t off;
    } c[] = {
        {"aioprof_stream_bytes", "bytes read from the board", offsetof(stats_stream_t, bytes)},
        {"aioprof_stream_frames", "frames decoded", offsetof(stats_stream_t, frames)},
        {"aioprof_stream_events", "events decoded", offsetof(stats_stream_t, events)},
        {"aioprof_stream_crc_errors", "frames whose CRC did not match", offsetof(stats_stream_t, crc_errors)},
        {"aioprof_stream_lost_frames", "frames lost on the link (sequence gaps)", offsetof(stats_stream_t, lost_frames)},
        {"aioprof_stream_dropped_events", "events the device dropped (its ring full)",
            offsetof(stats_stream_t, dropped_events)},
        {"aioprof_stream_resets", "device resets seen", offsetof(stats_stream_t, resets)},
        {"aioprof_stream_reconnects", "links lost and found again", offsetof(stats_stream_t, reconnects)},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        uint64_t v;
        memcpy(&v, (const char *)&s->stream + c[i].off, sizeof v);
        family(t, c[i].name, "counter", NULL, c[i].help);
        put(t, "%s_total{%s} %llu\n", c[i].name, dev, (unsigned long long)v);
    }
    family(t, "aioprof_device_seconds", "counter", "seconds", "device time seen, link gaps excluded");
    put(t, "aioprof_device_seconds_total{%s} ", dev);
    put_seconds(t, s->elapsed_us);
    put(t, "\n");
    family(t, "aioprof_device_outside_seconds", "counter", "seconds", "device time in which no task ran");
    put(t, "aioprof_device_outside_seconds_total{%s} ", dev);
    put_seconds(t, s->outside_us);
    put(t, "\n");
}

int metrics_wants_openmetrics(const char *head)
{
    for (const char *l = head; l != NULL && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
        if (strncasecmp(l, "accept:", 7) == 0) {
            const char *end = strchr(l, '\n');
            const char *om = strstr(l, "application/openmetrics-text");
            return om != NULL && (end == NULL || om < end);
        }
    }
    return 0;
}

char *metrics_text(stats_t *s, const metrics_window_t *win, const char *board, int openmetrics, size_t *len)
{
    text_t t = {.om = openmetrics};
    char b_esc[STATS_TEXT_MAX * 2 + 8], p_esc[STATS_PLATFORM_MAX * 2 + 8], n_esc[STATS_TEXT_MAX * 2 + 8];
    char dev[sizeof b_esc + sizeof p_esc + 32];
    snprintf(dev, sizeof dev, "board=\"%s\",platform=\"%s\"", label(board, b_esc, sizeof b_esc),
        label(s->device.have_hello ? s->device.platform : "", p_esc, sizeof p_esc));
    stats_late_sync(s);
    /* the slice lengths by name: those of the instances folded away and of the live ones */
    stats_hist_t *hist = calloc(s->n_names + 1, sizeof *hist);
    name_pick_t *pick = malloc((s->n_names + 1) * sizeof *pick);
    if (hist == NULL || pick == NULL) {
        free(hist);
        free(pick);
        return NULL;
    }
    for (size_t i = 0; i < s->n_names; i++) {
        stats_hist_merge(&hist[i], &s->names[i].slices);
        pick[i].row = i;
        pick[i].total_us = s->names[i].f.total_us;
    }
    for (size_t i = 0; i < s->inst_used; i++) {
        const stats_instance_t *in = &s->inst[i];
        if (in->in_use && in->name >= 0) {
            stats_hist_merge(&hist[in->name], &in->slices);
        }
    }

    family(&t, "aioprof_device_info", "gauge", NULL, "the board and what its hook said in its HELLO (always 1)");
    put(&t, "aioprof_device_info{%s,version=\"%u\",tick_hz=\"%u\"} 1\n", dev, s->device.version, s->device.tick_hz);
    put_stream(&t, s, dev);

    static const struct {
        const char *name, *type, *unit, *help;
    } fam[] = {
        {"aioprof_task_slices", "counter", NULL, "slices run by the tasks of this name"},
        {"aioprof_task_running_seconds", "counter", "seconds", "own time of the tasks of this name"},
        {"aioprof_task_slow_slices", "counter", NULL, "slices longer than the slow threshold"},
        {"aioprof_task_errors", "counter", NULL, "instances that ended by an exception or a cancellation"},
        {"aioprof_task_instances", "counter", NULL, "instances of this name seen"},
        {"aioprof_task_slice_max_seconds", "gauge", "seconds",
            "the longest slice that ended in the last 10 s of device time (0: none did)"},
        {"aioprof_task_session_slice_max_seconds", "gauge", "seconds", "the longest slice of the session"},
        {"aioprof_task_late_resumes", "counter", NULL, "resumes that came after the task was due"},
        {"aioprof_task_late_seconds", "counter", "seconds", "lateness of the resumes, summed"},
    };
    _Static_assert(METRICS_WINDOW_S == 10u, "the help of aioprof_task_slice_max_seconds says 10 s");
    for (size_t fi = 0; fi < sizeof fam / sizeof fam[0]; fi++) {
        if (fi == 5 && win == NULL) {
            continue; /* no window kept: no figure */
        }
        family(&t, fam[fi].name, fam[fi].type, fam[fi].unit, fam[fi].help);
        int late = fi >= 7;
        if (late && s->device.late_unit == 0) {
            continue; /* the device does not report lateness: no figure */
        }
        for (size_t i = 0; i < s->n_names; i++) {
            const stats_name_t *nm = &s->names[i];
            if (nm->f.count == 0 && nm->instances == 0) {
                continue;
            }
            int64_t recent = fi == 5 ? metrics_window_max(win, nm->name) : 0;
            if (recent < 0 && nm->f.count > 0) {
                continue; /* its slices came before its name did, or past the window's names: not known */
            }
            const char *suffix = strcmp(fam[fi].type, "counter") == 0 ? "_total" : "";
            put(&t, "%s%s{%s,task=\"%s\"} ", fam[fi].name, suffix, dev, label(nm->name, n_esc, sizeof n_esc));
            switch (fi) {
            case 0: put(&t, "%llu", (unsigned long long)nm->f.count); break;
            case 1: put_seconds(&t, nm->f.total_us); break;
            case 2: put(&t, "%llu", (unsigned long long)nm->f.slow); break;
            case 3: put(&t, "%llu", (unsigned long long)nm->f.errors); break;
            case 4: put(&t, "%llu", (unsigned long long)nm->instances); break;
            case 5: put_seconds(&t, recent > 0 ? (uint64_t)recent : 0); break;
            case 6: put_seconds(&t, nm->f.max_us); break;
            case 7: put(&t, "%llu", (unsigned long long)nm->late.count); break;
            default: put_seconds(&t, nm->late.total_us); break;
            }
            put(&t, "\n");
        }
    }

    /* the histograms of the names with the most own time */
    qsort(pick, s->n_names, sizeof *pick, by_total_desc);
    size_t n_hist = s->n_names < METRICS_HIST_NAMES ? s->n_names : METRICS_HIST_NAMES;
    char labels[sizeof dev + sizeof n_esc + 16];
    family(&t, "aioprof_task_slice_seconds", "histogram", "seconds", "slice lengths of the tasks of this name");
    for (size_t k = 0; k < n_hist; k++) {
        const stats_name_t *nm = &s->names[pick[k].row];
        if (nm->f.count == 0) {
            continue;
        }
        snprintf(labels, sizeof labels, "%s,task=\"%s\"", dev, label(nm->name, n_esc, sizeof n_esc));
        put_hist(&t, "aioprof_task_slice_seconds", labels, &hist[pick[k].row], nm->f.total_us);
    }
    if (s->device.late_unit != 0) {
        family(&t, "aioprof_task_lateness_seconds", "histogram", "seconds",
            "how late each resume was (on time: 0) of the tasks of this name");
        for (size_t k = 0; k < n_hist; k++) {
            const stats_name_t *nm = &s->names[pick[k].row];
            if (nm->late.resumes == 0) {
                continue;
            }
            snprintf(labels, sizeof labels, "%s,task=\"%s\"", dev, label(nm->name, n_esc, sizeof n_esc));
            put_hist(&t, "aioprof_task_lateness_seconds", labels, &nm->late.hist, nm->late.total_us);
        }
    }
    if (t.om) {
        put(&t, "# EOF\n");
    }
    for (size_t i = 0; i < s->n_names; i++) {
        stats_hist_drop(&hist[i]);
    }
    free(hist);
    free(pick);
    if (t.failed) {
        free(t.b);
        return NULL;
    }
    *len = t.len;
    return t.b;
}
