/* The demo's own account of what it ran, kept beside the hook (not from its frames), per task
 * name: the figures aioprof-top reports per name, computed from the same tick readings the hook
 * stamped, so the test can demand exact agreement. */
#ifndef ACCOUNT_H
#define ACCOUNT_H

#include <stdint.h>

#define ACCOUNT_NAMES 8
#define ACCOUNT_SLOW_US 20000u /* aioprof-top's default --slow: slices longer than 20 ms */

typedef struct account_row {
    const char *name;
    uint32_t instances; /* created */
    uint32_t count;     /* slices */
    uint32_t max_us;
    uint32_t slow;
    uint32_t errors;    /* instances that ended by raising or by cancellation */
    uint64_t total_us;
} account_row_t;

typedef struct account {
    account_row_t rows[ACCOUNT_NAMES];
    unsigned n;
    uint32_t slices;
    uint32_t created;
    uint32_t events_dropped;  /* ENTER and EXIT the hook counted as dropped */
    uint32_t created_dropped; /* task creations it counted as dropped */
    uint32_t spawn_failed;    /* no free task slot: not the hook's business, shown for the record */
} account_t;

/* The row for a name (compared by address: names are literals), added on first use; NULL when
 * the table is full. */
account_row_t *account_row(account_t *a, const char *name);

void account_slice(account_t *a, account_row_t *r, uint32_t us);

/* Sends the account as device text, one line per name and a summary line (text.h). */
void account_send(const account_t *a, uint32_t dropped_total, uint32_t run_us, uint32_t ring_bytes);

#endif
