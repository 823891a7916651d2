/* A file written through a buffer: for the recorder (raw bytes), the trace export (JSON) and the
 * text log, and how every output of a session is opened, checked and removed. Writes
 * go out whole (EINTR retried); the caller flushes when the oldest buffered byte is old enough
 * (file_out_due), so that a crash loses little; the first failure stops all writing and is
 * reported once, through the owner's callback. */
#ifndef AIOPROF_FILE_OUT_H
#define AIOPROF_FILE_OUT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct file_out {
    int fd;
    int failed;
    char *buf;
    size_t size, used;
    uint64_t oldest_us; /* monotonic time of the oldest byte in buf */
    uint64_t written;   /* bytes in the file */
    const char *path;   /* the owner's */
    int created;        /* this run made the file: the one case where it may be removed */
    void (*on_fail)(void *user, int errnum); /* called once, at the first failure */
    void *user;
} file_out_t;

/* The files of a session, by device and inode, the one identity a file has whatever it is called
 * (./A, a hard link, /dev/fd/N): what it reads (the recording replayed, the port, the program
 * --run sends) and what it writes (standard output when a view writes there, each output). An
 * output that is one of them is refused before anything is emptied or written: an input whatever
 * its kind, another output when it is a regular file (outputs may share a device or a FIFO, as
 * 2>&1 does: nothing is truncated there). */
#define FILE_OUT_FILES_MAX 8

typedef struct file_out_files {
    struct file_out_file {
        dev_t dev;
        ino_t ino;
        int input;
        int output;       /* one of file_out_create's: what is its what ("log") */
        int regular;
        const char *what; /* "the recording being replayed", "standard output", or an output's what */
    } file[FILE_OUT_FILES_MAX];
    unsigned n;
    int clash; /* an output was refused for being one of them: a usage error, not a runtime one */
} file_out_files_t;

/* Notes a file of the session that is not one of its outputs (what: how a message names it): the
 * one open on fd, or (fd < 0) the one at path, when it exists. */
void file_out_note(file_out_files_t *t, int fd, const char *path, int input, const char *what);

/* The output what ("log") is to be written at path: refused (-1, one sentence in err, t->clash set)
 * when path already names one of t's files, noted otherwise. Nothing is opened: every output is
 * checked this way before any is emptied, and again once open (file_out_create). */
int file_out_claim(file_out_files_t *t, const char *path, const char *what, char *err, size_t errlen);

/* Opens path for the output what ("recording", "trace", "log"): a new file, made here (O_EXCL);
 * an existing regular file only with force, emptied; a character device or a FIFO (/dev/null,
 * /dev/stdout, a pipe's reader) written as it is, force or not: nothing is truncated there. A
 * symbolic link to a regular file, a directory, a socket or a block device is refused even with
 * force, and so is any of t's files (t may be NULL), which the opened file is then noted among.
 * *created says whether this run made the file. Returns the fd, or -1 with one sentence in err. */
int file_out_create(const char *path, int force, const char *what, file_out_files_t *t, int *created, char *err,
    size_t errlen);

/* path and created as file_out_create gave them (path is kept, not copied). */
void file_out_init(file_out_t *f, int fd, const char *path, int created, char *buf, size_t size,
    void (*on_fail)(void *, int), void *user);

/* Writes what is buffered and closes. A file this run created that writing could not put a byte
 * in (a full disk) is removed: it would only pass for an output. Returns 0, or -1 when writing
 * failed at any time (said already, through on_fail). */
int file_out_close(file_out_t *f);

/* The session never started: closes, and removes the file if this run created it. */
void file_out_discard(file_out_t *f);

/* Stops writing as if a write had failed with errnum (once: later calls do nothing). */
void file_out_fail(file_out_t *f, int errnum);

/* len bytes, through the buffer (a block longer than the buffer goes out directly). */
void file_out_append(file_out_t *f, const void *data, size_t len);

/* Where up to n bytes can be put in the buffer, flushing first if they would not fit (n at most
 * the buffer's size); the caller then says how many it put with file_out_commit. NULL once failed. */
char *file_out_reserve(file_out_t *f, size_t n);
static inline void file_out_commit(file_out_t *f, size_t n)
{
    f->used += n; /* inline: the trace export commits millions of events */
}

/* Writes what the buffer holds. */
void file_out_flush(file_out_t *f);

/* Is the oldest buffered byte at least max_age_us old (at monotonic time now_us)? */
static inline int file_out_due(const file_out_t *f, uint64_t now_us, uint64_t max_age_us)
{
    return !f->failed && f->used > 0 && now_us - f->oldest_us >= max_age_us;
}

#endif
