/* --demo: runs the simulator (aioprof-sim) on a pseudo-terminal and hands back its path, which
 * aioprof-top then opens like any board. */
#ifndef AIOPROF_DEMO_H
#define AIOPROF_DEMO_H

#include <stddef.h>

typedef struct demo demo_t;

/* Finds aioprof-sim (AIOPROF_SIM; where the install put it relative to this program, beside it,
 * the build tree's device/sim/; PATH), starts it with its workload (NULL: "seed"), printing
 * device text when text is set, and waits for it to name its pty. Returns NULL with one sentence
 * in err. */
demo_t *demo_start(const char *workload, int text, int repl, int verbose, char *err, size_t errlen);

const char *demo_pty(const demo_t *d);

/* Drains the simulator's own output (shown with --verbose) so that it never blocks on a full
 * pipe. Returns 0 while it runs, -1 once it has exited. Call it from the main loop. */
int demo_pump(demo_t *d);

/* Stops the simulator and waits for it. NULL is accepted. */
void demo_stop(demo_t *d);

#endif
