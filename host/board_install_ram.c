/* --run --in-ram (board_install_stages.h): a board without aioprof gets the python engine in its
 * RAM for one run: a soft reset, then each file's source executed into a module of sys.modules, in
 * the order the files import each other. */
#include "board_install_stages.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    char *code = NULL;

    if (install_connect(&in) < 0 || install_exec(&in, probe, sizeof probe - 1, "looking for aioprof") < 0)
        goto out;
    if (strncmp(in.repl.out, "A 1", 3) == 0) {
        fprintf(stderr, "aioprof-top: %s has aioprof already: --in-ram is not needed\n", in.src->name);
        rc = EXIT_OK;
        goto out;
    }
    if (install_find_python(&in, files, &n) < 0)
        goto out;
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
