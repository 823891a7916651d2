/* The live table's header: the link and the replay, the device and its rates, the health
 * counters and the recording, the view's modes. Folded into fewer lines on short terminals. */
#ifndef _XOPEN_SOURCE
#define _XOPEN_SOURCE 700
#endif
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE
#endif
#include <inttypes.h>
#include <stdio.h>

#include "top_draw.h"

static int head_link(const top_view_t *v, int y, int x)
{
    const top_status_t *st = v->status;
    char buf[STATS_TEXT_MAX + 96];
    x = top_draw_seg(v, y, x, st && st->source ? st->source : "(no source)", A_BOLD);
    x = top_draw_seg(v, y, x, top_sep(v), A_NORMAL);
    if (st == NULL || st->link == TOP_LINK_CONNECTED) {
        x = top_draw_seg(v, y, x, st && st->replay ? "replaying" : "connected", top_attr_pair(v, PAIR_GOOD, A_NORMAL));
    } else if (st->link == TOP_LINK_WAITING) {
        x = top_draw_seg(v, y, x, "waiting for the device", top_attr_class(v, TOP_CLASS_LARGE));
    } else {
        x = top_draw_seg(v, y, x, st->replay ? "end of recording" : "link closed", top_attr_class(v, TOP_CLASS_LARGE));
    }
    if (st != NULL && st->replay) {
        char speed[32];
        if (st->replay_speed > 0) {
            snprintf(speed, sizeof speed, "%gx", st->replay_speed);
        } else {
            snprintf(speed, sizeof speed, "max speed");
        }
        if (st->replay_length_s >= 0) {
            snprintf(buf, sizeof buf, "%s%s, %.1f / %.1f s", top_sep(v), speed, st->replay_position_s,
                st->replay_length_s);
        } else {
            snprintf(buf, sizeof buf, "%s%s, %.1f s", top_sep(v), speed, st->replay_position_s);
        }
        x = top_draw_seg(v, y, x, buf, A_NORMAL);
        if (st->replay_seeking) {
            x = top_draw_seg(v, y, x, top_sep(v), A_NORMAL);
            x = top_draw_seg(v, y, x, "seeking", top_attr_class(v, TOP_CLASS_LARGE));
        }
        if (st->replay_paused) {
            x = top_draw_seg(v, y, x, top_sep(v), A_NORMAL);
            x = top_draw_seg(v, y, x, "PAUSED", top_attr_class(v, TOP_CLASS_LARGE));
        }
    }
    if (v->frozen) {
        x = top_draw_seg(v, y, x, top_sep(v), A_NORMAL);
        x = top_draw_seg(v, y, x, "FROZEN", top_attr_pair(v, PAIR_ALERT, A_NORMAL) | A_REVERSE | A_BOLD);
    }
    return x;
}

static int head_device(const top_view_t *v, int y, int x)
{
    const top_head_t *h = &v->head;
    char buf[STATS_PLATFORM_MAX + 96];
    if (h->device.have_hello) {
        snprintf(buf, sizeof buf, "%s, protocol %" PRIu32, h->device.platform[0] ? h->device.platform : "device",
            h->device.version);
        x = top_draw_seg(v, y, x, buf, A_BOLD);
    } else {
        x = top_draw_seg(v, y, x, "no HELLO from the device yet", A_DIM);
    }
    snprintf(buf, sizeof buf, "%stime %.2f s%s%.0f ev/s%s%.1f KB/s", top_sep(v), (double)h->elapsed_us / 1e6,
        top_sep(v), h->events_per_s, top_sep(v), h->bytes_per_s / 1024.0);
    x = top_draw_seg(v, y, x, buf, A_NORMAL);
    if (h->overhead >= 0) {
        snprintf(buf, sizeof buf, "%soverhead %.2f %%", top_sep(v), 100.0 * h->overhead);
        x = top_draw_seg(v, y, x, buf, A_NORMAL);
    }
    return x;
}

static int head_health(const top_view_t *v, int y, int x)
{
    const top_head_t *h = &v->head;
    const top_status_t *st = v->status;
    x = top_draw_counter(v, y, x, "dropped ", h->stream.dropped_events);
    x = top_draw_counter(v, y, x, " CRC errors ", h->stream.crc_errors);
    x = top_draw_counter(v, y, x, " lost frames ", h->stream.lost_frames);
    x = top_draw_counter(v, y, x, " duplicates ", h->stream.duplicates);
    x = top_draw_counter(v, y, x, " clock steps back ", h->stream.clock_steps_back);
    x = top_draw_counter(v, y, x, " resets ", h->stream.resets);
    if (h->stream.recording_damage) {
        x = top_draw_counter(v, y, x, " recording damage ", h->stream.recording_damage);
    }
    if (st != NULL && st->record_path != NULL) {
        char size[32], buf[STATS_TEXT_MAX + 64];
        top_format_bytes(size, sizeof size, st->record_bytes);
        snprintf(buf, sizeof buf, "%srec %s (%s)", top_sep(v), st->record_path, size);
        x = top_draw_seg(v, y, x, buf, A_NORMAL);
    }
    if (st != NULL && st->hogs_on) {
        char buf[96];
        if (st->hogs_missed) {
            snprintf(buf, sizeof buf, "%shogs %llu captured, %llu missed", top_sep(v),
                (unsigned long long)st->hogs_captured, (unsigned long long)st->hogs_missed);
        } else {
            snprintf(buf, sizeof buf, "%shogs %llu captured", top_sep(v), (unsigned long long)st->hogs_captured);
        }
        x = top_draw_seg(v, y, x, buf, st->hogs_missed ? A_BOLD : A_NORMAL);
    }
    if (h->any_lower) {
        x = top_draw_seg(v, y, x, top_sep(v), A_NORMAL);
        x = top_draw_seg(v, y, x, v->unicode ? "\xE2\x89\xA5 may be low" : "> may be low", A_NORMAL);
    }
    return x;
}

static int head_mode(const top_view_t *v, int y, int x)
{
    char buf[STATS_TEXT_MAX + 96];
    if (v->drilled) {
        snprintf(buf, sizeof buf, "instances of %s", v->drill);
    } else {
        snprintf(buf, sizeof buf, "%s", v->by_instance ? "by instance" : "by name");
    }
    x = top_draw_seg(v, y, x, buf, A_BOLD);
    if (v->window) {
        snprintf(buf, sizeof buf, "%slast %.1f s", top_sep(v), (double)v->head.win_elapsed_us / 1e6);
    } else {
        snprintf(buf, sizeof buf, "%scumulative", top_sep(v));
    }
    x = top_draw_seg(v, y, x, buf, A_NORMAL);
    snprintf(buf, sizeof buf, "%ssort %s %s%sslow > %g ms", top_sep(v), top_format_col(v->sort)->head,
        top_sort_mark(v), top_sep(v), (double)v->head.slow_us / 1000.0);
    x = top_draw_seg(v, y, x, buf, A_NORMAL);
    if (*top_format_colset_name(top_table_colset(v))) {
        snprintf(buf, sizeof buf, "%scolumns: %s", top_sep(v), top_format_colset_name(top_table_colset(v)));
        x = top_draw_seg(v, y, x, buf, A_NORMAL);
    }
    if (v->timeline) {
        snprintf(buf, sizeof buf, "%stimeline %g s%s ran %s slow", top_sep(v), (double)v->tl_span_us / 1e6,
            v->unicode ? " \xE2\x96\x88" : " =", v->unicode ? "\xE2\x96\x93" : "#");
        x = top_draw_seg(v, y, x, buf, A_NORMAL);
        uint64_t kept = top_timeline_kept_us(&v->tl, v->tl_to_us);
        if (v->tl.known_from_us > 0 && kept < v->tl_span_us) {
            /* the ring holds less than the span: say how much */
            snprintf(buf, sizeof buf, " (kept: last %.2f s)", (double)kept / 1e6);
            x = top_draw_seg(v, y, x, buf, top_attr_class(v, TOP_CLASS_LARGE));
        }
    }
    if (v->filter[0] || v->filter_edit) {
        x = top_draw_seg(v, y, x, top_sep(v), A_NORMAL);
        x = top_draw_seg(v, y, x, "filter: ", A_NORMAL);
        x = top_draw_seg(v, y, x, v->filter, top_attr_class(v, TOP_CLASS_LARGE));
    }
    return x;
}

void top_draw_header(const top_view_t *v)
{
    switch (v->lay.head_lines) {
    case 4:
        head_link(v, 0, 0);
        head_device(v, 1, 0);
        head_health(v, 2, 0);
        head_mode(v, 3, 0);
        break;
    case 3:
        head_link(v, 0, 0);
        head_device(v, 1, head_health(v, 1, 0) + 2);
        head_mode(v, 2, 0);
        break;
    default:
        head_mode(v, 0, head_link(v, 0, 0) + 2);
        head_device(v, 1, head_health(v, 1, 0) + 2);
        break;
    }
}
