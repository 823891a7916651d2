/* --compare's files (compare_session.h): each read through the file source into a pipeline for
 * its totals and a compare_feed for its windows, as a replay for a report is read. */
#include "compare_session.h"

#include <langinfo.h>
#include <stdio.h>
#include <string.h>

#include "compare_feed.h"
#include "compare_report.h"
#include "pipeline.h"
#include "source.h"

#define COMPARE_READ_MS 1000

int compare_load(const char *path, uint64_t slow_us, int verbose, stats_cmp_side_t *side, char *err, size_t errlen)
{
    uint8_t buf[4096];
    pipeline_config_t pc = {.slow_us = slow_us};
    int rc = -1;
    stats_cmp_init(side, 0);
    source_t *src = source_file_open(path, 0, verbose, err, errlen);
    if (src == NULL)
        return -1;
    pipeline_t *p = pipeline_new(&pc);
    compare_feed_t *c = compare_feed_open(slow_us, 0);
    if (p == NULL || c == NULL) {
        snprintf(err, errlen, "out of memory.");
        goto out;
    }
    for (;;) {
        uint64_t host_us = 0;
        long n = source_read(src, buf, sizeof buf, COMPARE_READ_MS, &host_us);
        if (n > 0) {
            pipeline_feed(p, buf, (size_t)n);
            compare_feed_bytes(c, buf, (size_t)n);
        } else if (n == SOURCE_EOF) {
            break;
        } else if (n == SOURCE_GONE) {
            /* the recording says the link went away: on to where it came back */
            pipeline_link_down(p);
            compare_feed_link(c, 0);
            int r;
            while ((r = source_reconnect(src, COMPARE_READ_MS, &host_us)) == SOURCE_TIMEOUT)
                ;
            if (r == SOURCE_ERROR) {
                snprintf(err, errlen, "%s", source_error(src));
                goto out;
            }
            if (r == SOURCE_EOF)
                break;
            pipeline_link_up(p);
            compare_feed_link(c, 1);
        } else if (n == SOURCE_HOLE) {
            pipeline_input_damaged(p);
            compare_feed_input_damaged(c);
        } else if (n == SOURCE_ERROR) {
            snprintf(err, errlen, "%s", source_error(src));
            goto out;
        }
    }
    if (source_file_undecided(src)) {
        snprintf(err, errlen, "%s is neither a recording nor a raw capture (it is empty).", path);
        goto out;
    }
    int ended = !source_file_closed_cleanly(src);
    if (ended)
        pipeline_end_of_input(p);
    else
        pipeline_finish(p);
    if (compare_feed_end(c, p, ended) < 0) {
        snprintf(err, errlen, "out of memory.");
        goto out;
    }
    stats_cmp_free(side);
    compare_feed_take(c, side);
    rc = 0;
out:
    compare_feed_close(c);
    pipeline_free(p);
    source_close(src);
    return rc;
}

int compare_utf8(void)
{
    const char *codeset = nl_langinfo(CODESET);
    return codeset != NULL && strcmp(codeset, "UTF-8") == 0;
}

int compare_files(const options_t *o)
{
    stats_cmp_side_t base, cur;
    char err[600];
    uint64_t slow_us = (uint64_t)(o->slow_ms * 1000.0);
    if (compare_load(o->compare_base, slow_us, o->verbose, &base, err, sizeof err) < 0) {
        fprintf(stderr, "aioprof-top: %s\n", err);
        stats_cmp_free(&base);
        return EXIT_FAILURE_RUNTIME;
    }
    if (compare_load(o->compare_new, slow_us, o->verbose, &cur, err, sizeof err) < 0) {
        fprintf(stderr, "aioprof-top: %s\n", err);
        stats_cmp_free(&base);
        stats_cmp_free(&cur);
        return EXIT_FAILURE_RUNTIME;
    }
    compare_report_options_t ro = {
        .base_source = o->compare_base,
        .new_source = o->compare_new,
        .unicode = compare_utf8(),
    };
    int r = o->view == VIEW_JSON ? compare_report_json(stdout, &base, &cur, &ro)
                                 : compare_report_text(stdout, &base, &cur, &ro);
    stats_cmp_free(&base);
    stats_cmp_free(&cur);
    if (fflush(stdout) != 0 || r < 0) {
        fputs("aioprof-top: cannot write the comparison to standard output.\n", stderr);
        return EXIT_FAILURE_RUNTIME;
    }
    return EXIT_OK;
}
