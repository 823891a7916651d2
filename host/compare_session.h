/* --compare (docs/usage.md, "Comparing sessions"): a recording or raw capture read whole into one
 * side of a comparison (its totals and its windows), and --compare BASE NEW, which compares two
 * of them and prints the result (text, or JSON with --json). The comparison with a live session
 * is the session's (session_outputs.c feeds its side as the bytes come). */
#ifndef AIOPROF_COMPARE_SESSION_H
#define AIOPROF_COMPARE_SESSION_H

#include <stddef.h>
#include <stdint.h>

#include "options.h"
#include "stats_compare.h"

/* Reads path (a recording, a raw capture, "-") as fast as it can into side (initialised here; the
 * caller frees it with stats_cmp_free). Returns 0, or -1 with one sentence in err. */
int compare_load(const char *path, uint64_t slow_us, int verbose, stats_cmp_side_t *side, char *err, size_t errlen);

/* A UTF-8 locale: the comparison's minus sign (session_utf8's rule; the session's files call into
 * this one, not the other way). */
int compare_utf8(void);

/* --compare BASE NEW: returns an exit code. */
int compare_files(const options_t *o);

#endif
