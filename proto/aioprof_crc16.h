/* CRC-16/CCITT-FALSE: polynomial 0x1021, initial 0xFFFF, no reflection, no final xor. */
#ifndef AIOPROF_CRC16_H
#define AIOPROF_CRC16_H

#include <stddef.h>
#include <stdint.h>

#define AIOPROF_CRC16_INIT 0xFFFFu

/* AIOPROF_CRC_TABLE2=0 leaves out the second table (512 bytes of rodata): the frame writer then
 * steps a byte at a time through the first, about one instruction more per byte. For a link that
 * keeps every constant (a MicroPython native module: its code and constants are loaded into RAM).
 * AIOPROF_NO_GC_SECTIONS=1 leaves out what only a reader calls (aioprof_crc16,
 * aioprof_varint_get), for a link without --gc-sections. */
#ifndef AIOPROF_CRC_TABLE2
#define AIOPROF_CRC_TABLE2 1
#endif
#ifndef AIOPROF_NO_GC_SECTIONS
#define AIOPROF_NO_GC_SECTIONS 0
#endif

extern const uint16_t aioprof_crc16_table[256];
#if AIOPROF_CRC_TABLE2
extern const uint16_t aioprof_crc16_table2[256];
#endif

/* One byte, without a table: the definition the table is checked against. */
static inline uint16_t aioprof_crc16_byte(uint16_t crc, uint8_t byte)
{
    unsigned x = ((crc >> 8) ^ byte) & 0xFFu;
    x ^= x >> 4;
    return (uint16_t)((crc << 8) ^ (x << 12) ^ (x << 5) ^ x);
}

/* One byte through the table: what the device and the host use per byte (512 bytes of rodata for
 * about half the instructions). */
static inline uint16_t aioprof_crc16_step(uint16_t crc, uint8_t byte)
{
    return (uint16_t)((crc << 8) ^ aioprof_crc16_table[((crc >> 8) ^ byte) & 0xFFu]);
}

/* Two bytes (b0 first) through both tables (through the first twice without the second). */
static inline uint16_t aioprof_crc16_step2(uint16_t crc, uint8_t b0, uint8_t b1)
{
#if AIOPROF_CRC_TABLE2
    unsigned x = crc ^ ((unsigned)b0 << 8) ^ b1;
    return (uint16_t)(aioprof_crc16_table2[(x >> 8) & 0xFFu] ^ aioprof_crc16_table[x & 0xFFu]);
#else
    return aioprof_crc16_step(aioprof_crc16_step(crc, b0), b1);
#endif
}

/* A whole buffer. Never fails. */
uint16_t aioprof_crc16(uint16_t crc, const uint8_t *data, size_t len);

/* The same, sixteen bytes at a time, with 8 KiB of tables built on first use: for hosts
 * (aioprof_crc16_fast.c, which a device build leaves out). */
uint16_t aioprof_crc16_fast(uint16_t crc, const uint8_t *data, size_t len);

#endif
