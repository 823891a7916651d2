/* The demo firmware: the aioprof hook on an emulated Cortex-M3, streaming over UART0.
 *
 * It waits for a go byte from the host (QEMU drops what a guest sends before a reader opened the
 * port), runs workloads in the spirit of the simulator's for DEMO_RUN_US of device time, sends
 * the rest of its frames, then its own account as device text, and waits for an acknowledgement
 * before it ends (bytes still in flight when QEMU exits may be lost).
 *
 *   go byte 'g'   the full ring (2 KB) and the UART as fast as QEMU takes bytes
 *   go byte 's'   a ring too small for a slow port: 256 bytes, and the port takes at most
 *                 DEMO_SLOW_BYTES_PER_MS (QEMU's CMSDK UART does not pace itself to its baud
 *                 rate, so the write callback does): the hook must drop events and count them
 *
 * Exit status (QEMU's, by semihosting): 0 done, 2 no acknowledgement, 3 fault, 4 the hook did not
 * start, 5 the ring did not empty at the end. */
#include <stddef.h>
#include <stdint.h>

#include "aioprof.h"
#include "board.h"
#include "sched.h"
#include "text.h"

#ifndef DEMO_RUN_US
#define DEMO_RUN_US 1500000u
#endif
/* The clock starts this long before its 2^27 wrap, so every run crosses it. */
#define DEMO_BEFORE_WRAP_US 400000u
#define DEMO_RING_BYTES 2048u
#define DEMO_SMALL_RING_BYTES 256u
#define DEMO_SLOW_BYTES_PER_MS 8u /* 80 kbaud: a third of what the workloads make */
#define DEMO_PERIOD_US 200000u      /* a short period: names, heartbeats, HELLOs within the run */
#define DEMO_FINISH_TIMEOUT_US 2000000u
#define DEMO_ACK_TIMEOUT_US 5000000u

enum { DEMO_OK = 0, DEMO_NO_ACK = 2, DEMO_NO_HOOK = 4, DEMO_STUCK = 5 };

static uint8_t demo_ring[DEMO_RING_BYTES];
static aioprof_t demo_prof;
static sched_t demo_sched;

/* ---- the port: what a firmware author copies, plus the demo's two test hooks ---- */

/* 0: no pacing. Else the port takes at most this many bytes per millisecond since the start. */
static uint32_t demo_bytes_per_ms;
static uint32_t demo_write_start;
static uint32_t demo_written;

static size_t demo_write(void *user, const uint8_t *data, size_t len)
{
    (void)user;
    if (demo_bytes_per_ms != 0) {
        uint32_t allowed = sched_since(demo_write_start, timer_us()) / 1000u * demo_bytes_per_ms;
        uint32_t left = allowed > demo_written ? allowed - demo_written : 0u;
        if (len > left) {
            len = left;
        }
    }
    size_t n = uart_write(data, len);
    demo_written += (uint32_t)n;
    return n;
}

static const aioprof_port_t demo_port = {
    .ticks = sched_ticks, /* timer_us(), remembered for the account */
    .write = demo_write,   /* uart_write(), paced in the 's' run */
    .lock = critical_lock,
    .unlock = critical_unlock,
    .user = &demo_sched,
    .tick_hz = 1000000u,
    .tick_bits = TIMER_US_BITS,
    .platform = "mps2-an385 (qemu) demo",
    .period_ticks = DEMO_PERIOD_US,
};

/* ---- workloads ---- */

static uint32_t demo_rng_state = 0x2545F491u;

/* xorshift32: the same run every time, so a failure can be replayed */
static uint32_t demo_rand(uint32_t below)
{
    uint32_t x = demo_rng_state;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    demo_rng_state = x;
    return x % below;
}

/* The hog: slices of 12 or 26 ms (the long ones are "slow"), then a sleep. */
static sched_next_t demo_hog(sched_t *s, sched_task_t *t)
{
    (void)s;
    sched_work(demo_rand(3) == 0 ? 26000u : 12000u);
    t->sleep_us = 30000u;
    return SCHED_SLEEP;
}

/* The quick one: a few tens of microseconds every millisecond. */
static sched_next_t demo_quick(sched_t *s, sched_task_t *t)
{
    (void)s;
    sched_work(30u);
    t->sleep_us = 1000u;
    return SCHED_SLEEP;
}

/* A worker: 1 to 4 slices of 40 to 340 us, some yielding and some sleeping between them; most
 * return, one in eight raises, one in sixteen is cancelled. state: slices to run. */
static sched_next_t demo_worker(sched_t *s, sched_task_t *t)
{
    (void)s;
    if (t->slices == 0) {
        t->state = 1u + demo_rand(4);
    }
    sched_work(40u + demo_rand(300));
    if (t->slices + 1u < t->state) {
        if (demo_rand(2) == 0) {
            return SCHED_YIELD;
        }
        t->sleep_us = 400u;
        return SCHED_SLEEP;
    }
    switch (demo_rand(16)) {
    case 0:
    case 1: return SCHED_RAISE;
    case 2: return SCHED_CANCEL;
    default: return SCHED_RETURN;
    }
}

/* Many short-lived instances of one task: a new worker every 1.5 ms. */
static sched_next_t demo_spawner(sched_t *s, sched_task_t *t)
{
    sched_spawn(s, "worker", demo_worker, 0);
    sched_work(20u);
    t->sleep_us = 1500u;
    return SCHED_SLEEP;
}

static sched_next_t demo_main(sched_t *s, sched_task_t *t)
{
    (void)t;
    sched_spawn(s, "hog", demo_hog, 0);
    sched_spawn(s, "quick", demo_quick, 0);
    sched_spawn(s, "spawner", demo_spawner, 0);
    sched_work(100u);
    return SCHED_RETURN;
}

/* ---- the run ---- */

static int demo_wait_go(void)
{
    for (;;) {
        int c = uart_read();
        if (c == 'g' || c == 's') {
            return c;
        }
    }
}

/* Stops the hook and sends everything it holds: a DROPPED it still owes, then the HELLO that tells
 * the host nothing was left behind. Returns 0, or -1 when the ring does not empty in time. */
static int demo_finish(void)
{
    uint32_t start = timer_us();
    aioprof_close(&demo_prof);
    while (!aioprof_idle(&demo_prof)) {
        aioprof_drain(&demo_prof);
        if (sched_since(start, timer_us()) > DEMO_FINISH_TIMEOUT_US) {
            return -1;
        }
    }
    return 0;
}

static int demo_wait_ack(void)
{
    uint32_t start = timer_us();
    while (sched_since(start, timer_us()) < DEMO_ACK_TIMEOUT_US) {
        if (uart_read() == 'a') {
            return 0;
        }
    }
    return -1;
}

int main(void)
{
    text_line_t l;
    uart_init(115200u);
    int mode = demo_wait_go();
    uint32_t ring_bytes = mode == 's' ? DEMO_SMALL_RING_BYTES : DEMO_RING_BYTES;

    timer_init((1u << TIMER_US_BITS) - DEMO_BEFORE_WRAP_US);
    sched_init(&demo_sched, &demo_prof);
    demo_bytes_per_ms = mode == 's' ? DEMO_SLOW_BYTES_PER_MS : 0u;
    demo_write_start = timer_us();
    if (aioprof_init(&demo_prof, &demo_port, demo_ring, ring_bytes) != 0) {
        text_begin(&l, "demo: aioprof_init failed");
        text_send(&l);
        return DEMO_NO_HOOK;
    }
    uint32_t start = timer_us();
    sched_spawn(&demo_sched, "main", demo_main, 0);
    sched_run(&demo_sched, DEMO_RUN_US);
    uint32_t run_us = sched_since(start, timer_us());

    int status = DEMO_OK;
    if (demo_finish() != 0) {
        status = DEMO_STUCK;
    }
    /* a delimiter first: if the ring did not empty, the text must not run on from a cut frame */
    uart_write_all((const uint8_t *)"", 1);
    account_send(&demo_sched.account, demo_prof.dropped_total, run_us, ring_bytes);
    text_begin(&l, "demo: done");
    text_field(&l, "status", (uint32_t)status);
    text_send(&l);
    if (demo_wait_ack() != 0 && status == DEMO_OK) {
        status = DEMO_NO_ACK;
    }
    return status;
}
