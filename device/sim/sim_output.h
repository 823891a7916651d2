/* Where the simulated device's port writes: stdout, a file or a fresh pty. It is the device's one
 * serial stream: frames from the hook's ring and print() text share it, text only ever between
 * frames. It can also behave like a slow port (--baud, --write-chunk) so that the ring fills. */
#ifndef SIM_OUTPUT_H
#define SIM_OUTPUT_H

#include <stddef.h>
#include <stdint.h>

#include "sim_clock.h"
#include "sim_options.h"

#define SIM_TEXT_QUEUE 4096u

typedef enum sim_output_kind { SIM_OUT_STDOUT, SIM_OUT_FILE, SIM_OUT_PTY } sim_output_kind_t;

typedef struct sim_output {
    sim_output_kind_t kind;
    int fd;
    int pty_slave;       /* our own hold on the pty's slave side (-1: none), see pty_linger */
    int closed;          /* the consumer went away (EPIPE): stop quietly */
    int failed;          /* a write error that is not the consumer leaving (disk full) */
    int gave_up;         /* a pty nobody reads: the final drain stopped waiting */
    size_t chunk;        /* at most this per write call; 0: no limit */
    uint32_t baud;
    uint64_t credit;     /* baud mode: bit-microseconds the port may still send */
    uint64_t credit_at;  /* device time the credit was last topped up */
    const sim_clock_t *clock;
    uint64_t frame_bytes;
    uint64_t frames;       /* frames sent (non-empty segments of the hook's bytes) */
    int in_frame;          /* inside a frame's bytes */
    uint64_t text_bytes;
    uint64_t text_lines;   /* '\n' sent */
    uint64_t write_calls;
    uint64_t last_progress_wall;
    /* a pty's reader's bytes (--repl): given here as they come; NULL: read and dropped */
    void (*on_input)(void *user, const uint8_t *data, size_t len);
    void *input_user;
    size_t text_len;       /* queued text, sent before any further frame byte */
    uint8_t text[SIM_TEXT_QUEUE];
    char pty_path[128];
} sim_output_t;

/* Opens the output the options name. Returns 0, or -1 after printing one sentence on stderr. */
int sim_output_open(sim_output_t *o, const sim_options_t *opt, const sim_clock_t *clock);
void sim_output_close(sim_output_t *o);

/* The device port's write function for committed frame bytes: queued text goes first, and while
 * any of it is left no frame byte is taken. Returns the bytes of data taken (0: busy). */
size_t sim_output_frames(sim_output_t *o, const uint8_t *data, size_t len);

/* Room in the text queue. Text may be queued only when no frame is half sent (the hook has no
 * committed bytes pending): the caller checks that. */
size_t sim_output_text_room(const sim_output_t *o);
void sim_output_text(sim_output_t *o, const char *text, size_t len);

/* Sends queued text if the port takes it, reads what a pty reader sent (to on_input, or dropped).
 * Returns 1 when something was sent. */
int sim_output_poll(sim_output_t *o);

#endif
