/* The golden vectors (tests/golden/vectors.txt): each runs a script of hook calls and states the
 * exact bytes the device sends and what they mean. This test checks both directions: the device
 * library makes exactly those bytes, and the reader decodes them to exactly that meaning.
 *
 * AIOPROF_GOLDEN_WRITE=FILE writes the vectors as the code now makes them, for a deliberate
 * protocol change; the diff is then read by a person against docs/protocol.md. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "aioprof_records.h"
#include "fake_device.h"

#define MAX_TASKS 64
#define TEXT_MAX 65536

typedef struct vector {
    char name[64];
    char script[8192];
    char bytes_hex[TEXT_MAX];
    char decoded[TEXT_MAX];
    char comment[2048];
} vector_t;

typedef struct text {
    char *s;
    size_t len, cap;
} text_t;

static void text_add(text_t *t, const char *fmt, ...)
{
    va_list ap;
    char line[1024];
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (t->len + (size_t)n + 1 > t->cap) {
        t->cap = (t->len + (size_t)n + 1) * 2;
        t->s = realloc(t->s, t->cap);
    }
    memcpy(t->s + t->len, line, (size_t)n + 1);
    t->len += (size_t)n;
}

static void quote(char *out, size_t cap, const uint8_t *s, size_t len)
{
    size_t o = 0;
    out[o++] = '"';
    for (size_t i = 0; i < len && o + 6 < cap; i++) {
        if (s[i] >= 0x20 && s[i] < 0x7F && s[i] != '"' && s[i] != '\\') {
            out[o++] = (char)s[i];
        } else {
            o += (size_t)snprintf(out + o, cap - o, "\\x%02X", s[i]);
        }
    }
    out[o++] = '"';
    out[o] = '\0';
}

static const char *exit_names[] = {"yield", "return", "raise", "cancel"};

/* The canonical meaning of a byte stream: one line per frame, record and text piece. */
typedef struct describer {
    aioprof_reader_t reader;
    text_t out;
} describer_t;

static void describe_frame(void *user, const aioprof_frame_info_t *f)
{
    describer_t *d = user;
    text_add(&d->out, "frame seq=%u bits=%u base=%u running=%u lost=%u\n", f->seq, f->tick_bits, f->base, f->running,
        f->lost_before);
}

static void describe_record(void *user, const aioprof_record_t *r)
{
    describer_t *d = user;
    char a[256], b[256];
    switch (r->kind) {
    case AIOPROF_REC_ENTER:
        text_add(&d->out, "  enter id=%u at=+%llu\n", r->id, (unsigned long long)r->offset);
        break;
    case AIOPROF_REC_EXIT:
        text_add(&d->out, "  exit %s at=+%llu\n", exit_names[r->exit_kind & 3], (unsigned long long)r->offset);
        break;
    case AIOPROF_REC_HELLO:
        quote(a, sizeof a, r->hello.platform, r->hello.platform_len);
        /* mem: a field that older vectors' HELLOs do not have, so their text stays as it was */
        b[0] = '\0';
        if (r->hello.mem) {
            snprintf(b, sizeof b, " mem=%u", r->hello.mem);
        }
        text_add(&d->out,
            "  hello version=%u tick_hz=%u tick_bits=%u ring=%u flags=%u boot=%u drain_ticks=%u dropped_total=%u "
            "platform=%s period_ticks=%u event_cost=%u late_unit=%u%s\n",
            r->hello.version, r->hello.tick_hz, r->hello.tick_bits, r->hello.ring_bytes, r->hello.flags,
            r->hello.boot_ticks, r->hello.drain_ticks, r->hello.dropped_total, a, r->hello.period_ticks,
            r->hello.event_cost, r->hello.late_unit, b);
        break;
    case AIOPROF_REC_ALLOC:
        text_add(&d->out, "  alloc amount=%u\n", r->count);
        break;
    case AIOPROF_REC_GC:
        text_add(&d->out, "  gc at=+%llu duration=%u\n", (unsigned long long)r->offset, r->duration);
        break;
    case AIOPROF_REC_LATE: {
        /* the values as they come (the frame's last ENTER first) */
        text_add(&d->out, "  late count=%u last_first=", r->count);
        size_t at = 0;
        for (uint32_t i = 0; i < r->count; i++) {
            uint32_t v = 0;
            at += aioprof_varint_get(r->late + at, r->late_len - at, &v);
            text_add(&d->out, "%s%u", i ? "," : "", v);
        }
        text_add(&d->out, "\n");
        break;
    }
    case AIOPROF_REC_TASK_NEW:
    case AIOPROF_REC_TASK_INFO:
        quote(a, sizeof a, r->name, r->name_len);
        quote(b, sizeof b, r->label, r->label_len);
        text_add(&d->out, "  %s id=%u parent=%u name=%s label=%s\n",
            r->kind == AIOPROF_REC_TASK_NEW ? "task_new" : "task_info", r->id, r->parent, a, b);
        break;
    case AIOPROF_REC_DROPPED:
        text_add(&d->out, "  dropped count=%u\n", r->count);
        break;
    case AIOPROF_REC_SPAN_NAME:
        quote(a, sizeof a, r->name, r->name_len);
        text_add(&d->out, "  span_name id=%u name=%s\n", r->id, a);
        break;
    case AIOPROF_REC_SPAN_ENTER:
        text_add(&d->out, "  span_enter id=%u at=+%llu\n", r->id, (unsigned long long)r->offset);
        break;
    case AIOPROF_REC_SPAN_EXIT:
        text_add(&d->out, "  span_exit at=+%llu\n", (unsigned long long)r->offset);
        break;
    }
}

static void describe_text(void *user, const uint8_t *data, size_t len)
{
    describer_t *d = user;
    char q[1024];
    quote(q, sizeof q, data, len);
    text_add(&d->out, "text %s\n", q);
}

/* The same meaning read as the host's replay reads it: a frame's records as bytes, events through
 * aioprof_records.h in the sink's own loop, control records through aioprof_reader_control. */
static long describe_frame_records(void *user, aioprof_reader_t *r, const aioprof_frame_info_t *f, const uint8_t *p,
    const uint8_t *end)
{
    long n = 0;
    uint64_t offset = 0;
    describe_frame(user, f);
    /* a span list's events, each before the record at its place */
    static aioprof_span_event_t spans[AIOPROF_SPAN_EVENTS_MAX];
    const uint8_t *first = p;
    long list;
    long n_spans = aioprof_frame_span_events(p, end, spans, &list), next = 0;
    while (p < end) {
        aioprof_record_t rec = {0};
        for (; next < n_spans && spans[next].at == (uint32_t)(p - first); next++, n++) {
            aioprof_record_t sp = {0};
            sp.kind = spans[next].id ? AIOPROF_REC_SPAN_ENTER : AIOPROF_REC_SPAN_EXIT;
            sp.id = spans[next].id;
            sp.offset = offset + spans[next].dt;
            describe_record(user, &sp);
        }
        if (n_spans < 0 && p - first == list) {
            return -1 - n;
        }
        unsigned tag = *p++;
        if (AIOPROF_TAG_IS_CONTROL(tag)) {
            int rc = aioprof_reader_control(r, &p, end, tag & 0x0Fu, &rec);
            if (rc < 0) {
                return -1 - n;
            }
            if (rc > 0) {
                continue;
            }
            rec.offset = offset + rec.span_dt; /* spans: after the frame's last event */
        } else {
            p = aioprof_rec_event(p, end, tag, &rec.dt, &rec.id);
            if (p == NULL) {
                return -1 - n;
            }
            offset += rec.dt;
            rec.offset = offset;
            rec.kind = AIOPROF_TAG_IS_ENTER(tag) ? AIOPROF_REC_ENTER : AIOPROF_REC_EXIT;
            rec.exit_kind = AIOPROF_TAG_IS_ENTER(tag) ? 0u : (unsigned)AIOPROF_TAG_EXIT_KIND(tag);
        }
        describe_record(user, &rec);
        n++;
    }
    return n;
}

/* The meaning of a byte stream, read record by record (aioprof_reader_sink_t.record) and read as
 * the replay does (.frame_records): the two must agree. */
static char *describe_with(const uint8_t *data, size_t len, int by_frame);

static char *describe(const uint8_t *data, size_t len)
{
    char *each = describe_with(data, len, 0), *fused = describe_with(data, len, 1);
    assert_string_equal(fused, each);
    free(fused);
    return each;
}

static char *describe_with(const uint8_t *data, size_t len, int by_frame)
{
    static const aioprof_reader_sink_t sink = {.frame = describe_frame, .record = describe_record, .text = describe_text};
    static const aioprof_reader_sink_t fused = {.frame_records = describe_frame_records, .text = describe_text};
    describer_t *d = calloc(1, sizeof *d);
    aioprof_reader_init(&d->reader, by_frame ? &fused : &sink, d);
    aioprof_reader_feed(&d->reader, data, len);
    aioprof_reader_finish(&d->reader);
    const aioprof_reader_stats_t *s = &d->reader.stats;
    text_add(&d->out, "counts frames=%llu crc_errors=%llu lost=%llu malformed=%llu text_bytes=%llu\n",
        (unsigned long long)s->frames, (unsigned long long)s->crc_errors, (unsigned long long)s->lost_frames,
        (unsigned long long)s->malformed, (unsigned long long)s->text_bytes);
    char *out = d->out.s;
    free(d);
    return out;
}

/* Runs a script; returns the device's bytes in *out. Fails the test on a script error. */
static size_t run_script(const char *script, uint8_t **out)
{
    fake_device_t *d = NULL;
    static aioprof_task_t tasks[MAX_TASKS + 1];
    static char names[MAX_TASKS + 1][64];
    static char labels[MAX_TASKS + 1][64];
    char line[256];
    const char *p = script;
    static aioprof_span_t spans[MAX_TASKS + 1];
    static char span_names[MAX_TASKS + 1][64];
    memset(tasks, 0, sizeof tasks);
    memset(spans, 0, sizeof spans);
    while (*p) {
        size_t n = strcspn(p, "\n");
        memcpy(line, p, n < sizeof line - 1 ? n : sizeof line - 1);
        line[n < sizeof line - 1 ? n : sizeof line - 1] = '\0';
        p += n + (p[n] == '\n');
        char word[32] = "", arg[128] = "";
        unsigned long long v1 = 0, v2 = 0, v3 = 0;
        unsigned k = 0;
        if (sscanf(line, " %31s", word) != 1 || word[0] == '#') {
            continue;
        }
        if (strcmp(word, "init") == 0) {
            /* init bits=B start=S ring=R [late_unit=U] */
            unsigned long long unit = 0;
            assert_true(sscanf(line, " init bits=%llu start=%llu ring=%llu late_unit=%llu", &v1, &v2, &v3, &unit) >= 3);
            /* [mem=M]: the port reports allocations and collections (AIOPROF_ALLOC) */
            unsigned long long mem = 0;
            const char *m = strstr(line, "mem=");
            if (m) {
                assert_int_equal(sscanf(m, "mem=%llu", &mem), 1);
            }
            d = fake_new_mem((unsigned)v1, v2, (uint32_t)v3, (uint32_t)unit, (uint32_t)mem);
            assert_non_null(d);
        } else if (strcmp(word, "at") == 0) {
            assert_int_equal(sscanf(line, " at %llu", &v1), 1);
            d->clock = v1;
        } else if (strcmp(word, "wait") == 0) {
            assert_int_equal(sscanf(line, " wait %llu", &v1), 1);
            d->clock += v1;
        } else if (strcmp(word, "create") == 0) {
            assert_int_equal(sscanf(line, " create %u %63s", &k, arg), 2);
            assert_true(k >= 1 && k <= MAX_TASKS);
            strcpy(names[k], arg);
            aioprof_task_created(&d->prof, &tasks[k], names[k], strlen(names[k]));
        } else if (strcmp(word, "label") == 0) {
            assert_int_equal(sscanf(line, " label %u %63[^\n]", &k, arg), 2);
            strcpy(labels[k], arg);
            aioprof_task_label(&d->prof, &tasks[k], labels[k], strlen(labels[k]));
        } else if (strcmp(word, "enter") == 0) {
            /* enter K [late=L]: aioprof_enter, or aioprof_enter_late with L */
            if (sscanf(line, " enter %u late=%llu", &k, &v1) == 2) {
                aioprof_enter_late(&d->prof, &tasks[k], (uint32_t)v1);
            } else {
                assert_int_equal(sscanf(line, " enter %u", &k), 1);
                aioprof_enter(&d->prof, &tasks[k]);
            }
        } else if (strcmp(word, "exit") == 0) {
            assert_int_equal(sscanf(line, " exit %u %31s", &k, arg), 2);
            unsigned kind = 4;
            for (unsigned i = 0; i < 4; i++) {
                if (strcmp(arg, exit_names[i]) == 0) {
                    kind = i;
                }
            }
            assert_true(kind < 4);
            aioprof_exit(&d->prof, &tasks[k], kind);
        } else if (strcmp(word, "span") == 0) {
            /* span K NAME: aioprof_span_enter with span K (its name given the first time) */
            assert_int_equal(sscanf(line, " span %u %63s", &k, arg), 2);
            assert_true(k >= 1 && k <= MAX_TASKS);
            if (spans[k].name == NULL) {
                strcpy(span_names[k], arg);
                spans[k].name = span_names[k];
                spans[k].name_len = (uint8_t)strlen(arg);
            }
            aioprof_span_enter(&d->prof, &spans[k]);
        } else if (strcmp(word, "span_exit") == 0) {
            aioprof_span_exit(&d->prof);
        } else if (strcmp(word, "alloc") == 0) {
            /* alloc N: the program allocates N units (the port's counter grows) */
            assert_int_equal(sscanf(line, " alloc %llu", &v1), 1);
            d->allocated += (uint32_t)v1;
        } else if (strcmp(word, "gc") == 0) {
            /* gc D: a collection of D ticks ends now (the clock moves D first) */
            assert_int_equal(sscanf(line, " gc %llu", &v1), 1);
            d->clock += v1;
            aioprof_gc(&d->prof, (uint32_t)v1);
        } else if (strcmp(word, "drain") == 0) {
            aioprof_drain(&d->prof);
        } else if (strcmp(word, "flush") == 0) {
            aioprof_flush(&d->prof);
        } else if (strcmp(word, "close") == 0) {
            aioprof_close(&d->prof);
        } else if (strcmp(word, "reopen") == 0) {
            aioprof_reopen(&d->prof);
        } else if (strcmp(word, "writetime") == 0) {
            /* writetime N: the clock moves N ticks (negative: back) during each write call */
            long long signed_ticks = 0;
            assert_int_equal(sscanf(line, " writetime %lld", &signed_ticks), 1);
            d->write_ticks = (uint32_t)signed_ticks;
        } else if (strcmp(word, "cost") == 0) {
            /* cost N: what an event costs the device, sent in the HELLOs from now on */
            assert_int_equal(sscanf(line, " cost %llu", &v1), 1);
            d->port.event_cost = (uint32_t)v1;
        } else if (strcmp(word, "refuse") == 0) {
            d->refuse = strstr(line, "on") != NULL;
        } else if (strcmp(word, "limit") == 0) {
            /* limit N: the port takes at most N bytes per write call (0: all) */
            assert_int_equal(sscanf(line, " limit %llu", &v1), 1);
            d->write_limit = (size_t)v1;
        } else if (strcmp(word, "print") == 0) {
            /* device text between drains, as MicroPython's print() would put it on the port */
            const char *text = line + strspn(line, " ") + strlen("print ");
            fake_append(d, (const uint8_t *)text, strlen(text));
            fake_append(d, (const uint8_t *)"\r\n", 2);
        } else if (strcmp(word, "periods") == 0) {
            /* periods N: N periods go by, each ended by a drain (a heartbeat each) */
            assert_int_equal(sscanf(line, " periods %llu", &v1), 1);
            for (unsigned long long i = 0; i < v1; i++) {
                d->clock += 1000000u;
                aioprof_drain(&d->prof);
            }
        } else if (strcmp(word, "repeatlate") == 0) {
            /* repeatlate N L: as repeat, each enter L units late */
            assert_int_equal(sscanf(line, " repeatlate %llu %llu", &v1, &v2), 2);
            for (unsigned long long i = 0; i < v1; i++) {
                aioprof_enter_late(&d->prof, &tasks[1], (uint32_t)v2);
                d->clock += 100;
                aioprof_exit(&d->prof, &tasks[1], AIOPROF_EXIT_YIELD);
                d->clock += 10;
            }
        } else if (strcmp(word, "repeat") == 0) {
            /* repeat N: enter/exit task 1 N times, 100 ticks in, 10 out */
            assert_int_equal(sscanf(line, " repeat %llu", &v1), 1);
            for (unsigned long long i = 0; i < v1; i++) {
                aioprof_enter(&d->prof, &tasks[1]);
                d->clock += 100;
                aioprof_exit(&d->prof, &tasks[1], AIOPROF_EXIT_YIELD);
                d->clock += 10;
            }
        } else {
            fail_msg("unknown script word: %s", word);
        }
    }
    assert_non_null(d);
    fake_flush_all(d);
    size_t len = d->out_len;
    *out = malloc(len + 1);
    memcpy(*out, d->out, len);
    fake_free(d);
    return len;
}

static char *hex_of(const uint8_t *data, size_t len)
{
    text_t t = {0};
    text_add(&t, "%s", "");
    for (size_t i = 0; i < len; i++) {
        text_add(&t, "%02x%s", data[i], (i % 16 == 15 || i == len - 1) ? "\n" : " ");
    }
    return t.s;
}

static size_t parse_hex(const char *hex, uint8_t *out, size_t cap)
{
    size_t n = 0;
    unsigned v;
    int used;
    while (sscanf(hex, " %2x%n", &v, &used) == 1 && n < cap) {
        out[n++] = (uint8_t)v;
        hex += used;
    }
    return n;
}

/* Splits the vectors file into vectors: "== name", free comment lines, "script:", "bytes:",
 * "decoded:" sections. */
static size_t load_vectors(const char *path, vector_t *v, size_t max)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char line[1024];
    size_t n = 0;
    char *section = NULL;
    size_t cap = 0;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "== ", 3) == 0) {
            assert_true(n < max);
            memset(&v[n], 0, sizeof v[n]);
            sscanf(line + 3, "%63s", v[n].name);
            section = v[n].comment;
            cap = sizeof v[n].comment;
            n++;
        } else if (n && strcmp(line, "script:\n") == 0) {
            section = v[n - 1].script;
            cap = sizeof v[n - 1].script;
        } else if (n && strcmp(line, "bytes:\n") == 0) {
            section = v[n - 1].bytes_hex;
            cap = sizeof v[n - 1].bytes_hex;
        } else if (n && strcmp(line, "decoded:\n") == 0) {
            section = v[n - 1].decoded;
            cap = sizeof v[n - 1].decoded;
        } else if (section) {
            assert_true(strlen(section) + strlen(line) < cap);
            strcat(section, line);
        }
    }
    fclose(f);
    return n;
}

static void golden_vectors(void **state)
{
    (void)state;
    static vector_t vectors[32];
    size_t n = load_vectors(AIOPROF_GOLDEN_DIR "/vectors.txt", vectors, 32);
    assert_true(n >= 8);
    const char *write_path = getenv("AIOPROF_GOLDEN_WRITE");
    FILE *w = write_path ? fopen(write_path, "w") : NULL;
    for (size_t i = 0; i < n; i++) {
        vector_t *v = &vectors[i];
        if (v->script[0] == '\0' || strstr(v->script, "engine python\n") != NULL) {
            /* no script: bytes no device of today makes (an older device's), decoded only; or
             * the python engine's bytes for its script (tests/micropython/golden_fallback.py
             * makes them), which this library writes otherwise */
            static uint8_t old[TEXT_MAX];
            size_t old_len = parse_hex(v->bytes_hex, old, sizeof old);
            char *meaning = describe(old, old_len);
            if (w) {
                fprintf(w, "== %s\n%sbytes:\n%sdecoded:\n%s\n", v->name, v->comment, v->bytes_hex, meaning);
            } else {
                size_t len = strlen(meaning);
                while (len && v->decoded[strlen(v->decoded) - 1] == '\n' && strlen(v->decoded) > len) {
                    v->decoded[strlen(v->decoded) - 1] = '\0';
                }
                if (strcmp(meaning, v->decoded) != 0) {
                    fail_msg("vector %s: the reader decodes:\n%s\nthe file says:\n%s", v->name, meaning, v->decoded);
                }
            }
            free(meaning);
            continue;
        }
#if !AIOPROF_LATE
        /* a hook built without lateness sends what a port without it does: not these bytes */
        if (strstr(v->script, "late_unit=") != NULL) {
            continue;
        }
#endif
        uint8_t *made;
        size_t made_len = run_script(v->script, &made);
        char *made_hex = hex_of(made, made_len);
        char *made_meaning = describe(made, made_len);
        if (w) {
            fprintf(w, "== %s\n%sscript:\n%sbytes:\n%sdecoded:\n%s\n", v->name, v->comment, v->script, made_hex,
                made_meaning);
        } else {
            /* the device makes exactly the stated bytes */
            static uint8_t want[TEXT_MAX];
            size_t want_len = parse_hex(v->bytes_hex, want, sizeof want);
            if (want_len != made_len || memcmp(want, made, made_len) != 0) {
                fail_msg("vector %s: the device library made other bytes:\n%s", v->name, made_hex);
            }
            /* and the stated bytes mean exactly the stated records */
            char *meaning = describe(want, want_len);
            size_t len = strlen(meaning);
            while (len && v->decoded[strlen(v->decoded) - 1] == '\n' && strlen(v->decoded) > len) {
                v->decoded[strlen(v->decoded) - 1] = '\0';
            }
            if (strcmp(meaning, v->decoded) != 0) {
                fail_msg("vector %s: the reader decodes:\n%s\nthe file says:\n%s", v->name, meaning, v->decoded);
            }
            free(meaning);
        }
        free(made_hex);
        free(made_meaning);
        free(made);
    }
    if (w) {
        fclose(w);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(golden_vectors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
