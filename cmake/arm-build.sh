#!/usr/bin/env bash
# Cross-compiles the device hook (device/aioprof.c and the proto/ files it links) for Cortex-M0+
# and Cortex-M4, warning-free, and reports what a firmware pays for it: code size, RAM for the
# state struct, and the outside symbols it needs. Fails when the hook needs anything from libc
# beyond memcpy/memset, because a port must be able to link it with no C library at all.
#
# Usage: cmake/arm-build.sh OUTDIR        (run by `make arm`)
set -euo pipefail

out=${1:?usage: cmake/arm-build.sh OUTDIR}
src=$(cd "$(dirname "$0")/.." && pwd)
CC=${ARM_CC:-arm-none-eabi-gcc}
NM=${ARM_NM:-arm-none-eabi-nm}
SIZE=${ARM_SIZE:-arm-none-eabi-size}

# Exactly what the device links: the per-event writer, its CRC and varints, and the hook.
sources=(proto/aioprof_crc16.c proto/aioprof_varint.c proto/aioprof_frame_writer.c device/aioprof.c)
common=(-std=c11 -Os -ffreestanding -ffunction-sections -fdata-sections -Wall -Wextra -Werror
        -I"$src/proto" -I"$src/device")
targets=(cortex-m0plus cortex-m4)
# Two builds of each: as it comes (the common path of each event inlined, the CRC through two
# 512-byte tables: fewer instructions per event), and AIOPROF_SMALL=1 (code size first). The size
# target applies to the small build; the other is reported beside it.
# The small build's parts (docs/porting.md, "Building for size"), each left out alone, then all
# three (small-min), and the parts that are off by default put in (spans, allocations): every one
# must build warning-free, and each costs what its difference from "small" says.
# small-nolate-nostop has the parts the hook had when its small build was 2,386 B (issue 26).
configs=(default small small-nolate small-nolabels small-nostop small-nolate-nostop small-min small-spans small-alloc all)
declare -A config_flags=(
    [default]="" [small]="-DAIOPROF_SMALL=1" [small-nolate]="-DAIOPROF_SMALL=1 -DAIOPROF_LATE=0"
    [small-nolabels]="-DAIOPROF_SMALL=1 -DAIOPROF_LABELS=0" [small-nostop]="-DAIOPROF_SMALL=1 -DAIOPROF_STOP=0"
    [small-nolate-nostop]="-DAIOPROF_SMALL=1 -DAIOPROF_LATE=0 -DAIOPROF_STOP=0"
    [small-min]="-DAIOPROF_SMALL=1 -DAIOPROF_LATE=0 -DAIOPROF_LABELS=0 -DAIOPROF_STOP=0"
    [small-spans]="-DAIOPROF_SMALL=1 -DAIOPROF_SPANS=1" [small-alloc]="-DAIOPROF_SMALL=1 -DAIOPROF_ALLOC=1"
    [all]="-DAIOPROF_SPANS=1 -DAIOPROF_ALLOC=1"
)
declare -A cpu_flags=(
    [cortex-m0plus]="-mcpu=cortex-m0plus -mthumb"
    [cortex-m4]="-mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16"
)
size_limit=2400   # bytes of code+rodata for the hook's small builds, per target (issue 26)
state_limit=64    # bytes of RAM for aioprof_t, besides the ring (without spans and allocations)

if ! command -v "$CC" >/dev/null; then
    echo "arm: $CC not found: install gcc-arm-none-eabi and libnewlib-arm-none-eabi (make arm does)" >&2
    exit 1
fi

# A program that calls every entry point, so that --gc-sections keeps what a real port keeps.
# Its globals give sizeof() through the symbol sizes nm prints (no need to run arm code).
mkdir -p "$out"
cat > "$out/probe_main.c" <<'EOF'
#include "aioprof.h"

aioprof_t probe_state;
aioprof_task_t probe_task;
static uint8_t probe_ring[256];
static volatile uint32_t probe_clock;

static uint32_t probe_ticks(void *user) { (void)user; return probe_clock; }
static size_t probe_write(void *user, const uint8_t *data, size_t len)
{
    (void)user;
    (void)data;
    return len;
}
static uint32_t probe_lock(void *user) { (void)user; return 0; }
static void probe_unlock(void *user, uint32_t state) { (void)user; (void)state; }

static const aioprof_port_t probe_port = {
    .ticks = probe_ticks, .write = probe_write, .lock = probe_lock, .unlock = probe_unlock,
    .tick_hz = 1000000u, .tick_bits = 30, .platform = "probe",
};

int probe_main(void);
int probe_main(void)
{
    if (aioprof_init(&probe_state, &probe_port, probe_ring, sizeof probe_ring) != 0)
        return 1;
    aioprof_task_created(&probe_state, &probe_task, "probe", 5);
#if AIOPROF_LABELS
    aioprof_task_label(&probe_state, &probe_task, "one", 3);
#endif
    aioprof_enter(&probe_state, &probe_task);
    aioprof_enter_late(&probe_state, &probe_task, 1);
#if AIOPROF_SPANS
    static aioprof_span_t probe_span = AIOPROF_SPAN_INIT("span");
    aioprof_span_enter(&probe_state, &probe_span);
    aioprof_span_exit(&probe_state);
#endif
#if AIOPROF_ALLOC
    aioprof_gc(&probe_state, 1);
#endif
    aioprof_exit(&probe_state, &probe_task, AIOPROF_EXIT_YIELD);
    aioprof_flush(&probe_state);
    aioprof_drain(&probe_state);
#if AIOPROF_STOP
    aioprof_close(&probe_state);
    aioprof_reopen(&probe_state);
#endif
    return (int)aioprof_pending(&probe_state) + aioprof_idle(&probe_state);
}
EOF
# The only libc a port has to bring (trivial versions: their size is not counted).
cat > "$out/probe_libc.c" <<'EOF'
#include <stddef.h>
void *memcpy(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);
void *memcpy(void *dst, const void *src, size_t n)
{
    unsigned char *d = dst;
    const unsigned char *s = src;
    while (n--)
        *d++ = *s++;
    return dst;
}
void *memset(void *dst, int c, size_t n)
{
    unsigned char *d = dst;
    while (n--)
        *d++ = (unsigned char)c;
    return dst;
}
EOF

text_of() { "$SIZE" -B "$@" | awk 'NR > 1 { t += $1 } END { print t + 0 }'; }

status=0
summary=()
builds=()
for config in "${configs[@]}"; do
    builds+=("${targets[@]/%/:$config}")
done
for build in "${builds[@]}"; do
    target=${build%%:*}
    config=${build##*:}
    dir="$out/$target-$config"
    mkdir -p "$dir"
    read -r -a flags <<< "${cpu_flags[$target]} ${config_flags[$config]}"
    objs=()
    compiled=1
    for s in "${sources[@]}"; do
        o="$dir/$(basename "${s%.c}").o"
        "$CC" "${common[@]}" "${flags[@]}" -c "$src/$s" -o "$o" || compiled=0
        objs+=("$o")
    done
    if [ "$compiled" = 0 ]; then
        summary+=("arm: $target $config: FAIL: does not compile warning-free (above)")
        status=1
        continue
    fi
    # -fno-builtin keeps gcc from turning the stub loops into calls to themselves.
    "$CC" "${common[@]}" "${flags[@]}" -c "$out/probe_main.c" -o "$dir/probe_main.o"
    "$CC" "${common[@]}" "${flags[@]}" -fno-builtin -c "$out/probe_libc.c" -o "$dir/probe_libc.o"

    # Outside symbols the hook needs: undefined in its objects and defined in none of them.
    defined=$("$NM" --defined-only -j "${objs[@]}" 2>/dev/null | grep -v ':$' | sort -u)
    needed=$("$NM" -u -j "${objs[@]}" 2>/dev/null | grep -v ':$' | sort -u | comm -23 - <(echo "$defined"))
    libc=$(echo "$needed" | grep -v -E '^(memcpy|memset|__aeabi_.*|__gnu_.*)?$' || true)
    libgcc=$(echo "$needed" | grep -E '^(__aeabi_|__gnu_)' | tr '\n' ' ' || true)

    # Link with no C library: anything else it needed would be an undefined reference here.
    # libgcc stays (division helpers on a core without a divider are the compiler's, not libc).
    if ! "$CC" "${flags[@]}" -nostdlib -nostartfiles -Wl,--gc-sections -Wl,-e,probe_main \
            -o "$dir/probe.elf" "${objs[@]}" "$dir/probe_main.o" "$dir/probe_libc.o" -lgcc \
            2> "$dir/link.log"; then
        echo "arm: $target $config: the hook does not link without a C library:" >&2
        sed 's/^/  /' "$dir/link.log" >&2
        summary+=("arm: $target $config: FAIL: does not link without a C library")
        status=1
        continue
    fi

    objects_text=$(text_of "${objs[@]}")
    # Split what was linked: the hook's own functions and constants, and libgcc helpers it pulled
    # in (symbols of neither the hook nor the probe). Aliases share an address: count it once.
    probe_syms=$("$NM" --defined-only -j "$dir/probe_main.o" "$dir/probe_libc.o" | grep -v ':$' | sort -u)
    read -r hook_text libgcc_text < <("$NM" -S "$dir/probe.elf" | awk \
        -v hook="$(echo "$defined" | tr '\n' ' ')" -v probe="$(echo "$probe_syms" | tr '\n' ' ')" '
        function hex(x,   v, i) { v = 0; x = tolower(x)
            for (i = 1; i <= length(x); i++) v = v * 16 + index("0123456789abcdef", substr(x, i, 1)) - 1
            return v }
        BEGIN { n = split(hook, h, " "); for (i = 1; i <= n; i++) H[h[i]] = 1
                n = split(probe, q, " "); for (i = 1; i <= n; i++) P[q[i]] = 1 }
        NF == 4 && $3 ~ /^[TtRrWw]$/ && !seen[$1]++ {
            if ($4 in H) hk += hex($2); else if (!($4 in P)) lg += hex($2) }
        END { print hk + 0, lg + 0 }')
    linked_text=$((hook_text + libgcc_text))
    state_size=$(( 16#$("$NM" -S "$dir/probe.elf" | awk '$4 == "probe_state" { print $2 }') ))
    task_size=$(( 16#$("$NM" -S "$dir/probe.elf" | awk '$4 == "probe_task" { print $2 }') ))

    # Warnings and libc use fail the build; the size targets fail it only with ARM_STRICT=1, so
    # that a hook over budget is reported loudly without blocking everything else.
    verdict=ok
    if [ -n "$libc" ]; then
        echo "arm: $target $config: the hook uses libc beyond memcpy/memset: $(echo "$libc" | tr '\n' ' ')" >&2
        verdict=FAIL
        status=1
    fi
    # the targets are the small builds' without the parts that are off by default (spans and
    # allocations add to both: reported, not held to them)
    limit_for_code=$size_limit
    [ "${config#small}" != "$config" ] || limit_for_code=999999
    case $config in small-spans|small-alloc|all) limit_for_code=999999; state_limit=999999 ;; *) state_limit=64 ;; esac
    for check in "code:$linked_text:$limit_for_code:hook code+rodata (with libgcc helpers)" \
                 "state:$state_size:$state_limit:sizeof(aioprof_t)"; do
        IFS=: read -r _ value limit what <<< "$check"
        if [ "$value" -gt "$limit" ]; then
            echo "arm: $target $config: $what is $value bytes, over the $limit-byte target" >&2
            [ "$verdict" = ok ] && verdict="OVER TARGET"
            if [ "${ARM_STRICT:-0}" = 1 ]; then verdict=FAIL; status=1; fi
        fi
    done

    [ "$limit_for_code" = 999999 ] && [ "$verdict" = ok ] && verdict="ok (size reported, the target is the small build's)"
    echo "arm: $target, $config build (${cpu_flags[$target]} ${config_flags[$config]} -Os):"
    printf '  %-30s %s\n' "objects (text+rodata):" "$objects_text bytes, before --gc-sections"
    printf '  %-30s %s\n' "linked (--gc-sections):" "$linked_text bytes = hook $hook_text + libgcc $libgcc_text$([ "${config#small}" != "$config" ] && [ "$limit_for_code" != 999999 ] && echo " (target <= $size_limit)")"
    printf '  %-30s %s\n' "sizeof(aioprof_t):" "$state_size bytes of RAM besides the ring (target <= $state_limit)"
    printf '  %-30s %s\n' "sizeof(aioprof_task_t):" "$task_size bytes per task"
    printf '  %-30s %s\n' "outside symbols:" "$(echo "$needed" | grep -v '^$' | tr '\n' ' ')"
    [ -n "$libgcc" ] && printf '  %-30s %s\n' "of which libgcc helpers:" "$libgcc"
    summary+=("arm: $target $config: $verdict: code $linked_text B (hook $hook_text + libgcc $libgcc_text), state $state_size B")
done

printf '%s\n' "${summary[@]}" | tee "$out/summary.txt"
exit $status
