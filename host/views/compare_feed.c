/* A side of a comparison taken as the bytes go by (compare_feed.h). */
#include "compare_feed.h"

#include <stdlib.h>
#include <string.h>

struct compare_feed {
    pipeline_t *window;     /* the window's figures: its statistics are reset at every window */
    stats_cmp_side_t side;
    int failed;             /* out of memory once: the side is incomplete */
};

compare_feed_t *compare_feed_open(uint64_t slow_us, uint64_t window_us)
{
    compare_feed_t *c = calloc(1, sizeof *c);
    pipeline_config_t pc = {.slow_us = slow_us};
    if (c == NULL || (c->window = pipeline_new(&pc)) == NULL) {
        free(c);
        return NULL;
    }
    stats_cmp_init(&c->side, window_us);
    return c;
}

void compare_feed_close(compare_feed_t *c)
{
    if (c != NULL) {
        pipeline_free(c->window);
        stats_cmp_free(&c->side);
        free(c);
    }
}

static void feed_take_window(compare_feed_t *c)
{
    if (stats_cmp_take_window(&c->side, pipeline_stats(c->window)) < 0) {
        c->failed = 1;
    }
    pipeline_reset_stats(c->window);
}

void compare_feed_bytes(compare_feed_t *c, const uint8_t *data, size_t len)
{
    if (c == NULL) {
        return;
    }
    /* a frame at a time, so that a window ends within a frame of its length */
    size_t at = 0;
    while (at < len) {
        const uint8_t *zero = memchr(data + at, 0, len - at);
        size_t end = zero != NULL ? (size_t)(zero - data) + 1 : len;
        pipeline_feed(c->window, data + at, end - at);
        if (pipeline_elapsed_us(c->window) >= c->side.window_us) {
            feed_take_window(c);
        }
        at = end;
    }
}

void compare_feed_link(compare_feed_t *c, int up)
{
    if (c == NULL) {
        return;
    }
    if (up) {
        pipeline_link_up(c->window);
    } else {
        pipeline_link_down(c->window);
    }
}

void compare_feed_input_damaged(compare_feed_t *c)
{
    if (c != NULL) {
        pipeline_input_damaged(c->window);
    }
}

int compare_feed_end(compare_feed_t *c, const pipeline_t *totals, int ended)
{
    if (c == NULL) {
        return 0;
    }
    if (ended) {
        pipeline_end_of_input(c->window);
    } else {
        pipeline_finish(c->window);
    }
    /* a last window much shorter than the others would be a run of another length */
    if (pipeline_elapsed_us(c->window) >= c->side.window_us / 2u) {
        feed_take_window(c);
    }
    if (stats_cmp_take_totals(&c->side, pipeline_stats(totals)) < 0) {
        c->failed = 1;
    }
    return c->failed ? -1 : 0;
}

const stats_cmp_side_t *compare_feed_side(compare_feed_t *c, const pipeline_t *totals)
{
    if (c == NULL || stats_cmp_take_totals(&c->side, pipeline_stats(totals)) < 0) {
        return NULL;
    }
    return &c->side;
}

void compare_feed_restart(compare_feed_t *c)
{
    if (c != NULL) {
        uint64_t window_us = c->side.window_us;
        pipeline_restart(c->window);
        stats_cmp_free(&c->side);
        stats_cmp_init(&c->side, window_us);
        c->failed = 0;
    }
}

void compare_feed_take(compare_feed_t *c, stats_cmp_side_t *out)
{
    *out = c->side;
    stats_cmp_init(&c->side, out->window_us);
}
