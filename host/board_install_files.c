/* --install's choice of files (board_install_stages.h): the python engine, and the native module
 * that matches the board's .mpy version (board_files.h picks it from the manifest), read from where
 * this program keeps them and hashed the way the board hashes; and the record an install leaves on
 * the board, which lists them so that --uninstall removes exactly those. */
#include "board_install_stages.h"
#include "sha256.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define INSTALL_FILE_MAX (512u * 1024u)
#define INSTALL_NATIVE "_aioprof_native.mpy"

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

/* The record: the files and their hashes, and whether /lib was made for them. */
void install_record(install_t *in, install_file_t *rec, const install_file_t *files, int n, int made_dir)
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

/* The manifest of the board's files, from where this program keeps them; -1 when said. */
static int install_manifest(install_t *in, board_manifest_t *m, char *dir, size_t dirlen)
{
    char err[600];
    if (board_files_find(dir, dirlen, err, sizeof err) < 0 || board_manifest_load(m, dir, err, sizeof err) < 0) {
        install_say_error(in, err);
        return -1;
    }
    return 0;
}

/* The python engine's files of the manifest, read into files[*n ..]; -1 with err said. */
static int install_read_python(const char *dir, const board_manifest_t *m, install_file_t *files, int *n, char *err,
                               size_t errlen)
{
    int rc = 0;
    for (int i = 0; i < m->n_python && rc == 0; i++) {
        snprintf(files[*n].name, sizeof files[*n].name, "%s", m->python[i]);
        rc = install_read_file(dir, m->python[i], &files[(*n)++], err, errlen);
    }
    return rc;
}

int install_find_files(install_t *in, install_file_t *files, int *n, const char **engine, char *why, size_t whylen)
{
    char dir[PATH_MAX], err[600];
    board_manifest_t m;
    if (install_manifest(in, &m, dir, sizeof dir) < 0)
        return -1;
    const board_module_t *mod = board_pick_module(&m, in->info.mpy, why, whylen);
    *engine = mod != NULL ? "native" : "python";
    *n = 0;
    int rc = install_read_python(dir, &m, files, n, err, sizeof err);
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

int install_find_python(install_t *in, install_file_t *files, int *n)
{
    char dir[PATH_MAX], err[600];
    board_manifest_t m;
    if (install_manifest(in, &m, dir, sizeof dir) < 0)
        return -1;
    int rc = install_read_python(dir, &m, files, n, err, sizeof err);
    board_manifest_free(&m);
    if (rc < 0)
        install_say_error(in, err);
    return rc;
}

void install_free(install_file_t *files, int n)
{
    for (int i = 0; i < n; i++)
        free(files[i].data);
}
