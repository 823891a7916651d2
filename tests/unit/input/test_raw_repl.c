/* host/input/raw_repl.c: --run's side of MicroPython's raw REPL, against the board's replies as
 * shared/runtime/pyexec.c makes them: raw paste with its flow control, the paced raw REPL of a
 * board that refuses or predates raw paste, time-outs, the end of the program, the keys. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pipeline.h"
#include "raw_repl.h"

#define MS 1000u

static uint64_t now_us;
static uint8_t wire[2 * RAW_REPL_SCRIPT_MAX]; /* what the host wrote, in order */
static size_t wire_len;

/* Everything the module has to write goes out at once. */
static void drain(raw_repl_t *r)
{
    const uint8_t *data;
    size_t n = raw_repl_outgoing(r, &data);
    assert_true(wire_len + n <= sizeof wire);
    memcpy(wire + wire_len, data, n);
    wire_len += n;
    raw_repl_wrote(r, n);
}

/* The board says s; returns what the handshake took. */
static size_t board(raw_repl_t *r, const char *s, size_t len)
{
    size_t took = raw_repl_take(r, (const uint8_t *)s, len, now_us);
    drain(r);
    return took;
}
#define BOARD(r, lit) board(r, lit, sizeof(lit) - 1)

static void wire_is(const char *want, size_t len)
{
    assert_int_equal(wire_len, len);
    assert_memory_equal(wire, want, len);
    wire_len = 0;
}
#define WIRE_IS(lit) wire_is(lit, sizeof(lit) - 1)

static uint8_t script[3000];

static raw_repl_t *start(size_t len)
{
    char err[300];
    for (size_t i = 0; i < len; i++) {
        script[i] = (uint8_t)("print('hello')\n"[i % 15]);
    }
    raw_repl_t *r = raw_repl_new("app.py", script, len, err, sizeof err);
    assert_non_null(r);
    now_us = 1000000;
    wire_len = 0;
    raw_repl_begin(r, now_us);
    drain(r);
    /* Ctrl-C twice, Ctrl-A */
    WIRE_IS("\r\x03\x03\r\x01");
    assert_int_equal(raw_repl_state(r), RAW_REPL_ENTERING);
    return r;
}

/* From Ctrl-A to the prompt after the soft reset; the running program's last output first. */
static void to_prompt(raw_repl_t *r)
{
    static const char before[] = "\x00\x12\x01\x05frame\x00Traceback...\r\nKeyboardInterrupt: \r\n>>> \r\n"
                                 "raw REPL; CTRL-B to exit\r\n>";
    assert_int_equal(board(r, before, sizeof before - 1), sizeof before - 1);
    WIRE_IS("\x04"); /* the soft reset, as mpremote run */
    assert_int_equal(raw_repl_state(r), RAW_REPL_RESETTING);
    assert_int_equal(BOARD(r, "OK\r\nMPY: soft reboot\r\nraw REPL; CTRL-B to exit\r\n>"), 49);
    WIRE_IS("\x05" "A" "\x01");
    assert_int_equal(raw_repl_state(r), RAW_REPL_SENDING);
}

static void test_raw_paste_flow_control(void **state)
{
    (void)state;
    raw_repl_t *r = start(1000);
    to_prompt(r);
    /* "R\x01", a window of 128 bytes, and one more window free at once */
    BOARD(r, "R\x01\x80\x00\x01");
    assert_int_equal(wire_len, 256);
    assert_memory_equal(wire, script, 256);
    size_t sent = 256, granted = 256;
    wire_len = 0;
    while (sent < 1000) {
        /* the board read a window: it frees one */
        BOARD(r, "\x01");
        granted += 128;
        assert_true(sent + wire_len <= granted + 1); /* never past the windows (the +1: the end's Ctrl-D) */
        size_t data = sent + wire_len > 1000 ? 1000 - sent : wire_len;
        assert_memory_equal(wire, script + sent, data);
        sent += data;
        if (sent == 1000) {
            assert_int_equal(wire_len, data + 1);
            assert_int_equal(wire[data], 0x04);
        }
        wire_len = 0;
    }
    assert_int_equal(raw_repl_state(r), RAW_REPL_SENDING);
    /* the board's "\x04": the end acknowledged; what follows is the program's */
    static const char ack[] = "\x04\x00\x07" "frame\x00hello\r\n";
    assert_int_equal(board(r, ack, sizeof ack - 1), 1);
    assert_int_equal(raw_repl_state(r), RAW_REPL_RUNNING);
    assert_true(raw_repl_pasted(r));
    raw_repl_free(r);
}

static void test_paste_refused_paced(void **state)
{
    (void)state;
    raw_repl_t *r = start(600);
    to_prompt(r);
    BOARD(r, "R\x00");
    raw_repl_poll(r, now_us, 0);
    drain(r);
    assert_int_equal(wire_len, 256);
    /* nothing more until 10 ms later */
    now_us += 5 * MS;
    raw_repl_poll(r, now_us, 0);
    drain(r);
    assert_int_equal(wire_len, 256);
    now_us += 5 * MS;
    raw_repl_poll(r, now_us, 0);
    drain(r);
    assert_int_equal(wire_len, 512);
    now_us += 10 * MS;
    raw_repl_poll(r, now_us, 0);
    drain(r);
    assert_int_equal(wire_len, 601);
    assert_memory_equal(wire, script, 600);
    assert_int_equal(wire[600], 0x04);
    wire_len = 0;
    /* "OK", then the program's own bytes in the same read */
    assert_int_equal(BOARD(r, "OKhello\r\n"), 2);
    assert_int_equal(raw_repl_state(r), RAW_REPL_RUNNING);
    assert_false(raw_repl_pasted(r));
    raw_repl_free(r);
}

static void test_board_without_raw_paste(void **state)
{
    (void)state;
    raw_repl_t *r = start(100);
    to_prompt(r);
    /* "\x05A" went into its line; the Ctrl-A started the raw REPL again */
    BOARD(r, "raw REPL; CTRL-B to exit\r\n>");
    raw_repl_poll(r, now_us, 0);
    drain(r);
    assert_int_equal(wire_len, 101);
    assert_memory_equal(wire, script, 100);
    wire_len = 0;
    BOARD(r, "OK");
    assert_int_equal(raw_repl_state(r), RAW_REPL_RUNNING);
    raw_repl_free(r);
}

static void test_no_answer(void **state)
{
    (void)state;
    raw_repl_t *r = start(10);
    BOARD(r, "\x00\x05\x11\x22\x00 some frames of a program that ignores Ctrl-C");
    now_us += RAW_REPL_RETRY_US;
    raw_repl_poll(r, now_us, 0);
    drain(r);
    WIRE_IS("\r\x03\x03\r\x01"); /* once more, for a board that was still starting */
    now_us += RAW_REPL_ENTER_TIMEOUT_US;
    assert_int_equal(raw_repl_poll(r, now_us, 0), RAW_REPL_FAILED);
    assert_non_null(strstr(raw_repl_error(r), "no answer from MicroPython's raw REPL"));
    raw_repl_free(r);
}

static void test_unexpected_during_paste(void **state)
{
    (void)state;
    raw_repl_t *r = start(1000);
    to_prompt(r);
    BOARD(r, "R\x01\x80\x00");
    BOARD(r, "?");
    assert_int_equal(raw_repl_state(r), RAW_REPL_FAILED);
    assert_non_null(strstr(raw_repl_error(r), "0x3F during the raw paste of app.py"));
    raw_repl_free(r);
}

/* A syntax error: the board stops reading and says so with 0x04, acknowledged with 0x04. */
static void test_paste_cut_by_board(void **state)
{
    (void)state;
    raw_repl_t *r = start(1000);
    to_prompt(r);
    BOARD(r, "R\x01\x80\x00");
    wire_len = 0;
    static const char cut[] = "\x04\x04Traceback (most recent call last):\r\nSyntaxError: invalid syntax\r\n\x04>";
    assert_int_equal(board(r, cut, sizeof cut - 1), 1);
    WIRE_IS("\x04");
    assert_int_equal(raw_repl_poll(r, now_us, 1), RAW_REPL_ENDED);
    assert_true(raw_repl_ended_with_error(r));
    raw_repl_free(r);
}

static raw_repl_t *running(void)
{
    raw_repl_t *r = start(10);
    to_prompt(r);
    BOARD(r, "R\x01\x80\x00\x01");
    wire_len = 0;
    BOARD(r, "\x04");
    assert_int_equal(raw_repl_state(r), RAW_REPL_RUNNING);
    return r;
}

static void test_program_end(void **state)
{
    (void)state;
    raw_repl_t *r = running();
    /* frames and text; a frame may hold 0x04 and '>': only a text segment's end counts */
    BOARD(r, "\x00\x09\x04>\x07\x04>");
    assert_int_equal(raw_repl_poll(r, now_us, 0), RAW_REPL_RUNNING);
    BOARD(r, "\x00hello\r\n\x04\x04>");
    assert_int_equal(raw_repl_poll(r, now_us, 1), RAW_REPL_ENDED);
    assert_false(raw_repl_ended_with_error(r));
    raw_repl_free(r);

    r = running();
    BOARD(r, "\x00\x04Traceback (most recent call last):\r\n  File \"<stdin>\", line 3\r\nKeyboardInterrupt: \r\n");
    assert_int_equal(raw_repl_poll(r, now_us, 1), RAW_REPL_RUNNING);
    BOARD(r, "\x04>");
    assert_int_equal(raw_repl_poll(r, now_us, 1), RAW_REPL_ENDED);
    assert_true(raw_repl_ended_with_error(r));
    raw_repl_free(r);
}

static void test_keys_and_leaving(void **state)
{
    (void)state;
    char err[200];
    raw_repl_t *r = raw_repl_new("app.py", (const uint8_t *)"x", 1, err, sizeof err);
    assert_int_equal(raw_repl_interrupt(r), -1); /* nothing was sent yet */
    raw_repl_free(r);

    r = running();
    assert_int_equal(raw_repl_interrupt(r), 0);
    drain(r);
    WIRE_IS("\x03");
    assert_int_equal(raw_repl_soft_reset(r), 0);
    drain(r);
    WIRE_IS("\x03\x03\x02\x04");
    assert_int_equal(raw_repl_state(r), RAW_REPL_BOARD);
    raw_repl_leave(r);
    drain(r);
    assert_int_equal(wire_len, 0); /* Ctrl-B went out with the reset */
    raw_repl_free(r);

    r = running();
    raw_repl_leave(r);
    drain(r);
    WIRE_IS("\r\x02");
    raw_repl_free(r);
}

static void test_link_lost(void **state)
{
    (void)state;
    raw_repl_t *r = start(10);
    raw_repl_link_lost(r);
    assert_int_equal(raw_repl_state(r), RAW_REPL_IDLE); /* not sent yet: again when it is back */
    raw_repl_begin(r, now_us);
    drain(r);
    WIRE_IS("\r\x03\x03\r\x01");
    raw_repl_free(r);

    r = running();
    raw_repl_link_lost(r);
    assert_int_equal(raw_repl_state(r), RAW_REPL_BOARD); /* sent: never again */
    raw_repl_free(r);
}

static void test_refused_scripts(void **state)
{
    (void)state;
    char err[300];
    assert_null(raw_repl_new("ctl.py", (const uint8_t *)"print(1)\x04\n", 10, err, sizeof err));
    assert_non_null(strstr(err, "ctl.py holds the control byte 0x04 (at byte 8)"));
    static uint8_t big[RAW_REPL_SCRIPT_MAX + 1];
    assert_null(raw_repl_new("big.py", big, sizeof big, err, sizeof err));
    assert_non_null(strstr(err, "--run sends at most"));
    raw_repl_t *r = raw_repl_new("empty.py", NULL, 0, err, sizeof err);
    assert_non_null(r);
    raw_repl_free(r);
}

static void test_clean_line(void **state)
{
    (void)state;
    raw_repl_t *r = running();
    char a[] = "\\x04Traceback (most recent call last):";
    assert_true(raw_repl_clean_line(r, a));
    assert_string_equal(a, "Traceback (most recent call last):");
    char b[] = "a literal \\\\x04 stays";
    assert_true(raw_repl_clean_line(r, b));
    assert_string_equal(b, "a literal \\\\x04 stays");
    char c[] = "\\x04>";
    assert_true(raw_repl_clean_line(r, c)); /* a program's own line while it runs */
    BOARD(r, "\x00\x04\x04>");
    raw_repl_poll(r, now_us, 1);
    char d[] = "\\x04\\x04>";
    assert_false(raw_repl_clean_line(r, d)); /* the prompt after the end */
    raw_repl_free(r);
}

/* What raw_repl_poll is told: the pipeline's judgement of the bytes after the last 0x00. */
static void test_pending_is_text(void **state)
{
    (void)state;
    pipeline_t *p = pipeline_new(NULL);
    assert_non_null(p);
    assert_false(pipeline_pending_is_text(p));
    static const char tail[] = "\0Traceback\r\nKeyboardInterrupt: \r\n\x04>";
    pipeline_feed(p, (const uint8_t *)tail, sizeof tail - 1);
    assert_true(pipeline_pending_is_text(p));
    pipeline_feed(p, (const uint8_t *)"\0\x05\x01\x02\x11\x04>", 7);
    assert_false(pipeline_pending_is_text(p)); /* binary: a frame's start */
    pipeline_feed(p, (const uint8_t *)"\0", 1);
    assert_false(pipeline_pending_is_text(p));
    pipeline_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_raw_paste_flow_control),
        cmocka_unit_test(test_paste_refused_paced),
        cmocka_unit_test(test_board_without_raw_paste),
        cmocka_unit_test(test_no_answer),
        cmocka_unit_test(test_unexpected_during_paste),
        cmocka_unit_test(test_paste_cut_by_board),
        cmocka_unit_test(test_program_end),
        cmocka_unit_test(test_keys_and_leaving),
        cmocka_unit_test(test_link_lost),
        cmocka_unit_test(test_refused_scripts),
        cmocka_unit_test(test_clean_line),
        cmocka_unit_test(test_pending_is_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
