/* Which serial ports there are and what to call them: --list, the choice of a board when no port
 * is named, and the stable names under /dev/serial/by-id/ that udev makes for USB serial devices
 * (a board keeps its name there when a replug renumbers ttyACM0 to ttyACM1). */
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE /* POSIX plus realpath, readlink */
#endif
#include "source.h"

#include <dirent.h>
#include <errno.h>
#include <libserialport.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "escape.h"

#define SOURCE_BY_ID_DIR "/dev/serial/by-id"

/* The folder of stable names: AIOPROF_SERIAL_BY_ID stands in for it in the tests. */
static const char *ports_by_id_dir(void)
{
    const char *dir = getenv("AIOPROF_SERIAL_BY_ID");
    return dir != NULL && dir[0] != '\0' ? dir : SOURCE_BY_ID_DIR;
}

/* Where the link dir/name points, as an absolute path: resolved when its target exists, else
 * joined to dir as it is written (a listed port need not exist to be named). Returns 0 or -1. */
static int ports_link_target(const char *dir, const char *name, char *out, size_t outlen)
{
    char link[PATH_MAX], target[PATH_MAX];
    if ((size_t)snprintf(link, sizeof link, "%s/%s", dir, name) >= sizeof link)
        return -1;
    if (realpath(link, out) != NULL && strlen(out) < outlen)
        return 0;
    ssize_t n = readlink(link, target, sizeof target - 1);
    if (n <= 0)
        return -1;
    target[n] = '\0';
    int w = target[0] == '/' ? snprintf(out, outlen, "%s", target) : snprintf(out, outlen, "%s/%s", dir, target);
    return w > 0 && (size_t)w < outlen ? 0 : -1;
}

int source_stable_name(const char *path, char *out, size_t outlen)
{
    char real[PATH_MAX], target[PATH_MAX];
    const char *dir = ports_by_id_dir();
    if (realpath(path, real) == NULL)
        snprintf(real, sizeof real, "%s", path);
    DIR *d = opendir(dir);
    if (d == NULL)
        return 0;
    int found = 0;
    struct dirent *e;
    /* the first in name order when several name one node (a device with two serial numbers) */
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.' || ports_link_target(dir, e->d_name, target, sizeof target) < 0 ||
            strcmp(target, real) != 0)
            continue;
        if (found && strcmp(e->d_name, out + strlen(dir) + 1) >= 0)
            continue;
        int w = snprintf(out, outlen, "%s/%s", dir, e->d_name);
        found = w > 0 && (size_t)w < outlen;
    }
    closedir(d);
    return found;
}

/* USB vendors whose serial ports are MicroPython boards (likely) or may be (possible). */
typedef enum board_guess { BOARD_NO, BOARD_POSSIBLE, BOARD_LIKELY } board_guess_t;

static board_guess_t source_board_guess(int vid, const char **what)
{
    static const struct { int vid; board_guess_t guess; const char *what; } vendors[] = {
        {0x2E8A, BOARD_LIKELY, "Raspberry Pi (RP2040/RP2350)"},
        {0xF055, BOARD_LIKELY, "MicroPython"},
        {0x303A, BOARD_LIKELY, "Espressif"},
        {0x0483, BOARD_POSSIBLE, "STMicroelectronics virtual COM port"},
        {0x10C4, BOARD_POSSIBLE, "Silicon Labs USB-UART bridge"},
        {0x1A86, BOARD_POSSIBLE, "WCH USB-UART bridge"},
    };
    for (size_t i = 0; i < sizeof vendors / sizeof vendors[0]; i++) {
        if (vendors[i].vid == vid) {
            *what = vendors[i].what;
            return vendors[i].guess;
        }
    }
    *what = NULL;
    return BOARD_NO;
}

/* libserialport's strings come from the USB device's descriptors: the device's words, escaped. */
static const char *source_or_dash(const char *s, char *buf, size_t len)
{
    if (s == NULL || s[0] == '\0')
        return "-";
    escape_bytes(buf, len, (const uint8_t *)s, strlen(s), 0);
    return buf;
}

int source_list_ports(FILE *out, char *err, size_t errlen)
{
    struct sp_port **ports = NULL;
    if (sp_list_ports(&ports) != SP_OK) {
        snprintf(err, errlen, "cannot list the serial ports: %s.", strerror(errno));
        return -1;
    }
    if (ports[0] == NULL)
        fputs("no serial ports found\n", out);
    for (size_t i = 0; ports[i] != NULL; i++) {
        struct sp_port *p = ports[i];
        int vid = 0, pid = 0;
        const char *what = NULL;
        char stable[PATH_MAX], m[256], pr[256], sn[256];
        const char *name = sp_get_port_name(p);
        /* the stable name first, where there is one: it is the one to give */
        if (source_stable_name(name, stable, sizeof stable))
            fprintf(out, "%s  (%s)", stable, name);
        else
            fprintf(out, "%s", name);
        if (sp_get_port_transport(p) == SP_TRANSPORT_USB &&
            sp_get_port_usb_vid_pid(p, &vid, &pid) == SP_OK) {
            board_guess_t g = source_board_guess(vid, &what);
            fprintf(out, "  usb %04x:%04x  manufacturer: %s  product: %s  serial: %s%s",
                    (unsigned)vid, (unsigned)pid, source_or_dash(sp_get_port_usb_manufacturer(p), m, sizeof m),
                    source_or_dash(sp_get_port_usb_product(p), pr, sizeof pr),
                    source_or_dash(sp_get_port_usb_serial(p), sn, sizeof sn),
                    g == BOARD_LIKELY ? "  [MicroPython board]" : g == BOARD_POSSIBLE ? "  [possibly a board]" : "");
        } else {
            fprintf(out, "  %s", source_or_dash(sp_get_port_description(p), m, sizeof m));
        }
        fputc('\n', out);
    }
    sp_free_port_list(ports);
    return 0;
}

char *source_pick_port(int verbose, int *none, char *err, size_t errlen)
{
    struct sp_port **ports = NULL;
    char *picked = NULL;
    size_t likely = 0, possible = 0;
    const char *likely_name = NULL, *possible_name = NULL;
    char names[320] = "";

    *none = 0;
    if (sp_list_ports(&ports) != SP_OK) {
        snprintf(err, errlen, "cannot list the serial ports: %s.", strerror(errno));
        return NULL;
    }
    for (size_t i = 0; ports[i] != NULL; i++) {
        int vid = 0, pid = 0;
        const char *what;
        if (sp_get_port_transport(ports[i]) != SP_TRANSPORT_USB ||
            sp_get_port_usb_vid_pid(ports[i], &vid, &pid) != SP_OK)
            continue;
        board_guess_t g = source_board_guess(vid, &what);
        if (g == BOARD_NO)
            continue;
        const char *name = sp_get_port_name(ports[i]);
        if (g == BOARD_LIKELY) {
            likely++;
            likely_name = name;
        } else {
            possible++;
            possible_name = name;
        }
        size_t used = strlen(names);
        snprintf(names + used, sizeof names - used, "%s%s (%s)", used ? ", " : "", name, what);
    }
    /* A board beats a bridge; two of a kind are the user's choice to make. */
    const char *one = likely == 1 ? likely_name : likely == 0 && possible == 1 ? possible_name : NULL;
    if (one != NULL) {
        char stable[PATH_MAX];
        picked = strdup(source_stable_name(one, stable, sizeof stable) ? stable : one);
        if (picked == NULL)
            snprintf(err, errlen, "out of memory.");
    }
    if (picked != NULL && verbose)
        fprintf(stderr, "aioprof-top: picked %s among: %s\n", picked, names);
    if (picked == NULL && likely + possible == 0) {
        *none = 1;
        snprintf(err, errlen, "no MicroPython board found; name the port (aioprof-top --list shows them) or try --demo.");
    } else if (one == NULL) {
        snprintf(err, errlen, "several boards could be the one: %s; name the port to use.", names);
    }
    sp_free_port_list(ports);
    return picked;
}
