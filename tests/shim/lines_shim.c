/* An LD_PRELOAD shim that writes down every modem-line call aioprof-top makes to libserialport
 * (sp_set_dtr, sp_set_rts, sp_set_config), one line each in the file AIOPROF_LINES_LOG names, in
 * the order they were made, and then makes the call. A pty has no modem lines to look at, so
 * tests/e2e/io_lines.sh reads this record instead (with serialport_shim.c, which lets
 * libserialport open the pty). A test tool, never linked into aioprof-top. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <libserialport.h>
#include <stdio.h>
#include <stdlib.h>

static void lines_note(const char *what, int value)
{
    const char *path = getenv("AIOPROF_LINES_LOG");
    if (path == NULL)
        return;
    FILE *f = fopen(path, "a");
    if (f == NULL)
        return;
    fprintf(f, "%s %d\n", what, value);
    fclose(f);
}

enum sp_return sp_set_dtr(struct sp_port *port, enum sp_dtr dtr)
{
    static enum sp_return (*real)(struct sp_port *, enum sp_dtr);
    if (real == NULL)
        *(void **)&real = dlsym(RTLD_NEXT, "sp_set_dtr");
    lines_note("dtr", (int)dtr);
    return real(port, dtr);
}

enum sp_return sp_set_rts(struct sp_port *port, enum sp_rts rts)
{
    static enum sp_return (*real)(struct sp_port *, enum sp_rts);
    if (real == NULL)
        *(void **)&real = dlsym(RTLD_NEXT, "sp_set_rts");
    lines_note("rts", (int)rts);
    return real(port, rts);
}

/* A whole configuration carries both lines: written down as they are in it (-1: left alone). */
enum sp_return sp_set_config(struct sp_port *port, const struct sp_port_config *config)
{
    static enum sp_return (*real)(struct sp_port *, const struct sp_port_config *);
    if (real == NULL)
        *(void **)&real = dlsym(RTLD_NEXT, "sp_set_config");
    enum sp_dtr dtr = SP_DTR_INVALID;
    enum sp_rts rts = SP_RTS_INVALID;
    (void)sp_get_config_dtr(config, &dtr);
    (void)sp_get_config_rts(config, &rts);
    lines_note("config-dtr", (int)dtr);
    lines_note("config-rts", (int)rts);
    return real(port, config);
}
