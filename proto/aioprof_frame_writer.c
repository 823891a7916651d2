#include "aioprof_frame_writer.h"

#include <string.h>

void aioprof_fw_init(aioprof_fw_t *w, uint8_t *buf, uint32_t size)
{
    memset(w, 0, sizeof *w);
    w->buf = buf;
    w->size = size;
}

static void fw_raw(aioprof_fw_t *w, uint8_t b)
{
    w->buf[w->head] = b;
    w->head = (w->head + 1u == w->size) ? 0u : w->head + 1u;
}

void aioprof_fw_open(aioprof_fw_t *w, uint8_t seq, uint8_t format, uint32_t base, uint32_t running)
{
    /* the leading delimiter ends any device text printed since the last frame */
    fw_raw(w, 0);
    w->code_pos = w->head;
    fw_raw(w, 0); /* placeholder for the first code byte */
    w->code = 1;
    w->crc = AIOPROF_CRC16_INIT;
    w->body_len = 0;
    w->open = 1;
    aioprof_fw_put(w, seq);
    aioprof_fw_put(w, format);
    aioprof_fw_put(w, (uint8_t)base);
    aioprof_fw_put(w, (uint8_t)(base >> 8));
    aioprof_fw_put(w, (uint8_t)(base >> 16));
    aioprof_fw_put(w, (uint8_t)(base >> 24));
    aioprof_fw_varint(w, running);
}

void aioprof_fw_close(aioprof_fw_t *w)
{
    uint16_t crc = w->crc;
    aioprof_fw_stuff(w, (uint8_t)crc);
    aioprof_fw_stuff(w, (uint8_t)(crc >> 8));
    w->buf[w->code_pos] = w->code;
    fw_raw(w, 0);
    w->commit = w->head;
    w->open = 0;
}

void aioprof_fw_exit(aioprof_fw_t *w, unsigned kind, uint32_t dt)
{
    if (kind == AIOPROF_EXIT_YIELD) {
        aioprof_fw_event(w, AIOPROF_TAG_EXIT_YIELD, AIOPROF_YIELD_DT_BITS, dt);
        return;
    }
    aioprof_fw_event(w, (uint8_t)(AIOPROF_TAG_EXIT_RETURN + ((kind - 1u) << 4)), AIOPROF_END_DT_BITS, dt);
}

void aioprof_fw_enter(aioprof_fw_t *w, uint32_t id, uint32_t dt)
{
    uint8_t inline_id = id <= AIOPROF_ENTER_ID_INLINE_MAX ? (uint8_t)id : 0u;
    aioprof_fw_event(w, (uint8_t)(AIOPROF_TAG_ENTER | (inline_id << AIOPROF_ENTER_ID_SHIFT)),
        AIOPROF_ENTER_DT_BITS, dt);
    if (inline_id == 0) {
        aioprof_fw_varint(w, id);
    }
}

void aioprof_fw_control(aioprof_fw_t *w, unsigned op, const uint8_t *body, size_t len)
{
    aioprof_fw_put(w, (uint8_t)(AIOPROF_TAG_CONTROL | (op & 0x0Fu)));
    aioprof_fw_varint(w, (uint32_t)len);
    for (size_t i = 0; i < len; i++) {
        aioprof_fw_put(w, body[i]);
    }
}

unsigned aioprof_fw_pending(const aioprof_fw_t *w, const uint8_t *span[2], size_t span_len[2])
{
    if (w->commit == w->tail) {
        return 0;
    }
    span[0] = w->buf + w->tail;
    if (w->commit > w->tail) {
        span_len[0] = w->commit - w->tail;
        return 1;
    }
    span_len[0] = w->size - w->tail;
    if (w->commit == 0) {
        return 1;
    }
    span[1] = w->buf;
    span_len[1] = w->commit;
    return 2;
}

void aioprof_fw_consume(aioprof_fw_t *w, size_t n)
{
    uint32_t t = w->tail + (uint32_t)n;
    w->tail = t >= w->size ? t - w->size : t;
}
