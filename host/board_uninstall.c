/* --uninstall (board_install_stages.h): the files the board's record lists removed, except one
 * changed since the install (the user's now, it stays); then the record, and /lib when the install
 * had made it. */
#include "board_install_stages.h"

#include <stdio.h>
#include <string.h>

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
