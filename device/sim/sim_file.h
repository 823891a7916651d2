/* The files the simulator writes (-o, --truth, --pty-link), made the careful way: never through a
 * symbolic link, never a half-written file where a script waits for one. */
#ifndef SIM_FILE_H
#define SIM_FILE_H

#include <stddef.h>

/* Opens path for writing an output (what: "the output", "the truth"): a new file, an existing
 * regular file (emptied; still the same file once open), or a character device or FIFO as it is
 * (/dev/null, a serial port, a pipe to aioprof-top). A symbolic link, a directory, a socket or a
 * block device is refused. Returns the fd, or -1 after one sentence on stderr. */
int sim_file_create(const char *path, const char *what);

/* Puts text at path in one step: written into a new file of a random name in the same folder,
 * then renamed over path (which, if it exists, must be a regular file or a symbolic link: the
 * link itself is replaced, not what it points at). A reader sees the old content or all of the
 * new. Returns 0, or -1 after one sentence on stderr. */
int sim_file_replace(const char *path, const char *what, const char *text, size_t len);

#endif
