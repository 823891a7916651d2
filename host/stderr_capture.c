/* stderr into the live table's message line (stderr_capture.h). */
#include "stderr_capture.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

void stderr_capture_init(stderr_capture_t *c)
{
    memset(c, 0, sizeof *c);
    c->pipe = -1;
    c->saved = -1;
}

int stderr_capture_start(stderr_capture_t *c)
{
    int fds[2];
    if (pipe(fds) != 0)
        return -1;
    fflush(stderr);
    c->saved = dup(STDERR_FILENO);
    if (c->saved < 0 || dup2(fds[1], STDERR_FILENO) < 0) {
        close(fds[0]);
        close(fds[1]);
        return -1;
    }
    close(fds[1]);
    fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK);
    c->pipe = fds[0];
    return 0;
}

void stderr_capture_drain(stderr_capture_t *c, top_view_t *v)
{
    char buf[1024];
    ssize_t n;
    if (c->pipe < 0)
        return;
    fflush(stderr);
    while ((n = read(c->pipe, buf, sizeof buf)) > 0) {
        for (ssize_t i = 0; i < n; i++) {
            if (buf[i] == '\n') {
                c->line[c->len] = '\0';
                top_view_message(v, c->line);
                memcpy(c->last, c->line, c->len + 1);
                c->len = 0;
            } else if (c->len + 1 < sizeof c->line) {
                c->line[c->len++] = buf[i];
            }
        }
    }
}

void stderr_capture_stop(stderr_capture_t *c, top_view_t *v)
{
    if (c->pipe < 0)
        return;
    fflush(stderr);
    dup2(c->saved, STDERR_FILENO);
    close(c->saved);
    /* what was said last is said again where it can be read */
    stderr_capture_drain(c, v);
    if (c->len > 0)
        fprintf(stderr, "%.*s\n", (int)c->len, c->line);
    else if (c->last[0] != '\0')
        fprintf(stderr, "%s\n", c->last);
    close(c->pipe);
    c->pipe = -1;
}
