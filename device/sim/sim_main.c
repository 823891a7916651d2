/* aioprof-sim: a simulated MicroPython asyncio device running the real aioprof hook.
 * Options (sim_options.c) -> output (sim_output.c) -> scheduler and workload (sim_sched.c,
 * sim_workloads.c) -> ground truth (sim_truth.c) and statistics. */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim_file.h"
#include "sim_options.h"
#include "sim_output.h"
#include "sim_repl.h"
#include "sim_sched.h"
#include "sim_truth.h"

static volatile sig_atomic_t stop_requested;

static void on_stop(int sig)
{
    (void)sig;
    stop_requested = 1;
}

static void install_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    /* a consumer that leaves shows up as EPIPE from write, handled there */
    sa.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &sa, NULL);
    /* Ctrl-C ends the run at the next slice boundary, with a final drain and the truth; so does a
     * hangup (the terminal or the pty it ran on went away), which would otherwise kill it with
     * its truth file still empty */
    sa.sa_handler = on_stop;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
}

static int same_regular_file(int a, int b)
{
    struct stat sa, sb;
    return fstat(a, &sa) == 0 && fstat(b, &sb) == 0 && S_ISREG(sa.st_mode) && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

static void print_stats(const sim_truth_run_t *run, uint64_t wall_us)
{
    double per_event = run->events ? (double)run->frame_bytes / (double)run->events : 0.0;
    fprintf(stderr,
            "aioprof-sim: %s: %.3f s device time in %.3f s; %" PRIu64 " events, %" PRIu64
            " frame bytes in %" PRIu64 " frames, %.3f bytes/event, %" PRIu64 " dropped events, %" PRIu64
            " text lines (%" PRIu64 " bytes)\n",
            run->workload, (double)run->duration_us / 1e6, (double)wall_us / 1e6, run->events,
            run->frame_bytes, run->frames, per_event, run->dropped_events, run->text_lines,
            run->text_bytes);
}

int main(int argc, char **argv)
{
    sim_options_t opt;
    sim_output_t out;
    sim_t sim;
    sim_truth_run_t run;
    uint64_t wall_start = sim_wall_us();
    int rc = sim_options_parse(&opt, argc, argv);

    if (rc == 1)
        return 0;
    if (rc != 0)
        return rc;
    install_signals();
    rc = 1;
    /* a truth file that cannot be written should stop the run before it starts, not after */
    int truth_fd = -1;
    if (opt.truth_path != NULL) {
        truth_fd = sim_file_create(opt.truth_path, "the truth");
        if (truth_fd < 0)
            goto done;
    }
    if (sim_output_open(&out, &opt, &sim.clock) != 0) {
        if (truth_fd >= 0)
            close(truth_fd);
        goto done;
    }
    if (truth_fd >= 0) {
        /* by any name (./FILE, a link, the shell's > FILE): the truth would replace the stream */
        int same = same_regular_file(truth_fd, out.fd);
        close(truth_fd);
        if (same) {
            fprintf(stderr, "aioprof-sim: --truth %s is the file the stream goes to: name another file for the "
                    "truth.\n", opt.truth_path);
            rc = 2;
            goto error_output;
        }
    }
    if (opt.repl) {
        /* a board with its REPL: programs come and go until a signal ends it */
        rc = sim_repl_main(&opt, &out, &stop_requested);
        sim_output_close(&out);
        return rc;
    }
    if (sim_init(&sim, &opt, &out) != 0)
        goto error_output;

    sim_run(&sim, &stop_requested);
    if (!out.closed && !out.failed && !sim.oom)
        sim_finish(&sim);
    if (sim.oom) {
        /* instances may be missing from it: no truth rather than a wrong one */
        fprintf(stderr, "aioprof-sim: out of memory during the run.\n");
        goto error_sim;
    }
    if (out.failed)
        fprintf(stderr, "aioprof-sim: writing the output failed: %s.\n", strerror(out.failed));
    /* the truth on every way out (the consumer gone, a write error): what the run did until it
     * stopped, and the bytes the output took; an empty truth file would pass for a broken one */
    sim_run_summary(&sim, &run);
    if (opt.truth_path != NULL && sim_truth_write(&sim.truth, &run, opt.truth_path) != 0)
        goto error_sim;
    /* the consumer had enough (aioprof-sim | head): not an error, nothing more to say */
    if (!opt.quiet && !out.closed && !out.failed)
        print_stats(&run, sim_wall_us() - wall_start);
    rc = out.failed ? 1 : 0;

error_sim:
    sim_free(&sim);
error_output:
    sim_output_close(&out);
done:
    return rc;
}
