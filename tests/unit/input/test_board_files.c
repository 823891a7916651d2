/* host/input/board_files.c: which native module --install picks for a board's
 * sys.implementation._mpy (version, sub-version, arch), the fallbacks (a lower Cortex-M
 * architecture; the python engine, with its reason), and manifests it refuses. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "board_files.h"

/* _mpy as MicroPython encodes it: version | (sub-version | arch << 2) << 8 */
static int mpy_of(int version, int sub, int arch)
{
    return version | (sub | arch << 2) << 8;
}

static const char manifest[] =
    "{\"schema\": 1, \"python\": [\"aioprof.py\", \"aioprof_frames.py\", \"aioprof_fallback.py\", \"aioprof_wrapper.py\"],"
    " \"modules\": ["
    "  {\"path\": \"mpy/armv6m/6.3/_aioprof_native.mpy\", \"arch\": \"armv6m\", \"mpy_version\": 6, \"mpy_sub_version\": 3},"
    "  {\"path\": \"mpy/armv7m/6.3/_aioprof_native.mpy\", \"arch\": \"armv7m\", \"mpy_version\": 6, \"mpy_sub_version\": 3},"
    "  {\"path\": \"mpy/armv7emsp/6.3/_aioprof_native.mpy\", \"arch\": \"armv7emsp\", \"mpy_version\": 6, \"mpy_sub_version\": 3},"
    "  {\"path\": \"mpy/armv6m/6.2/_aioprof_native.mpy\", \"arch\": \"armv6m\", \"mpy_version\": 6, \"mpy_sub_version\": 2},"
    "  {\"path\": \"mpy/rv32imc/6.3/_aioprof_native.mpy\", \"arch\": \"rv32imc\", \"mpy_version\": 6, \"mpy_sub_version\": 3},"
    "  {\"path\": \"mpy/x64/6.3/_aioprof_native.mpy\", \"arch\": \"x64\", \"mpy_version\": 6, \"mpy_sub_version\": 3},"
    "  {\"path\": \"mpy/armv7em/6.3/_aioprof_native.mpy\", \"arch\": \"armv7em\", \"mpy_version\": 6, \"mpy_sub_version\": 3}"
    " ]}";

static const char *pick(const board_manifest_t *m, int mpy, char *why, size_t len)
{
    const board_module_t *mod = board_pick_module(m, mpy, why, len);
    return mod != NULL ? mod->path : NULL;
}

static void test_exact_arch_and_version(void **state)
{
    (void)state;
    board_manifest_t m;
    char err[300], why[300];
    assert_int_equal(board_manifest_parse(&m, manifest, err, sizeof err), 0);
    assert_int_equal(m.n_python, 4);
    assert_int_equal(m.n_modules, 7);
    assert_string_equal(pick(&m, mpy_of(6, 3, BOARD_ARCH_ARMV6M), why, sizeof why), "mpy/armv6m/6.3/_aioprof_native.mpy");
    assert_string_equal(pick(&m, mpy_of(6, 2, BOARD_ARCH_ARMV6M), why, sizeof why), "mpy/armv6m/6.2/_aioprof_native.mpy");
    assert_string_equal(pick(&m, mpy_of(6, 3, BOARD_ARCH_ARMV7M), why, sizeof why), "mpy/armv7m/6.3/_aioprof_native.mpy");
    assert_string_equal(pick(&m, mpy_of(6, 3, BOARD_ARCH_RV32IMC), why, sizeof why),
                        "mpy/rv32imc/6.3/_aioprof_native.mpy");
    assert_string_equal(pick(&m, mpy_of(6, 3, BOARD_ARCH_X64), why, sizeof why), "mpy/x64/6.3/_aioprof_native.mpy");
    assert_non_null(strstr(why, "x64"));
    board_manifest_free(&m);
}

static void test_cortex_m_runs_lower(void **state)
{
    (void)state;
    board_manifest_t m;
    char err[300], why[300];
    assert_int_equal(board_manifest_parse(&m, manifest, err, sizeof err), 0);
    /* armv7em (every Thumb-2 firmware without an FPU says so, a Cortex-M3's too): armv7m, which
     * runs on both, before the armv7em module, which a Cortex-M3 may not run */
    assert_string_equal(pick(&m, mpy_of(6, 3, BOARD_ARCH_ARMV7EM), why, sizeof why),
                        "mpy/armv7m/6.3/_aioprof_native.mpy");
    assert_non_null(strstr(why, "which this armv7em board runs"));
    /* armv7emdp: armv7emsp, the highest below (armv7em too is below it) */
    assert_string_equal(pick(&m, mpy_of(6, 3, BOARD_ARCH_ARMV7EMDP), why, sizeof why),
                        "mpy/armv7emsp/6.3/_aioprof_native.mpy");
    /* armv7em at 6.2: only armv6m was built for 6.2 */
    assert_string_equal(pick(&m, mpy_of(6, 2, BOARD_ARCH_ARMV7EM), why, sizeof why),
                        "mpy/armv6m/6.2/_aioprof_native.mpy");
    /* never upwards: an armv6m board does not get armv7m code */
    assert_null(pick(&m, mpy_of(6, 1, BOARD_ARCH_ARMV6M), why, sizeof why));
    board_manifest_free(&m);
}

static void test_python_engine_reasons(void **state)
{
    (void)state;
    board_manifest_t m;
    char err[300], why[300];
    assert_int_equal(board_manifest_parse(&m, manifest, err, sizeof err), 0);
    assert_null(pick(&m, mpy_of(6, 3, BOARD_ARCH_XTENSAWIN), why, sizeof why));
    assert_non_null(strstr(why, "no module was prebuilt for xtensawin"));
    assert_null(pick(&m, mpy_of(6, 1, BOARD_ARCH_RV32IMC), why, sizeof why));
    assert_non_null(strstr(why, "other .mpy versions"));
    assert_null(pick(&m, mpy_of(6, 3, BOARD_ARCH_NONE), why, sizeof why));
    assert_non_null(strstr(why, "no native code"));
    /* x86 code is not x64's */
    assert_null(pick(&m, mpy_of(6, 3, BOARD_ARCH_X86), why, sizeof why));
    board_manifest_free(&m);
    /* no manifest: the python engine, said so */
    memset(&m, 0, sizeof m);
    assert_null(pick(&m, mpy_of(6, 3, BOARD_ARCH_ARMV6M), why, sizeof why));
    assert_non_null(strstr(why, "no prebuilt module"));
}

static void test_bad_manifests(void **state)
{
    (void)state;
    board_manifest_t m;
    char err[300];
    static const char *const bad[] = {
        "not json",
        "{\"schema\": 2, \"python\": [\"aioprof.py\"]}",
        "{\"schema\": 1, \"python\": []}",
        "{\"schema\": 1, \"python\": [\"../etc/passwd\"]}",
        "{\"schema\": 1, \"python\": [\"a b.py\"]}",
        "{\"schema\": 1, \"python\": [\"aioprof.py\"], \"modules\": [{\"path\": \"/abs.mpy\", \"arch\": \"x64\","
        " \"mpy_version\": 6, \"mpy_sub_version\": 3}]}",
        "{\"schema\": 1, \"python\": [\"aioprof.py\"], \"modules\": [{\"path\": \"mpy/../../x.mpy\", \"arch\": \"x64\","
        " \"mpy_version\": 6, \"mpy_sub_version\": 3}]}",
        "{\"schema\": 1, \"python\": [\"aioprof.py\"], \"modules\": [{\"path\": \"a.mpy\", \"arch\": \"z80\","
        " \"mpy_version\": 6, \"mpy_sub_version\": 3}]}",
        "{\"schema\": 1, \"python\": [\"aioprof.py\"], \"modules\": [{\"path\": \"a.mpy\", \"arch\": \"x64\","
        " \"mpy_version\": 6, \"mpy_sub_version\": 4}]}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = '\0';
        assert_int_equal(board_manifest_parse(&m, bad[i], err, sizeof err), -1);
        assert_true(strlen(err) > 10);
        assert_null(m.modules);
    }
}

static void test_arch_names(void **state)
{
    (void)state;
    char buf[16];
    for (int i = 0; i < BOARD_ARCH_COUNT; i++)
        assert_int_equal(board_arch_parse(board_arch_name(i, buf, sizeof buf)), i);
    assert_string_equal(board_arch_name(40, buf, sizeof buf), "arch 40");
    assert_int_equal(board_arch_parse("arch 40"), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exact_arch_and_version),
        cmocka_unit_test(test_cortex_m_runs_lower),
        cmocka_unit_test(test_python_engine_reasons),
        cmocka_unit_test(test_bad_manifests),
        cmocka_unit_test(test_arch_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
