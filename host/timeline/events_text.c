/* Device text cut into lines, escaped (control characters and escape sequences made visible),
 * each told to the user and the observer. Part of the events stage (events.h). */
#include <string.h>

#include "escape.h"
#include "events_private.h"

static void line_emit(events_t *e, int cut)
{
    size_t len = e->line_len;
    while (len > 0 && e->line[len - 1] == '\r') {
        len--;
    }
    size_t n = escape_bytes(e->escaped, sizeof e->escaped - 4, e->line, len, ESCAPE_KEEP_TAB);
    if (cut) {
        memcpy(e->escaped + n, ESCAPE_CUT_MARK, sizeof ESCAPE_CUT_MARK);
    }
    e->stats->stream.text_lines++;
    if (e->text_line) {
        e->text_line(e->user, e->escaped);
    }
    if (e->obs && e->obs->text_line) {
        e->obs->text_line(e->obs_user, e->now_us, e->escaped);
    }
    e->line_len = 0;
}

void events_text(void *user, const uint8_t *text, size_t len)
{
    events_t *e = user;
    while (len > 0) {
        const uint8_t *nl = memchr(text, '\n', len);
        size_t n = nl ? (size_t)(nl - text) : len;
        if (!e->line_cut) {
            size_t room = EVENTS_LINE_MAX - e->line_len;
            if (n <= room) {
                memcpy(e->line + e->line_len, text, n);
                e->line_len += n;
            } else {
                /* too long for one line: show what fits now, skip the rest of it */
                memcpy(e->line + e->line_len, text, room);
                e->line_len += room;
                line_emit(e, 1);
                e->line_cut = 1;
            }
        }
        if (!nl) {
            return;
        }
        if (e->line_cut) {
            e->line_cut = 0;
            e->line_len = 0;
        } else {
            line_emit(e, 0);
        }
        text += n + 1;
        len -= n + 1;
    }
}

void events_text_finish(events_t *e)
{
    if (e->line_len > 0 && !e->line_cut) {
        line_emit(e, 0);
    }
    e->line_cut = 0;
    e->line_len = 0;
}
