/* The native module's code as one translation unit: the hook's sources (device/, proto/) and the
 * wrapper (aioprof_native.c) compiled together, with -fwhole-program (the Makefile). mpy_ld.py keeps
 * every function of the objects it links (no --gc-sections, no link-time optimisation), so compiled
 * apart each of the hook's functions stays whole and external even where the wrapper calls it once
 * or never; seen together, the compiler makes them local, inlines what is called once, drops what
 * nothing calls, and calls the rest directly. The same code, so the same bytes on the wire.
 * What mpy_ld.py must see from outside carries NATIVE_VISIBLE (aioprof_native.c): the entry point
 * that aioprof_native_entry.c calls, and the zero-initialised objects (mpy_ld.py refuses a static
 * one). The hook's files come first: the wrapper's MicroPython headers define macros that the
 * hook's code must not meet. The files are the Makefile's AIOPROF_SRC: keep the two lists alike. */
#include "../../aioprof.c"
#include "../../../proto/aioprof_frame_writer.c"
#include "../../../proto/aioprof_crc16.c"
#include "../../../proto/aioprof_varint.c"
#include "aioprof_native.c"
