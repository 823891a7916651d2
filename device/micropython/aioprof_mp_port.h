/* The C module's port bound at compile time (AIOPROF_PORT_HEADER, device/aioprof.h): the device
 * library reads MicroPython's microsecond counter in place instead of through the port structure,
 * and has no critical section (it records where the VM runs, never from an interrupt). Set for the
 * library's files by micropython.mk and micropython.cmake; the native module does not use it. */
#ifndef AIOPROF_MP_PORT_H
#define AIOPROF_MP_PORT_H

#include <stdint.h>

#include "py/mphal.h"

#define AIOPROF_PORT_TICKS(user) ((void)(user), (uint32_t)mp_hal_ticks_us())
#define AIOPROF_PORT_LOCK(user) ((void)(user), 0u)
#define AIOPROF_PORT_UNLOCK(user, state) ((void)(user), (void)(state))

#endif
