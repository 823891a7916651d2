/* The device text a MicroPython application prints on the same port as the frames: ordinary
 * print() lines and, with --hostile-text, lines built to hurt a terminal that shows them raw. */
#ifndef SIM_TEXT_H
#define SIM_TEXT_H

#include <stddef.h>
#include <stdint.h>

#include "sim_rng.h"

#define SIM_TEXT_LINE_MAX 160u

/* Writes line n (ending in '\n', no 0x00, every byte text-like in the sense of docs/protocol.md
 * section 1) into buf, which has room for SIM_TEXT_LINE_MAX bytes. Returns its length. */
size_t sim_text_line(char *buf, uint64_t n, sim_rng_t *rng, int hostile);

#endif
