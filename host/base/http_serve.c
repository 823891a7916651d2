/* The --metrics responder (http_serve.h). */
#include "http_serve.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

typedef struct http_client {
    int fd;              /* -1: a free place */
    uint64_t last_us;    /* when it last sent or took bytes */
    size_t got;          /* request bytes in req */
    char req[HTTP_SERVE_REQUEST_MAX];
    char *out;           /* the response, once the request is whole */
    size_t out_len, out_at;
} http_client_t;

struct http_serve {
    int fd;
    unsigned port;
    const char *path, *content_type;
    http_serve_body_fn body;
    void *user;
    uint64_t served;
    http_client_t c[HTTP_SERVE_CLIENTS];
};

static int set_nonblock(int fd)
{
    int fl = fcntl(fd, F_GETFL);
    return fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0 ? -1 : 0;
}

/* spec's host and port, split: "[v6]:port", "host:port", ":port", "port". Returns 0, or -1. */
static int split_spec(const char *spec, char *host, size_t host_size, char *port, size_t port_size)
{
    const char *colon = strrchr(spec, ':');
    const char *h = spec, *p = colon ? colon + 1 : spec;
    size_t hl = colon ? (size_t)(colon - spec) : 0;
    if (hl >= 2 && h[0] == '[' && h[hl - 1] == ']') {
        h++;
        hl -= 2;
    }
    size_t pl = strlen(p);
    if (pl == 0 || pl >= port_size || hl >= host_size || strspn(p, "0123456789") != pl) {
        return -1;
    }
    memcpy(host, h, hl);
    host[hl] = '\0';
    if (hl == 0) {
        snprintf(host, host_size, "127.0.0.1");
    }
    memcpy(port, p, pl + 1);
    return atol(port) > 65535 ? -1 : 0;
}

http_serve_t *http_serve_open(const char *spec, const char *path, const char *content_type, http_serve_body_fn body,
    void *user, char *err, size_t err_size, int *bad_spec)
{
    char host[256], port[8];
    *bad_spec = 1;
    if (split_spec(spec, host, sizeof host, port, sizeof port) < 0) {
        snprintf(err, err_size, "--metrics %s is not an address: give HOST:PORT, :PORT or PORT (0 to 65535)", spec);
        return NULL;
    }
    struct addrinfo hints, *ai = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
    int gai = getaddrinfo(host, port, &hints, &ai);
    if (gai != 0) {
        snprintf(err, err_size, "--metrics %s: the host %s is not known (%s)", spec, host, gai_strerror(gai));
        return NULL;
    }
    *bad_spec = 0;
    int fd = -1, errnum = 0;
    for (struct addrinfo *a = ai; a != NULL && fd < 0; a = a->ai_next) {
        fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
        if (fd < 0) {
            errnum = errno;
            continue;
        }
        int one = 1;
        (void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        if (bind(fd, a->ai_addr, a->ai_addrlen) < 0 || listen(fd, 16) < 0 || set_nonblock(fd) < 0) {
            errnum = errno;
            close(fd);
            fd = -1;
        }
    }
    freeaddrinfo(ai);
    if (fd < 0) {
        snprintf(err, err_size, "--metrics %s: cannot listen there: %s", spec,
            errnum == EADDRINUSE ? "the port is in use by another program"
            : errnum == EACCES   ? "no permission (ports below 1024 need privileges)"
                                 : strerror(errnum));
        return NULL;
    }
    http_serve_t *h = calloc(1, sizeof *h);
    if (h == NULL) {
        close(fd);
        snprintf(err, err_size, "--metrics: out of memory");
        return NULL;
    }
    struct sockaddr_storage ss;
    socklen_t sl = sizeof ss;
    if (getsockname(fd, (struct sockaddr *)&ss, &sl) == 0) {
        h->port = ss.ss_family == AF_INET6 ? ntohs(((struct sockaddr_in6 *)&ss)->sin6_port)
                                           : ntohs(((struct sockaddr_in *)&ss)->sin_port);
    }
    h->fd = fd;
    h->path = path;
    h->content_type = content_type;
    h->body = body;
    h->user = user;
    for (int i = 0; i < HTTP_SERVE_CLIENTS; i++) {
        h->c[i].fd = -1;
    }
    return h;
}

static void client_drop(http_client_t *c)
{
    close(c->fd);
    free(c->out);
    c->fd = -1;
    c->out = NULL;
    c->got = c->out_len = c->out_at = 0;
}

/* The response: status, headers, and body (NULL: none; freed here). */
static void client_respond(http_client_t *c, const char *status, const char *type, char *body, size_t body_len)
{
    char head[512];
    int n = snprintf(head, sizeof head,
        "HTTP/1.1 %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\nConnection: close\r\n\r\n", status, type, body_len);
    size_t hl = n > 0 && (size_t)n < sizeof head ? (size_t)n : 0;
    c->out = malloc(hl + body_len);
    if (c->out == NULL) {
        free(body);
        client_drop(c);
        return;
    }
    memcpy(c->out, head, hl);
    if (body_len) {
        memcpy(c->out + hl, body, body_len);
    }
    free(body);
    c->out_len = hl + body_len;
    c->out_at = 0;
}

static void respond_text(http_client_t *c, const char *status, const char *text)
{
    size_t n = strlen(text);
    char *b = malloc(n);
    if (b != NULL) {
        memcpy(b, text, n);
    }
    client_respond(c, status, "text/plain; charset=utf-8", b, b ? n : 0);
}

/* A whole request head in c->req: what it asks for, answered. */
static void client_request(http_serve_t *h, http_client_t *c)
{
    char method[16], target[256];
    c->req[c->got < sizeof c->req ? c->got : sizeof c->req - 1] = '\0';
    /* the head may hold NULs (hostile): what follows one is not looked at */
    if (memchr(c->req, '\0', c->got) != NULL || sscanf(c->req, "%15s %255s", method, target) != 2) {
        respond_text(c, "400 Bad Request", "bad request\n");
        return;
    }
    if (strcmp(method, "GET") != 0) {
        respond_text(c, "405 Method Not Allowed", "only GET\n");
        return;
    }
    char *q = strchr(target, '?');
    if (q != NULL) {
        *q = '\0';
    }
    if (strcmp(target, h->path) != 0) {
        respond_text(c, "404 Not Found", "not found: the figures are at /metrics\n");
        return;
    }
    size_t len = 0;
    const char *type = NULL;
    char *body = h->body(h->user, c->req, &len, &type);
    if (body == NULL) {
        respond_text(c, "503 Service Unavailable", "out of memory\n");
        return;
    }
    h->served++;
    client_respond(c, "200 OK", type != NULL ? type : h->content_type, body, len);
}

static void client_tick(http_serve_t *h, http_client_t *c, uint64_t now_us)
{
    if (c->out == NULL) {
        ssize_t r = recv(c->fd, c->req + c->got, sizeof c->req - 1 - c->got, 0);
        if (r == 0 || (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
            client_drop(c);
            return;
        }
        if (r > 0) {
            c->got += (size_t)r;
            c->last_us = now_us;
            c->req[c->got] = '\0';
            if (strstr(c->req, "\r\n\r\n") != NULL || strstr(c->req, "\n\n") != NULL) {
                client_request(h, c);
            } else if (c->got >= sizeof c->req - 1) {
                respond_text(c, "431 Request Header Fields Too Large", "request too large\n");
            }
        }
    }
    if (c->fd >= 0 && c->out != NULL) {
        while (c->out_at < c->out_len) {
            ssize_t w = send(c->fd, c->out + c->out_at, c->out_len - c->out_at, MSG_NOSIGNAL);
            if (w < 0) {
                if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
                    break;
                }
                client_drop(c);
                return;
            }
            c->out_at += (size_t)w;
            c->last_us = now_us;
        }
        if (c->out_at == c->out_len) {
            shutdown(c->fd, SHUT_WR);
            client_drop(c);
            return;
        }
    }
    if (c->fd >= 0 && now_us - c->last_us > HTTP_SERVE_IDLE_US) {
        client_drop(c);
    }
}

void http_serve_tick(http_serve_t *h, uint64_t now_us)
{
    if (h == NULL) {
        return;
    }
    for (int i = 0; i < HTTP_SERVE_CLIENTS; i++) {
        if (h->c[i].fd >= 0) {
            continue;
        }
        int fd = accept(h->fd, NULL, NULL);
        if (fd < 0) {
            break; /* none waiting (EAGAIN), or an error the next tick sees again */
        }
        if (set_nonblock(fd) < 0 || fcntl(fd, F_SETFD, FD_CLOEXEC) < 0) {
            close(fd);
            continue;
        }
        h->c[i].fd = fd;
        h->c[i].last_us = now_us;
    }
    for (int i = 0; i < HTTP_SERVE_CLIENTS; i++) {
        if (h->c[i].fd >= 0) {
            client_tick(h, &h->c[i], now_us);
        }
    }
}

unsigned http_serve_port(const http_serve_t *h)
{
    return h ? h->port : 0;
}

uint64_t http_serve_served(const http_serve_t *h)
{
    return h ? h->served : 0;
}

void http_serve_close(http_serve_t *h)
{
    if (h == NULL) {
        return;
    }
    for (int i = 0; i < HTTP_SERVE_CLIENTS; i++) {
        if (h->c[i].fd >= 0) {
            client_drop(&h->c[i]);
        }
    }
    close(h->fd);
    free(h);
}
