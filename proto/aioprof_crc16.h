/* CRC-16/CCITT-FALSE: polynomial 0x1021, initial 0xFFFF, no reflection, no final xor. */
#ifndef AIOPROF_CRC16_H
#define AIOPROF_CRC16_H

#include <stddef.h>
#include <stdint.h>

#define AIOPROF_CRC16_INIT 0xFFFFu

/* One byte, table-free: the device uses this (no 512-byte table in its flash). */
static inline uint16_t aioprof_crc16_byte(uint16_t crc, uint8_t byte)
{
    unsigned x = ((crc >> 8) ^ byte) & 0xFFu;
    x ^= x >> 4;
    return (uint16_t)((crc << 8) ^ (x << 12) ^ (x << 5) ^ x);
}

/* A whole buffer, table-driven: the host uses this on every received frame. Never fails. */
uint16_t aioprof_crc16(uint16_t crc, const uint8_t *data, size_t len);

#endif
