/* --install's questions (board_install_stages.h): the port opened and the raw REPL entered, the
 * helpers every later command uses defined on the board, and the probe: what the board is, which
 * of the files it has and what an earlier install recorded. The board runs small Python commands;
 * what they print is read back as lines "KEY value ...". Everything the board says is untrusted:
 * names are checked against the files this program sends, numbers are bounded. */
#include "board_install_stages.h"
#include "monotonic.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

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


int install_say_error(install_t *in, const char *what)
{
    fprintf(stderr, "aioprof-top: %s: %s\n", in->src != NULL ? in->src->name : "the board", what);
    return EXIT_FAILURE_RUNTIME;
}

/* Runs a command; an exception or a link failure is said (its last line) and is -1. */
int install_exec(install_t *in, const char *code, size_t len, const char *doing)
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
int install_connect(install_t *in)
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

void install_disconnect(install_t *in)
{
    if (in->src != NULL) {
        board_repl_leave(&in->repl);
        source_close(in->src);
        in->src = NULL;
    }
}

int install_token_ok(const char *s)
{
    for (; *s; s++)
        if (*s <= ' ' || *s > '~')
            return 0;
    return 1;
}

/* A name from the board's record that may go into a command: one an install writes (printable, no
 * quote, backslash or slash). */
int install_safe_name(const char *name)
{
    return name[0] != '\0' && install_token_ok(name) && strpbrk(name, "'\\/") == NULL;
}

/* The probe's lines into in->info; names: the files to ask about. */
int install_probe(install_t *in, const char *const *names, int n_names)
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
int install_check_board(install_t *in)
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

int install_have(const board_info_t *b, const char *name, char hash[65])
{
    for (int i = 0; i < b->n_have; i++)
        if (strcmp(b->have_name[i], name) == 0) {
            snprintf(hash, 65, "%s", b->have_hash[i]);
            return 1;
        }
    hash[0] = '\0';
    return 0;
}

const char *install_board_dir(const install_t *in)
{
    return strcmp(in->info.dir, "/") == 0 ? "" : in->info.dir;
}

void install_summary(install_t *in, const char *what)
{
    double s = (double)(monotonic_us() - in->start_us) / 1e6;
    fprintf(stderr, "aioprof-top: %s in %.1f s; %llu bytes went to the board, %llu came back.\n", what, s,
            (unsigned long long)in->repl.bytes_out, (unsigned long long)in->repl.bytes_in);
}
