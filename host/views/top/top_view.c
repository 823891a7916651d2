/* The live table's lifecycle and its turn in main's loop: takes and gives back the terminal, keeps
 * the device text and main's message, and on each poll applies the keys (top_keys.c), takes rows
 * from the statistics when due (top_table.c) and draws when something changed (top_draw.c). */
#ifndef _XOPEN_SOURCE
#define _XOPEN_SOURCE 700
#endif
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE
#endif
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "compare_feed.h"
#include "top_draw.h"

#include <term.h>

/* The view holding the terminal, for the atexit handler: the terminal comes back on any exit. */
static top_view_t *top_active;
static int top_atexit_registered;

static void top_view_atexit(void)
{
    if (top_active != NULL && !isendwin()) {
        endwin();
    }
}

/* The terminal was resized. Our own handler, not ncurses' (which it installs only when there is
 * none): ncurses' shows a resize as a key, and the keyboard is read only when poll says a key is
 * there. */
static volatile sig_atomic_t top_resized;

static void top_view_on_winch(int sig)
{
    (void)sig;
    top_resized = 1;
}

/* ---- lifecycle ---- */

/* A terminal the table can draw on: its terminfo entry places the cursor. TERM=dumb (an editor's
 * shell, some CI logs) does not, and would get one garbled line. Looked up before newterm, so that
 * nothing is sent to a terminal that cannot take it. Returns 0, or -1 after one sentence. */
static int top_view_terminal_fits(void)
{
    int err = 0;
    const char *term = getenv("TERM");
    if (setupterm(NULL, STDOUT_FILENO, &err) != OK) {
        fprintf(stderr, "aioprof-top: cannot drive this terminal (TERM=%s): set TERM, or use --report or --json.\n",
            term ? term : "unset");
        return -1;
    }
    char *cup = tigetstr("cup");
    int fits = cup != NULL && cup != (char *)-1;
    del_curterm(cur_term);
    if (!fits) {
        fprintf(stderr, "aioprof-top: this terminal (TERM=%s) cannot move the cursor, which the live table needs: "
                "use another terminal, or --report or --json.\n", term ? term : "unset");
        return -1;
    }
    return 0;
}

top_view_t *top_view_open(const top_view_options_t *o, int *usage)
{
    *usage = 0;
    if (!isatty(STDOUT_FILENO)) {
        fputs("aioprof-top: stdout is not a terminal: use --report or --json.\n", stderr);
        *usage = 1;
        return NULL;
    }
    if (!isatty(STDIN_FILENO)) {
        fputs("aioprof-top: stdin is not a terminal (the live table reads its keys there): use --report or "
              "--json.\n",
            stderr);
        *usage = 1;
        return NULL;
    }
    if (top_view_terminal_fits() < 0) {
        *usage = 1;
        return NULL;
    }
    top_view_t *v = calloc(1, sizeof *v);
    if (v == NULL) {
        fputs("aioprof-top: out of memory.\n", stderr);
        return NULL;
    }
    v->opt = *o;
    v->unicode = o->unicode;
    /* --sort's keys (sort_key_t) to the columns they sort by */
    static const top_col_t by_sort[] = {TOP_COL_TOTAL, TOP_COL_COUNT, TOP_COL_MAX, TOP_COL_MEAN, TOP_COL_NAME,
        TOP_COL_INSTANCES, TOP_COL_SHARE, TOP_COL_SLOW, TOP_COL_ERRORS, TOP_COL_END, TOP_COL_CREATOR, TOP_COL_LATE_MAX};
    v->sort = o->sort >= 0 && (size_t)o->sort < sizeof by_sort / sizeof by_sort[0] ? by_sort[o->sort] : TOP_COL_TOTAL;
    v->by_instance = o->by_instance != 0;

    v->interval_us = o->interval_us ? o->interval_us : TOP_INTERVAL_DEFAULT_US;
    v->tl_span_us = TOP_TIMELINE_SPAN_DEFAULT_US;
    if (top_timeline_init(&v->tl) != 0) {
        fputs("aioprof-top: out of memory.\n", stderr);
        free(v);
        return NULL;
    }

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = top_view_on_winch;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGWINCH, &sa, NULL); /* no SA_RESTART: main's wait returns, the turn comes */
    SCREEN *scr = newterm(NULL, stdout, stdin);
    if (scr == NULL) {
        const char *term = getenv("TERM");
        fprintf(stderr, "aioprof-top: cannot drive this terminal (TERM=%s): set TERM, or use --report or --json.\n",
            term ? term : "unset");
        top_timeline_free(&v->tl);
        free(v);
        return NULL;
    }
    v->screen = scr;
    set_term(scr);
    top_active = v;
    if (!top_atexit_registered) {
        atexit(top_view_atexit);
        top_atexit_registered = 1;
    }
    /* ncurses 6.4 writes its output out at each cursor move of a refresh (twenty write(2)s for a
     * refresh of the table, each a wake-up of the terminal) while the screen is in the state newterm
     * left it in; a screen left once and come back to writes each refresh in one go. So it is left
     * and come back to here, before anything is drawn and before the modes are set (endwin turns
     * the keypad off). */
    endwin();
    doupdate();
    cbreak(); /* Ctrl-C stays a signal: main's handler ends the loop, top_view_close restores */
    noecho();
    nonl();
    intrflush(stdscr, FALSE);
    keypad(stdscr, TRUE);
    nodelay(stdscr, TRUE);
    /* no look for keys in the middle of a refresh (a poll of the keyboard before each piece it
     * writes): the keys are read at the next turn anyway */
    typeahead(-1);
    set_escdelay(25); /* Esc leaves the filter at once, not after a second */
    curs_set(0);
    v->colour = o->colour && has_colors();
    if (v->colour) {
        start_color();
        short bg = use_default_colors() == OK ? -1 : COLOR_BLACK;
        init_pair(PAIR_MEDIUM, COLOR_CYAN, bg);
        init_pair(PAIR_LARGE, COLOR_YELLOW, bg);
        init_pair(PAIR_ALERT, COLOR_RED, bg);
        init_pair(PAIR_THEAD, COLOR_BLACK, COLOR_GREEN);
        init_pair(PAIR_SORTED, COLOR_BLACK, COLOR_CYAN);
        init_pair(PAIR_GOOD, COLOR_GREEN, bg);
        init_pair(PAIR_KEY, COLOR_BLACK, COLOR_CYAN);
    }
    top_resize(v);
    return v;
}

int top_view_fd(const top_view_t *v)
{
    (void)v;
    return STDIN_FILENO;
}

void top_view_text_line(top_view_t *v, const char *line)
{
    if (v == NULL || line == NULL) {
        return;
    }
    char *dst = v->text[v->text_total % TOP_TEXT_LINES];
    size_t len = strlen(line);
    if (len > TOP_TEXT_MAX - 1) {
        len = TOP_TEXT_MAX - 1;
        while (len > 0 && ((unsigned char)line[len] & 0xC0) == 0x80) {
            len--; /* cut at a whole character */
        }
    }
    memcpy(dst, line, len);
    dst[len] = '\0';
    v->text_total++;
}

/* ---- the timeline's feed: the pipeline's observer ---- */

static void top_view_on_slice(void *user, const pipeline_slice_t *slice)
{
    top_view_t *v = user;
    top_timeline_add(&v->tl, slice);
}

static void top_view_on_span(void *user, const pipeline_span_t *span)
{
    top_view_t *v = user;
    top_timeline_add_span(&v->tl, span);
}

const pipeline_observer_t *top_view_observer(void)
{
    static const pipeline_observer_t observer = {.slice = top_view_on_slice, .span = top_view_on_span};
    return &observer;
}

void top_view_restart(top_view_t *v)
{
    if (v == NULL) {
        return;
    }
    top_history_clear(&v->hist);
    top_timeline_clear(&v->tl);
    v->tl_to_us = v->tl_reset_us = 0;
    v->text_total = v->text_frozen = v->seen_text = 0;
    v->pane_end = 0;
    v->base[0].n = v->base[1].n = 0;
    v->n_vis = 0;
    v->pending |= 3;
}

void top_view_message(top_view_t *v, const char *msg)
{
    if (v == NULL) {
        return;
    }
    snprintf(v->message, sizeof v->message, "%s", msg ? msg : "");
    v->message_new = v->message[0] != '\0';
    v->pending |= 1;
}

void top_view_close(top_view_t *v)
{
    if (v == NULL) {
        return;
    }
    if (top_active == v) {
        if (!isendwin()) {
            endwin();
        }
        top_active = NULL;
    }
    delscreen(v->screen);
    top_rows_free(&v->base[0]);
    top_rows_free(&v->base[1]);
    top_rows_free(&v->spare);
    top_history_free(&v->hist);
    top_timeline_free(&v->tl);
    top_hogs_free(v);
    free(v->tl_cells);
    free(v->tl_outside);
    free(v->tl_busy);
    free(v->vis);
    free(v->spans);
    free(v);
}

/* ---- the update ---- */

static int status_changed(top_view_t *v, const top_status_t *s)
{
    const top_status_t *o = &v->seen_status;
    uint64_t pos_ms = (uint64_t)(s->replay_position_s * 10.0);
    int changed = s->link != o->link || s->record_bytes != o->record_bytes || s->replay_paused != o->replay_paused ||
                  s->replay_speed != o->replay_speed || s->source != o->source || s->record_path != o->record_path ||
                  s->replay_seeking != o->replay_seeking || s->replay_length_s != o->replay_length_s ||
                  s->hogs_captured != o->hogs_captured || s->hogs_missed != o->hogs_missed || s->n_hogs != o->n_hogs ||
                  pos_ms != v->seen_position_ms;
    v->seen_status = *s;
    v->seen_position_ms = pos_ms;
    return changed;
}

static void view_build(top_view_t *v, const stats_t *s, int both, uint64_t now_us)
{
    int g = top_table_grouping(v);
    for (int i = 0; i < 2; i++) {
        if (both || i == g) {
            top_rows_build(&v->base[i], s, i, &v->hist);
        }
    }
    int late_known = v->head.late_known;
    top_head_build(&v->head, s, &v->hist, g);
    if (v->head.late_known != late_known) {
        top_layout(v); /* the main columns gain (or lose) lateness */
    }
    top_history_take(&v->hist, &v->base[g], g, s, now_us);
    top_spans_take(v, s);
    v->head.any_lower = 0;
    for (size_t i = 0; i < v->base[g].n; i++) {
        v->head.any_lower |= v->base[g].rows[i].lower_bound;
    }
    /* the timeline's right edge: the device time seen, on the observer's line (the statistics'
     * resets took their share of it), and never before a slice it holds */
    v->tl_to_us = s->elapsed_us + v->tl_reset_us;
    if (v->tl.latest_us > v->tl_to_us) {
        v->tl_to_us = v->tl.latest_us;
    }
    v->last_build_us = now_us;
}

top_action_t top_view_poll(top_view_t *v, pipeline_t *p, const top_status_t *s, uint64_t now_us)
{
    static const top_status_t no_status = {0};
    unsigned redo = TOP_REDRAW_NONE;
    int ch;
    top_action_t action = TOP_CONTINUE;

    if (v == NULL) {
        return TOP_CONTINUE;
    }
    v->p = p;
    v->status = s ? s : &no_status;
    const stats_t *st = pipeline_stats(p);
    int first = !v->started;

    /* new data: note it, and while frozen still feed the window's history (rows built for it
     * alone), so that unfreezing shows a right window at once */
    int fresh = first || st->stream.bytes != v->seen_bytes || st->stream.events != v->seen_events ||
                st->elapsed_us != v->seen_elapsed;
    if (fresh) {
        v->seen_bytes = st->stream.bytes;
        v->seen_events = st->stream.events;
        v->seen_elapsed = st->elapsed_us;
        int g = top_table_grouping(v);
        if (v->frozen && top_history_due(&v->hist, g, now_us) && top_rows_build(&v->spare, st, g, &v->hist) == 0) {
            top_history_take(&v->hist, &v->spare, g, st, now_us);
        }
    }
    if (v->text_total != v->seen_text) {
        v->seen_text = v->text_total;
        if (!v->frozen) {
            v->pending |= 1;
        }
    }
    if (status_changed(v, v->status)) {
        v->pending |= 1;
    }
    if (v->message_new) {
        v->message_new = 0;
        v->message_us = now_us;
    } else if (v->message[0] && now_us - v->message_us >= TOP_MESSAGE_US) {
        v->message[0] = '\0'; /* said long enough */
        v->pending |= 1;
    }

    if (top_resized) {
        struct winsize ws;
        top_resized = 0;
        if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0 && ws.ws_col > 0) {
            resize_term(ws.ws_row, ws.ws_col);
        }
        clearok(curscr, TRUE);
        top_resize(v);
        redo |= TOP_REDRAW_SCREEN;
    }
    /* the keyboard only when a key is there (or left over from the last turn) */
    struct pollfd kp = {.fd = STDIN_FILENO, .events = POLLIN};
    int keys = v->keys_pending || poll(&kp, 1, 0) > 0;
    v->keys_pending = 0;
    while (keys && (ch = getch()) != ERR) {
        if (ch == KEY_RESIZE) {
            top_resize(v);
            redo |= TOP_REDRAW_SCREEN;
            continue;
        }
        if (v->message[0]) {
            v->message[0] = '\0'; /* read: a key puts it away (and still does its job) */
            redo |= TOP_REDRAW_SCREEN;
        }
        int group_before = top_table_grouping(v);
        redo |= top_keys_apply(v, ch);
        if (top_table_grouping(v) != group_before) {
            top_layout(v); /* the other grouping has other columns (its rows are selected below) */
        } else if (redo & TOP_REDRAW_LAYOUT) {
            top_layout(v); /* the pane another size: the rows shown too */
            top_table_move(v, 0);
        }
        if (redo & TOP_REDRAW_LAYOUT) {
            redo = (redo & ~(unsigned)TOP_REDRAW_LAYOUT) | TOP_REDRAW_SCREEN;
        }
        if (redo & TOP_REDRAW_DATA) {
            view_build(v, pipeline_stats(p), v->frozen, now_us);
            redo = (redo & ~(unsigned)TOP_REDRAW_DATA) | TOP_REDRAW_ROWS;
        }
        if (redo & TOP_REDRAW_ROWS) {
            top_table_select(v); /* now: a following key must act on the rows it sees */
            redo = (redo & ~(unsigned)TOP_REDRAW_ROWS) | TOP_REDRAW_SCREEN;
        }
        if (v->action != TOP_CONTINUE) {
            action = v->action;
            v->action = TOP_CONTINUE;
            v->keys_pending = 1; /* main acts on it; the other keys wait for the next call */
            break;
        }
    }

    int due = now_us - v->last_build_us >= v->interval_us || first;
    if ((fresh || first) && !v->frozen) {
        v->pending |= 2; /* rows to take */
    }
    if ((v->pending & 2) && due) {
        view_build(v, st, 0, now_us);
        if (v->colset == TOP_SET_DELTA) {
            v->cmp_now = compare_feed_side(v->opt.cmp_live, p);
        }
        top_table_select(v);
        v->pending = (v->pending & ~2) | 1;
    }
    if (redo || ((v->pending & 1) && now_us - v->last_draw_us >= v->interval_us) || first) {
        top_draw(v);
        v->last_draw_us = now_us;
        v->pending &= ~1;
        v->started = 1;
    }
    return action;
}
