/* The host's clock: microseconds of CLOCK_MONOTONIC. The sources stamp what they read with it
 * (host_us), and the outputs pace their flushes by it; it never steps with the wall clock. */
#ifndef AIOPROF_MONOTONIC_H
#define AIOPROF_MONOTONIC_H

#include <stdint.h>

uint64_t monotonic_us(void);

#endif
