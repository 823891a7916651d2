/* The fake device's port bound at compile time (AIOPROF_PORT_HEADER, see device/aioprof.h): the
 * test programs built as *_bound compile the hook with this header, so that the macros' path is
 * checked against the same expectations and golden bytes as the pointers' path. */
#ifndef AIOPROF_TEST_FAKE_PORT_BOUND_H
#define AIOPROF_TEST_FAKE_PORT_BOUND_H

#include <stdint.h>

uint32_t fake_bound_ticks(void *user);
uint32_t fake_bound_lock(void *user);
void fake_bound_unlock(void *user, uint32_t state);

#define AIOPROF_PORT_TICKS(user) fake_bound_ticks(user)
#define AIOPROF_PORT_LOCK(user) fake_bound_lock(user)
#define AIOPROF_PORT_UNLOCK(user, state) fake_bound_unlock((user), (state))

#endif
