/* --install's writes (board_install_stages.h): each file the board lacks sent to a temporary name
 * in pieces (a bytes literal, or base64 where that is shorter and the board decodes it), its hash
 * read back and compared, then renamed over the old one; the stale files of an earlier install
 * removed, the record written, and aioprof imported to show the engine it chose. */
#include "board_install_stages.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define INSTALL_PIECE 1024u          /* file bytes per command (its literal is up to 4 times that) */

/* A bytes literal for data: printable ASCII as it is, the rest as \xNN. */
static size_t install_literal(char *out, const uint8_t *data, size_t len)
{
    size_t n = 0;
    out[n++] = 'b';
    out[n++] = '\'';
    for (size_t i = 0; i < len; i++) {
        uint8_t c = data[i];
        if (c >= 0x20 && c < 0x7f && c != '\\' && c != '\'') {
            out[n++] = (char)c;
        } else {
            n += (size_t)sprintf(out + n, "\\x%02x", c);
        }
    }
    out[n++] = '\'';
    return n;
}

/* The length install_literal would make of data, without making it. */
static size_t install_literal_len(const uint8_t *data, size_t len)
{
    size_t n = 3;
    for (size_t i = 0; i < len; i++)
        n += data[i] >= 0x20 && data[i] < 0x7f && data[i] != '\\' && data[i] != '\'' ? 1 : 4;
    return n;
}

/* data as a base64 bytes literal (RFC 4648), which binascii.a2b_base64 decodes on the board. */
static size_t install_base64(char *out, const uint8_t *data, size_t len)
{
    static const char digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t n = 0;
    out[n++] = 'b';
    out[n++] = '\'';
    for (size_t i = 0; i < len; i += 3) {
        uint32_t v = (uint32_t)data[i] << 16 | (i + 1 < len ? (uint32_t)data[i + 1] << 8 : 0u) |
                     (i + 2 < len ? data[i + 2] : 0u);
        out[n++] = digits[v >> 18 & 63];
        out[n++] = digits[v >> 12 & 63];
        out[n++] = i + 1 < len ? digits[v >> 6 & 63] : '=';
        out[n++] = i + 2 < len ? digits[v & 63] : '=';
    }
    out[n++] = '\'';
    return n;
}

/* One file: to <name>.tmp in pieces, its hash read back, renamed over <name>. Counts the file's bytes. */
static int install_send(install_t *in, const install_file_t *f, size_t *file_bytes)
{
    char code[INSTALL_PIECE * 4 + 256], doing[160];
    const char *d = install_board_dir(in);
    size_t len = (size_t)snprintf(code, sizeof code, "_aioprof_f = open('%s/%s.tmp', 'wb')\n", d, f->name);
    snprintf(doing, sizeof doing, "writing %s/%s", d, f->name);
    if (install_exec(in, code, len, doing) < 0)
        return -1;
    for (size_t off = 0; off < f->size || f->size == 0; off += INSTALL_PIECE) {
        size_t n = f->size - off < INSTALL_PIECE ? f->size - off : INSTALL_PIECE;
        /* a piece of a binary file (an .mpy) is shorter in base64 where the board can decode it */
        if (in->info.base64 && (n + 2) / 3 * 4 + 16 < install_literal_len(f->data + off, n)) {
            len = (size_t)snprintf(code, sizeof code, "_aioprof_f.write(_aioprof_a(");
            len += install_base64(code + len, f->data + off, n);
            code[len++] = ')';
        } else {
            len = (size_t)snprintf(code, sizeof code, "_aioprof_f.write(");
            len += install_literal(code + len, f->data + off, n);
        }
        code[len++] = ')';
        code[len++] = '\n';
        if (install_exec(in, code, len, doing) < 0)
            return -1;
        *file_bytes += n;
        if (in->tty)
            fprintf(stderr, "\raioprof-top: writing %s: %zu of %zu bytes", f->name, off + n, f->size);
        if (f->size == 0)
            break;
    }
    if (in->tty)
        fputc('\n', stderr);
    else
        fprintf(stderr, "aioprof-top: writing %s: %zu bytes\n", f->name, f->size);
    len = (size_t)snprintf(code, sizeof code,
                           "_aioprof_f.close()\n"
                           "print('H', *(_aioprof_h('%s/%s.tmp') or ('none', 0)))\n", d, f->name);
    if (install_exec(in, code, len, doing) < 0)
        return -1;
    char hash[80] = "";
    long long size = -1;
    if (sscanf(in->repl.out, "H %79s %lld", hash, &size) != 2 || strcmp(hash, f->hash) != 0 || size != (long long)f->size) {
        char why[400];
        snprintf(why, sizeof why, "%s/%s arrived damaged (the board read back %lld bytes, %s %.64s, not %zu bytes, %s); "
                 "the file is left as it was: try again.", d, f->name, size, in->info.hash_kind, hash, f->size, f->hash);
        len = (size_t)snprintf(code, sizeof code, "os.remove('%s/%s.tmp')\n", d, f->name);
        (void)board_repl_exec(&in->repl, code, len, INSTALL_EXEC_MS);
        install_say_error(in, why);
        return -1;
    }
    /* FAT will not rename over a file on every firmware: the old one goes first then */
    len = (size_t)snprintf(code, sizeof code,
                           "try:\n    os.rename('%s/%s.tmp', '%s/%s')\n"
                           "except OSError:\n    os.remove('%s/%s')\n    os.rename('%s/%s.tmp', '%s/%s')\n",
                           d, f->name, d, f->name, d, f->name, d, f->name, d, f->name);
    return install_exec(in, code, len, doing);
}
/* Removes what an older record lists and this install does not bring (another engine's module). */
static int install_drop_stale(install_t *in, const install_file_t *files, int n)
{
    char code[300];
    for (int i = 0; i < in->info.n_rec; i++) {
        int kept = 0;
        for (int k = 0; k < n; k++)
            kept |= strcmp(in->info.rec_name[i], files[k].name) == 0;
        if (kept || !install_safe_name(in->info.rec_name[i]))
            continue;
        size_t len = (size_t)snprintf(code, sizeof code, "try:\n    os.remove('%s/%s')\nexcept OSError:\n    pass\n",
                                      install_board_dir(in), in->info.rec_name[i]);
        if (install_exec(in, code, len, "removing an earlier install's file") < 0)
            return -1;
        fprintf(stderr, "aioprof-top: removed %s/%s (an earlier install's, not needed now)\n", install_board_dir(in),
                in->info.rec_name[i]);
    }
    return 0;
}

static int install_engine_check(install_t *in)
{
    static const char check[] =
        "import gc\n"
        "for _m in ('aioprof', 'aioprof_frames', 'aioprof_fallback', 'aioprof_wrapper', '_aioprof_native'):\n"
        "    sys.modules.pop(_m, None)\n"
        "gc.collect()\n"
        "import aioprof\n"
        "print('E', aioprof._select(None)[0], getattr(aioprof, '__file__', '(built in)'))\n";
    if (install_exec(in, check, sizeof check - 1, "importing aioprof") < 0)
        return -1;
    char engine[32] = "", file[128] = "";
    if (sscanf(in->repl.out, "E %31s %127s", engine, file) < 1 || !install_token_ok(engine)) {
        install_say_error(in, "importing aioprof printed nothing readable.");
        return -1;
    }
    printf("aioprof.engine(): %s (aioprof from %s)\n", engine, file);
    return 0;
}

int board_install(const options_t *o)
{
    install_t in = {.o = o};
    install_file_t files[INSTALL_FILES_MAX + 1];
    memset(files, 0, sizeof files);
    int n = 0, rc = EXIT_FAILURE_RUNTIME;
    const char *engine = "python";
    char why[400];
    const char *names[INSTALL_FILES_MAX + 1] = {NULL};
    int n_names = 0;
    size_t file_bytes = 0;

    if (install_connect(&in) < 0)
        goto out;
    /* first what it is (the files to ask about depend on it), then again with their names */
    if (install_probe(&in, names, 0) < 0 || install_check_board(&in) < 0)
        goto out;
    if (install_find_files(&in, files, &n, &engine, why, sizeof why) < 0)
        goto out;
    for (int i = 0; i < n; i++)
        names[n_names++] = files[i].name;
    if (install_probe(&in, names, n_names) < 0)
        goto out;
    fprintf(stderr, "aioprof-top: engine %s: %s%s\n", engine, why,
            strcmp(engine, "python") == 0 ? "; the python engine (pure Python) instead" : "");
    /* the free space needed: what is not there yet, and a temporary copy of the largest */
    long long need = 0, largest = 0;
    int made_dir = in.info.rec_made_dir;
    for (int i = 0; i < n; i++) {
        install_have(&in.info, files[i].name, files[i].board_hash);
        if (strcmp(files[i].board_hash, files[i].hash) != 0) {
            need += (long long)files[i].size;
            largest = (long long)files[i].size > largest ? (long long)files[i].size : largest;
        }
    }
    if (need > 0 && need + largest > in.info.free_bytes) {
        snprintf(why, sizeof why, "the board's filesystem is full: %lld bytes free in %s, and the files need %lld; "
                 "remove something from it first.", in.info.free_bytes, in.info.dir, need + largest);
        install_say_error(&in, why);
        goto out;
    }
    if (strcmp(in.info.dir, "/lib") == 0) {
        static const char mk[] = "try:\n    os.stat('/lib')\n    print('M 0')\nexcept OSError:\n    os.mkdir('/lib')\n"
                                 "    print('M 1')\n";
        if (install_exec(&in, mk, sizeof mk - 1, "making /lib") < 0)
            goto out;
        made_dir |= strncmp(in.repl.out, "M 1", 3) == 0;
    }
    int sent = 0, same = 0;
    for (int i = 0; i < n; i++) {
        if (strcmp(files[i].board_hash, files[i].hash) == 0) {
            same++;
            continue;
        }
        if (install_send(&in, &files[i], &file_bytes) < 0)
            goto out;
        sent++;
    }
    if (install_drop_stale(&in, files, n) < 0)
        goto out;
    install_file_t rec;
    memset(&rec, 0, sizeof rec);
    install_record(&in, &rec, files, n, made_dir);
    char have[65];
    install_have(&in.info, INSTALL_RECORD, have);
    if (rec.data != NULL && strcmp(have, rec.hash) != 0 && install_send(&in, &rec, &file_bytes) < 0) {
        free(rec.data);
        goto out;
    }
    free(rec.data);
    fprintf(stderr, "aioprof-top: %d files written to %s (%zu bytes of them), %d already there and identical\n",
            sent, in.info.dir, file_bytes, same);
    if (install_engine_check(&in) < 0)
        goto out;
    install_summary(&in, "installed");
    rc = EXIT_OK;
out:
    install_free(files, n);
    install_disconnect(&in);
    return rc;
}
