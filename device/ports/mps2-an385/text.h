/* Device text on the same UART as the frames: a line is built here, then sent whole between
 * frames (the caller drained the hook's ring first, so no frame is cut). Each line is followed
 * by a 0x00: a reader classifies a segment at its delimiter, so the line shows at once instead
 * of waiting for the next frame. */
#ifndef TEXT_H
#define TEXT_H

#include <stdint.h>

#define TEXT_LINE_MAX 200

typedef struct text_line {
    char buf[TEXT_LINE_MAX];
    unsigned n;
} text_line_t;

void text_begin(text_line_t *l, const char *s);
void text_str(text_line_t *l, const char *s);
void text_u64(text_line_t *l, uint64_t v);
/* " key=value" */
void text_field(text_line_t *l, const char *key, uint64_t v);
/* Sends the line, a newline and a 0x00, waiting for the UART as needed. */
void text_send(text_line_t *l);

#endif
