/* Makes untrusted device bytes (task names, labels, the platform string, printed text) safe to
 * show on a terminal or in a file: nothing the device sends can move the cursor, clear the screen
 * or change the terminal's state.
 *
 * Kept: printable ASCII and valid UTF-8 outside the C1 range and the bidirectional controls.
 * Made visible: ESC as "\e", TAB/CR/LF as "\t" "\r" "\n" (TAB kept with ESCAPE_KEEP_TAB),
 * the backslash as "\\" (so the result reads back unambiguously), every other byte of a C0 or C1
 * control, DEL, invalid or overlong UTF-8, surrogates and bidi overrides as "\xHH" per byte.
 * A task's name (ESCAPE_NAME) that starts with "(" has it as "\x28": the host's own rows and
 * culprits are the names in parentheses ("(gc)", "(outside tasks)", "(unnamed tasks)"), and a
 * device cannot pass one of its tasks off as one of them. */
#ifndef AIOPROF_ESCAPE_H
#define AIOPROF_ESCAPE_H

#include <stddef.h>
#include <stdint.h>

enum {
    ESCAPE_KEEP_TAB = 1, /* device text: a tab is layout, not an attack */
    ESCAPE_NAME = 2,     /* a task's name: a leading "(" is escaped (above) */
};

/* The "cut" mark appended when the result did not fit (U+2026, 3 bytes). */
#define ESCAPE_CUT_MARK "\xE2\x80\xA6"

/* Writes the escaped form of in[0..len) into out[0..out_size), always NUL-terminated (out_size
 * must be at least 4 for the cut mark). When it does not fit, it is cut at a whole character and
 * ends with ESCAPE_CUT_MARK. Returns the length written, without the NUL. Never fails. */
size_t escape_bytes(char *out, size_t out_size, const uint8_t *in, size_t len, unsigned flags);

/* The display width of an escaped string, in terminal columns under the current locale (wcwidth:
 * wide CJK glyphs count 2, combining marks and zero-width characters 0; a character the locale
 * cannot measure counts 1). */
size_t escape_width(const char *s);

/* The byte length of the longest prefix of s that is at most width columns wide (a character's
 * combining marks stay with it); its width in *prefix_width when that is not NULL. */
size_t escape_prefix(const char *s, size_t width, size_t *prefix_width);

#endif
