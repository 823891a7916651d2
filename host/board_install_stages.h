/* The private side of --install, --uninstall and --run --in-ram (board_install.h), shared by its
 * stages, one file each:
 *   board_install_ask.c    the link and the questions: the raw REPL, the helpers defined on the
 *                          board, what the board is and which of the files it has
 *   board_install_files.c  the files chosen for the board (board_files.h), their hashes, the record
 *   board_install_write.c  each file written, verified and renamed; --install from end to end
 *   board_uninstall.c      --uninstall: what the record lists, removed
 *   board_install_ram.c    --run --in-ram: the python engine executed into the board's RAM
 * Calls go one way: write, uninstall and ram use files and ask; files uses ask only to report. */
#ifndef AIOPROF_BOARD_INSTALL_STAGES_H
#define AIOPROF_BOARD_INSTALL_STAGES_H

#include "board_files.h"
#include "board_install.h"
#include "board_repl.h"
#include "source.h"

#include <stddef.h>
#include <stdint.h>

#define INSTALL_ENTER_MS 10000
#define INSTALL_EXEC_MS 20000
#define INSTALL_FILES_MAX (BOARD_FILES_PYTHON_MAX + 1)
#define INSTALL_RECORD "aioprof.installed"

typedef struct install_file {
    char name[BOARD_FILES_NAME_MAX]; /* its name on the board */
    uint8_t *data;
    size_t size;
    char hash[65];                   /* as the board computes it (sha256, or adler32 in hex) */
    char board_hash[65];             /* what the board has under that name now ("": nothing) */
} install_file_t;

typedef struct board_info {
    char impl[32], version[32], platform[32], dir[16], hash_kind[16];
    int mpy, major, minor, made_dir;
    int base64;             /* the board has binascii.a2b_base64 */
    long long free_bytes, total_bytes;
    /* the record left by an earlier install: its files and their hashes */
    char rec_name[INSTALL_FILES_MAX][BOARD_FILES_NAME_MAX];
    char rec_hash[INSTALL_FILES_MAX][65];
    int n_rec, has_rec, rec_made_dir;
    /* the hashes of the files asked about */
    char have_name[INSTALL_FILES_MAX + 1][BOARD_FILES_NAME_MAX];
    char have_hash[INSTALL_FILES_MAX + 1][65];
    long long have_size[INSTALL_FILES_MAX + 1];
    int n_have;
} board_info_t;

typedef struct install {
    const options_t *o;
    source_t *src;
    board_repl_t repl;
    board_info_t info;
    uint64_t start_us;
    int tty;                /* stderr is a terminal: progress on one line */
} install_t;

/* ---- board_install_ask.c ---- */

/* Says what went wrong in one sentence naming the board; returns EXIT_FAILURE_RUNTIME. */
int install_say_error(install_t *in, const char *what);
/* Opens the port, enters the raw REPL and defines the helpers; -1 when said. */
int install_connect(install_t *in);
void install_disconnect(install_t *in);
/* Runs a command; an exception or a link failure is said (its last line) and is -1. `doing` names
 * the step in that sentence. What the command printed is in in->repl.out. */
int install_exec(install_t *in, const char *code, size_t len, const char *doing);
/* What the board is, which of names it has (their hashes) and its record, into in->info; -1 when
 * said (the board does not answer as a MicroPython does). */
int install_probe(install_t *in, const char *const *names, int n_names);
/* What the board is, said once; -1 (said) when it is not a MicroPython 1.21+ with a filesystem. */
int install_check_board(install_t *in);
/* A token the board printed that may be shown: printable ASCII, no space. */
int install_token_ok(const char *s);
/* A name from the board's record that may go into a command: one an install writes (printable, no
 * quote, backslash or slash). */
int install_safe_name(const char *name);
/* Does the board have name (asked about in the last probe)? Its hash into hash ("" when not). */
int install_have(const board_info_t *b, const char *name, char hash[65]);
/* The folder the files go to, as a prefix of "/name": "" for the root, else "/lib". */
const char *install_board_dir(const install_t *in);
/* The last line: what was done, how long it took, the bytes each way. */
void install_summary(install_t *in, const char *what);

/* ---- board_install_files.c ---- */

/* The files for this board (the python engine, and the native module its .mpy version takes) read
 * and hashed the board's way, into files[0 .. *n); engine: "native" or "python", why: the reason.
 * -1 when said; files read so far are in *n either way (install_free). */
int install_find_files(install_t *in, install_file_t *files, int *n, const char **engine, char *why, size_t whylen);
/* The python engine's files alone (--in-ram), into files[0 .. *n); -1 when said. */
int install_find_python(install_t *in, install_file_t *files, int *n);
/* The record of files[0 .. n) into rec (its data allocated; NULL when out of memory). */
void install_record(install_t *in, install_file_t *rec, const install_file_t *files, int n, int made_dir);
void install_free(install_file_t *files, int n);

#endif
