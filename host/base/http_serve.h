/* A small HTTP/1.1 responder for one resource (--metrics' GET /metrics), run from the session's
 * loop: it never blocks. Every socket is non-blocking; a request is read up to HTTP_SERVE_REQUEST_MAX
 * bytes (longer ones are answered 431 and closed), a client that sends nothing for
 * HTTP_SERVE_IDLE_US is dropped, and at most HTTP_SERVE_CLIENTS are served at once (the next ones
 * wait in the kernel's backlog). Each response closes its connection (Connection: close): a
 * scraper connects once per scrape. */
#ifndef AIOPROF_HTTP_SERVE_H
#define AIOPROF_HTTP_SERVE_H

#include <stddef.h>
#include <stdint.h>

#define HTTP_SERVE_CLIENTS 8
#define HTTP_SERVE_REQUEST_MAX 4096u
#define HTTP_SERVE_IDLE_US 5000000u

/* The body for a GET of the resource: a malloc'ed buffer of *len bytes the server frees, or NULL
 * (out of memory: 503). head: the request's head (its line and headers, NUL-terminated), to
 * choose a format by; *content_type: the body's type (the server's default when left NULL). */
typedef char *(*http_serve_body_fn)(void *user, const char *head, size_t *len, const char **content_type);

typedef struct http_serve http_serve_t;

/* Listens on spec, "HOST:PORT", ":PORT" or "PORT" (the host then 127.0.0.1; a name or an address,
 * IPv6 in brackets: "[::1]:9100"), for GET path answered with content_type and body(). Returns NULL
 * with one sentence in err (a bad address, a port in use, no permission); *bad_spec is then 1 when
 * spec itself is wrong (not an address, an unknown host). */
http_serve_t *http_serve_open(const char *spec, const char *path, const char *content_type, http_serve_body_fn body,
    void *user, char *err, size_t err_size, int *bad_spec);

/* Accepts, reads and answers what is ready, without waiting. now_us: the monotonic clock. */
void http_serve_tick(http_serve_t *h, uint64_t now_us);

/* The port it listens on (the one the kernel chose for port 0). */
unsigned http_serve_port(const http_serve_t *h);

/* Requests answered with the resource so far. */
uint64_t http_serve_served(const http_serve_t *h);

void http_serve_close(http_serve_t *h);

#endif
