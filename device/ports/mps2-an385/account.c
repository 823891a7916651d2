/* The demo's account: see account.h. */
#include "account.h"

#include "text.h"

account_row_t *account_row(account_t *a, const char *name)
{
    for (unsigned i = 0; i < a->n; i++) {
        if (a->rows[i].name == name) {
            return &a->rows[i];
        }
    }
    if (a->n == ACCOUNT_NAMES) {
        return 0;
    }
    account_row_t *r = &a->rows[a->n++];
    r->name = name;
    return r;
}

void account_slice(account_t *a, account_row_t *r, uint32_t us)
{
    a->slices++;
    r->count++;
    r->total_us += us;
    if (us > r->max_us) {
        r->max_us = us;
    }
    r->slow += us > ACCOUNT_SLOW_US;
}

void account_send(const account_t *a, uint32_t dropped_total, uint32_t run_us, uint32_t ring_bytes)
{
    text_line_t l;
    for (unsigned i = 0; i < a->n; i++) {
        const account_row_t *r = &a->rows[i];
        text_begin(&l, "account name=");
        text_str(&l, r->name);
        text_field(&l, "instances", r->instances);
        text_field(&l, "count", r->count);
        text_field(&l, "total_us", r->total_us);
        text_field(&l, "max_us", r->max_us);
        text_field(&l, "slow", r->slow);
        text_field(&l, "errors", r->errors);
        text_send(&l);
    }
    text_begin(&l, "account summary");
    text_field(&l, "slices", a->slices);
    text_field(&l, "created", a->created);
    /* what the host should have decoded: every ENTER and EXIT the hook did not drop */
    text_field(&l, "events", 2u * a->slices - a->events_dropped);
    text_field(&l, "events_dropped", a->events_dropped);
    text_field(&l, "created_dropped", a->created_dropped);
    text_field(&l, "dropped_total", dropped_total);
    text_field(&l, "spawn_failed", a->spawn_failed);
    text_field(&l, "run_us", run_us);
    text_field(&l, "ring", ring_bytes);
    text_send(&l);
}
