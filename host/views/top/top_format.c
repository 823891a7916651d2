/* The live table's pure rendering rules (see top_format.h). */
#ifndef _XOPEN_SOURCE
#define _XOPEN_SOURCE 700 /* wcwidth */
#endif
#include "top_format.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <wchar.h>

static const top_col_info_t col_info[TOP_COL_COUNT_ALL] = {
    [TOP_COL_NAME] = {"name", TOP_NAME_MIN, 1, 'n'},
    [TOP_COL_INSTANCES] = {"inst", 6, 0, 'i'},
    [TOP_COL_COUNT] = {"count", 7, 0, 'c'},
    [TOP_COL_TOTAL] = {"total ms", 10, 0, 't'},
    [TOP_COL_SHARE] = {"%", 6, 0, '%'},
    [TOP_COL_MAX] = {"max ms", 8, 0, 'm'},
    [TOP_COL_MEAN] = {"mean ms", 9, 0, 'a'},
    [TOP_COL_SLOW] = {"slow", 6, 0, 's'},
    [TOP_COL_ERRORS] = {"errors", 8, 0, 'e'},
    [TOP_COL_END] = {"end", 9, 1, 'x'},
    [TOP_COL_CREATOR] = {"created by", 18, 1, 'b'},
    [TOP_COL_LATE_MAX] = {"late max", 10, 0, 'l'},
    [TOP_COL_LATE_MEAN] = {"late mean", 11, 0, 0},
    [TOP_COL_BLOCKED] = {"blocked by", 18, 1, 0},
    [TOP_COL_P50] = {"p50 ms", 8, 0, 0},
    [TOP_COL_P95] = {"p95 ms", 8, 0, 0},
    [TOP_COL_P99] = {"p99 ms", 8, 0, 0},
    [TOP_COL_LATE_P50] = {"late p50", 10, 0, 0},
    [TOP_COL_LATE_P95] = {"late p95", 10, 0, 0},
    [TOP_COL_LATE_P99] = {"late p99", 10, 0, 0},
    [TOP_COL_D_RATE] = {"d rate", 9, 0, 0},
    [TOP_COL_D_SHARE] = {"d %", 9, 0, 0},
    [TOP_COL_D_MAX] = {"d max", 9, 0, 0},
    [TOP_COL_D_P99] = {"d p99", 9, 0, 0},
    [TOP_COL_D_LATE_MAX] = {"d late", 9, 0, 0},
    [TOP_COL_ALLOC_RATE] = {"alloc/s", 9, 0, 0},
    [TOP_COL_ALLOC] = {"alloc", 9, 0, 0},
    [TOP_COL_GC] = {"gc", 7, 0, 0},
    [TOP_COL_GC_MS] = {"gc ms", 9, 0, 0},
};

/* Most important first: a narrow terminal keeps the share and the time, and drops the rest from
 * the end of the list. */
static const top_col_t priority_name[] = {TOP_COL_NAME, TOP_COL_SHARE, TOP_COL_TOTAL, TOP_COL_MAX, TOP_COL_SLOW,
    TOP_COL_COUNT, TOP_COL_MEAN, TOP_COL_ERRORS, TOP_COL_INSTANCES};
static const top_col_t priority_instance[] = {TOP_COL_NAME, TOP_COL_SHARE, TOP_COL_TOTAL, TOP_COL_MAX,
    TOP_COL_CREATOR, TOP_COL_SLOW, TOP_COL_COUNT, TOP_COL_MEAN, TOP_COL_ERRORS, TOP_COL_END};

static const top_col_t order_name[] = {TOP_COL_NAME, TOP_COL_INSTANCES, TOP_COL_COUNT, TOP_COL_TOTAL, TOP_COL_SHARE,
    TOP_COL_MAX, TOP_COL_MEAN, TOP_COL_SLOW, TOP_COL_ERRORS};
static const top_col_t order_instance[] = {TOP_COL_NAME, TOP_COL_COUNT, TOP_COL_TOTAL, TOP_COL_SHARE, TOP_COL_MAX,
    TOP_COL_MEAN, TOP_COL_SLOW, TOP_COL_ERRORS, TOP_COL_END, TOP_COL_CREATOR};

/* The main set with lateness: its max and culprit after the slices' figures. */
static const top_col_t priority_name_late[] = {TOP_COL_NAME, TOP_COL_SHARE, TOP_COL_TOTAL, TOP_COL_MAX, TOP_COL_SLOW,
    TOP_COL_COUNT, TOP_COL_MEAN, TOP_COL_LATE_MAX, TOP_COL_BLOCKED, TOP_COL_ERRORS, TOP_COL_INSTANCES};
static const top_col_t priority_instance_late[] = {TOP_COL_NAME, TOP_COL_SHARE, TOP_COL_TOTAL, TOP_COL_MAX,
    TOP_COL_CREATOR, TOP_COL_SLOW, TOP_COL_COUNT, TOP_COL_MEAN, TOP_COL_LATE_MAX, TOP_COL_BLOCKED, TOP_COL_ERRORS,
    TOP_COL_END};
static const top_col_t order_name_late[] = {TOP_COL_NAME, TOP_COL_INSTANCES, TOP_COL_COUNT, TOP_COL_TOTAL,
    TOP_COL_SHARE, TOP_COL_MAX, TOP_COL_MEAN, TOP_COL_SLOW, TOP_COL_ERRORS, TOP_COL_LATE_MAX, TOP_COL_BLOCKED};
static const top_col_t order_instance_late[] = {TOP_COL_NAME, TOP_COL_COUNT, TOP_COL_TOTAL, TOP_COL_SHARE, TOP_COL_MAX,
    TOP_COL_MEAN, TOP_COL_SLOW, TOP_COL_ERRORS, TOP_COL_LATE_MAX, TOP_COL_BLOCKED, TOP_COL_END, TOP_COL_CREATOR};

/* The slices' distribution: both groupings alike. */
static const top_col_t priority_slices[] = {TOP_COL_NAME, TOP_COL_SHARE, TOP_COL_TOTAL, TOP_COL_P95, TOP_COL_MAX,
    TOP_COL_P50, TOP_COL_P99, TOP_COL_COUNT, TOP_COL_MEAN, TOP_COL_SLOW};
static const top_col_t order_slices[] = {TOP_COL_NAME, TOP_COL_COUNT, TOP_COL_TOTAL, TOP_COL_SHARE, TOP_COL_MEAN,
    TOP_COL_P50, TOP_COL_P95, TOP_COL_P99, TOP_COL_MAX, TOP_COL_SLOW};

/* Lateness in full. */
static const top_col_t priority_lateness[] = {TOP_COL_NAME, TOP_COL_LATE_MAX, TOP_COL_BLOCKED, TOP_COL_LATE_P95,
    TOP_COL_LATE_MEAN, TOP_COL_LATE_P50, TOP_COL_LATE_P99, TOP_COL_COUNT};
static const top_col_t order_lateness[] = {TOP_COL_NAME, TOP_COL_COUNT, TOP_COL_LATE_MEAN, TOP_COL_LATE_P50,
    TOP_COL_LATE_P95, TOP_COL_LATE_P99, TOP_COL_LATE_MAX, TOP_COL_BLOCKED};

/* Memory: what each task allocates and the collections in its slices, beside its share. */
static const top_col_t priority_memory[] = {TOP_COL_NAME, TOP_COL_ALLOC_RATE, TOP_COL_GC, TOP_COL_SHARE, TOP_COL_GC_MS,
    TOP_COL_ALLOC, TOP_COL_MAX, TOP_COL_COUNT};
static const top_col_t order_memory[] = {TOP_COL_NAME, TOP_COL_COUNT, TOP_COL_SHARE, TOP_COL_MAX, TOP_COL_ALLOC,
    TOP_COL_ALLOC_RATE, TOP_COL_GC, TOP_COL_GC_MS};

/* The changes against --compare's base, beside the figures they change. */
static const top_col_t priority_delta[] = {TOP_COL_NAME, TOP_COL_SHARE, TOP_COL_D_SHARE, TOP_COL_MAX, TOP_COL_D_MAX,
    TOP_COL_D_LATE_MAX, TOP_COL_D_RATE, TOP_COL_D_P99, TOP_COL_LATE_MAX, TOP_COL_COUNT};
static const top_col_t order_delta[] = {TOP_COL_NAME, TOP_COL_COUNT, TOP_COL_D_RATE, TOP_COL_SHARE, TOP_COL_D_SHARE,
    TOP_COL_MAX, TOP_COL_D_MAX, TOP_COL_D_P99, TOP_COL_LATE_MAX, TOP_COL_D_LATE_MAX};

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

const char *top_format_colset_name(top_colset_t set)
{
    switch (set) {
    case TOP_SET_SLICES: return "slices";
    case TOP_SET_LATENESS: return "lateness";
    case TOP_SET_MEMORY: return "memory";
    case TOP_SET_DELTA: return "against the base";
    default: return "";
    }
}

const top_col_info_t *top_format_col(top_col_t c)
{
    return &col_info[(unsigned)c < TOP_COL_COUNT_ALL ? c : TOP_COL_NAME];
}

int top_format_name_min(int by_instance)
{
    return by_instance ? TOP_NAME_MIN_INSTANCE : TOP_NAME_MIN;
}

size_t top_format_columns(int by_instance, int width, top_col_t out[TOP_COL_COUNT_ALL], int *name_width)
{
    return top_format_columns_set(TOP_SET_MAIN, by_instance, width, out, name_width);
}

size_t top_format_columns_set(top_colset_t set, int by_instance, int width, top_col_t out[TOP_COL_COUNT_ALL],
    int *name_width)
{
    int name_min = top_format_name_min(by_instance);
    const top_col_t *prio, *order;
    size_t nprio, norder;
    switch (set) {
    case TOP_SET_MAIN_LATE:
        prio = by_instance ? priority_instance_late : priority_name_late;
        nprio = by_instance ? N_OF(priority_instance_late) : N_OF(priority_name_late);
        order = by_instance ? order_instance_late : order_name_late;
        norder = by_instance ? N_OF(order_instance_late) : N_OF(order_name_late);
        break;
    case TOP_SET_SLICES:
        prio = priority_slices;
        nprio = N_OF(priority_slices);
        order = order_slices;
        norder = N_OF(order_slices);
        break;
    case TOP_SET_DELTA:
        prio = priority_delta;
        nprio = N_OF(priority_delta);
        order = order_delta;
        norder = N_OF(order_delta);
        break;
    case TOP_SET_MEMORY:
        prio = priority_memory;
        nprio = N_OF(priority_memory);
        order = order_memory;
        norder = N_OF(order_memory);
        break;
    case TOP_SET_LATENESS:
        prio = priority_lateness;
        nprio = N_OF(priority_lateness);
        order = order_lateness;
        norder = N_OF(order_lateness);
        break;
    default:
        prio = by_instance ? priority_instance : priority_name;
        nprio = by_instance ? N_OF(priority_instance) : N_OF(priority_name);
        order = by_instance ? order_instance : order_name;
        norder = by_instance ? N_OF(order_instance) : N_OF(order_name);
        break;
    }
    int keep[TOP_COL_COUNT_ALL] = {0};

    /* take columns in priority order while they fit beside the narrowest name column */
    int used = name_min;
    keep[TOP_COL_NAME] = 1;
    for (size_t i = 1; i < nprio; i++) {
        int w = col_info[prio[i]].width + 1;
        if (used + w > width) {
            break; /* a lower priority column never jumps ahead of a dropped one */
        }
        used += w;
        keep[prio[i]] = 1;
    }
    size_t n = 0;
    for (size_t i = 0; i < norder; i++) {
        if (keep[order[i]]) {
            out[n++] = order[i];
        }
    }
    int name = width - (used - name_min);
    if (name > TOP_NAME_MAX) {
        name = TOP_NAME_MAX;
    }
    if (name < 1) {
        name = 1;
    }
    *name_width = name;
    return n;
}

int top_format_widen(int *name_w, int name_need, int name_min, int col_w, int col_need)
{
    int floor = name_need > name_min ? name_need : name_min;
    int spare = *name_w - floor, want = col_need - col_w;
    if (want <= 0 || spare <= 0) {
        return col_w;
    }
    int take = want < spare ? want : spare;
    *name_w -= take;
    return col_w + take;
}

static size_t put(char *out, size_t size, const char *s, int width)
{
    size_t len = strlen(s);
    if ((int)len > width || len + 1 > size) {
        len = width >= 1 && size >= 2 ? 1 : 0;
        if (size > 0) {
            memcpy(out, "#", len);
            out[len] = '\0';
        }
        return len;
    }
    memcpy(out, s, len + 1);
    return len;
}

/* us / unit with `decimals` decimals, rounded half up, in integers (exact at any size). */
static int fixed(char *buf, size_t size, uint64_t us, uint64_t unit, int decimals, const char *suffix)
{
    static const uint64_t pow10[] = {1, 10, 100, 1000};
    uint64_t scale = pow10[decimals];
    uint64_t whole = us / unit, rest = us % unit;
    /* rest * scale < unit * 1000 fits easily; the rounding can carry into whole */
    uint64_t frac = (rest * scale + unit / 2) / unit;
    if (frac >= scale) {
        whole++;
        frac -= scale;
    }
    /* the digits by hand: snprintf was most of a table's refresh, this is called for every figure */
    char text[48], rev[24];
    int n = 0, k = 0;
    do {
        rev[k++] = (char)('0' + whole % 10u);
        whole /= 10u;
    } while (whole > 0);
    while (k > 0) {
        text[n++] = rev[--k];
    }
    if (decimals > 0) {
        text[n++] = '.';
        for (int i = decimals - 1; i >= 0; i--) {
            text[n + i] = (char)('0' + frac % 10u);
            frac /= 10u;
        }
        n += decimals;
    }
    for (const char *p = suffix; *p && n < (int)sizeof text - 1; p++) {
        text[n++] = *p;
    }
    /* as snprintf: what fits, terminated, and the whole length returned */
    if (size > 0) {
        size_t keep = (size_t)n < size - 1 ? (size_t)n : size - 1;
        memcpy(buf, text, keep);
        buf[keep] = '\0';
    }
    return n;
}

size_t top_format_join(char *out, size_t size, const char *const *parts, size_t n)
{
    size_t at = 0, room = size > 0 ? size - 1 : 0;
    for (size_t i = 0; i < n; i++) {
        size_t len = strlen(parts[i]);
        if (at < room) {
            memcpy(out + at, parts[i], len < room - at ? len : room - at);
        }
        at += len;
    }
    if (size > 0) {
        out[at < room ? at : room] = '\0';
    }
    return at;
}

const char *top_format_u32(char buf[11], uint32_t n)
{
    char *p = buf + 10;
    *p = '\0';
    do {
        *--p = (char)('0' + n % 10u);
        n /= 10u;
    } while (n > 0);
    return p;
}

size_t top_format_ms(char *out, size_t size, uint64_t us, int width)
{
    static const struct {
        uint64_t unit;
        const char *suffix;
        int max_decimals;
    } steps[] = {{1000, "", 3}, {1000000, "s", 1}, {60000000, "m", 1}, {3600000000ull, "h", 1}};
    char buf[48];

    for (size_t i = 0; i < N_OF(steps); i++) {
        for (int d = steps[i].max_decimals; d >= 0; d--) {
            int len = fixed(buf, sizeof buf, us, steps[i].unit, d, steps[i].suffix);
            if (len <= width) {
                return put(out, size, buf, width);
            }
        }
    }
    return put(out, size, "#", width);
}

size_t top_format_count(char *out, size_t size, uint64_t n, int width)
{
    static const struct {
        uint64_t unit;
        const char *suffix;
    } steps[] = {{1, ""}, {1000, "k"}, {1000000, "M"}, {1000000000, "G"}, {1000000000000ull, "T"}};
    char buf[48];

    for (size_t i = 0; i < N_OF(steps); i++) {
        for (int d = i == 0 ? 0 : 1; d >= 0; d--) {
            int len = fixed(buf, sizeof buf, n, steps[i].unit, d, steps[i].suffix);
            if (len <= width) {
                return put(out, size, buf, width);
            }
        }
    }
    return put(out, size, "#", width);
}

size_t top_format_share(char *out, size_t size, double share, int width)
{
    char buf[48];
    if (!(share >= 0)) {
        share = 0; /* NaN or negative: nothing measured */
    }
    double p = share * 100.0;
    if (snprintf(buf, sizeof buf, "%.1f", p) > width) {
        snprintf(buf, sizeof buf, "%.0f", p);
    }
    return put(out, size, buf, width);
}

size_t top_format_bytes(char *out, size_t size, uint64_t bytes)
{
    static const char *units[] = {"KB", "MB", "GB", "TB"};
    if (bytes < 1024) {
        return (size_t)snprintf(out, size, "%" PRIu64 " B", bytes);
    }
    double v = (double)bytes / 1024.0;
    size_t u = 0;
    while (v >= 1024.0 && u + 1 < N_OF(units)) {
        v /= 1024.0;
        u++;
    }
    int n = snprintf(out, size, "%.1f %s", v, units[u]);
    return n < 0 ? 0 : (size_t)n;
}

top_class_t top_format_class_slice(uint64_t us, uint64_t slow_us)
{
    if (us == 0) {
        return TOP_CLASS_ZERO;
    }
    if (us > slow_us) {
        return TOP_CLASS_ALERT;
    }
    if (us < 1000 && us <= slow_us / 2) {
        return TOP_CLASS_SMALL;
    }
    return us <= slow_us / 2 ? TOP_CLASS_MEDIUM : TOP_CLASS_LARGE;
}

top_class_t top_format_class_share(double share)
{
    if (!(share > 0)) {
        return TOP_CLASS_ZERO;
    }
    if (share < 0.01) {
        return TOP_CLASS_SMALL;
    }
    if (share < 0.10) {
        return TOP_CLASS_MEDIUM;
    }
    return share < TOP_HOG_SHARE ? TOP_CLASS_LARGE : TOP_CLASS_ALERT;
}

top_class_t top_format_class_bad(uint64_t n)
{
    return n == 0 ? TOP_CLASS_ZERO : TOP_CLASS_ALERT;
}

top_class_t top_format_class_count(uint64_t n)
{
    return n == 0 ? TOP_CLASS_ZERO : TOP_CLASS_SMALL;
}

/* Characters that change what follows them without being seen (bidi embeddings, overrides and
 * isolates, the direction marks): drawn as '?' like controls. */
static int fit_is_bidi(wchar_t wc)
{
    return wc == 0x200E || wc == 0x200F || (wc >= 0x202A && wc <= 0x202E) || (wc >= 0x2066 && wc <= 0x2069) ||
           wc == 0x061C;
}

int top_format_fit(char *out, size_t size, const char *s, int width, const char *cut_mark)
{
    size_t mark_len = strlen(cut_mark);
    size_t o = 0, o_fit = 0; /* o_fit: output length while the width left room for the mark */
    int w = 0, w_fit = 0;
    mbstate_t st;
    memset(&st, 0, sizeof st);
    out[0] = '\0';
    if (width <= 0 || size < 8) {
        return 0;
    }
    size_t len = strlen(s);
    size_t i = 0;
    while (i < len) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c < 0x7F) {
            /* printable ASCII, most of what is drawn: one column, nothing to decode */
            if (w + 1 > width || o + 1 + mark_len + 1 > size) {
                memcpy(out + o_fit, cut_mark, mark_len);
                out[o_fit + mark_len] = '\0';
                return w_fit + 1;
            }
            out[o++] = (char)c;
            w++;
            i++;
            if (w <= width - 1) {
                o_fit = o;
                w_fit = w;
            }
            continue;
        }
        wchar_t wc;
        size_t n = mbrtowc(&wc, s + i, len - i, &st);
        int cw;
        int bad = 0;
        if (n == (size_t)-1 || n == (size_t)-2 || n == 0) {
            memset(&st, 0, sizeof st);
            n = 1;
            bad = 1;
        } else if (wc < 0x20 || (wc >= 0x7F && wc < 0xA0) || fit_is_bidi(wc)) {
            bad = 1;
        }
        cw = bad ? 1 : wcwidth(wc);
        if (cw < 0) {
            bad = 1;
            cw = 1;
        }
        size_t bytes = bad ? 1 : n;
        if (w + cw > width || o + bytes + mark_len + 1 > size) {
            /* cut: back to where the mark still fits */
            memcpy(out + o_fit, cut_mark, mark_len);
            out[o_fit + mark_len] = '\0';
            return w_fit + 1;
        }
        if (bad) {
            out[o] = '?';
        } else {
            memcpy(out + o, s + i, n);
        }
        o += bytes;
        w += cw;
        i += n;
        if (w <= width - 1) {
            o_fit = o;
            w_fit = w;
        }
    }
    out[o] = '\0';
    return w;
}

size_t top_format_wrap(const char *s, int width)
{
    size_t len = strlen(s), i = 0, at_space = 0;
    int w = 0;
    mbstate_t st;
    memset(&st, 0, sizeof st);
    if (width < 1) {
        width = 1;
    }
    while (i < len) {
        wchar_t wc;
        size_t n = mbrtowc(&wc, s + i, len - i, &st);
        int cw = 1;
        if (n == (size_t)-1 || n == (size_t)-2 || n == 0) {
            memset(&st, 0, sizeof st);
            n = 1; /* drawn as '?' */
        } else if (wc >= 0x20 && !(wc >= 0x7F && wc < 0xA0) && !fit_is_bidi(wc) && wcwidth(wc) >= 0) {
            cw = wcwidth(wc);
        }
        if (w + cw > width) {
            if (s[i] == ' ') {
                return i + 1; /* the space that ends the line goes with it */
            }
            return at_space > 0 ? at_space : (i > 0 ? i : n);
        }
        w += cw;
        i += n;
        if (s[i - n] == ' ') {
            at_space = i;
        }
    }
    return len;
}
