/* COBS (Consistent Overhead Byte Stuffing) for whole buffers. The device does not use these: it
 * stuffs bytes one at a time into its ring (aioprof_frame_writer.h). Tests, the golden vectors
 * and the host's frame reader do. */
#ifndef AIOPROF_COBS_H
#define AIOPROF_COBS_H

#include <stddef.h>
#include <stdint.h>

/* Largest encoding of len bytes. */
#define AIOPROF_COBS_MAX(len) ((len) + (len) / 254u + 1u)

/* Encodes in[0..len) into out (room for AIOPROF_COBS_MAX(len)); no delimiter is written.
 * Returns the encoded length. Never fails. */
size_t aioprof_cobs_encode(const uint8_t *in, size_t len, uint8_t *out);

/* Decodes one segment (no 0x00 in it) into out, which may be in itself (decoding never grows).
 * Returns the decoded length, or -1 when the segment is not valid COBS (contains 0x00, or a code
 * byte points past the end). An empty segment decodes to -1 as well: it holds no frame. */
long aioprof_cobs_decode(const uint8_t *in, size_t len, uint8_t *out);

/* aioprof_cobs_decode for a segment known to hold no 0x00 (one a reader cut at its delimiters):
 * the same, without looking for one. */
long aioprof_cobs_decode_segment(const uint8_t *in, size_t len, uint8_t *out);

#endif
