/* --capture-hogs: the last seconds of raw bytes as they came from the port, in memory and bounded,
 * from which a stretch around a hog is written as a recording (docs/recording.md) that -r replays.
 *
 * Each read is kept as a chunk with its host time and the device time the decoder had reached
 * after it (the session's gapless time line), so that a stretch is chosen by device time whatever
 * the pace of the input (a port, a replay at any speed). Oldest chunks go first when the bytes
 * pass the ring's size or are older than its keep time. A stretch starts after the first frame
 * delimiter (0x00) in it and ends after the last, so it holds whole segments only; before it goes
 * a context the caller makes for its first frame (the HELLO and the names of the running tasks,
 * which a reader joining mid-stream would otherwise not have). */
#ifndef AIOPROF_HOG_RING_H
#define AIOPROF_HOG_RING_H

#include <stddef.h>
#include <stdint.h>

#include "recorder.h"

typedef struct hog_ring hog_ring_t;

/* The first whole frame of a stretch: what the context's frames must continue from. */
typedef struct hog_first_frame {
    uint8_t seq, format;
    uint32_t base;
    uint32_t running; /* the task running when it was opened, 0 for none */
    int boot;         /* it starts with a boot HELLO */
} hog_first_frame_t;

/* The context's bytes (whole encoded frames, delimiters included) for a stretch whose first frame
 * is first: malloc'ed, *len bytes, or NULL for none. */
typedef uint8_t *(*hog_context_fn)(void *user, const hog_first_frame_t *first, size_t *len);

/* A ring of at most max_bytes of data, of chunks at most keep_us of device time old. */
hog_ring_t *hog_ring_new(size_t max_bytes, uint64_t keep_us);
void hog_ring_free(hog_ring_t *r);

/* A read's bytes, at host_us, after which the decoder's device time was dev_us. */
void hog_ring_data(hog_ring_t *r, uint64_t host_us, uint64_t dev_us, const uint8_t *data, size_t len);
/* The link went down (up 0) or came back. */
void hog_ring_link(hog_ring_t *r, int up, uint64_t host_us, uint64_t dev_us);
/* Nothing kept any more (a seek back restarts the input). */
void hog_ring_clear(hog_ring_t *r);

/* The device time of the oldest byte still kept (UINT64_MAX when empty). */
uint64_t hog_ring_oldest_us(const hog_ring_t *r);

/* Writes the chunks that hold device time [from_us, to_us] to rec after the context (asked of
 * context() for the stretch's first frame), and closes rec with END. Returns 0, or -1 when the
 * stretch holds no whole frame or rec failed (rec is closed either way). */
int hog_ring_write(const hog_ring_t *r, recorder_t *rec, uint64_t from_us, uint64_t to_us, hog_context_fn context,
    void *user);

#endif
