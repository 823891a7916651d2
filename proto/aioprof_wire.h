/* The aioprof wire format, version 1: the constants that device and host share.
 * docs/protocol.md is the prose of this file; tests/golden/ proves the two agree. */
#ifndef AIOPROF_WIRE_H
#define AIOPROF_WIRE_H

#include <stdint.h>

#define AIOPROF_PROTOCOL_VERSION 1u

/* Frame body: seq, format, base (u32 LE), running (varint), records, crc (u16 LE). */
#define AIOPROF_HEADER_FIXED 6u      /* seq + format + base */
#define AIOPROF_BODY_MIN 9u          /* fixed header, 1-byte running, crc */
#define AIOPROF_BODY_MAX 512u        /* largest body a writer makes or a reader accepts */
#define AIOPROF_SEGMENT_MAX 1024u    /* a longer segment can not be a frame */
#define AIOPROF_VARINT_MAX 5u        /* values below 2^32 */

#define AIOPROF_FORMAT(tick_bits) ((uint8_t)((AIOPROF_PROTOCOL_VERSION << 5) | ((tick_bits) - 1u)))
#define AIOPROF_FORMAT_VERSION(f) ((unsigned)(f) >> 5)
#define AIOPROF_FORMAT_TICK_BITS(f) (((unsigned)(f) & 0x1Fu) + 1u)

/* Record tags. In every event tag the continuation bit c sits just above the dt bits. */
#define AIOPROF_TAG_EXIT_YIELD 0x00u   /* 00cddddd */
#define AIOPROF_TAG_EXIT_RETURN 0x40u  /* 0100cddd */
#define AIOPROF_TAG_EXIT_RAISE 0x50u   /* 0101cddd */
#define AIOPROF_TAG_EXIT_CANCEL 0x60u  /* 0110cddd */
#define AIOPROF_TAG_CONTROL 0x70u      /* 0111oooo */
#define AIOPROF_TAG_ENTER 0x80u        /* 1iiiicdd */

#define AIOPROF_YIELD_DT_BITS 5u
#define AIOPROF_END_DT_BITS 3u
#define AIOPROF_ENTER_DT_BITS 2u
#define AIOPROF_ENTER_ID_SHIFT 3u
#define AIOPROF_ENTER_ID_INLINE_MAX 15u

/* Control operations (low nibble of a 0x7X tag). */
enum aioprof_op {
    AIOPROF_OP_HELLO = 0,
    AIOPROF_OP_TASK_NEW = 1,
    AIOPROF_OP_TASK_INFO = 2,
    AIOPROF_OP_DROPPED = 3,
    AIOPROF_OP_LATE = 4,
    /* Spans (docs/protocol.md, "Spans"): a named stretch of code inside the running task. */
    AIOPROF_OP_SPAN_ENTER = 5,
    AIOPROF_OP_SPAN_EXIT = 6,
    AIOPROF_OP_SPAN_NAME = 8,
    /* The frame's span events as one list (docs/protocol.md, "Spans", "The span list"): the
     * record before LATE, or the last one. What a device with the C hook sends in place of ops 5
     * and 6, which readers still read. */
    AIOPROF_OP_SPANS = 9,
    /* Allocations and collections (docs/protocol.md, "Memory"): only from a device whose HELLO
     * has a `mem` field other than 0. */
    AIOPROF_OP_ALLOC = 7,
    AIOPROF_OP_GC = 10,
};

/* The HELLO's `mem` field (after late_unit): what the device measures of its allocator. Bits 0-4
 * say what, the rest the unit of ALLOC's amounts in bytes (mem >> AIOPROF_MEM_UNIT_SHIFT: 1 for
 * bytes, 16 for MicroPython's blocks on a 32-bit port). 0, or a HELLO without it: nothing. */
#define AIOPROF_MEM_ALLOC_EXACT 0x01u /* ALLOC amounts are exact */
#define AIOPROF_MEM_ALLOC_LOWER 0x02u /* ALLOC amounts are lower bounds (a collection hid some) */
#define AIOPROF_MEM_GC_COUNT 0x04u    /* every collection sends a GC record */
#define AIOPROF_MEM_GC_SOME 0x08u     /* some collections send one, others go unseen: at least */
#define AIOPROF_MEM_GC_TIME 0x10u     /* GC records carry their duration */
#define AIOPROF_MEM_UNIT_SHIFT 5u

/* LATE (docs/protocol.md section 3): the frame's ENTERs' lateness, last first, one varint each;
 * at most a frame body long, so its length takes at most two bytes. */
#define AIOPROF_LATE_HEAD_MAX 3u

/* SPANS (op 9): one entry per span event, the frame's last first. An entry's first byte is
 * `kk sss iii`: kk its kind; sss the step in its place (a byte offset from the frame's first
 * record) from the entry after it in the list (the one before it in time), 7: a varint follows
 * with it; iii the span's id for an ENTER or a PAIR (1..7), 0: a varint follows with it (an EXIT:
 * 0). Then the step (if sss is 7), dt, a PAIR's duration, the id (if iii is 0). */
#define AIOPROF_SPAN_ENTRY_ENTER 0x00u /* kk 00: a span opens */
#define AIOPROF_SPAN_ENTRY_EXIT 0x40u  /* kk 01: the innermost open span closes */
#define AIOPROF_SPAN_ENTRY_PAIR 0x80u  /* kk 10: a span opens and closes, nothing between */
#define AIOPROF_SPAN_ENTRY_KIND 0xC0u
#define AIOPROF_SPAN_STEP_SHIFT 3u
#define AIOPROF_SPAN_STEP_INLINE_MAX 6u /* sss 7: the step follows as a varint */
#define AIOPROF_SPAN_ID_INLINE_MAX 7u   /* iii 0: the id follows as a varint */
/* The list's record head (tag and length: a list is less than a frame body long). */
#define AIOPROF_SPANS_HEAD_MAX 3u

/* How a slice ended. The order matches the EXIT tags. */
enum aioprof_exit_kind {
    AIOPROF_EXIT_YIELD = 0,
    AIOPROF_EXIT_RETURN = 1,
    AIOPROF_EXIT_RAISE = 2,
    AIOPROF_EXIT_CANCEL = 3,
};

#define AIOPROF_HELLO_FLAG_BOOT 0x01u    /* the first HELLO since the hook started */
#define AIOPROF_HELLO_FLAG_STOPPED 0x02u /* the last one: the hook stopped, nothing follows */
#define AIOPROF_PLATFORM_MAX 32u
#define AIOPROF_NAME_MAX 48u          /* name and label together */
#define AIOPROF_SPAN_NAME_MAX 32u     /* a span's name */

#endif
