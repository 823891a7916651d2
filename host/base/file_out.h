/* A file written through a buffer: for the recorder (raw bytes) and the trace export (JSON). Writes
 * go out whole (EINTR retried); the caller flushes when the oldest buffered byte is old enough
 * (file_out_due), so that a crash loses little; the first failure stops all writing and is
 * reported once, through the owner's callback. */
#ifndef AIOPROF_FILE_OUT_H
#define AIOPROF_FILE_OUT_H

#include <stddef.h>
#include <stdint.h>

typedef struct file_out {
    int fd;
    int failed;
    char *buf;
    size_t size, used;
    uint64_t oldest_us; /* monotonic time of the oldest byte in buf */
    uint64_t written;   /* bytes in the file */
    void (*on_fail)(void *user, int errnum); /* called once, at the first failure */
    void *user;
} file_out_t;

/* Opens path for writing, for -w and --export-trace (what: "recording", "trace"): a new file, made
 * here (O_EXCL), or with force an existing regular file, emptied. Whatever else is at path (a
 * device node, a FIFO, a socket, a directory, a symbolic link) is refused with or without force:
 * --force overwrites files, it does not write into devices or through links. *created says
 * whether this run made the file, the one case where it may later be removed. Returns the fd, or
 * -1 with one sentence in err. */
int file_out_create(const char *path, int force, const char *what, int *created, char *err, size_t errlen);

/* Removes path only when this run created it (created) and it is still the file open on fd, so a
 * file put there by someone else in the meantime is left alone. Closes nothing. */
void file_out_remove_created(const char *path, int fd, int created);

void file_out_init(file_out_t *f, int fd, char *buf, size_t size, void (*on_fail)(void *, int), void *user);

/* Stops writing as if a write had failed with errnum (once: later calls do nothing). */
void file_out_fail(file_out_t *f, int errnum);

/* len bytes, through the buffer (a block longer than the buffer goes out directly). */
void file_out_append(file_out_t *f, const void *data, size_t len);

/* Where up to n bytes can be put in the buffer, flushing first if they would not fit (n at most
 * the buffer's size); the caller then says how many it put with file_out_commit. NULL once failed. */
char *file_out_reserve(file_out_t *f, size_t n);
void file_out_commit(file_out_t *f, size_t n);

/* Writes what the buffer holds. */
void file_out_flush(file_out_t *f);

/* Is the oldest buffered byte at least max_age_us old (at monotonic time now_us)? */
static inline int file_out_due(const file_out_t *f, uint64_t now_us, uint64_t max_age_us)
{
    return !f->failed && f->used > 0 && now_us - f->oldest_us >= max_age_us;
}

#endif
