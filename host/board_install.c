/* --install, --uninstall (board_install.h). The board runs small Python commands; what they print
 * is read back as lines "KEY value ...". Everything the board says is untrusted: names are checked
 * against the files this program sends, numbers are bounded. */
#include "board_install.h"
#include "board_files.h"
#include "board_repl.h"
#include "monotonic.h"
#include "sha256.h"
#include "source.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define INSTALL_ENTER_MS 10000
#define INSTALL_EXEC_MS 20000
#define INSTALL_PIECE 1024u          /* file bytes per command (its literal is up to 4 times that) */
#define INSTALL_FILE_MAX (512u * 1024u)
#define INSTALL_FILES_MAX (BOARD_FILES_PYTHON_MAX + 1)
#define INSTALL_RECORD "aioprof.installed"
#define INSTALL_NATIVE "_aioprof_native.mpy"

typedef struct install_file {
    char name[BOARD_FILES_NAME_MAX]; /* its name on the board */
    uint8_t *data;
    size_t size;
    char hash[65];                   /* as the board computes it (sha256, or adler32 in hex) */
    char board_hash[65];             /* what the board has under that name now ("": nothing) */
} install_file_t;

typedef struct board_info {
    char impl[32], version[32], platform[32], dir[16], hash_kind[16];
    int mpy, major, minor, made_dir;
    int base64;             /* the board has binascii.a2b_base64 */
    long long free_bytes, total_bytes;
    /* the record left by an earlier install: its files and their hashes */
    char rec_name[INSTALL_FILES_MAX][BOARD_FILES_NAME_MAX];
    char rec_hash[INSTALL_FILES_MAX][65];
    int n_rec, has_rec, rec_made_dir;
    /* the hashes of the files asked about */
    char have_name[INSTALL_FILES_MAX + 1][BOARD_FILES_NAME_MAX];
    char have_hash[INSTALL_FILES_MAX + 1][65];
    long long have_size[INSTALL_FILES_MAX + 1];
    int n_have;
} board_info_t;

typedef struct install {
    const options_t *o;
    source_t *src;
    board_repl_t repl;
    board_info_t info;
    uint64_t start_us;
    int tty;                /* stderr is a terminal: progress on one line */
} install_t;

/* The helpers every later command uses, defined once in the REPL's globals (no soft reset
 * between the commands: they stay). _h: a file's hash and size, or None; the Adler-32 of RFC 1950
 * where the firmware has no hashlib.sha256. */
static const char install_helpers[] =
    "import sys, os\n"
    "def _aioprof_h(p):\n"
    "    try:\n"
    "        f = open(p, 'rb')\n"
    "    except OSError:\n"
    "        return None\n"
    "    try:\n"
    "        import hashlib\n"
    "        h = hashlib.sha256()\n"
    "    except (ImportError, AttributeError):\n"
    "        h = None\n"
    "    a, b, n, buf = 1, 0, 0, bytearray(256)\n"
    "    while True:\n"
    "        k = f.readinto(buf)\n"
    "        if not k:\n"
    "            break\n"
    "        n += k\n"
    "        if h:\n"
    "            h.update(buf if k == len(buf) else buf[:k])\n"
    "        else:\n"
    "            for i in range(k):\n"
    "                a = (a + buf[i]) % 65521\n"
    "                b = (b + a) % 65521\n"
    "    f.close()\n"
    "    if h:\n"
    "        return ''.join('%02x' % x for x in h.digest()), n\n"
    "    return '%08x' % ((b << 16) | a), n\n"
    "def _aioprof_kind():\n"
    "    try:\n"
    "        import hashlib\n"
    "        hashlib.sha256\n"
    "        return 'sha256'\n"
    "    except (ImportError, AttributeError):\n"
    "        return 'adler32'\n"
    "def _aioprof_b64():\n"
    "    global _aioprof_a\n"
    "    try:\n"
    "        import binascii\n"
    "        _aioprof_a = binascii.a2b_base64\n"
    "        return 1\n"
    "    except (ImportError, AttributeError):\n"
    "        return 0\n"
    "def _aioprof_dir():\n"
    "    return '/lib' if '/lib' in sys.path else ''\n"
    "def _aioprof_probe(names):\n"
    "    i = sys.implementation\n"
    "    v = i.version\n"
    "    print('I', i.name, '%d.%d.%d' % (v[0], v[1], v[2]), getattr(i, '_mpy', 0), sys.platform, _aioprof_kind())\n"
    "    d = _aioprof_dir()\n"
    "    try:\n"
    "        s = os.statvfs(d or '/')\n"
    "        print('S', s[1] * s[4], s[1] * s[2])\n"
    "    except Exception:\n"
    "        print('S 0 0')\n"
    "    print('D', d or '/')\n"
    "    print('B', _aioprof_b64())\n"
    "    for n in names:\n"
    "        r = _aioprof_h(d + '/' + n)\n"
    "        if r:\n"
    "            print('F', n, r[0], r[1])\n"
    "    try:\n"
    "        with open(d + '/" INSTALL_RECORD "', 'rb') as f:\n"
    "            for line in f.read().decode().split('\\n'):\n"
    "                if line.strip():\n"
    "                    print('R', line.strip())\n"
    "    except OSError:\n"
    "        pass\n";

static int install_say_error(install_t *in, const char *what)
{
    fprintf(stderr, "aioprof-top: %s: %s\n", in->src != NULL ? in->src->name : "the board", what);
    return EXIT_FAILURE_RUNTIME;
}

/* Runs a command; an exception or a link failure is said (its last line) and is -1. */
static int install_exec(install_t *in, const char *code, size_t len, const char *doing)
{
    int r = board_repl_exec(&in->repl, code, len, INSTALL_EXEC_MS);
    if (r == 0)
        return 0;
    char why[700];
    if (r < 0) {
        snprintf(why, sizeof why, "%s failed: %s", doing, in->repl.error);
    } else {
        /* the traceback's last line is the exception */
        char *exc = in->repl.exc;
        size_t n = strlen(exc);
        while (n > 0 && (exc[n - 1] == '\n' || exc[n - 1] == '\r'))
            exc[--n] = '\0';
        char *last = strrchr(exc, '\n');
        snprintf(why, sizeof why, "%s failed on the board: %.300s.", doing, last != NULL ? last + 1 : exc);
    }
    install_say_error(in, why);
    return -1;
}

/* Connects and enters the raw REPL. */
static int install_connect(install_t *in)
{
    char err[600];
    unsigned flags = SOURCE_DEVICE_WRITE | (in->o->dtr_off ? SOURCE_DEVICE_DTR_OFF : 0u) |
                     (in->o->rts_off ? SOURCE_DEVICE_RTS_OFF : 0u);
    in->src = source_device_open(in->o->port, in->o->baud, flags, in->o->verbose, err, sizeof err);
    if (in->src == NULL) {
        fprintf(stderr, "aioprof-top: %s\n", err);
        return -1;
    }
    in->start_us = monotonic_us();
    in->tty = isatty(STDERR_FILENO);
    board_repl_init(&in->repl, in->src);
    if (board_repl_enter(&in->repl, INSTALL_ENTER_MS) < 0) {
        install_say_error(in, in->repl.error);
        return -1;
    }
    return install_exec(in, install_helpers, sizeof install_helpers - 1, "defining the helpers");
}

static void install_disconnect(install_t *in)
{
    if (in->src != NULL) {
        board_repl_leave(&in->repl);
        source_close(in->src);
        in->src = NULL;
    }
}

static int install_token_ok(const char *s)
{
    for (; *s; s++)
        if (*s <= ' ' || *s > '~')
            return 0;
    return 1;
}

/* A name from the board's record that may go into a command: one an install writes (printable, no
 * quote, backslash or slash). */
static int install_safe_name(const char *name)
{
    return name[0] != '\0' && install_token_ok(name) && strpbrk(name, "'\\/") == NULL;
}

/* The probe's lines into in->info; names: the files to ask about. */
static int install_probe(install_t *in, const char *const *names, int n_names)
{
    char code[2048];
    size_t len = (size_t)snprintf(code, sizeof code, "_aioprof_probe([");
    for (int i = 0; i < n_names; i++)
        len += (size_t)snprintf(code + len, sizeof code - len, "'%s',", names[i]);
    len += (size_t)snprintf(code + len, sizeof code - len, "'%s'])\n", INSTALL_RECORD);
    if (len >= sizeof code || install_exec(in, code, len, "asking the board what it is") < 0)
        return -1;
    board_info_t *b = &in->info;
    memset(b, 0, sizeof *b);
    char *save = NULL;
    for (char *line = strtok_r(in->repl.out, "\r\n", &save); line != NULL; line = strtok_r(NULL, "\r\n", &save)) {
        char a[80], h[80], c[80], d[80], e[80];
        long long x, y;
        if (sscanf(line, "I %31s %31s %d %31s %15s", b->impl, b->version, &b->mpy, b->platform, b->hash_kind) == 5) {
            if (sscanf(b->version, "%d.%d", &b->major, &b->minor) != 2)
                b->major = b->minor = 0;
        } else if (sscanf(line, "S %lld %lld", &x, &y) == 2) {
            b->free_bytes = x;
            b->total_bytes = y;
        } else if (sscanf(line, "B %d", &b->base64) == 1) {
            b->base64 = b->base64 == 1;
        } else if (sscanf(line, "D %15s", b->dir) == 1) {
            if (strcmp(b->dir, "/") != 0 && strcmp(b->dir, "/lib") != 0)
                b->dir[0] = '\0';
        } else if (sscanf(line, "F %63s %64s %lld", a, h, &x) == 3 && b->n_have < INSTALL_FILES_MAX + 1) {
            snprintf(b->have_name[b->n_have], BOARD_FILES_NAME_MAX, "%.63s", a);
            snprintf(b->have_hash[b->n_have], 65, "%.64s", h);
            b->have_size[b->n_have++] = x;
        } else if (sscanf(line, "R file %63s %64s", a, h) == 2 && b->n_rec < INSTALL_FILES_MAX) {
            snprintf(b->rec_name[b->n_rec], BOARD_FILES_NAME_MAX, "%.63s", a);
            snprintf(b->rec_hash[b->n_rec++], 65, "%.64s", h);
            b->has_rec = 1;
        } else if (sscanf(line, "R made-dir %79s", c) == 1) {
            b->rec_made_dir = strcmp(c, "/lib") == 0;
            b->has_rec = 1;
        } else if (sscanf(line, "R %79s %79s %79s", c, d, e) >= 1) {
            b->has_rec = 1;
        }
    }
    if (b->impl[0] == '\0' || b->dir[0] == '\0' || !install_token_ok(b->impl)) {
        install_say_error(in, "the board answered the raw REPL but not as a MicroPython does (no sys.implementation).");
        return -1;
    }
    return 0;
}

/* What the board is, said once; and the refusals: not MicroPython, older than 1.21, no filesystem. */
static int install_check_board(install_t *in)
{
    board_info_t *b = &in->info;
    char why[400], abuf[16];
    fprintf(stderr, "aioprof-top: %s: %s %s on %s, .mpy %d.%d %s, %lld of %lld bytes free in %s\n", in->src->name,
            b->impl, b->version, b->platform, b->mpy & 0xff, (b->mpy >> 8) & 3,
            board_arch_name((b->mpy >> 10) & 0x3f, abuf, sizeof abuf), b->free_bytes, b->total_bytes, b->dir);
    if (strcmp(b->impl, "micropython") != 0) {
        snprintf(why, sizeof why, "the board runs %s, not MicroPython: aioprof needs MicroPython 1.21 or later.", b->impl);
        install_say_error(in, why);
        return -1;
    }
    if (b->major < 1 || (b->major == 1 && b->minor < 21)) {
        snprintf(why, sizeof why, "the board runs MicroPython %s; aioprof needs 1.21 or later (its asyncio): update the "
                 "firmware first.", b->version);
        install_say_error(in, why);
        return -1;
    }
    if (b->total_bytes <= 0) {
        install_say_error(in, "the board has no filesystem to install to (os.statvfs shows none mounted): use --run "
                          "with --in-ram, which sends the python engine into RAM for one run, or a firmware with a "
                          "filesystem.");
        return -1;
    }
    return 0;
}

static int install_read_file(const char *dir, const char *rel, install_file_t *f, char *err, size_t errlen)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    FILE *fp = fopen(path, "rb");
    if (fp == NULL) {
        snprintf(err, errlen, "cannot read %.400s: %s.", path, strerror(errno));
        return -1;
    }
    f->data = malloc(INSTALL_FILE_MAX + 1);
    f->size = f->data != NULL ? fread(f->data, 1, INSTALL_FILE_MAX + 1, fp) : 0;
    fclose(fp);
    if (f->data == NULL || f->size > INSTALL_FILE_MAX) {
        snprintf(err, errlen, "%.400s is larger than %u bytes.", path, INSTALL_FILE_MAX);
        return -1;
    }
    return 0;
}

static void install_hash(const install_file_t *f, const char *kind, char out[65])
{
    if (strcmp(kind, "sha256") == 0)
        sha256_hex(f->data, f->size, out);
    else
        snprintf(out, 65, "%08x", (unsigned)adler32(f->data, f->size));
}

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

static const char *install_board_dir(const install_t *in)
{
    return strcmp(in->info.dir, "/") == 0 ? "" : in->info.dir;
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

static int install_have(const board_info_t *b, const char *name, char hash[65])
{
    for (int i = 0; i < b->n_have; i++)
        if (strcmp(b->have_name[i], name) == 0) {
            snprintf(hash, 65, "%s", b->have_hash[i]);
            return 1;
        }
    hash[0] = '\0';
    return 0;
}

/* The record: the files and their hashes, and whether /lib was made for them. */
static void install_record(install_t *in, install_file_t *rec, const install_file_t *files, int n, int made_dir)
{
    char *text = malloc(4096);
    size_t len = 0;
    if (text == NULL)
        return;
    len += (size_t)snprintf(text + len, 4096 - len, "aioprof-top %s\nhash %s\n", AIOPROF_VERSION, in->info.hash_kind);
    if (made_dir)
        len += (size_t)snprintf(text + len, 4096 - len, "made-dir /lib\n");
    for (int i = 0; i < n; i++)
        len += (size_t)snprintf(text + len, 4096 - len, "file %s %s %zu\n", files[i].name, files[i].hash, files[i].size);
    snprintf(rec->name, sizeof rec->name, "%s", INSTALL_RECORD);
    rec->data = (uint8_t *)text;
    rec->size = len;
    install_hash(rec, in->info.hash_kind, rec->hash);
}

static int install_find_files(install_t *in, install_file_t *files, int *n, const char **why_engine, char *why,
                              size_t whylen)
{
    char dir[PATH_MAX], err[600];
    board_manifest_t m;
    if (board_files_find(dir, sizeof dir, err, sizeof err) < 0 || board_manifest_load(&m, dir, err, sizeof err) < 0) {
        install_say_error(in, err);
        return -1;
    }
    const board_module_t *mod = board_pick_module(&m, in->info.mpy, why, whylen);
    *why_engine = mod != NULL ? "native" : "python";
    *n = 0;
    int rc = 0;
    for (int i = 0; i < m.n_python && rc == 0; i++) {
        snprintf(files[*n].name, sizeof files[*n].name, "%s", m.python[i]);
        rc = install_read_file(dir, m.python[i], &files[(*n)++], err, sizeof err);
    }
    if (rc == 0 && mod != NULL) {
        snprintf(files[*n].name, sizeof files[*n].name, "%s", INSTALL_NATIVE);
        rc = install_read_file(dir, mod->path, &files[(*n)++], err, sizeof err);
        char sha[65];
        if (rc == 0 && mod->sha256[0] != '\0') {
            sha256_hex(files[*n - 1].data, files[*n - 1].size, sha);
            if (strcmp(sha, mod->sha256) != 0) {
                snprintf(err, sizeof err, "%.300s/%.200s does not have the sha256 its manifest gives: the install is "
                         "damaged; reinstall aioprof-top.", dir, mod->path);
                rc = -1;
            }
        }
    }
    board_manifest_free(&m);
    if (rc < 0) {
        install_say_error(in, err);
        return -1;
    }
    for (int i = 0; i < *n; i++)
        install_hash(&files[i], in->info.hash_kind, files[i].hash);
    return 0;
}

static void install_free(install_file_t *files, int n)
{
    for (int i = 0; i < n; i++)
        free(files[i].data);
}

static void install_summary(install_t *in, const char *what)
{
    double s = (double)(monotonic_us() - in->start_us) / 1e6;
    fprintf(stderr, "aioprof-top: %s in %.1f s; %llu bytes went to the board, %llu came back.\n", what, s,
            (unsigned long long)in->repl.bytes_out, (unsigned long long)in->repl.bytes_in);
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

int board_uninstall(const options_t *o)
{
    install_t in = {.o = o};
    int rc = EXIT_FAILURE_RUNTIME;
    if (install_connect(&in) < 0 || install_probe(&in, NULL, 0) < 0)
        goto out;
    if (!in.info.has_rec) {
        char why[300];
        snprintf(why, sizeof why, "nothing to uninstall: there is no %s/%s, which --install leaves.",
                 install_board_dir(&in), INSTALL_RECORD);
        install_say_error(&in, why);
        goto out;
    }
    /* the record's files as they are now: one changed since the install is the user's, and stays */
    board_info_t rec = in.info;
    const char *names[INSTALL_FILES_MAX] = {NULL};
    int n_names = 0;
    for (int i = 0; i < rec.n_rec; i++)
        if (install_safe_name(rec.rec_name[i]))
            names[n_names++] = rec.rec_name[i];
    if (install_probe(&in, names, n_names) < 0)
        goto out;
    char code[600];
    const char *d = install_board_dir(&in);
    int removed = 0, kept = 0;
    for (int i = 0; i < rec.n_rec; i++) {
        const char *name = rec.rec_name[i];
        char now[65];
        if (!install_safe_name(name))
            continue; /* not a name an install wrote */
        if (install_have(&in.info, name, now) && strcmp(now, rec.rec_hash[i]) != 0) {
            fprintf(stderr, "aioprof-top: kept %s/%s: it changed since the install (its %s is not the record's)\n", d,
                    name, in.info.hash_kind);
            kept++;
            continue;
        }
        size_t len = (size_t)snprintf(code, sizeof code,
                                      "try:\n    os.remove('%s/%s')\n    print('X 1')\nexcept OSError:\n    print('X 0')\n",
                                      d, name);
        if (install_exec(&in, code, len, "removing a file") < 0)
            goto out;
        if (strncmp(in.repl.out, "X 1", 3) == 0) {
            removed++;
            fprintf(stderr, "aioprof-top: removed %s/%s\n", d, name);
        }
    }
    size_t len = (size_t)snprintf(code, sizeof code, "os.remove('%s/%s')\n", d, INSTALL_RECORD);
    if (install_exec(&in, code, len, "removing the record") < 0)
        goto out;
    if (rec.rec_made_dir) {
        static const char rm[] = "try:\n    os.rmdir('/lib')\n    print('removed /lib')\nexcept OSError:\n    pass\n";
        if (install_exec(&in, rm, sizeof rm - 1, "removing /lib") < 0)
            goto out;
    }
    fprintf(stderr, "aioprof-top: %d files and the record removed from %s%s%s\n", removed, in.info.dir,
            strstr(in.repl.out, "removed /lib") != NULL ? ", and /lib, which the install had made" : "",
            kept > 0 ? " (changed files kept)" : "");
    install_summary(&in, "uninstalled");
    rc = EXIT_OK;
out:
    install_disconnect(&in);
    return rc;
}

/* A str literal of text (ASCII; anything else as \xNN). out holds 4 * len + 3. */
static size_t install_str_literal(char *out, const uint8_t *data, size_t len)
{
    size_t n = 0;
    out[n++] = '\'';
    for (size_t i = 0; i < len; i++) {
        uint8_t c = data[i];
        if (c == '\n') {
            out[n++] = '\\';
            out[n++] = 'n';
        } else if (c >= 0x20 && c < 0x7f && c != '\\' && c != '\'') {
            out[n++] = (char)c;
        } else {
            n += (size_t)sprintf(out + n, "\\x%02x", c);
        }
    }
    out[n++] = '\'';
    return n;
}

/* One module into sys.modules from its source, in its own globals; the object in sys.modules
 * carries them as attributes (a module object cannot be made from Python on MicroPython). */
static const char install_ram_loader[] =
    "import sys, gc\n"
    "class _AioprofModule:\n"
    "    pass\n"
    "def _aioprof_load(name, src):\n"
    "    m = _AioprofModule()\n"
    "    g = {'__name__': name}\n"
    "    sys.modules[name] = m\n"
    "    exec(src, g)\n"
    "    for k in g:\n"
    "        setattr(m, k, g[k])\n"
    "    gc.collect()\n";

/* The python engine's files in the order they import each other: aioprof last. */
static int install_ram_order(const char *name)
{
    static const char *const order[] = {"aioprof_frames.py", "aioprof_wrapper.py", "aioprof_fallback.py"};
    for (int i = 0; i < 3; i++)
        if (strcmp(name, order[i]) == 0)
            return i;
    return strcmp(name, "aioprof.py") == 0 ? 4 : 3;
}

int board_run_prepare(const options_t *o, int *no_reset)
{
    static const char probe[] = "try:\n    import aioprof\n    print('A 1')\nexcept ImportError:\n    print('A 0')\n";
    install_t in = {.o = o};
    install_file_t files[INSTALL_FILES_MAX + 1];
    memset(files, 0, sizeof files);
    int n = 0, rc = EXIT_FAILURE_RUNTIME;
    char dir[PATH_MAX], err[600];
    board_manifest_t m;
    char *code = NULL;

    if (install_connect(&in) < 0 || install_exec(&in, probe, sizeof probe - 1, "looking for aioprof") < 0)
        goto out;
    if (strncmp(in.repl.out, "A 1", 3) == 0) {
        fprintf(stderr, "aioprof-top: %s has aioprof already: --in-ram is not needed\n", in.src->name);
        rc = EXIT_OK;
        goto out;
    }
    if (board_files_find(dir, sizeof dir, err, sizeof err) < 0 || board_manifest_load(&m, dir, err, sizeof err) < 0) {
        install_say_error(&in, err);
        goto out;
    }
    for (int i = 0; i < m.n_python; i++) {
        snprintf(files[n].name, sizeof files[n].name, "%s", m.python[i]);
        if (install_read_file(dir, m.python[i], &files[n++], err, sizeof err) < 0) {
            board_manifest_free(&m);
            install_say_error(&in, err);
            goto out;
        }
    }
    board_manifest_free(&m);
    fprintf(stderr, "aioprof-top: %s has no aioprof: the python engine goes into its RAM for this run (aioprof-top "
            "--install puts it on the board for good)\n", in.src->name);
    if (board_repl_soft_reset(&in.repl, INSTALL_ENTER_MS) < 0) {
        install_say_error(&in, in.repl.error);
        goto out;
    }
    if (install_exec(&in, install_ram_loader, sizeof install_ram_loader - 1, "preparing the board's RAM") < 0)
        goto out;
    size_t loaded = 0;
    for (int rank = 0; rank <= 4; rank++) {
        for (int i = 0; i < n; i++) {
            if (install_ram_order(files[i].name) != rank)
                continue;
            free(code);
            code = malloc(files[i].size * 4 + 128);
            if (code == NULL) {
                install_say_error(&in, "out of memory.");
                goto out;
            }
            char mod[BOARD_FILES_NAME_MAX];
            snprintf(mod, sizeof mod, "%.63s", files[i].name);
            char *dot = strrchr(mod, '.');
            if (dot != NULL)
                *dot = '\0';
            size_t len = (size_t)sprintf(code, "_aioprof_load('%s', ", mod);
            len += install_str_literal(code + len, files[i].data, files[i].size);
            len += (size_t)sprintf(code + len, ")\n");
            char doing[120];
            snprintf(doing, sizeof doing, "loading %.63s into RAM", files[i].name);
            if (install_exec(&in, code, len, doing) < 0)
                goto out;
            loaded += files[i].size;
        }
    }
    fprintf(stderr, "aioprof-top: %d files (%zu bytes) loaded into the board's RAM; ", n, loaded);
    install_summary(&in, "ready");
    *no_reset = 1;
    rc = EXIT_OK;
out:
    free(code);
    install_free(files, n);
    install_disconnect(&in);
    return rc;
}
