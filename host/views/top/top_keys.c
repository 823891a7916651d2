/* Keys of the live table: a table maps each key to an action; an action changes the view's
 * modes and returns what must be redone (nothing, a redraw, a new sort, new rows). Adding a key
 * is one line in key_table and one in key_help. */
#include <curses.h>
#include <string.h>

#include "top_private.h"

typedef unsigned (*key_action_t)(top_view_t *v, int key);

static unsigned key_quit(top_view_t *v, int key)
{
    (void)key;
    v->action = TOP_QUIT;
    return TOP_REDRAW_NONE;
}

static unsigned key_help(top_view_t *v, int key)
{
    (void)key;
    v->help = !v->help;
    v->help_scroll = 0;
    return TOP_REDRAW_SCREEN;
}

static unsigned key_filter(top_view_t *v, int key)
{
    (void)key;
    v->filter_edit = 1;
    return TOP_REDRAW_SCREEN;
}

static unsigned key_group(top_view_t *v, int key)
{
    (void)key;
    v->by_instance = !v->by_instance;
    v->drilled = 0;
    v->cursor_set = 0;
    v->cursor = v->scroll = 0;
    if (v->sort == TOP_COL_INSTANCES || v->sort == TOP_COL_END || v->sort == TOP_COL_CREATOR) {
        v->sort = TOP_COL_TOTAL; /* a column the other grouping does not have */
    }
    /* a frozen view already holds both groupings */
    return v->frozen ? TOP_REDRAW_ROWS : TOP_REDRAW_DATA;
}

static unsigned key_enter(top_view_t *v, int key)
{
    (void)key;
    if (top_table_grouping(v) || v->n_vis == 0) {
        return TOP_REDRAW_NONE;
    }
    const top_row_t *r = top_table_row(v, v->cursor);
    if (r->by_inst) {
        return TOP_REDRAW_NONE; /* an unnamed instance is already one instance */
    }
    snprintf(v->drill, sizeof v->drill, "%s", top_rows_str(&v->base[0], r->name));
    v->drilled = 1;
    v->cursor_set = 0;
    v->cursor = v->scroll = 0;
    if (v->sort == TOP_COL_INSTANCES) {
        v->sort = TOP_COL_TOTAL;
    }
    return v->frozen ? TOP_REDRAW_ROWS : TOP_REDRAW_DATA;
}

/* Esc, Backspace: out of the instance list of a name, else clear the filter. */
static unsigned key_back(top_view_t *v, int key)
{
    if (v->spans_open) {
        return top_spans_key(v, key); /* out of the spans of a task first */
    }
    if (v->drilled) {
        v->drilled = 0;
        /* back on the name row we came from */
        v->cursor_set = 1;
        v->cursor_by_inst = 0;
        v->cursor_key = 0;
        const top_rows_t *rs = &v->base[0];
        for (size_t i = 0; i < rs->n; i++) {
            if (!rs->rows[i].by_inst && strcmp(top_rows_str(rs, rs->rows[i].name), v->drill) == 0) {
                v->cursor_key = rs->rows[i].key;
            }
        }
        return TOP_REDRAW_ROWS;
    }
    if (v->filter[0]) {
        v->filter[0] = '\0';
        return TOP_REDRAW_ROWS;
    }
    return TOP_REDRAW_NONE;
}

static unsigned key_freeze(top_view_t *v, int key)
{
    (void)key;
    v->frozen = !v->frozen;
    v->text_frozen = v->text_total;
    /* frozen: take both groupings now, so that g and Enter work on the frozen data */
    return TOP_REDRAW_DATA;
}

static unsigned key_space(top_view_t *v, int key)
{
    if (v->status != NULL && v->status->replay) {
        v->action = TOP_REPLAY_PAUSE_TOGGLE;
        return TOP_REDRAW_SCREEN;
    }
    return key_freeze(v, key);
}

static unsigned key_reset(top_view_t *v, int key)
{
    (void)key;
    if (v->p == NULL) {
        return TOP_REDRAW_NONE;
    }
    /* the statistics' device time starts again; the timeline's line goes on */
    v->tl_reset_us += pipeline_stats(v->p)->elapsed_us;
    pipeline_reset_stats(v->p);
    top_history_clear(&v->hist); /* the rows taken next start it again */
    /* a reset is new data even when frozen: the user asked to see it */
    return TOP_REDRAW_DATA;
}

static unsigned key_window(top_view_t *v, int key)
{
    (void)key;
    v->window = !v->window;
    return TOP_REDRAW_ROWS;
}

/* f, F2: the next set of columns (main, the slices' percentiles, lateness; memory from a device
 * that reports it; --compare: the changes). */
static unsigned key_columns(top_view_t *v, int key)
{
    (void)key;
    int mem = v->head.device.mem != 0;
    v->colset = v->colset == TOP_SET_MAIN || v->colset == TOP_SET_MAIN_LATE ? TOP_SET_SLICES
                : v->colset == TOP_SET_SLICES                               ? TOP_SET_LATENESS
                : v->colset == TOP_SET_LATENESS && mem                      ? TOP_SET_MEMORY
                : (v->colset == TOP_SET_LATENESS || v->colset == TOP_SET_MEMORY) && v->opt.cmp_base != NULL
                    ? TOP_SET_DELTA
                    : TOP_SET_MAIN;
    if (v->colset == TOP_SET_DELTA) {
        v->pending |= 2; /* the session's side, taken with the rows */
    }
    return TOP_REDRAW_LAYOUT | TOP_REDRAW_ROWS;
}

/* T: the timeline over the rows' area, or the table again. */
static unsigned key_timeline(top_view_t *v, int key)
{
    (void)key;
    v->timeline = !v->timeline;
    return TOP_REDRAW_SCREEN;
}

/* z, Z: the timeline's span shorter (zoom in) or longer (zoom out). */
static unsigned key_zoom(top_view_t *v, int key)
{
    if (!v->timeline) {
        return TOP_REDRAW_NONE;
    }
    v->tl_span_us = top_timeline_zoom(v->tl_span_us, key == 'Z' ? 1 : -1);
    return TOP_REDRAW_SCREEN;
}

static unsigned key_invert(top_view_t *v, int key)
{
    (void)key;
    v->invert = !v->invert;
    return TOP_REDRAW_ROWS;
}

/* The columns the current grouping can sort by, in display order. */
static size_t keys_sortable(const top_view_t *v, top_col_t out[TOP_COL_COUNT_ALL])
{
    int w;
    return top_format_columns_set(top_table_colset(v), top_table_grouping(v), 100000, out, &w);
}

static unsigned key_sort_column(top_view_t *v, int key)
{
    top_col_t cols[TOP_COL_COUNT_ALL];
    size_t n = keys_sortable(v, cols);
    for (size_t i = 0; i < n; i++) {
        if (top_format_col(cols[i])->sort_key == key) {
            if (v->sort == cols[i]) {
                v->invert = !v->invert; /* the same key again flips the order, as in htop */
            } else {
                v->sort = cols[i];
                v->invert = 0;
            }
            return TOP_REDRAW_ROWS;
        }
    }
    return TOP_REDRAW_NONE;
}

static unsigned key_sort_step(top_view_t *v, int key)
{
    top_col_t cols[TOP_COL_COUNT_ALL];
    size_t n = keys_sortable(v, cols);
    size_t at = 0;
    for (size_t i = 0; i < n; i++) {
        if (cols[i] == v->sort || (v->sort == TOP_COL_SHARE && cols[i] == TOP_COL_TOTAL)) {
            at = i;
        }
    }
    int left = key == '<' || key == ',';
    at = left ? (at + n - 1) % n : (at + 1) % n;
    v->sort = cols[at];
    v->invert = 0;
    return TOP_REDRAW_ROWS;
}

static unsigned key_speed(top_view_t *v, int key)
{
    if (v->status == NULL || !v->status->replay) {
        return TOP_REDRAW_NONE;
    }
    v->action = key == '+' || key == '=' ? TOP_REPLAY_FASTER : TOP_REPLAY_SLOWER;
    return TOP_REDRAW_SCREEN;
}

/* The pane's scrollback: back towards the oldest line kept, forward to following the newest. */
static unsigned pane_scroll(top_view_t *v, int key)
{
    uint64_t shown = top_pane_shown(v), end = top_pane_end(v);
    uint64_t lines = v->lay.pane_h > 1 ? (uint64_t)v->lay.pane_h - 1 : 1;
    uint64_t oldest = v->text_total > TOP_TEXT_LINES ? v->text_total - TOP_TEXT_LINES : 0;
    uint64_t first_end = oldest + lines < shown ? oldest + lines : shown; /* the oldest at the top */
    uint64_t step = key == KEY_PPAGE || key == KEY_NPAGE ? lines : 1;
    switch (key) {
    case KEY_UP:
    case KEY_PPAGE: end = end > first_end + step ? end - step : first_end; break;
    case KEY_DOWN:
    case KEY_NPAGE: end += step; break;
    case KEY_HOME: end = first_end; break;
    case KEY_END: end = shown; break;
    default: return TOP_REDRAW_NONE;
    }
    v->pane_end = end >= shown ? 0 : end; /* at the newest: follow it again */
    return TOP_REDRAW_SCREEN;
}

static unsigned key_scroll(top_view_t *v, int key)
{
    if (v->pane_focus) {
        return pane_scroll(v, key);
    }
    long page = v->lay.rows_h > 0 ? v->lay.rows_h : 1;
    switch (key) {
    case KEY_UP: top_table_move(v, -1); break;
    case KEY_DOWN: top_table_move(v, 1); break;
    case KEY_PPAGE: top_table_move(v, -page); break;
    case KEY_NPAGE: top_table_move(v, page); break;
    case KEY_HOME: top_table_move(v, -(long)v->n_vis); break;
    case KEY_END: top_table_move(v, (long)v->n_vis); break;
    default: return TOP_REDRAW_NONE;
    }
    return TOP_REDRAW_SCREEN;
}

/* A replay's position: left and right by 10 s, Home and End to its start and end. Home and End
 * move the cursor in a live session. */
static unsigned key_seek(top_view_t *v, int key)
{
    if (v->pane_focus && (key == KEY_HOME || key == KEY_END)) {
        return pane_scroll(v, key);
    }
    if (v->status == NULL || !v->status->replay) {
        return key == KEY_HOME || key == KEY_END ? key_scroll(v, key) : TOP_REDRAW_NONE;
    }
    switch (key) {
    case KEY_LEFT: v->action = TOP_REPLAY_BACK; break;
    case KEY_RIGHT: v->action = TOP_REPLAY_FORWARD; break;
    case KEY_HOME: v->action = TOP_REPLAY_START; break;
    default: v->action = TOP_REPLAY_END; break;
    }
    return TOP_REDRAW_SCREEN;
}

/* Tab: the scroll keys go to the device text pane (shown if it was hidden), or back to the table. */
static unsigned key_focus(top_view_t *v, int key)
{
    (void)key;
    v->pane_focus = !v->pane_focus;
    if (v->pane_focus && v->pane_mode == TOP_PANE_HIDDEN) {
        v->pane_mode = TOP_PANE_NORMAL;
    }
    return TOP_REDRAW_LAYOUT;
}

/* o: the pane enlarged, hidden, back to its size. */
static unsigned key_pane(top_view_t *v, int key)
{
    (void)key;
    v->pane_mode = (v->pane_mode + 1) % 3;
    if (v->pane_mode == TOP_PANE_HIDDEN) {
        v->pane_focus = 0;
    }
    return TOP_REDRAW_LAYOUT;
}

/* --run: k sends the program Ctrl-C, Ctrl-D soft-resets the board (main acts on them). */
static unsigned key_device(top_view_t *v, int key)
{
    v->action = key == 'k' ? TOP_DEVICE_INTERRUPT : TOP_DEVICE_RESET;
    return TOP_REDRAW_SCREEN;
}

static unsigned key_repaint(top_view_t *v, int key)
{
    (void)key;
    v->message[0] = '\0';
    clearok(curscr, TRUE); /* Ctrl-L: the screen was scribbled on from outside */
    return TOP_REDRAW_SCREEN;
}

#define CTRL(c) ((c)&0x1f)

static const struct {
    int key;
    key_action_t action;
} key_table[] = {
    {'q', key_quit}, {KEY_F(10), key_quit}, {CTRL('c'), key_quit},
    {'?', key_help}, {'h', key_help}, {KEY_F(1), key_help},
    {'/', key_filter}, {KEY_F(3), key_filter}, {KEY_F(4), key_filter},
    {'g', key_group}, {KEY_F(5), key_group},
    {'\n', key_enter}, {'\r', key_enter}, {KEY_ENTER, key_enter},
    {27, key_back}, {KEY_BACKSPACE, key_back}, {127, key_back}, {CTRL('h'), key_back},
    {'p', key_freeze}, {' ', key_space},
    {'r', key_reset},
    {'w', key_window},
    {'I', key_invert},
    {'<', key_sort_step}, {'>', key_sort_step}, {',', key_sort_step}, {'.', key_sort_step}, {KEY_F(6), key_sort_step},
    {'n', key_sort_column}, {'i', key_sort_column}, {'c', key_sort_column}, {'t', key_sort_column},
    {'%', key_sort_column}, {'m', key_sort_column}, {'a', key_sort_column}, {'s', key_sort_column},
    {'e', key_sort_column}, {'x', key_sort_column}, {'b', key_sort_column}, {'l', key_sort_column},
    {'+', key_speed}, {'=', key_speed}, {'-', key_speed}, {'_', key_speed},
    {KEY_UP, key_scroll}, {KEY_DOWN, key_scroll}, {KEY_PPAGE, key_scroll}, {KEY_NPAGE, key_scroll},
    {KEY_HOME, key_seek}, {KEY_END, key_seek}, {KEY_LEFT, key_seek}, {KEY_RIGHT, key_seek},
    {'\t', key_focus}, {'o', key_pane},
    {'T', key_timeline}, {'f', key_columns}, {KEY_F(2), key_columns}, {'z', key_zoom}, {'Z', key_zoom},
    {CTRL('l'), key_repaint},
    {'k', key_device}, {CTRL('d'), key_device},
    {'H', top_hogs_key_list},
    {'S', top_spans_key},
};

static const top_key_help_t key_help_text[] = {
    {"q  F10  Ctrl-C", "quit"},
    {"?  h  F1", "this help (the scroll keys scroll it, any other key closes it)"},
    {"/  F3", "filter by name, as you type (Enter keeps it, Esc clears it)"},
    {"g  F5", "group by task name or by task instance"},
    {"Enter", "the instances of the name under the cursor"},
    {"S", "the spans of the task under the cursor (S, Esc or Backspace: back)"},
    {"Esc  Backspace", "back from the instances; clear the filter"},
    {"p  space", "freeze the view (the link is still read and recorded)"},
    {"space  + -", "replay: pause, faster, slower"},
    {"left right  Home End", "replay: 10 s back or forward, to the start or the end (the figures are those up to there)"},
    {"r", "reset the statistics (a recording is not affected)"},
    {"w", "cumulative since the start, or the last second only"},
    {"< >  F6", "sort by the column to the left or right"},
    {"n i c t % m a s e", "sort by name, instances, count, total, share, max, mean, slow, errors"},
    {"x b", "sort instances by end state, by creator"},
    {"l", "sort by late max (when it is shown)"},
    {"f  F2", "the columns: the main ones, the slices' percentiles, lateness in full (--compare: the changes)"},
    {"I", "invert the sort order (the same sort key twice does too)"},
    {"up down PgUp PgDn Home End", "move the cursor (Home and End seek in a replay); scroll the device output when it has the focus"},
    {"Tab", "the scroll keys to the device output pane (its scrollback: the last 1000 lines) and back"},
    {"o", "the device output pane: larger, hidden, back to its size"},
    {"T", "the timeline instead of the rows: a lane per row shown, time running left to right to now"},
    {"z  Z", "timeline: zoom in (a shorter span) or out (a longer one), 0.1 s to 60 s"},
    {"Ctrl-L", "repaint the screen"},
    {"k  Ctrl-D", "--run: Ctrl-C to the program; a soft reset (the board runs main.py)"},
    {"H", "--capture-hogs: the hogs captured, newest first; Enter opens one's timeline, Esc or q comes back"},
};

const top_key_help_t *top_keys_help(size_t *n)
{
    *n = sizeof key_help_text / sizeof key_help_text[0];
    return key_help_text;
}

/* While the filter is edited, keys are text; Enter, Esc and the arrows still act. */
static unsigned keys_filter_edit(top_view_t *v, int key)
{
    size_t len = strlen(v->filter);
    if (key == '\n' || key == '\r' || key == KEY_ENTER) {
        v->filter_edit = 0;
        return TOP_REDRAW_SCREEN;
    }
    if (key == 27) {
        v->filter_edit = 0;
        v->filter[0] = '\0';
        return TOP_REDRAW_ROWS;
    }
    if (key == KEY_BACKSPACE || key == 127 || key == CTRL('h')) {
        /* a whole UTF-8 character: drop continuation bytes, then the lead byte */
        while (len > 0 && ((unsigned char)v->filter[len - 1] & 0xC0) == 0x80) {
            len--;
        }
        if (len > 0) {
            len--;
        }
        v->filter[len] = '\0';
        return TOP_REDRAW_ROWS;
    }
    if (key >= 32 && key <= 255 && key != 127 && len + 1 < sizeof v->filter) {
        v->filter[len] = (char)key;
        v->filter[len + 1] = '\0';
        return TOP_REDRAW_ROWS;
    }
    return key_scroll(v, key);
}

/* While the help is shown: the scroll keys scroll it (the drawing keeps it within the help), any
 * other key closes it (q still quits). */
static unsigned keys_help(top_view_t *v, int key)
{
    int page = v->lay.footer_y - v->lay.head_lines - 2;
    page = page > 1 ? page : 1;
    switch (key) {
    case KEY_UP: v->help_scroll = v->help_scroll > 0 ? v->help_scroll - 1 : 0; break;
    case KEY_DOWN: v->help_scroll++; break;
    case KEY_PPAGE: v->help_scroll = v->help_scroll > page ? v->help_scroll - page : 0; break;
    case KEY_NPAGE: v->help_scroll += page; break;
    case KEY_HOME: v->help_scroll = 0; break;
    case KEY_END: v->help_scroll = 1 << 20; break;
    default:
        v->help = 0;
        return key == 'q' ? key_quit(v, key) | TOP_REDRAW_SCREEN : TOP_REDRAW_SCREEN;
    }
    return TOP_REDRAW_SCREEN;
}

unsigned top_keys_apply(top_view_t *v, int key)
{
    if (v->help) {
        return keys_help(v, key);
    }
    if (v->filter_edit) {
        return keys_filter_edit(v, key);
    }
    if ((v->hogs_list || v->capture_shown) && key != '?' && key != KEY_F(1) && key != CTRL('l')) {
        return top_hogs_keys(v, key);
    }
    for (size_t i = 0; i < sizeof key_table / sizeof key_table[0]; i++) {
        if (key_table[i].key == key) {
            return key_table[i].action(v, key);
        }
    }
    return TOP_REDRAW_NONE;
}
