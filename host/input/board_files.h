/* --install: the files that go to a board (the front end and the python engine, and the native
 * module that matches the board), found where an install or the source tree has them, and chosen
 * from the prebuilt modules' manifest (device/micropython/mpy/manifest.json, docs/micropython.md).
 * Knows nothing of the link: board_install_ask.c asks the board, this picks. */
#ifndef AIOPROF_BOARD_FILES_H
#define AIOPROF_BOARD_FILES_H

#include <stddef.h>

#define BOARD_FILES_PYTHON_MAX 16
#define BOARD_FILES_NAME_MAX 64

/* MicroPython's native architectures, as sys.implementation._mpy encodes them (py/persistentcode.h). */
enum {
    BOARD_ARCH_NONE = 0, BOARD_ARCH_X86, BOARD_ARCH_X64, BOARD_ARCH_ARMV6, BOARD_ARCH_ARMV6M, BOARD_ARCH_ARMV7M,
    BOARD_ARCH_ARMV7EM, BOARD_ARCH_ARMV7EMSP, BOARD_ARCH_ARMV7EMDP, BOARD_ARCH_XTENSA, BOARD_ARCH_XTENSAWIN,
    BOARD_ARCH_RV32IMC, BOARD_ARCH_RV64IMC, BOARD_ARCH_COUNT
};

typedef struct board_module {
    char path[256];      /* relative to the files' folder: mpy/armv6m/6.3/_aioprof_native.mpy */
    int arch;            /* BOARD_ARCH_* */
    int mpy_version, mpy_sub_version;
    char sha256[65];     /* "" when the manifest gives none */
} board_module_t;

typedef struct board_manifest {
    char python[BOARD_FILES_PYTHON_MAX][BOARD_FILES_NAME_MAX]; /* the files every board gets */
    int n_python;
    board_module_t *modules;
    int n_modules;
    int has_manifest;    /* 0: none was found (the python engine only) */
} board_manifest_t;

/* The folder with the files: AIOPROF_BOARD_FILES; else where an install puts them relative to this
 * program (share/aioprof-top/micropython beside bin/); else the source tree's device/micropython.
 * Returns 0, or -1 with one sentence in err. */
int board_files_find(char *dir, size_t len, char *err, size_t errlen);

/* Reads dir/mpy/manifest.json. No manifest is not an error: the python files named in
 * board_files_python_default, has_manifest 0. A damaged one is: -1 with one sentence in err. */
int board_manifest_load(board_manifest_t *m, const char *dir, char *err, size_t errlen);

/* The same from a JSON text (tests). */
int board_manifest_parse(board_manifest_t *m, const char *json, char *err, size_t errlen);
void board_manifest_free(board_manifest_t *m);

/* "armv7m", or "arch 13" for a number it does not know (buf). */
const char *board_arch_name(int arch, char *buf, size_t len);
/* The number of an architecture's name; -1 when unknown. */
int board_arch_parse(const char *name);

/* The module for a board whose sys.implementation._mpy is mpy (version, sub-version, arch): the
 * same .mpy version and sub-version (native code must match both), and the board's own
 * architecture, or on ARM Cortex-M the highest one below it it can run (armv6m <= module <=
 * board, as MicroPython checks). NULL when none fits, with the reason in why (one sentence). */
const board_module_t *board_pick_module(const board_manifest_t *m, int mpy, char *why, size_t whylen);

#endif
