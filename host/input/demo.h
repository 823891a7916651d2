/* --demo: runs the simulator (aioprof-sim) on a pseudo-terminal and hands back its path, which
 * aioprof-top then opens like any board. */
#ifndef AIOPROF_DEMO_H
#define AIOPROF_DEMO_H

#include <stddef.h>

typedef struct demo demo_t;

/* Finds aioprof-sim (AIOPROF_SIM; where the install put it relative to this program, beside it,
 * the build tree's device/sim/; PATH), starts it with its workload (NULL: "seed") printing a line
 * of text every text_every slices (0: none), playing a board's raw REPL when repl is set (--run),
 * and waits for it to name its pty. Returns NULL with one sentence in err; *usage is set to 1
 * when the simulator refused those options (a usage error: an unknown workload). */
demo_t *demo_start(const char *workload, int text_every, int repl, int verbose, char *err, size_t errlen,
                   int *usage);

const char *demo_pty(const demo_t *d);

/* Drains the simulator's own output (shown with --verbose) so that it never blocks on a full
 * pipe. Returns 0 while it runs, -1 once it has exited. Call it from the main loop. */
int demo_pump(demo_t *d);

/* Stops the simulator and waits for it. NULL is accepted. */
void demo_stop(demo_t *d);

#endif
