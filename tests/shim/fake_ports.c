/* An LD_PRELOAD stand-in for libserialport's port enumeration, so that aioprof-top's --list and its
 * choice of a board can be tested without boards. AIOPROF_FAKE_PORTS describes the ports:
 *
 *   name,vid,pid,manufacturer,product,serial;name,...     (vid 0: not a USB port)
 *
 * or AIOPROF_FAKE_PORTS_FILE names a file holding that line, read again at every listing, so that
 * a test can plug a board in while aioprof-top waits for one.
 *
 * Opening a port is not faked: a test names a real path (a pty) when aioprof-top must open it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libserialport.h>

#define FAKE_MAX 16

struct fake_port {
    char name[128];
    int vid, pid;
    char manufacturer[64], product[64], serial[64];
};

static struct fake_port fake_ports[FAKE_MAX];
static char fake_file_line[4096];

/* The description: AIOPROF_FAKE_PORTS_FILE's first line when it is set (empty when the file is
 * not there), else AIOPROF_FAKE_PORTS. */
static const char *fake_description(void)
{
    const char *path = getenv("AIOPROF_FAKE_PORTS_FILE");
    if (path == NULL || path[0] == '\0') {
        return getenv("AIOPROF_FAKE_PORTS");
    }
    fake_file_line[0] = '\0';
    FILE *f = fopen(path, "r");
    if (f != NULL) {
        if (fgets(fake_file_line, sizeof fake_file_line, f) == NULL) {
            fake_file_line[0] = '\0';
        }
        fclose(f);
    }
    fake_file_line[strcspn(fake_file_line, "\n")] = '\0';
    return fake_file_line;
}

/* Copies the next comma-separated field of *s into out. */
static void fake_field(const char **s, char *out, size_t size)
{
    size_t n = strcspn(*s, ",;");
    size_t k = n < size - 1 ? n : size - 1;
    memcpy(out, *s, k);
    out[k] = '\0';
    *s += n;
    if (**s == ',') {
        (*s)++;
    }
}

enum sp_return sp_list_ports(struct sp_port ***list)
{
    const char *s = fake_description();
    struct sp_port **out = calloc(FAKE_MAX + 1, sizeof *out);
    size_t n = 0;
    if (out == NULL) {
        return SP_ERR_MEM;
    }
    while (s != NULL && *s != '\0' && n < FAKE_MAX) {
        struct fake_port *f = &fake_ports[n];
        char num[16];
        memset(f, 0, sizeof *f);
        fake_field(&s, f->name, sizeof f->name);
        fake_field(&s, num, sizeof num);
        f->vid = (int)strtol(num, NULL, 16);
        fake_field(&s, num, sizeof num);
        f->pid = (int)strtol(num, NULL, 16);
        fake_field(&s, f->manufacturer, sizeof f->manufacturer);
        fake_field(&s, f->product, sizeof f->product);
        fake_field(&s, f->serial, sizeof f->serial);
        if (*s == ';') {
            s++;
        }
        out[n++] = (struct sp_port *)f;
    }
    *list = out;
    return SP_OK;
}

void sp_free_port_list(struct sp_port **list)
{
    free(list);
}

char *sp_get_port_name(const struct sp_port *port)
{
    return ((struct fake_port *)port)->name;
}

enum sp_transport sp_get_port_transport(const struct sp_port *port)
{
    return ((const struct fake_port *)port)->vid ? SP_TRANSPORT_USB : SP_TRANSPORT_NATIVE;
}

enum sp_return sp_get_port_usb_vid_pid(const struct sp_port *port, int *vid, int *pid)
{
    const struct fake_port *f = (const struct fake_port *)port;
    if (!f->vid) {
        return SP_ERR_ARG;
    }
    *vid = f->vid;
    *pid = f->pid;
    return SP_OK;
}

char *sp_get_port_usb_manufacturer(const struct sp_port *port)
{
    return ((struct fake_port *)port)->manufacturer;
}

char *sp_get_port_usb_product(const struct sp_port *port)
{
    return ((struct fake_port *)port)->product;
}

char *sp_get_port_usb_serial(const struct sp_port *port)
{
    return ((struct fake_port *)port)->serial;
}

char *sp_get_port_description(const struct sp_port *port)
{
    (void)port;
    return "16550A UART (fake)";
}
