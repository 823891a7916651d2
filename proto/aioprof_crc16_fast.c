/* CRC-16/CCITT-FALSE sixteen bytes at a time, for the host's reader: the CRC is linear, so sixteen
 * bytes are the xor of what each contributes, looked up in a table per position. Sixteen 256-entry
 * tables (8 KiB) are built on first use from aioprof_crc16_table; the device never links this.
 * (Sixteen bytes a step take a fifth less time than eight: frame bodies are 200-odd bytes.) */
#include "aioprof_crc16.h"

#define SLICES 16u

static uint16_t sliced[SLICES][256];
static int sliced_ready;

/* sliced[k][i]: byte i followed by k zero bytes, starting from a zero register. */
static void sliced_build(void)
{
    for (unsigned i = 0; i < 256; i++) {
        sliced[0][i] = aioprof_crc16_table[i];
        for (unsigned k = 1; k < SLICES; k++) {
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
    while (len >= SLICES) {
        crc = (uint16_t)(sliced[15][data[0] ^ (crc >> 8)] ^ sliced[14][data[1] ^ (crc & 0xFFu)] ^ sliced[13][data[2]] ^
            sliced[12][data[3]] ^ sliced[11][data[4]] ^ sliced[10][data[5]] ^ sliced[9][data[6]] ^ sliced[8][data[7]] ^
            sliced[7][data[8]] ^ sliced[6][data[9]] ^ sliced[5][data[10]] ^ sliced[4][data[11]] ^ sliced[3][data[12]] ^
            sliced[2][data[13]] ^ sliced[1][data[14]] ^ sliced[0][data[15]]);
        data += SLICES;
        len -= SLICES;
    }
    return aioprof_crc16(crc, data, len);
}
