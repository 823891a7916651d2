/* --demo: the simulator as a child process. It runs the real device library against a workload and
 * writes frames to a pseudo-terminal; aioprof-top reads that pty through the same code a board's
 * port goes through, so the demo also shows the real path works. */
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE /* POSIX plus flock, cfmakeraw (ncursesw's pkg-config may set it too) */
#endif
#include "demo.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "source.h"
#include "monotonic.h"

#define DEMO_START_TIMEOUT_MS 5000

struct demo {
    pid_t pid;
    int out;          /* the simulator's stdout and stderr */
    int verbose;
    int exited;
    size_t line_len;
    char line[512];
    char said[512];   /* the last whole line it said that was not its pty: its word on a failure */
    char pty[PATH_MAX];
};

/* Where an install put the simulator, relative to the folder of aioprof-top (CMake works it out
 * from AIOPROF_SIM_INSTALL_DIR; "." is beside it). */
#ifndef AIOPROF_SIM_FROM_BIN
#define AIOPROF_SIM_FROM_BIN "."
#endif

/* Tries dir/rel/aioprof-sim; 0 when it is there and executable. */
static int demo_try_sim(char *out, size_t len, const char *dir, const char *rel)
{
    int n = strcmp(rel, ".") == 0 ? snprintf(out, len, "%s/aioprof-sim", dir)
                                  : snprintf(out, len, "%s/%s/aioprof-sim", dir, rel);
    return n > 0 && (size_t)n < len && access(out, X_OK) == 0 ? 0 : -1;
}

/* AIOPROF_SIM first (tests, unusual installs); then relative to this program's own path, so that
 * an install is found wherever its prefix is: where the install put it, beside this program, and
 * the build tree's <build>/device/sim/ from <build>/host/; last, PATH (a system without /proc). */
static int demo_find_sim(char *out, size_t len, char *err, size_t errlen)
{
    char self[PATH_MAX];
    const char *env = getenv("AIOPROF_SIM");
    if (env != NULL && env[0] != '\0') {
        snprintf(out, len, "%s", env);
        if (access(out, X_OK) == 0)
            return 0;
        snprintf(err, errlen, "cannot find the simulator: AIOPROF_SIM is %s, which is not an "
                 "executable file (%s); fix it or unset it.", env, strerror(errno));
        return -1;
    }
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n > 0) {
        self[n] = '\0';
        char *slash = strrchr(self, '/');
        static const char *const places[] = {AIOPROF_SIM_FROM_BIN, ".", "../device/sim"};
        for (size_t i = 0; slash != NULL && i < sizeof places / sizeof places[0]; i++) {
            *slash = '\0';
            if (demo_try_sim(out, len, self, places[i]) == 0)
                return 0;
        }
    }
    const char *path = getenv("PATH");
    while (path != NULL && path[0] != '\0') {
        size_t dir_len = strcspn(path, ":");
        char dir[PATH_MAX];
        if (dir_len > 0 && dir_len < sizeof dir) {
            memcpy(dir, path, dir_len);
            dir[dir_len] = '\0';
            if (demo_try_sim(out, len, dir, ".") == 0)
                return 0;
        }
        path += dir_len + (path[dir_len] == ':');
    }
    snprintf(err, errlen, "cannot find the simulator aioprof-sim: it is neither where the install puts "
             "it (%s from aioprof-top's folder), nor in the build tree, nor in PATH; set AIOPROF_SIM "
             "to its path.", AIOPROF_SIM_FROM_BIN);
    return -1;
}

/* The simulator names its pty on a line of its output; the first /dev/ path there is it. */
static int demo_take_line(demo_t *d)
{
    const char *p = strstr(d->line, "/dev/");
    if (d->verbose)
        fprintf(stderr, "sim: %s\n", d->line);
    if (p == NULL && d->line[0] != '\0')
        snprintf(d->said, sizeof d->said, "%s", d->line);
    if (p == NULL || d->pty[0] != '\0')
        return 0;
    size_t n = strcspn(p, " \t\r\n'\",;");
    while (n > 0 && (p[n - 1] == '.' || p[n - 1] == ':' || p[n - 1] == ')'))
        n--;
    if (n == 0 || n >= sizeof d->pty)
        return 0;
    memcpy(d->pty, p, n);
    d->pty[n] = '\0';
    return 1;
}

/* Reads what the simulator wrote, line by line; control characters are shown as '?'. Returns 1
 * when something was read, 0 when nothing was waiting, -1 once the simulator closed its output. */
static int demo_read_output(demo_t *d)
{
    char buf[512];
    ssize_t n = read(d->out, buf, sizeof buf);
    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return 0;
    if (n <= 0)
        return -1;
    for (ssize_t i = 0; i < n; i++) {
        char c = buf[i];
        if (c == '\n' || d->line_len == sizeof d->line - 1) {
            d->line[d->line_len] = '\0';
            demo_take_line(d);
            d->line_len = 0;
            if (c == '\n')
                continue;
        }
        d->line[d->line_len++] = (c >= 0x20 && c != 0x7F) || c < 0 ? c : '?';
    }
    return 1;
}

static void demo_child(const char *sim, const char *workload, int text_every, int repl, int out)
{
    char text[16];
    snprintf(text, sizeof text, "%d", text_every);
    int null = open("/dev/null", O_RDONLY);
    if (null >= 0)
        dup2(null, STDIN_FILENO);
    dup2(out, STDOUT_FILENO);
    dup2(out, STDERR_FILENO);
    /* its own process group: Ctrl-C reaches aioprof-top, which then stops the simulator after the
     * report, instead of both racing to exit */
    setpgid(0, 0);
#ifdef __linux__
    prctl(PR_SET_PDEATHSIG, SIGTERM);
#endif
    const char *argv[12] = {"aioprof-sim", "--pty", "--clock", "real", "-w", workload};
    int argc = 6;
    if (text_every > 0) {
        argv[argc++] = "--text";
        argv[argc++] = text;
    }
    if (repl)
        argv[argc++] = "--repl";
    argv[argc] = NULL;
    execv(sim, (char *const *)argv);
    fprintf(stderr, "cannot run %s: %s\n", sim, strerror(errno));
    _exit(127);
}

/* The simulator exited before its pty: with its usage code (2) it refused the options it was
 * given (the user's --workload, --text); its own sentence says why. */
static void demo_refused(demo_t *d, const char *sim, char *err, size_t errlen, int *usage)
{
    int status = 0;
    if (waitpid(d->pid, &status, 0) == d->pid)
        d->exited = 1;
    if (d->line_len > 0) {
        d->line[d->line_len] = '\0';
        snprintf(d->said, sizeof d->said, "%s", d->line);
    }
    /* its own prefix goes: the sentence is given as ours */
    const char *why = strncmp(d->said, "aioprof-sim: ", 13) == 0 ? d->said + 13 : d->said;
    if (d->exited && WIFEXITED(status) && WEXITSTATUS(status) == 2) {
        *usage = 1;
        snprintf(err, errlen, "the demo's simulator refused its options: %s", why[0] ? why : "(it said nothing).");
    } else {
        snprintf(err, errlen, "the simulator %s exited before it opened its pty%s%s", sim, why[0] ? ": " : ".",
                 why);
    }
}

demo_t *demo_start(const char *workload, int text_every, int repl, int verbose, char *err, size_t errlen,
                   int *usage)
{
    char sim[PATH_MAX];
    int fds[2];
    demo_t *d;

    if (demo_find_sim(sim, sizeof sim, err, errlen) < 0)
        return NULL;
    d = calloc(1, sizeof *d);
    if (d == NULL || pipe(fds) < 0) {
        snprintf(err, errlen, "cannot start the simulator: %s.", strerror(errno));
        free(d);
        return NULL;
    }
    d->verbose = verbose;
    d->out = fds[0];
    fcntl(fds[0], F_SETFD, FD_CLOEXEC);
    d->pid = fork();
    if (d->pid < 0) {
        snprintf(err, errlen, "cannot start the simulator: %s.", strerror(errno));
        goto error_pipe;
    }
    if (d->pid == 0) {
        close(fds[0]);
        demo_child(sim, workload != NULL ? workload : "seed", text_every, repl, fds[1]);
    }
    close(fds[1]);
    fds[1] = -1;
    if (verbose)
        fprintf(stderr, "aioprof-top: started %s (pid %d)\n", sim, (int)d->pid);

    uint64_t deadline = monotonic_us() + DEMO_START_TIMEOUT_MS * 1000u;
    while (d->pty[0] == '\0') {
        uint64_t now = monotonic_us();
        struct pollfd pfd = {.fd = d->out, .events = POLLIN};
        if (now >= deadline) {
            snprintf(err, errlen, "the simulator %s did not name its pty within %d s.", sim, DEMO_START_TIMEOUT_MS / 1000);
            goto error_stop;
        }
        if (poll(&pfd, 1, (int)((deadline - now) / 1000u) + 1) > 0 && demo_read_output(d) < 0) {
            demo_refused(d, sim, err, errlen, usage);
            goto error_stop;
        }
    }
    fcntl(d->out, F_SETFL, fcntl(d->out, F_GETFL) | O_NONBLOCK);
    if (verbose)
        fprintf(stderr, "aioprof-top: the simulator's pty is %s\n", d->pty);
    return d;

error_stop:
    demo_stop(d);
    return NULL;
error_pipe:
    close(fds[0]);
    close(fds[1]);
    free(d);
    return NULL;
}

const char *demo_pty(const demo_t *d)
{
    return d->pty;
}

int demo_pump(demo_t *d)
{
    int status;
    if (d->exited)
        return -1;
    while (demo_read_output(d) > 0) {
    }
    if (waitpid(d->pid, &status, WNOHANG) == d->pid) {
        d->exited = 1;
        return -1;
    }
    return 0;
}

void demo_stop(demo_t *d)
{
    int status;
    if (d == NULL)
        return;
    if (!d->exited) {
        kill(d->pid, SIGTERM);
        for (int i = 0; i < 50 && waitpid(d->pid, &status, WNOHANG) == 0; i++) {
            struct timespec ts = {0, 20 * 1000000L};
            nanosleep(&ts, NULL);
            if (i == 49) {
                kill(d->pid, SIGKILL);
                waitpid(d->pid, &status, 0);
            }
        }
    }
    close(d->out);
    free(d);
}
