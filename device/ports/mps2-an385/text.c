/* Device text lines: see text.h. No printf: a firmware that profiles itself should not pull in
 * a formatted-output library for a few numbers. */
#include "text.h"

#include "board.h"

void text_str(text_line_t *l, const char *s)
{
    /* two bytes stay free for the newline and the delimiter */
    while (*s != '\0' && l->n < TEXT_LINE_MAX - 2u) {
        l->buf[l->n++] = *s++;
    }
}

void text_begin(text_line_t *l, const char *s)
{
    l->n = 0;
    text_str(l, s);
}

void text_u64(text_line_t *l, uint64_t v)
{
    char digits[20];
    unsigned n = 0;
    do {
        digits[n++] = (char)('0' + v % 10u);
        v /= 10u;
    } while (v != 0);
    while (n > 0 && l->n < TEXT_LINE_MAX - 2u) {
        l->buf[l->n++] = digits[--n];
    }
}

void text_field(text_line_t *l, const char *key, uint64_t v)
{
    text_str(l, " ");
    text_str(l, key);
    text_str(l, "=");
    text_u64(l, v);
}

void text_send(text_line_t *l)
{
    l->buf[l->n++] = '\n';
    l->buf[l->n++] = '\0';
    uart_write_all((const uint8_t *)l->buf, l->n);
    l->n = 0;
}
