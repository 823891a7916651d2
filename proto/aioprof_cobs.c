#include "aioprof_cobs.h"

#include <string.h>

size_t aioprof_cobs_encode(const uint8_t *in, size_t len, uint8_t *out)
{
    size_t code_pos = 0;
    size_t o = 1;
    uint8_t code = 1;
    for (size_t i = 0; i < len; i++) {
        if (in[i] == 0) {
            out[code_pos] = code;
            code_pos = o++;
            code = 1;
            continue;
        }
        out[o++] = in[i];
        if (++code == 0xFF) {
            out[code_pos] = code;
            code_pos = o++;
            code = 1;
        }
    }
    out[code_pos] = code;
    return o;
}

long aioprof_cobs_decode(const uint8_t *in, size_t len, uint8_t *out)
{
    if (len == 0 || memchr(in, 0, len) != NULL) {
        return -1;
    }
    return aioprof_cobs_decode_segment(in, len, out);
}

long aioprof_cobs_decode_segment(const uint8_t *in, size_t len, uint8_t *out)
{
    size_t i = 0;
    size_t o = 0;
    if (len == 0) {
        return -1;
    }
    while (i < len) {
        size_t code = in[i];
        if (i + code > len) {
            return -1;
        }
        /* out may be in itself, always behind: a run moves down by the code bytes before it */
        memmove(out + o, in + i + 1, code - 1);
        o += code - 1;
        i += code;
        /* a short run stands for a zero, except at the very end */
        if (code != 0xFF && i < len) {
            out[o++] = 0;
        }
    }
    return (long)o;
}
