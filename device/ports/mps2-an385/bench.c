/* The hook's cost on Thumb, measured by the guest itself under QEMU's -icount shift=0, where every
 * instruction takes 1 ns of virtual time and the 25 MHz timer ticks once per 40 instructions.
 *
 * A loop that runs a task slice (enter, busy work, exit), a gap, and the idle loop's drain, over
 * and over, is timed for N and for 2N slices; the same loop without the three hook calls is the
 * baseline. (hook(2N) - hook(N)) - (base(2N) - base(N)) is what N more slices cost in the hook,
 * all in: recording, closing frames (CRC, COBS), the periodic work and handing every byte to the
 * UART. Fixed costs (the first HELLO, the start of a frame) cancel out in the difference.
 *
 * It sends the raw figures as device text lines ("bench ..."); tests/bench/qemu_cost.sh turns them
 * into instructions per event. No handshake: it runs with QEMU's UART going to a file. */
#include <stdint.h>

#include "aioprof.h"
#include "board.h"
#include "text.h"

#define BENCH_PAIRS 1000u
#define BENCH_TASKS 4u
/* The clock's period in raw ticks: 25 * 2^27. */
#define BENCH_RAW_PERIOD (TIMER_RELOAD_VALUE + 1u)

static uint8_t bench_ring[2048];
static aioprof_t bench_prof;
static aioprof_task_t bench_tasks[BENCH_TASKS];
static uint32_t bench_bytes;

/* The reference port, unadorned: this is the cost a firmware pays. */
static uint32_t bench_ticks(void *user)
{
    (void)user;
    return timer_us();
}

static size_t bench_write(void *user, const uint8_t *data, size_t len)
{
    (void)user;
    return uart_write(data, len);
}

static const aioprof_port_t bench_port = {
    .ticks = bench_ticks,
    .write = bench_write,
    .lock = critical_lock,
    .unlock = critical_unlock,
    .tick_hz = 1000000u,
    .tick_bits = TIMER_US_BITS,
    .platform = "mps2-an385 (qemu) bench",
};

/* The same port without a critical section: allowed when no interrupt handler records events
 * (aioprof.h), as in this bench and the demo. */
static const aioprof_port_t bench_port_nolock = {
    .ticks = bench_ticks,
    .write = bench_write,
    .tick_hz = 1000000u,
    .tick_bits = TIMER_US_BITS,
    .platform = "mps2-an385 (qemu) bench",
};

static uint32_t bench_since(uint32_t start)
{
    uint32_t now = timer_raw();
    return now >= start ? now - start : now + (BENCH_RAW_PERIOD - start);
}

/* Busy work: a fixed number of iterations, the same in both loops. */
static void bench_spin(uint32_t n)
{
    for (volatile uint32_t i = 0; i < n; i++) {
    }
}

/* The idle loop drains after every slice when drain_mask is 0, else after every drain_mask + 1
 * slices (a loop that is idle less often). */
__attribute__((noinline)) static uint32_t bench_hook(uint32_t pairs, uint32_t work, uint32_t gap,
    uint32_t drain_mask)
{
    uint32_t start = timer_raw();
    for (uint32_t i = 0; i < pairs; i++) {
        aioprof_task_t *t = &bench_tasks[i % BENCH_TASKS];
        aioprof_enter(&bench_prof, t);
        bench_spin(work);
        aioprof_exit(&bench_prof, t, AIOPROF_EXIT_YIELD);
        bench_spin(gap);
        if ((i & drain_mask) == 0) {
            bench_bytes += (uint32_t)aioprof_drain(&bench_prof);
        }
    }
    return bench_since(start);
}

__attribute__((noinline)) static uint32_t bench_base(uint32_t pairs, uint32_t work, uint32_t gap)
{
    uint32_t start = timer_raw();
    for (uint32_t i = 0; i < pairs; i++) {
        bench_spin(work);
        bench_spin(gap);
    }
    return bench_since(start);
}

/* One scenario: slices of `work` spin iterations with `gap` between them. */
static void bench_scenario(const char *name, uint32_t work, uint32_t gap, uint32_t drain_mask)
{
    text_line_t l;
    uint32_t hook[2], base[2], bytes[2];
    for (unsigned k = 0; k < 2; k++) {
        uint32_t before = bench_bytes;
        hook[k] = bench_hook(BENCH_PAIRS << k, work, gap, drain_mask);
        bytes[k] = bench_bytes - before;
        base[k] = bench_base(BENCH_PAIRS << k, work, gap);
    }
    /* what is still in the ring goes out before the text */
    aioprof_flush(&bench_prof);
    while (aioprof_pending(&bench_prof) > 0) {
        aioprof_drain(&bench_prof);
    }
    text_begin(&l, "bench scenario=");
    text_str(&l, name);
    text_field(&l, "pairs", BENCH_PAIRS);
    text_field(&l, "drain_every", drain_mask + 1u);
    text_field(&l, "hook_n", hook[0]);
    text_field(&l, "hook_2n", hook[1]);
    text_field(&l, "base_n", base[0]);
    text_field(&l, "base_2n", base[1]);
    text_field(&l, "bytes_n", bytes[0]);
    text_field(&l, "bytes_2n", bytes[1]);
    text_field(&l, "ns_per_tick", 1000000000u / BOARD_CPU_HZ);
    text_send(&l);
}

/* What the port's own functions cost per call, through the pointers the hook calls them by. */
__attribute__((noinline)) static uint32_t bench_port_loop(uint32_t calls, unsigned what)
{
    /* zeros: empty segments to a reader, so the stream stays clean */
    static const uint8_t bytes[16];
    /* read through a volatile pointer, so that the compiler cannot call them directly */
    static const aioprof_port_t *volatile port_at = &bench_port;
    const aioprof_port_t *port = port_at;
    uint32_t start = timer_raw();
    for (uint32_t i = 0; i < calls; i++) {
        if (what == 0) {
            port->ticks(port->user);
        } else if (what == 1) {
            port->unlock(port->user, port->lock(port->user));
        } else if (what == 2) {
            port->write(port->user, bytes, sizeof bytes);
        }
    }
    return bench_since(start);
}

static void bench_port_costs(void)
{
    /* "loop" calls nothing: the loop's own cost, to subtract */
    static const char *const names[4] = {"ticks", "lock_unlock", "write16", "loop"};
    text_line_t l;
    for (unsigned what = 0; what < 4; what++) {
        uint32_t n = bench_port_loop(BENCH_PAIRS, what);
        uint32_t n2 = bench_port_loop(2u * BENCH_PAIRS, what);
        text_begin(&l, "bench port=");
        text_str(&l, names[what]);
        text_field(&l, "calls", BENCH_PAIRS);
        text_field(&l, "ticks_n", n);
        text_field(&l, "ticks_2n", n2);
        text_send(&l);
    }
}

int main(void)
{
    text_line_t l;
    uart_init(115200u);
    timer_init(0);
    if (aioprof_init(&bench_prof, &bench_port, bench_ring, sizeof bench_ring) != 0) {
        return 4;
    }
    for (unsigned i = 0; i < BENCH_TASKS; i++) {
        aioprof_task_created(&bench_prof, &bench_tasks[i], "bench", 5);
    }
    /* back to back: every dt is 0 and every record one byte */
    bench_scenario("tight", 0, 0, 0);
    /* slices of about 60 us and gaps of about 10 us: two-byte records, like a real loop */
    bench_scenario("typical", 10000, 1700, 0);
    /* the same, drained once per 16 slices: what recording costs apart from drain's fixed part */
    bench_scenario("typical-drain16", 10000, 1700, 15);
    bench_port_costs();
    /* again without the lock: the hook starts afresh (a reader sees a second boot) */
    if (aioprof_init(&bench_prof, &bench_port_nolock, bench_ring, sizeof bench_ring) != 0) {
        return 4;
    }
    for (unsigned i = 0; i < BENCH_TASKS; i++) {
        aioprof_task_created(&bench_prof, &bench_tasks[i], "bench", 5);
    }
    bench_scenario("typical-nolock", 10000, 1700, 0);
    text_begin(&l, "bench done dropped_total=");
    text_u64(&l, bench_prof.dropped_total);
    text_send(&l);
    return 0;
}
