#include "sim_text.h"

#include <inttypes.h>
#include <stdio.h>

/* Each one is text-like (bytes 0x20..0xFF and BEL BS TAB LF CR ESC) so the host must classify it
 * as text, and each one would do harm if a terminal got it raw: clear the screen, retitle the
 * window, ring the bell, overwrite a line, flip the text direction, break UTF-8. */
static const char *const hostile[] = {
    "\x1b[2J\x1b[Hthe screen is gone, line %" PRIu64 "\n",
    "bell\x07\x07 and backspace\x08\x08\x08 line %" PRIu64 "\n",
    "\x1b]0;window title from the device\x07 line %" PRIu64 "\n",
    "bad utf-8 \xff\xfe\xc0\xaf\xed\xa0\x80 line %" PRIu64 "\r\n",
    "carriage return\rover the top, line %" PRIu64 "\n",
    "\x1b[31;1mred\x1b[0m and \x1b[8mhidden\x1b[0m line %" PRIu64 "\n",
    "\xe2\x80\xae" "desrever thgir-ot-tfel line %" PRIu64 "\n",
    "\x1b[?1049h\x1b[6n\x1bPq device control line %" PRIu64 "\x1b\\\n",
};

size_t sim_text_line(char *buf, uint64_t n, sim_rng_t *rng, int hostile_wanted)
{
    int len;
    uint64_t r = sim_rng_next(rng);
    if (hostile_wanted && n % 2u == 1u) {
        const char *fmt = hostile[(n / 2u) % (sizeof hostile / sizeof hostile[0])];
        len = snprintf(buf, SIM_TEXT_LINE_MAX, fmt, n);
    } else {
        switch (n % 3u) {
        case 0:
            len = snprintf(buf, SIM_TEXT_LINE_MAX, "sensor %" PRIu64 ": temp=%" PRIu64 ".%" PRIu64 " C\n",
                           r % 8u, 18u + (r >> 8) % 10u, (r >> 16) % 10u);
            break;
        case 1:
            len = snprintf(buf, SIM_TEXT_LINE_MAX, "free mem: %" PRIu64 " bytes\n", 20000u + (r >> 4) % 50000u);
            break;
        default:
            len = snprintf(buf, SIM_TEXT_LINE_MAX, "[net] rssi -%" PRIu64 " dBm, line %" PRIu64 "\n",
                           40u + r % 50u, n);
            break;
        }
    }
    if (len < 0)
        len = 0;
    if ((size_t)len >= SIM_TEXT_LINE_MAX) {
        len = SIM_TEXT_LINE_MAX - 1;
        buf[len - 1] = '\n';
    }
    return (size_t)len;
}
