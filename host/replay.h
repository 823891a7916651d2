/* Replay control, on the I/O side of the pipeline: the pace, the pause, the position and length of
 * a replay (-r), and seeking in it.
 *
 *   recordings    the file source paces them by their receive times (source_file_replay.c); this
 *                 asks it for its clock and tells it to pause, change speed or seek
 *   raw captures  have no receive times: paced here by the device time their frames carry, which
 *                 main reads from the pipeline after each piece it feeds
 *
 * Seeking forward reads on as fast as possible up to the target, then paces again from there.
 * Seeking back reads the file again from its start (main restarts the pipeline and the view) and
 * then forward to the target: the statistics at any point are those of everything before it, so
 * they are rebuilt rather than kept in checkpoints (a seek back costs a replay of the file up to
 * the target at full speed). A stream (standard input, a FIFO) cannot be read again: seeking back
 * is refused with a sentence. The length is found by a second reader of the same file that runs
 * through it a bounded piece at a time (replay_scan), so a large file never stalls the table. */
#ifndef AIOPROF_REPLAY_H
#define AIOPROF_REPLAY_H

#include <stddef.h>
#include <stdint.h>

#include "source.h"

typedef struct replay replay_t;

/* src is the replay's source (a file source), path what it was opened from. speed: 0 as fast as
 * possible, else within [OPTIONS_SPEED_MIN, OPTIONS_SPEED_MAX]. want_length: find the length (the
 * live table shows it). Returns NULL only when out of memory. */
replay_t *replay_new(source_t *src, const char *path, double speed, int want_length);
void replay_free(replay_t *r);

/* The pace. faster and slower double and halve it within the --speed range (as fast as possible,
 * 0, stays so); a pause stops the clock where it is. */
double replay_speed(const replay_t *r);
void replay_faster(replay_t *r);
void replay_slower(replay_t *r);
void replay_pause(replay_t *r, int paused);
int replay_paused(const replay_t *r);

/* Raw captures: before a read, how many milliseconds until the next piece is due (0: now), and
 * how many bytes the next read may take; after feeding a piece of `bytes`, the pipeline's device
 * time (stats elapsed_us) before and after it. A recording is always due (its source waits). */
int replay_due_ms(replay_t *r, uint64_t now_us);
size_t replay_read_size(const replay_t *r, size_t max);
void replay_fed(replay_t *r, size_t bytes, uint64_t elapsed_before_us, uint64_t elapsed_after_us);

/* Where the replay is: recorded time since the first chunk (a recording), or device time since
 * the start (a raw capture); smooth as its clock runs. */
uint64_t replay_position_us(const replay_t *r, uint64_t now_us);
/* The length, once the scan has found it: 1 with *len_us set, 0 while not known (or never: a
 * stream, a file that cannot be read twice). */
int replay_length_us(const replay_t *r, uint64_t *len_us);
/* The replay reached the end: its length is where it is, if the scan had not said. */
void replay_ended(replay_t *r);
/* Takes the length scan a bounded step further (a few MB of reading). */
void replay_scan(replay_t *r);

/* Seeking to to_us (clamped to the length when known). Returns REPLAY_SEEK_ON (main goes on
 * reading: it is fast-forwarding), REPLAY_SEEK_RESTART (the file is being read again from its
 * start: main restarts the pipeline and the view first), or REPLAY_SEEK_REFUSED with one sentence
 * in err. no_rewind: NULL when seeking back is allowed; else why not, as the end of "seeking back
 * is off while ..." (an output written as it goes would repeat what it wrote: the trace, the log). */
enum { REPLAY_SEEK_ON, REPLAY_SEEK_RESTART, REPLAY_SEEK_REFUSED };
int replay_seek(replay_t *r, uint64_t to_us, const char *no_rewind, char *err, size_t errlen);
/* Still reading as fast as possible towards a seek's target. */
int replay_seeking(const replay_t *r);

#endif
