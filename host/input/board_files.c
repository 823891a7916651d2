/* The files for a board and the choice of its native module (board_files.h). */
#include "board_files.h"

#include <cJSON.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef AIOPROF_BOARD_FILES_FROM_BIN
#define AIOPROF_BOARD_FILES_FROM_BIN "../share/aioprof-top/micropython"
#endif
#ifndef AIOPROF_BOARD_FILES_SOURCE
#define AIOPROF_BOARD_FILES_SOURCE ""
#endif
#define BOARD_MANIFEST_MAX (1024 * 1024)

static const char *const board_arch_names[BOARD_ARCH_COUNT] = {
    "none", "x86", "x64", "armv6", "armv6m", "armv7m", "armv7em", "armv7emsp", "armv7emdp", "xtensa", "xtensawin",
    "rv32imc", "rv64imc",
};

/* Before a manifest exists (or without one): the front end and the python engine. */
static const char *const board_python_default[] = {"aioprof.py", "aioprof_frames.py", "aioprof_fallback.py",
                                                   "aioprof_wrapper.py"};

const char *board_arch_name(int arch, char *buf, size_t len)
{
    if (arch >= 0 && arch < BOARD_ARCH_COUNT)
        return board_arch_names[arch];
    snprintf(buf, len, "arch %d", arch);
    return buf;
}

int board_arch_parse(const char *name)
{
    for (int i = 0; i < BOARD_ARCH_COUNT; i++)
        if (strcmp(board_arch_names[i], name) == 0)
            return i;
    return -1;
}

static int board_has_files(const char *dir)
{
    char path[PATH_MAX];
    int n = snprintf(path, sizeof path, "%s/aioprof.py", dir);
    return n > 0 && (size_t)n < sizeof path && access(path, R_OK) == 0;
}

int board_files_find(char *dir, size_t len, char *err, size_t errlen)
{
    const char *env = getenv("AIOPROF_BOARD_FILES");
    if (env != NULL && env[0] != '\0') {
        snprintf(dir, len, "%s", env);
        if (board_has_files(dir))
            return 0;
        snprintf(err, errlen, "AIOPROF_BOARD_FILES is %s, which holds no aioprof.py; fix it or unset it.", env);
        return -1;
    }
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n > 0) {
        self[n] = '\0';
        char *slash = strrchr(self, '/');
        if (slash != NULL) {
            *slash = '\0';
            snprintf(dir, len, "%s/%s", self, AIOPROF_BOARD_FILES_FROM_BIN);
            if (board_has_files(dir))
                return 0;
        }
    }
    if (AIOPROF_BOARD_FILES_SOURCE[0] != '\0') {
        snprintf(dir, len, "%s", AIOPROF_BOARD_FILES_SOURCE);
        if (board_has_files(dir))
            return 0;
    }
    snprintf(err, errlen, "cannot find the board's files (aioprof.py and the modules): neither where an install "
             "puts them (%s from aioprof-top's folder) nor in the source tree; set AIOPROF_BOARD_FILES to the "
             "folder that holds them.", AIOPROF_BOARD_FILES_FROM_BIN);
    return -1;
}

/* A name the board gets as it is: letters, digits, '_' and '.', not starting with '.'. */
static int board_plain_name(const char *s)
{
    if (s == NULL || s[0] == '\0' || s[0] == '.' || strlen(s) >= BOARD_FILES_NAME_MAX)
        return 0;
    for (const char *p = s; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_' || *p == '.'))
            return 0;
    return 1;
}

/* A path inside the folder: relative, no "..", no empty part. */
static int board_inside_path(const char *s)
{
    if (s == NULL || s[0] == '\0' || s[0] == '/' || strlen(s) >= sizeof ((board_module_t *)0)->path)
        return 0;
    return strstr(s, "..") == NULL && strstr(s, "//") == NULL;
}

static void board_manifest_defaults(board_manifest_t *m)
{
    m->n_python = (int)(sizeof board_python_default / sizeof board_python_default[0]);
    for (int i = 0; i < m->n_python; i++)
        snprintf(m->python[i], sizeof m->python[i], "%s", board_python_default[i]);
}

static int board_module_parse(board_module_t *mod, const cJSON *j, int i, char *err, size_t errlen)
{
    const cJSON *path = cJSON_GetObjectItemCaseSensitive(j, "path");
    const cJSON *arch = cJSON_GetObjectItemCaseSensitive(j, "arch");
    const cJSON *ver = cJSON_GetObjectItemCaseSensitive(j, "mpy_version");
    const cJSON *sub = cJSON_GetObjectItemCaseSensitive(j, "mpy_sub_version");
    const cJSON *sha = cJSON_GetObjectItemCaseSensitive(j, "sha256");
    if (!cJSON_IsString(path) || !board_inside_path(path->valuestring) || !cJSON_IsString(arch) ||
        board_arch_parse(arch->valuestring) < 0 || !cJSON_IsNumber(ver) || !cJSON_IsNumber(sub) ||
        ver->valuedouble < 0 || ver->valuedouble > 255 || sub->valuedouble < 0 || sub->valuedouble > 3) {
        snprintf(err, errlen, "module %d of the manifest lacks a path inside its folder, a known arch, or its "
                 "mpy_version and mpy_sub_version.", i);
        return -1;
    }
    snprintf(mod->path, sizeof mod->path, "%s", path->valuestring);
    mod->arch = board_arch_parse(arch->valuestring);
    mod->mpy_version = (int)ver->valuedouble;
    mod->mpy_sub_version = (int)sub->valuedouble;
    mod->sha256[0] = '\0';
    if (cJSON_IsString(sha) && strlen(sha->valuestring) == 64)
        snprintf(mod->sha256, sizeof mod->sha256, "%s", sha->valuestring);
    return 0;
}

int board_manifest_parse(board_manifest_t *m, const char *json, char *err, size_t errlen)
{
    memset(m, 0, sizeof *m);
    cJSON *root = cJSON_Parse(json);
    int rc = -1;
    if (root == NULL || !cJSON_IsObject(root)) {
        snprintf(err, errlen, "the manifest is not JSON.");
        goto out;
    }
    const cJSON *schema = cJSON_GetObjectItemCaseSensitive(root, "schema");
    if (!cJSON_IsNumber(schema) || schema->valuedouble != 1) {
        snprintf(err, errlen, "the manifest's schema is not 1 (a newer aioprof-top reads it).");
        goto out;
    }
    const cJSON *python = cJSON_GetObjectItemCaseSensitive(root, "python"), *p;
    if (!cJSON_IsArray(python) || cJSON_GetArraySize(python) == 0 || cJSON_GetArraySize(python) > BOARD_FILES_PYTHON_MAX) {
        snprintf(err, errlen, "the manifest's \"python\" is not a list of 1 to %d files.", BOARD_FILES_PYTHON_MAX);
        goto out;
    }
    cJSON_ArrayForEach(p, python) {
        if (!cJSON_IsString(p) || !board_plain_name(p->valuestring)) {
            snprintf(err, errlen, "the manifest's \"python\" names a file that is not a plain file name.");
            goto out;
        }
        snprintf(m->python[m->n_python++], BOARD_FILES_NAME_MAX, "%s", p->valuestring);
    }
    const cJSON *mods = cJSON_GetObjectItemCaseSensitive(root, "modules"), *mod;
    int n = cJSON_IsArray(mods) ? cJSON_GetArraySize(mods) : 0;
    if (n > 0 && (m->modules = calloc((size_t)n, sizeof *m->modules)) == NULL) {
        snprintf(err, errlen, "out of memory.");
        goto out;
    }
    int i = 0;
    cJSON_ArrayForEach(mod, mods) {
        if (board_module_parse(&m->modules[i], mod, i, err, errlen) < 0)
            goto out;
        i++;
    }
    m->n_modules = i;
    m->has_manifest = 1;
    rc = 0;
out:
    cJSON_Delete(root);
    if (rc < 0)
        board_manifest_free(m);
    return rc;
}

int board_manifest_load(board_manifest_t *m, const char *dir, char *err, size_t errlen)
{
    char path[PATH_MAX], why[300];
    snprintf(path, sizeof path, "%s/mpy/manifest.json", dir);
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        memset(m, 0, sizeof *m);
        if (errno != ENOENT) {
            snprintf(err, errlen, "cannot read %s: %s.", path, strerror(errno));
            return -1;
        }
        board_manifest_defaults(m);
        return 0;
    }
    char *text = malloc(BOARD_MANIFEST_MAX + 1);
    size_t n = text != NULL ? fread(text, 1, BOARD_MANIFEST_MAX + 1, f) : 0;
    fclose(f);
    if (text == NULL || n > BOARD_MANIFEST_MAX) {
        free(text);
        snprintf(err, errlen, "%s is larger than %d bytes.", path, BOARD_MANIFEST_MAX);
        return -1;
    }
    text[n] = '\0';
    int rc = board_manifest_parse(m, text, why, sizeof why);
    free(text);
    if (rc < 0)
        snprintf(err, errlen, "%s: %s", path, why);
    return rc;
}

void board_manifest_free(board_manifest_t *m)
{
    free(m->modules);
    m->modules = NULL;
    m->n_modules = 0;
}

/* Can a board of arch run a module of mod_arch? ARM Cortex-M runs the lower Thumb variants. */
static int board_arch_runs(int board, int mod)
{
    if (board == mod)
        return 1;
    return board >= BOARD_ARCH_ARMV6M && board <= BOARD_ARCH_ARMV7EMDP && mod >= BOARD_ARCH_ARMV6M && mod < board;
}

/* Among the modules a board runs, the better one: the highest architecture, but armv7m before
 * armv7em on a board that says armv7em, which every Thumb-2 firmware without an FPU says, a
 * Cortex-M3 (armv7m, no DSP instructions) included: armv7m code runs on both. */
static int board_arch_rank(int board, int mod)
{
    if (board == BOARD_ARCH_ARMV7EM && mod == BOARD_ARCH_ARMV7EM)
        return 2 * BOARD_ARCH_ARMV7M - 1;
    return 2 * mod;
}

const board_module_t *board_pick_module(const board_manifest_t *m, int mpy, char *why, size_t whylen)
{
    int version = mpy & 0xff, sub = (mpy >> 8) & 3, arch = (mpy >> 10) & 0x3f;
    char buf[16];
    const char *name = board_arch_name(arch, buf, sizeof buf);
    if (arch == BOARD_ARCH_NONE) {
        snprintf(why, whylen, "this firmware runs no native code (its .mpy arch is none)");
        return NULL;
    }
    if (!m->has_manifest) {
        snprintf(why, whylen, "there is no prebuilt module here (no mpy/manifest.json beside the python files)");
        return NULL;
    }
    const board_module_t *best = NULL;
    int same_arch_other_version = 0;
    for (int i = 0; i < m->n_modules; i++) {
        const board_module_t *mod = &m->modules[i];
        if (!board_arch_runs(arch, mod->arch))
            continue;
        if (mod->mpy_version != version || mod->mpy_sub_version != sub) {
            same_arch_other_version = 1;
            continue;
        }
        if (best == NULL || board_arch_rank(arch, mod->arch) > board_arch_rank(arch, best->arch))
            best = mod;
    }
    if (best != NULL) {
        if (best->arch == arch)
            snprintf(why, whylen, "the prebuilt module for %s, .mpy %d.%d", name, version, sub);
        else
            snprintf(why, whylen, "the prebuilt module for %s, which this %s board runs (.mpy %d.%d)",
                     board_arch_name(best->arch, buf, sizeof buf), name, version, sub);
        return best;
    }
    if (same_arch_other_version)
        snprintf(why, whylen, "the prebuilt modules for %s are for other .mpy versions than this firmware's %d.%d", name,
                 version, sub);
    else
        snprintf(why, whylen, "no module was prebuilt for %s", name);
    return NULL;
}
