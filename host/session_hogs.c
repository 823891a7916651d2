/* --capture-hogs DIR: for every slice at or above the threshold, a recording of the seconds before
 * and after it (docs/usage.md, "Capturing hogs"), cut from the ring of raw bytes (input/hog_ring)
 * once the device time has passed the hog by the window, with a context in front: the device's
 * HELLO and the names of its running tasks, as frames that continue the stretch's sequence
 * numbers, so that -r of a capture names the tasks and counts no lost frame. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "aioprof_cobs.h"
#include "aioprof_crc16.h"
#include "aioprof_varint.h"
#include "aioprof_wire.h"
#include "hog_ring.h"
#include "session.h"

#define HOGS_RING_BYTES (16u * 1024u * 1024u)
#define HOGS_PENDING_MAX 64u      /* captures waiting for their after-window at once */
#define HOGS_CONTEXT_TASKS 1000u  /* running tasks named in a capture's context */
#define HOGS_BODY 254u            /* a context frame's body, as the device keeps them */

typedef struct hog_pending {
    char task[STATS_TEXT_MAX];
    uint64_t start_us, end_us, self_us;
} hog_pending_t;

struct session_hogs {
    session_t *s;
    uint64_t threshold_us, window_us;
    unsigned max;
    hog_ring_t *ring;
    hog_pending_t pending[HOGS_PENDING_MAX];
    unsigned n_pending;
    uint64_t captured, missed, failed;
    top_hog_t *list; /* the captures written, for the live table's list (H) */
    size_t n_list;
    const pipeline_observer_t *next;
    void *next_user;
};

/* ---- the watch: slices at or above the threshold ---- */

static void watch_slice(void *user, const pipeline_slice_t *sl)
{
    session_hogs_t *h = user;
    if (sl->self_us >= h->threshold_us) {
        if (h->captured + h->n_pending >= h->max || h->n_pending == HOGS_PENDING_MAX) {
            h->missed++;
        } else {
            hog_pending_t *p = &h->pending[h->n_pending++];
            snprintf(p->task, sizeof p->task, "%s", sl->task.name != NULL ? sl->task.name : "");
            if (sl->task.name == NULL)
                snprintf(p->task, sizeof p->task, "task-%u", sl->task.id);
            p->start_us = sl->start_us;
            p->end_us = sl->end_us;
            p->self_us = sl->self_us;
        }
    }
    if (h->next != NULL && h->next->slice != NULL)
        h->next->slice(h->next_user, sl);
}

static void watch_late(void *user, const pipeline_late_t *late)
{
    session_hogs_t *h = user;
    if (h->next != NULL && h->next->late != NULL)
        h->next->late(h->next_user, late);
}

static void watch_mark(void *user, pipeline_mark_t mark, uint64_t at_us, uint64_t count)
{
    session_hogs_t *h = user;
    if (h->next != NULL && h->next->mark != NULL)
        h->next->mark(h->next_user, mark, at_us, count);
}

static void watch_text_line(void *user, uint64_t at_us, const char *line)
{
    session_hogs_t *h = user;
    if (h->next != NULL && h->next->text_line != NULL)
        h->next->text_line(h->next_user, at_us, line);
}

static void watch_event(void *user, uint64_t at_us)
{
    session_hogs_t *h = user;
    if (h->next != NULL && h->next->event != NULL)
        h->next->event(h->next_user, at_us);
}

static void watch_span(void *user, const pipeline_span_t *span)
{
    session_hogs_t *h = user;
    if (h->next != NULL && h->next->span != NULL)
        h->next->span(h->next_user, span);
}

_Static_assert(sizeof(pipeline_observer_t) == 6 * sizeof(void (*)(void)),
    "pipeline_observer_t has a member the hogs' watch does not pass on");

static const pipeline_observer_t watch_all = {
    .slice = watch_slice, .late = watch_late, .mark = watch_mark, .text_line = watch_text_line, .event = watch_event,
    .span = watch_span,
};
static const pipeline_observer_t watch_own = {
    .slice = watch_slice, .late = watch_late, .mark = watch_mark, .span = watch_span,
};

/* ---- the context: frames that name what a reader joining at the stretch would not know ---- */

typedef struct ctx {
    uint8_t (*bodies)[HOGS_BODY + 2];
    size_t *lens;
    size_t n, cap;
    const hog_first_frame_t *first;
    int failed;
} ctx_t;

/* Room for a record of need bytes in the last body, or a new body. */
static uint8_t *ctx_room(ctx_t *c, size_t need)
{
    if (c->n == 0 || c->lens[c->n - 1] + need > HOGS_BODY - 2) {
        if (c->n == c->cap) {
            size_t cap = c->cap ? c->cap * 2 : 8;
            void *b = realloc(c->bodies, cap * sizeof *c->bodies);
            if (b == NULL) {
                c->failed = 1;
                return NULL;
            }
            c->bodies = b;
            size_t *l = realloc(c->lens, cap * sizeof *l);
            if (l == NULL) {
                c->failed = 1;
                return NULL;
            }
            c->lens = l;
            c->cap = cap;
        }
        uint8_t *b = c->bodies[c->n];
        /* seq is set once the number of frames is known; base and running are the first frame's */
        b[1] = c->first->format;
        for (unsigned i = 0; i < 4; i++)
            b[2 + i] = (uint8_t)(c->first->base >> (8 * i));
        c->lens[c->n++] = AIOPROF_HEADER_FIXED + aioprof_varint_put(b + AIOPROF_HEADER_FIXED, c->first->running);
    }
    return c->bodies[c->n - 1] + c->lens[c->n - 1];
}

static void ctx_control(ctx_t *c, unsigned op, const uint8_t *body, size_t len)
{
    uint8_t *p = ctx_room(c, 1 + AIOPROF_VARINT_MAX + len);
    if (p == NULL)
        return;
    size_t n = 0;
    p[n++] = (uint8_t)(AIOPROF_TAG_CONTROL | op);
    n += aioprof_varint_put(p + n, (uint32_t)len);
    memcpy(p + n, body, len);
    c->lens[c->n - 1] += n + len;
}

/* The HELLO as the device's last one said it (not a boot one). */
static void ctx_hello(ctx_t *c, const stats_device_t *d)
{
    uint8_t b[96];
    size_t n = 0;
    n += aioprof_varint_put(b + n, d->version);
    n += aioprof_varint_put(b + n, d->tick_hz);
    b[n++] = (uint8_t)d->tick_bits;
    n += aioprof_varint_put(b + n, d->ring_bytes);
    b[n++] = 0;
    n += aioprof_varint_put(b + n, d->boot_ticks);
    n += aioprof_varint_put(b + n, (uint32_t)((double)d->drain_us * (double)d->tick_hz / 1e6));
    n += aioprof_varint_put(b + n, d->dropped_total);
    size_t pl = strlen(d->platform);
    pl = pl > AIOPROF_PLATFORM_MAX ? AIOPROF_PLATFORM_MAX : pl;
    n += aioprof_varint_put(b + n, (uint32_t)pl);
    memcpy(b + n, d->platform, pl);
    n += pl;
    n += aioprof_varint_put(b + n, d->period_ticks);
    n += aioprof_varint_put(b + n, d->event_cost);
    n += aioprof_varint_put(b + n, d->late_unit);
    ctx_control(c, AIOPROF_OP_HELLO, b, n);
}

/* A TASK_INFO for a running instance: its id, creator, name and label. */
static void ctx_task(ctx_t *c, const stats_t *st, const stats_instance_t *in)
{
    uint8_t b[16 + 2 * AIOPROF_NAME_MAX];
    const char *name = st->names[in->name].name, *label = in->label;
    size_t nl = strlen(name), ll = strlen(label);
    nl = nl > AIOPROF_NAME_MAX ? AIOPROF_NAME_MAX : nl;
    ll = ll > AIOPROF_NAME_MAX - nl ? AIOPROF_NAME_MAX - nl : ll;
    size_t n = 0;
    n += aioprof_varint_put(b + n, in->id);
    n += aioprof_varint_put(b + n, in->parent);
    n += aioprof_varint_put(b + n, (uint32_t)nl);
    memcpy(b + n, name, nl);
    n += nl;
    memcpy(b + n, label, ll);
    n += ll;
    ctx_control(c, AIOPROF_OP_TASK_INFO, b, n);
}

static uint8_t *hogs_context(void *user, const hog_first_frame_t *first, size_t *len)
{
    session_hogs_t *h = user;
    if (first->boot) {
        *len = 0; /* the stretch starts where the device did: it says everything itself */
        return NULL;
    }
    const stats_t *st = pipeline_stats(h->s->p);
    ctx_t c = {.first = first};
    if (st->device.have_hello)
        ctx_hello(&c, &st->device);
    unsigned named = 0;
    for (size_t i = 0; i < st->inst_used && named < HOGS_CONTEXT_TASKS; i++) {
        const stats_instance_t *in = &st->inst[i];
        if (in->in_use && in->name >= 0 && in->end == STATS_END_LIVE && in->epoch == st->epoch && in->id != 0) {
            ctx_task(&c, st, in);
            named++;
        }
    }
    uint8_t *out = c.failed ? NULL : malloc(c.n * (AIOPROF_COBS_MAX(HOGS_BODY + 2) + 2));
    size_t o = 0;
    for (size_t i = 0; out != NULL && i < c.n; i++) {
        uint8_t *b = c.bodies[i];
        b[0] = (uint8_t)(first->seq - (c.n - i));
        uint16_t crc = aioprof_crc16(AIOPROF_CRC16_INIT, b, c.lens[i]);
        b[c.lens[i]] = (uint8_t)crc;
        b[c.lens[i] + 1] = (uint8_t)(crc >> 8);
        out[o++] = 0;
        o += aioprof_cobs_encode(b, c.lens[i] + 2, out + o);
        out[o++] = 0;
    }
    free(c.bodies);
    free(c.lens);
    *len = o;
    return out;
}

/* ---- the captures ---- */

/* A file name's part made of the task's name: letters, digits, '.', '-', '_' kept, others '_'. */
static void name_part(const char *task, char *out, size_t size)
{
    size_t o = 0;
    for (; *task && o + 1 < size && o < 40; task++) {
        char ch = *task;
        int ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '.' ||
                 ch == '-' || ch == '_';
        out[o++] = ok ? ch : '_';
    }
    out[o] = '\0';
}

/* A capture written: into the list the live table shows (it holds at most --hog-max). */
static void hogs_listed(session_hogs_t *h, const hog_pending_t *p, const char *path, const struct tm *tm)
{
    top_hog_t *l = realloc(h->list, (h->n_list + 1) * sizeof *l);
    char *copy = strdup(path);
    if (l == NULL || copy == NULL) {
        free(copy);
        if (l != NULL)
            h->list = l;
        return; /* out of memory: the file is there, the list does not show it */
    }
    h->list = l;
    top_hog_t *e = &l[h->n_list++];
    memset(e, 0, sizeof *e);
    strftime(e->when, sizeof e->when, "%H:%M:%S", tm);
    snprintf(e->task, sizeof e->task, "%s", p->task);
    e->self_us = p->self_us;
    e->at_us = p->start_us;
    e->path = copy;
    h->s->status.hogs = h->list;
    h->s->status.n_hogs = h->n_list;
}

static void hogs_write(session_hogs_t *h, const hog_pending_t *p)
{
    session_t *s = h->s;
    char when[32], task[48], path[4200], err[600];
    time_t now = time(NULL);
    struct tm tm;
    strftime(when, sizeof when, "%Y%m%dT%H%M%SZ", gmtime_r(&now, &tm));
    name_part(p->task, task, sizeof task);
    snprintf(path, sizeof path, "%s/hog-%s-%s-%llu.%03llus.aiop", s->o->capture_hogs, when, task,
        (unsigned long long)(p->start_us / 1000000u), (unsigned long long)(p->start_us / 1000u % 1000u));
    uint64_t from = p->start_us > h->window_us ? p->start_us - h->window_us : 0;
    if (hog_ring_oldest_us(h->ring) > from)
        from = hog_ring_oldest_us(h->ring); /* the ring kept less: what there is */
    recorder_t *rec = recorder_open(path, 0, s->label, s->o->baud, NULL, err, sizeof err);
    if (rec == NULL) {
        if (h->failed++ == 0)
            fprintf(stderr, "aioprof-top: --capture-hogs: %s\n", err);
        h->missed++;
        return;
    }
    if (hog_ring_write(h->ring, rec, from, p->end_us + h->window_us, hogs_context, h) < 0) {
        unlink(path);
        h->missed++;
        return;
    }
    h->captured++;
    hogs_listed(h, p, path, &tm);
    if (s->o->verbose)
        fprintf(stderr, "aioprof-top: hog of %s (%.3f ms) captured in %s\n", p->task, (double)p->self_us / 1e3, path);
}

/* The captures whose after-window the device time has passed (all: the session ends). */
static void hogs_due(session_hogs_t *h, int all)
{
    uint64_t now = pipeline_elapsed_us(h->s->p);
    unsigned k = 0;
    for (unsigned i = 0; i < h->n_pending; i++) {
        if (all || now >= h->pending[i].end_us + h->window_us)
            hogs_write(h, &h->pending[i]);
        else
            h->pending[k++] = h->pending[i];
    }
    h->n_pending = k;
}

int session_hogs_open(session_t *s)
{
    const options_t *o = s->o;
    if (o->capture_hogs == NULL)
        return 0;
    struct stat st;
    if (stat(o->capture_hogs, &st) < 0 || !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "aioprof-top: --capture-hogs %s: %s.\n", o->capture_hogs,
            errno == ENOENT || errno == 0 ? "no such directory (make it first)" : "not a directory");
        return EXIT_USAGE;
    }
    if (access(o->capture_hogs, W_OK | X_OK) < 0) {
        fprintf(stderr, "aioprof-top: --capture-hogs %s: no permission to write there.\n", o->capture_hogs);
        return EXIT_FAILURE_RUNTIME;
    }
    session_hogs_t *h = calloc(1, sizeof *h);
    double ms = o->hog_ms > 0 ? o->hog_ms : (o->slow_ms > 0 ? o->slow_ms : 20.0);
    if (h != NULL) {
        h->s = s;
        h->threshold_us = (uint64_t)(ms * 1000.0);
        h->window_us = (uint64_t)((o->hog_window_s > 0 ? o->hog_window_s : OPTIONS_HOG_WINDOW) * 1e6);
        h->max = o->hog_max > 0 ? (unsigned)o->hog_max : OPTIONS_HOG_MAX;
        /* kept: the window before a hog, the longest hog that fits, the window after */
        h->ring = hog_ring_new(HOGS_RING_BYTES, 2 * h->window_us + 60000000u);
    }
    if (h == NULL || h->ring == NULL) {
        free(h);
        fputs("aioprof-top: --capture-hogs: out of memory.\n", stderr);
        return EXIT_FAILURE_RUNTIME;
    }
    s->hogs = h;
    s->status.hogs_on = 1;
    s->status.hogs_ms = ms;
    return 0;
}

void session_hogs_observe(session_t *s, pipeline_config_t *pc)
{
    session_hogs_t *h = s->hogs;
    if (h == NULL)
        return;
    h->next = pc->observer;
    h->next_user = pc->observer_user;
    pc->observer = h->next != NULL && (h->next->text_line != NULL || h->next->event != NULL) ? &watch_all : &watch_own;
    pc->observer_user = h;
}

void session_hogs_feed(session_t *s, uint64_t host_us, const uint8_t *data, size_t len)
{
    session_hogs_t *h = s->hogs;
    if (h == NULL) {
        pipeline_feed(s->p, data, len);
        return;
    }
    size_t at = 0;
    while (at < len) {
        const uint8_t *zero = memchr(data + at, 0, len - at);
        size_t end = zero != NULL ? (size_t)(zero - data) + 1 : len;
        pipeline_feed(s->p, data + at, end - at);
        hog_ring_data(h->ring, host_us, pipeline_elapsed_us(s->p), data + at, end - at);
        at = end;
    }
    if (h->n_pending)
        hogs_due(h, 0);
    s->status.hogs_captured = h->captured;
    s->status.hogs_missed = h->missed;
}

void session_hogs_link(session_t *s, int up, uint64_t host_us)
{
    if (s->hogs != NULL)
        hog_ring_link(s->hogs->ring, up, host_us, pipeline_elapsed_us(s->p));
}

void session_hogs_restart(session_t *s)
{
    if (s->hogs != NULL) {
        hog_ring_clear(s->hogs->ring);
        s->hogs->n_pending = 0;
    }
}

void session_hogs_close(session_t *s)
{
    session_hogs_t *h = s->hogs;
    if (h == NULL)
        return;
    if (s->p != NULL)
        hogs_due(h, 1);
    if (h->captured || h->missed)
        fprintf(stderr, "aioprof-top: %llu hog%s of %.3f ms or more captured in %s%s", (unsigned long long)h->captured,
            h->captured == 1 ? "" : "s", (double)h->threshold_us / 1e3, s->o->capture_hogs, h->missed ? "" : ".\n");
    if (h->missed)
        fprintf(stderr, "; %llu not (past --hog-max %u, or not written).\n", (unsigned long long)h->missed, h->max);
    hog_ring_free(h->ring);
    for (size_t i = 0; i < h->n_list; i++)
        free((char *)h->list[i].path);
    free(h->list);
    s->status.hogs = NULL;
    s->status.n_hogs = 0;
    free(h);
    s->hogs = NULL;
}

/* ---- a capture opened from the live table's list ---- */

#define HOGS_READ_MS 1000

/* Reads path to its end into p (as --compare reads a file). Returns 0, or -1 with one sentence. */
static int hogs_read(const char *path, pipeline_t *p, char *err, size_t errlen)
{
    uint8_t buf[65536];
    source_t *src = source_file_open(path, 0, 0, err, errlen);
    if (src == NULL)
        return -1;
    int rc = 0;
    for (;;) {
        uint64_t host_us = 0;
        long n = source_read(src, buf, sizeof buf, HOGS_READ_MS, &host_us);
        if (n > 0) {
            pipeline_feed(p, buf, (size_t)n);
        } else if (n == SOURCE_EOF) {
            break;
        } else if (n == SOURCE_GONE) {
            pipeline_link_down(p);
            int r;
            while ((r = source_reconnect(src, HOGS_READ_MS, &host_us)) == SOURCE_TIMEOUT)
                ;
            if (r == SOURCE_EOF)
                break;
            if (r == SOURCE_ERROR) {
                snprintf(err, errlen, "%s", source_error(src));
                rc = -1;
                break;
            }
            pipeline_link_up(p);
        } else if (n == SOURCE_HOLE) {
            pipeline_input_damaged(p);
        } else if (n == SOURCE_ERROR) {
            snprintf(err, errlen, "%s", source_error(src));
            rc = -1;
            break;
        }
    }
    if (rc == 0) {
        if (source_file_closed_cleanly(src))
            pipeline_finish(p);
        else
            pipeline_end_of_input(p);
    }
    source_close(src);
    return rc;
}

void session_hogs_show(session_t *s, size_t i)
{
    session_hogs_t *h = s->hogs;
    if (h == NULL || s->view == NULL || i >= h->n_list || top_view_capture_begin(s->view) < 0)
        return;
    char err[600] = "";
    pipeline_config_t pc = {
        .slow_us = (uint64_t)(s->o->slow_ms * 1000.0),
        .observer = top_view_capture_observer(),
        .observer_user = s->view,
    };
    pipeline_t *p = pipeline_new(&pc);
    int ok = p != NULL && hogs_read(h->list[i].path, p, err, sizeof err) == 0;
    if (p == NULL)
        snprintf(err, sizeof err, "out of memory for the capture.");
    top_view_capture_end(s->view, ok ? pipeline_stats(p) : NULL, err);
    pipeline_free(p);
}
