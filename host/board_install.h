/* --install and --uninstall: the profiler onto a board, and off it again, through its raw REPL
 * (board_repl.h), as mpremote copies files. Asks the board what it is, picks its files
 * (board_files.h), writes each to a temporary name, checks the hash the board computes of it, and
 * renames it; files already there and identical are not sent. A record on the board
 * (<dir>/aioprof.installed) lists what was installed, so --uninstall removes exactly that. */
#ifndef AIOPROF_BOARD_INSTALL_H
#define AIOPROF_BOARD_INSTALL_H

#include "options.h"

/* Returns an exit code (options.h): 0 done, 1 a runtime failure (said in one sentence on stderr). */
int board_install(const options_t *o);
int board_uninstall(const options_t *o);

/* --run --in-ram: is aioprof on the board? When it is not, the python engine goes
 * into RAM for this run: a soft reset, then each file's source executed into a module of
 * sys.modules, so that the run (which must then skip its own soft reset: *no_reset is set) finds
 * it. Returns an exit code; 0 also when nothing had to be done. */
int board_run_prepare(const options_t *o, int *no_reset);

#endif
