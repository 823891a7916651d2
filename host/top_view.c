/* The live table's lifecycle and drawing: takes the terminal, turns keys into actions (through
 * top_keys.c), takes rows from the statistics when due (through top_table.c) and draws the
 * screen into stdscr; ncurses sends only the cells that changed. */
#ifndef _XOPEN_SOURCE
#define _XOPEN_SOURCE 700
#endif
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE
#endif
#include <curses.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "top_private.h"

#define TOP_MIN_W 40
#define TOP_MIN_H 10

enum { PAIR_MEDIUM = 1, PAIR_LARGE, PAIR_ALERT, PAIR_THEAD, PAIR_SORTED, PAIR_GOOD, PAIR_KEY };

/* The view holding the terminal, for the atexit handler: the terminal comes back on any exit. */
static top_view_t *top_active;
static int top_atexit_registered;

static void top_view_atexit(void)
{
    if (top_active != NULL && !isendwin()) {
        endwin();
    }
}

/* ---- layout ---- */

static void view_layout(top_view_t *v)
{
    top_layout_t *l = &v->lay;
    int h = v->height;
    l->head_lines = h >= 16 ? 4 : h >= 12 ? 3 : 2;
    l->footer_y = h - 1;
    l->pane_h = h >= 24 ? 5 : h >= 18 ? 3 : 0;
    l->pane_y = l->footer_y - l->pane_h;
    l->outside_y = l->pane_y - 1;
    l->table_y = l->head_lines;
    l->rows_y = l->table_y + 1;
    l->rows_h = l->outside_y - l->rows_y;
    if (l->rows_h < 1) {
        l->rows_h = 1;
    }
    l->ncols = top_format_columns(top_table_grouping(v), v->width, l->cols, &l->name_w);
}

/* KEY_RESIZE and the start: the one place that learns the size. */
static void view_resize(top_view_t *v)
{
    int h, w;
    getmaxyx(stdscr, h, w);
    v->height = h;
    v->width = w;
    view_layout(v);
    top_keys_move(v, 0);
}

/* ---- drawing helpers ---- */

static attr_t class_attr(const top_view_t *v, top_class_t c)
{
    if (v->colour) {
        switch (c) {
        case TOP_CLASS_ZERO: return A_DIM;
        case TOP_CLASS_SMALL: return A_NORMAL;
        case TOP_CLASS_MEDIUM: return COLOR_PAIR(PAIR_MEDIUM);
        case TOP_CLASS_LARGE: return COLOR_PAIR(PAIR_LARGE) | A_BOLD;
        case TOP_CLASS_ALERT: return COLOR_PAIR(PAIR_ALERT) | A_BOLD;
        }
    }
    switch (c) {
    case TOP_CLASS_ZERO: return A_DIM;
    case TOP_CLASS_LARGE: return A_BOLD;
    case TOP_CLASS_ALERT: return A_BOLD | A_UNDERLINE;
    default: return A_NORMAL;
    }
}

static attr_t view_pair(const top_view_t *v, int pair, attr_t mono)
{
    return v->colour ? COLOR_PAIR(pair) : mono;
}

static const char *view_sep(const top_view_t *v)
{
    return v->unicode ? " \xC2\xB7 " : " | ";
}

/* Draws s in [x, x + width) of line y, cut to fit, right-aligned or left-aligned and padded with
 * spaces in the same attribute. Returns x + width. */
static int draw_cell(const top_view_t *v, int y, int x, int width, const char *s, int right, attr_t attr)
{
    char buf[STATS_TEXT_MAX * 4 + 64];
    if (width <= 0 || x >= v->width) {
        return x + (width > 0 ? width : 0);
    }
    if (x + width > v->width) {
        width = v->width - x;
    }
    int w = top_format_fit(buf, sizeof buf, s, width, top_cut_mark(v));
    attrset(attr);
    move(y, x);
    if (right) {
        for (int i = w; i < width; i++) {
            addch(' ');
        }
    }
    addstr(buf);
    if (!right) {
        for (int i = w; i < width; i++) {
            addch(' ');
        }
    }
    attrset(A_NORMAL);
    return x + width;
}

/* Draws s at x as far as the line goes. Returns the x after it. */
static int draw_seg(const top_view_t *v, int y, int x, const char *s, attr_t attr)
{
    char buf[STATS_TEXT_MAX * 4 + 64];
    if (x >= v->width) {
        return x;
    }
    int w = top_format_fit(buf, sizeof buf, s, v->width - x, top_cut_mark(v));
    attrset(attr);
    mvaddstr(y, x, buf);
    attrset(A_NORMAL);
    return x + w;
}

/* "label N" with N coloured as a count of bad things. */
static int draw_counter(const top_view_t *v, int y, int x, const char *label, uint64_t n)
{
    char num[32];
    snprintf(num, sizeof num, "%" PRIu64, n);
    x = draw_seg(v, y, x, label, A_NORMAL);
    return draw_seg(v, y, x, num, n ? class_attr(v, TOP_CLASS_ALERT) : A_DIM);
}

/* ---- the header ---- */

static int head_link(const top_view_t *v, int y, int x)
{
    const top_status_t *st = v->status;
    char buf[STATS_TEXT_MAX + 96];
    x = draw_seg(v, y, x, st && st->source ? st->source : "(no source)", A_BOLD);
    x = draw_seg(v, y, x, view_sep(v), A_NORMAL);
    if (st == NULL || st->link == TOP_LINK_CONNECTED) {
        x = draw_seg(v, y, x, st && st->replay ? "replaying" : "connected", view_pair(v, PAIR_GOOD, A_NORMAL));
    } else if (st->link == TOP_LINK_WAITING) {
        x = draw_seg(v, y, x, "waiting for the device", class_attr(v, TOP_CLASS_LARGE));
    } else {
        x = draw_seg(v, y, x, st->replay ? "end of recording" : "link closed", class_attr(v, TOP_CLASS_LARGE));
    }
    if (st != NULL && st->replay) {
        char speed[32];
        if (st->replay_speed > 0) {
            snprintf(speed, sizeof speed, "%gx", st->replay_speed);
        } else {
            snprintf(speed, sizeof speed, "max speed");
        }
        snprintf(buf, sizeof buf, "%s%s, %.1f s", view_sep(v), speed, st->replay_position_s);
        x = draw_seg(v, y, x, buf, A_NORMAL);
        if (st->replay_paused) {
            x = draw_seg(v, y, x, view_sep(v), A_NORMAL);
            x = draw_seg(v, y, x, "PAUSED", class_attr(v, TOP_CLASS_LARGE));
        }
    }
    if (v->frozen) {
        x = draw_seg(v, y, x, view_sep(v), A_NORMAL);
        x = draw_seg(v, y, x, "FROZEN", view_pair(v, PAIR_ALERT, A_NORMAL) | A_REVERSE | A_BOLD);
    }
    if (v->message[0]) {
        x = draw_seg(v, y, x, view_sep(v), A_NORMAL);
        x = draw_seg(v, y, x, v->message, class_attr(v, TOP_CLASS_LARGE));
    }
    return x;
}

static int head_device(const top_view_t *v, int y, int x)
{
    const top_head_t *h = &v->head;
    char buf[STATS_PLATFORM_MAX + 96];
    if (h->device.have_hello) {
        snprintf(buf, sizeof buf, "%s, protocol %" PRIu32, h->device.platform[0] ? h->device.platform : "device",
            h->device.version);
        x = draw_seg(v, y, x, buf, A_BOLD);
    } else {
        x = draw_seg(v, y, x, "no HELLO from the device yet", A_DIM);
    }
    snprintf(buf, sizeof buf, "%stime %.2f s%s%.0f ev/s%s%.1f KB/s", view_sep(v), (double)h->elapsed_us / 1e6,
        view_sep(v), h->events_per_s, view_sep(v), h->bytes_per_s / 1024.0);
    x = draw_seg(v, y, x, buf, A_NORMAL);
    if (h->overhead >= 0) {
        snprintf(buf, sizeof buf, "%soverhead %.2f %%", view_sep(v), 100.0 * h->overhead);
        x = draw_seg(v, y, x, buf, A_NORMAL);
    }
    return x;
}

static int head_health(const top_view_t *v, int y, int x)
{
    const top_head_t *h = &v->head;
    const top_status_t *st = v->status;
    x = draw_counter(v, y, x, "dropped ", h->stream.dropped_events);
    x = draw_counter(v, y, x, " CRC errors ", h->stream.crc_errors);
    x = draw_counter(v, y, x, " lost frames ", h->stream.lost_frames);
    x = draw_counter(v, y, x, " duplicates ", h->stream.duplicates);
    x = draw_counter(v, y, x, " clock steps back ", h->stream.clock_steps_back);
    x = draw_counter(v, y, x, " resets ", h->stream.resets);
    if (st != NULL && st->record_path != NULL) {
        char size[32], buf[STATS_TEXT_MAX + 64];
        top_format_bytes(size, sizeof size, st->record_bytes);
        snprintf(buf, sizeof buf, "%srec %s (%s)", view_sep(v), st->record_path, size);
        x = draw_seg(v, y, x, buf, A_NORMAL);
    }
    if (h->any_lower) {
        x = draw_seg(v, y, x, view_sep(v), A_NORMAL);
        x = draw_seg(v, y, x, v->unicode ? "\xE2\x89\xA5 may be low" : "> may be low", A_NORMAL);
    }
    return x;
}

static int head_mode(const top_view_t *v, int y, int x)
{
    char buf[STATS_TEXT_MAX + 96];
    if (v->drilled) {
        snprintf(buf, sizeof buf, "instances of %s", v->drill);
    } else {
        snprintf(buf, sizeof buf, "%s", v->by_instance ? "by instance" : "by name");
    }
    x = draw_seg(v, y, x, buf, A_BOLD);
    if (v->window) {
        snprintf(buf, sizeof buf, "%slast %.1f s", view_sep(v), (double)v->head.win_elapsed_us / 1e6);
    } else {
        snprintf(buf, sizeof buf, "%scumulative", view_sep(v));
    }
    x = draw_seg(v, y, x, buf, A_NORMAL);
    snprintf(buf, sizeof buf, "%ssort %s %s", view_sep(v), top_format_col(v->sort)->head, top_sort_mark(v));
    x = draw_seg(v, y, x, buf, A_NORMAL);
    if (v->filter[0] || v->filter_edit) {
        x = draw_seg(v, y, x, view_sep(v), A_NORMAL);
        x = draw_seg(v, y, x, "filter: ", A_NORMAL);
        x = draw_seg(v, y, x, v->filter, class_attr(v, TOP_CLASS_LARGE));
    }
    return x;
}

static void draw_header(const top_view_t *v)
{
    switch (v->lay.head_lines) {
    case 4:
        head_link(v, 0, 0);
        head_device(v, 1, 0);
        head_health(v, 2, 0);
        head_mode(v, 3, 0);
        break;
    case 3:
        head_link(v, 0, 0);
        head_device(v, 1, head_health(v, 1, 0) + 2);
        head_mode(v, 2, 0);
        break;
    default:
        head_mode(v, 0, head_link(v, 0, 0) + 2);
        head_device(v, 1, head_health(v, 1, 0) + 2);
        break;
    }
}

/* ---- the table ---- */

static void draw_table_head(const top_view_t *v)
{
    const top_layout_t *l = &v->lay;
    attr_t head = view_pair(v, PAIR_THEAD, A_REVERSE);
    attr_t sorted = view_pair(v, PAIR_SORTED, A_REVERSE) | A_BOLD;
    const char *mark = top_sort_mark(v);
    char buf[64];
    int x = 0;
    for (size_t i = 0; i < l->ncols; i++) {
        const top_col_info_t *ci = top_format_col(l->cols[i]);
        int w = l->cols[i] == TOP_COL_NAME ? l->name_w : ci->width;
        const char *text = l->cols[i] == TOP_COL_NAME && top_table_grouping(v) ? "task" : ci->head;
        int is_sorted = l->cols[i] == v->sort;
        snprintf(buf, sizeof buf, is_sorted ? (ci->left ? "%s%s" : "%2$s%1$s") : "%s", text, mark);
        if (i > 0) {
            x = draw_cell(v, l->table_y, x, 1, "", 0, head);
        }
        x = draw_cell(v, l->table_y, x, w, buf, !ci->left, is_sorted ? sorted : head);
    }
    if (x < v->width) {
        draw_cell(v, l->table_y, x, v->width - x, "", 0, head);
    }
}

static void draw_row(const top_view_t *v, int y, const top_row_t *r, int selected)
{
    const top_layout_t *l = &v->lay;
    attr_t sel = view_pair(v, PAIR_SORTED, A_REVERSE);
    char buf[STATS_TEXT_MAX * 2 + 64];
    int x = 0;
    for (size_t i = 0; i < l->ncols; i++) {
        const top_col_info_t *ci = top_format_col(l->cols[i]);
        int w = l->cols[i] == TOP_COL_NAME ? l->name_w : ci->width;
        top_class_t cls;
        top_table_cell(v, r, l->cols[i], w, buf, sizeof buf, &cls);
        if (i > 0) {
            x = draw_cell(v, y, x, 1, "", 0, selected ? sel : A_NORMAL);
        }
        x = draw_cell(v, y, x, w, buf, !ci->left, selected ? sel : class_attr(v, cls));
    }
    if (selected && x < v->width) {
        draw_cell(v, y, x, v->width - x, "", 0, sel);
    }
}

/* Right under the last row, as the report has it; at the bottom of the area when rows fill it. */
static void draw_outside(const top_view_t *v, int y)
{
    const top_layout_t *l = &v->lay;
    uint64_t el = v->window ? v->head.win_elapsed_us : v->head.elapsed_us;
    uint64_t out = v->window ? v->head.win_outside_us : v->head.outside_us;
    double share = el ? (double)out / (double)el : 0;
    char buf[64];
    int x = 0;
    for (size_t i = 0; i < l->ncols; i++) {
        const top_col_info_t *ci = top_format_col(l->cols[i]);
        int w = l->cols[i] == TOP_COL_NAME ? l->name_w : ci->width;
        if (i > 0) {
            x++;
        }
        switch (l->cols[i]) {
        case TOP_COL_NAME: x = draw_cell(v, y, x, w, "(outside tasks)", 0, A_DIM); break;
        case TOP_COL_TOTAL:
            top_format_ms(buf, sizeof buf, out, w);
            x = draw_cell(v, y, x, w, buf, 1, class_attr(v, top_format_class_share(share)));
            break;
        case TOP_COL_SHARE:
            if (el) {
                top_format_share(buf, sizeof buf, share, w);
            } else {
                snprintf(buf, sizeof buf, "-");
            }
            x = draw_cell(v, y, x, w, buf, 1, class_attr(v, top_format_class_share(share)));
            break;
        default: x += w; break;
        }
    }
}

static void draw_rows(const top_view_t *v)
{
    const top_layout_t *l = &v->lay;
    if (v->n_vis == 0) {
        const char *why = "waiting for task data from the device";
        if (v->filter[0]) {
            why = "no task matches the filter (Esc clears it)";
        } else if (v->window && v->head.elapsed_us > 0) {
            why = "no task ran in the last second";
        }
        draw_seg(v, l->rows_y, 1, why, A_DIM);
    }
    int i = 0;
    for (; i < l->rows_h && v->scroll + (size_t)i < v->n_vis; i++) {
        size_t at = v->scroll + (size_t)i;
        draw_row(v, l->rows_y + i, top_table_row(v, at), at == v->cursor);
    }
    draw_outside(v, v->n_vis == 0 ? l->rows_y + 1 : l->rows_y + i);
}

/* ---- text pane, footer, help ---- */

static void draw_pane(const top_view_t *v)
{
    const top_layout_t *l = &v->lay;
    if (l->pane_h == 0) {
        return;
    }
    char rule[16];
    snprintf(rule, sizeof rule, "%s", v->unicode ? "\xE2\x94\x80" : "-");
    move(l->pane_y, 0);
    attrset(A_DIM);
    for (int x = 0; x < v->width; x++) {
        addstr(rule);
    }
    attrset(A_NORMAL);
    draw_seg(v, l->pane_y, 2, " device output ", A_DIM);
    uint64_t shown = v->frozen ? v->text_frozen : v->text_total;
    int lines = l->pane_h - 1;
    for (int i = 0; i < lines; i++) {
        /* the newest line at the bottom; lines the ring has overwritten are gone */
        uint64_t back = (uint64_t)(lines - i);
        if (back > shown || v->text_total - (shown - back) > TOP_TEXT_LINES) {
            continue;
        }
        uint64_t idx = shown - back;
        draw_seg(v, l->pane_y + 1 + i, 0, v->text[idx % TOP_TEXT_LINES], A_NORMAL);
    }
}

static void draw_footer(const top_view_t *v)
{
    int y = v->lay.footer_y;
    attr_t key = A_BOLD;
    attr_t label = view_pair(v, PAIR_KEY, A_REVERSE);
    if (v->filter_edit) {
        int x = draw_seg(v, y, 0, "Filter: ", key);
        x = draw_seg(v, y, x, v->filter, label);
        x = draw_seg(v, y, x, "_", label | A_BLINK);
        draw_seg(v, y, x + 2, "Enter keep  Esc clear", A_DIM);
        return;
    }
    static const char *const live[][2] = {{"F1", "Help  "}, {"/", "Filter"}, {"g", "Group "}, {"w", "Window"},
        {"p", "Freeze"}, {"r", "Reset "}, {"<>", "Sort  "}, {"I", "Invert"}, {"q", "Quit  "}};
    static const char *const replay[][2] = {{"F1", "Help  "}, {"/", "Filter"}, {"g", "Group "}, {"w", "Window"},
        {"Spc", "Pause "}, {"+-", "Speed "}, {"p", "Freeze"}, {"<>", "Sort  "}, {"q", "Quit  "}};
    const char *const(*items)[2] = v->status && v->status->replay ? replay : live;
    size_t n = v->status && v->status->replay ? sizeof replay / sizeof replay[0] : sizeof live / sizeof live[0];
    int x = 0;
    for (size_t i = 0; i < n; i++) {
        int need = (int)(strlen(items[i][0]) + strlen(items[i][1]) + 1);
        if (x + need > v->width) {
            break;
        }
        x = draw_seg(v, y, x, items[i][0], key);
        x = draw_seg(v, y, x, items[i][1], label) + 1;
    }
}

static void draw_help(const top_view_t *v)
{
    size_t n;
    const top_key_help_t *h = top_keys_help(&n);
    int y = v->lay.head_lines;
    int bottom = v->lay.footer_y;
    y = (draw_seg(v, y, 0, "aioprof-top keys", A_BOLD), y + 1);
    int kw = 0;
    for (size_t i = 0; i < n; i++) {
        int w = (int)strlen(h[i].keys);
        kw = w > kw ? w : kw;
    }
    if (kw > v->width / 3) {
        kw = v->width / 3; /* narrow: the descriptions matter more */
    }
    for (size_t i = 0; i < n && y < bottom; i++, y++) {
        draw_cell(v, y, 1, kw, h[i].keys, 0, A_BOLD);
        draw_seg(v, y, kw + 3, h[i].what, A_NORMAL);
    }
    static const char *const legend[] = {
        "dim: zero; red: over --slow, errors, or a hog (25 % of the time or more)",
        "\xE2\x89\xA5 (>): the figure may be low, events were lost while the task ran",
        "last second: a dim \xE2\x89\xA4 max (<) is the older maximum: no new one was set inside the window",
    };
    for (size_t i = 0; i < 3 && y + 1 < bottom; i++) {
        const char *s = legend[i];
        if (i == 1 && !v->unicode) {
            s = "> : the figure may be low, events were lost while the task ran";
        }
        draw_seg(v, ++y, 1, s, A_DIM);
    }
}

static void view_draw(top_view_t *v)
{
    erase();
    if (v->width < TOP_MIN_W || v->height < TOP_MIN_H) {
        char buf[80];
        snprintf(buf, sizeof buf, "terminal too small (%dx%d): needs %dx%d", v->width, v->height, TOP_MIN_W,
            TOP_MIN_H);
        draw_seg(v, 0, 0, buf, A_BOLD);
    } else {
        draw_header(v);
        if (v->help) {
            draw_help(v);
        } else {
            draw_table_head(v);
            draw_rows(v);
            draw_pane(v);
        }
        draw_footer(v);
    }
    wnoutrefresh(stdscr);
    doupdate();
}

/* ---- lifecycle ---- */

top_view_t *top_view_open(const top_view_options_t *o)
{
    if (!isatty(STDOUT_FILENO)) {
        fputs("aioprof-top: stdout is not a terminal: use --report or --json.\n", stderr);
        return NULL;
    }
    if (!isatty(STDIN_FILENO)) {
        fputs("aioprof-top: stdin is not a terminal (the live table reads its keys there): use --report or "
              "--json.\n",
            stderr);
        return NULL;
    }
    top_view_t *v = calloc(1, sizeof *v);
    if (v == NULL) {
        fputs("aioprof-top: out of memory.\n", stderr);
        return NULL;
    }
    v->opt = *o;
    v->unicode = o->unicode;
    static const top_col_t by_sort[] = {TOP_COL_TOTAL, TOP_COL_COUNT, TOP_COL_MAX, TOP_COL_MEAN, TOP_COL_NAME};
    v->sort = o->sort >= 0 && o->sort < 5 ? by_sort[o->sort] : TOP_COL_TOTAL;
    v->by_instance = o->by_instance != 0;

    SCREEN *scr = newterm(NULL, stdout, stdin);
    if (scr == NULL) {
        const char *term = getenv("TERM");
        fprintf(stderr, "aioprof-top: cannot drive this terminal (TERM=%s): set TERM, or use --report or --json.\n",
            term ? term : "unset");
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
    cbreak(); /* Ctrl-C stays a signal: main's handler ends the loop, top_view_close restores */
    noecho();
    nonl();
    intrflush(stdscr, FALSE);
    keypad(stdscr, TRUE);
    nodelay(stdscr, TRUE);
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
    view_resize(v);
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

void top_view_text_line_cb(void *v, const char *line)
{
    top_view_text_line(v, line);
}

void top_view_message(top_view_t *v, const char *msg)
{
    if (v == NULL) {
        return;
    }
    snprintf(v->message, sizeof v->message, "%s", msg ? msg : "");
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
    top_history_free(&v->hist);
    free(v->vis);
    free(v);
}

/* ---- the update ---- */

static int status_changed(top_view_t *v, const top_status_t *s)
{
    const top_status_t *o = &v->seen_status;
    uint64_t pos_ms = (uint64_t)(s->replay_position_s * 10.0);
    int changed = s->link != o->link || s->record_bytes != o->record_bytes || s->replay_paused != o->replay_paused ||
                  s->replay_speed != o->replay_speed || s->source != o->source || s->record_path != o->record_path ||
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
    top_head_build(&v->head, s, &v->hist);
    v->head.any_lower = 0;
    for (size_t i = 0; i < v->base[g].n; i++) {
        v->head.any_lower |= v->base[g].rows[i].lower_bound;
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

    /* new data: note it and feed the window's history (also while frozen, so that unfreezing
     * shows a right window at once) */
    int fresh = first || st->stream.bytes != v->seen_bytes || st->stream.events != v->seen_events ||
                st->elapsed_us != v->seen_elapsed;
    if (fresh) {
        v->seen_bytes = st->stream.bytes;
        v->seen_events = st->stream.events;
        v->seen_elapsed = st->elapsed_us;
        top_history_take(&v->hist, st);
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

    while ((ch = getch()) != ERR) {
        if (ch == KEY_RESIZE) {
            view_resize(v);
            redo |= TOP_REDRAW_SCREEN;
            continue;
        }
        int group_before = top_table_grouping(v);
        redo |= top_keys_apply(v, ch);
        if (top_table_grouping(v) != group_before) {
            view_layout(v); /* the other grouping has other columns */
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
            break; /* main acts on it; the other keys wait in the input for the next call */
        }
    }

    int due = now_us - v->last_build_us >= TOP_REDRAW_EVERY_US || first;
    if ((fresh || first) && !v->frozen) {
        v->pending |= 2; /* rows to take */
    }
    if ((v->pending & 2) && due) {
        view_build(v, st, 0, now_us);
        top_table_select(v);
        v->pending = (v->pending & ~2) | 1;
    }
    if (redo || ((v->pending & 1) && now_us - v->last_draw_us >= TOP_REDRAW_EVERY_US) || first) {
        view_draw(v);
        v->last_draw_us = now_us;
        v->pending &= ~1;
        v->started = 1;
    }
    return action;
}
