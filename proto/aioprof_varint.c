#include "aioprof_varint.h"

#include "aioprof_crc16.h"
#include "aioprof_wire.h"

size_t aioprof_varint_put(uint8_t *out, uint32_t value)
{
    size_t n = 0;
    while (value >= 0x80u) {
        out[n++] = (uint8_t)(value | 0x80u);
        value >>= 7;
    }
    out[n++] = (uint8_t)value;
    return n;
}

/* the reader's (AIOPROF_NO_GC_SECTIONS, aioprof_crc16.h: a device link that keeps every function
 * leaves it out) */
#if !AIOPROF_NO_GC_SECTIONS
size_t aioprof_varint_get(const uint8_t *in, size_t len, uint32_t *value)
{
    uint32_t v = 0;
    for (size_t i = 0; i < len && i < AIOPROF_VARINT_MAX; i++) {
        uint32_t group = in[i] & 0x7Fu;
        /* the fifth byte holds bits 28..31: anything above would not fit */
        if (i == AIOPROF_VARINT_MAX - 1 && group > 0x0Fu) {
            return 0;
        }
        v |= group << (7 * i);
        if ((in[i] & 0x80u) == 0) {
            *value = v;
            return i + 1;
        }
    }
    return 0;
}
#endif
