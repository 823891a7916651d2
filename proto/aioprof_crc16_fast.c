/* CRC-16/CCITT-FALSE eight bytes at a time, for the host's reader: the CRC is linear, so eight
 * bytes are the xor of what each contributes, looked up in a table per position. Eight 256-entry
 * tables (4 KiB) are built on first use from aioprof_crc16_table; the device never links this. */
#include "aioprof_crc16.h"

static uint16_t sliced[8][256];
static int sliced_ready;

/* sliced[k][i]: byte i followed by k zero bytes, starting from a zero register. */
static void sliced_build(void)
{
    for (unsigned i = 0; i < 256; i++) {
        sliced[0][i] = aioprof_crc16_table[i];
        for (unsigned k = 1; k < 8; k++) {
            sliced[k][i] = aioprof_crc16_step(sliced[k - 1][i], 0);
        }
    }
    sliced_ready = 1;
}

uint16_t aioprof_crc16_fast(uint16_t crc, const uint8_t *data, size_t len)
{
    if (!sliced_ready) {
        sliced_build();
    }
    while (len >= 8) {
        crc = (uint16_t)(sliced[7][data[0] ^ (crc >> 8)] ^ sliced[6][data[1] ^ (crc & 0xFFu)] ^ sliced[5][data[2]] ^
            sliced[4][data[3]] ^ sliced[3][data[4]] ^ sliced[2][data[5]] ^ sliced[1][data[6]] ^ sliced[0][data[7]]);
        data += 8;
        len -= 8;
    }
    return aioprof_crc16(crc, data, len);
}
