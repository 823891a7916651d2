/* The module's entry point, alone in the first object of the link so that it sits at the start of
 * the .mpy's code: mpy_ld.py of MicroPython 1.21 to 1.27 jumps to mpy_init from the first bytes
 * with a Thumb-1 branch (armv6m), which reaches 2 KB only (mpy_init at the end of
 * aioprof_native.c was 2.3 KB in: "AssertionError" in asm_jump_thumb), and the 1.29 one computes
 * the jump before it places the sections (see the Makefile).
 * On xtensa, mpy_ld.py of 1.28 makes the jump once before the code is placed, from mpy_init's
 * offset in its own section alone, and fails on an offset under 4 ("ushort format requires
 * 0 <= number <= 65535"): mpy_init comes after a pad there. */
#include "py/dynruntime.h"

#if defined(__xtensa__)
void aioprof_native_entry_pad(void);
void aioprof_native_entry_pad(void)
{
}
#endif

mp_obj_t aioprof_native_init(mp_obj_fun_bc_t *self, size_t n_args, size_t n_kw, mp_obj_t *args);

mp_obj_t mpy_init(mp_obj_fun_bc_t *self, size_t n_args, size_t n_kw, mp_obj_t *args)
{
    return aioprof_native_init(self, n_args, n_kw, args);
}
