#include "aioprof_crc16.h"

/* 256 entries built on first use from the table-free formula, so the two can never disagree. */
static uint16_t crc16_table[256];
static int crc16_table_ready;

static void crc16_table_build(void)
{
    for (unsigned i = 0; i < 256; i++) {
        /* the CRC of byte i starting from 0: the contribution of i alone */
        crc16_table[i] = aioprof_crc16_byte(0, (uint8_t)i);
    }
    crc16_table_ready = 1;
}

uint16_t aioprof_crc16(uint16_t crc, const uint8_t *data, size_t len)
{
    if (!crc16_table_ready) {
        crc16_table_build();
    }
    for (size_t i = 0; i < len; i++) {
        crc = (uint16_t)((crc << 8) ^ crc16_table[((crc >> 8) ^ data[i]) & 0xFFu]);
    }
    return crc;
}
