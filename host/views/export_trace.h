/* The trace export: what the pipeline's observer sees, written as a Chrome Trace Event JSON file
 * (docs/trace-export.md) that Perfetto, chrome://tracing and speedscope open.
 *
 *   pipeline observer (slices, marks, text lines, events) -> export_trace -> FILE
 *
 * Streamed: each event is written into a buffer (slices and windows by hand, rare events through
 * cJSON) that goes out with write(2) in whole events, so memory stays flat however long the
 * session is, and a killed session leaves a file that ends after a whole event (append "]}" to
 * complete it). A write error is reported once
 * and stops the export; the session goes on. */
#ifndef AIOPROF_EXPORT_TRACE_H
#define AIOPROF_EXPORT_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "pipeline.h"

#define EXPORT_TRACE_FLUSH_MS 1000u /* a live session's trace reaches the file this often */

typedef struct export_trace export_trace_t;
struct file_out_files;

/* Creates path (file_out_create: an existing regular file only with force, never one of the
 * session's files, which may be NULL) and writes the opening. source names the input in the
 * trace's metadata. Returns NULL with one sentence in err. */
export_trace_t *export_trace_open(const char *path, int force, struct file_out_files *files, const char *source,
    char *err, size_t errlen);

/* The observer to put in pipeline_config_t, with the export_trace_t as observer_user. */
const pipeline_observer_t *export_trace_observer(void);

/* Writes what waited EXPORT_TRACE_FLUSH_MS or longer. Call it from the session's loop. */
void export_trace_tick(export_trace_t *x);

/* How the session ended, for the trace's metadata (otherData: "complete", "ended_by"): complete
 * is 0 when the input was not read to its end (a replay stopped by q, Ctrl-C or --duration); how
 * names what ended it ("the end of the recording", "q", "Ctrl-C", "--duration"...). Call it
 * before export_trace_close; without it the trace says it is complete. NULL x is accepted. */
void export_trace_ended(export_trace_t *x, int complete, const char *how);

/* Writes the closing and closes. Returns 0, or -1 when the export failed at any time (the failure
 * was already reported). NULL is accepted. */
int export_trace_close(export_trace_t *x);

/* The session never started: closes, and removes the file if this run created it. NULL is
 * accepted. */
void export_trace_discard(export_trace_t *x);

/* Events written so far (slices, marks, text lines, counters, track names). */
uint64_t export_trace_events(const export_trace_t *x);

#endif
