# shellcheck shell=bash disable=SC2154,SC2034  # the knobs and paths come from run.sh and bench_lib.bash
# Part "mpy" of tests/bench/run.sh: what each engine of the MicroPython binding adds per asyncio
# task switch, on MicroPython's unix port (tests/bench/mpy_overhead.py: 20 tasks awaiting
# asyncio.sleep_ms(0)), against the same firmware without the hook:
# - x86-64 instructions per switch under callgrind, from runs of N and 3N switches per task (the
#   difference is 2N switches' worth, start-up and imports cancelled out); without what the
#   allocator spends searching for a free block (gc_alloc's own instructions), which depends on
#   where earlier objects happen to lie in the heap rather than on the engine (it moved a stock
#   switch by 1,000 to 2,000 instructions between otherwise equal runs), and with the allocations
#   per switch beside it;
# - nanoseconds per switch: the median of rounds interleaved in one process, and the median of
#   each round's ratio to the no-hook run just before it;
# - what the device itself says the hook costs per switch (from aioprof-top's report of a captured
#   run: two events at the cost per event the engine measured at enable(), and its drain time
#   shared among the switches), against the extra CPU time per switch of that same run over the
#   firmware without the hook (mpy_calibrate, docs/usage.md "The overhead in the header"); the
#   goal: within MPY_TOLERANCE of it (relative).
# MicroPython is built outside this repository (docs/micropython.md); the builds are named by
# AIOPROF_MICROPYTHON (with the C module: the firmware engine), AIOPROF_MICROPYTHON_STOCK (without:
# native and python) and AIOPROF_NATIVE_DIR (an x64 _aioprof_native.mpy). Knobs: BENCH_MPY_TASKS
# [20], BENCH_MPY_SWITCHES [2000] per task and round, BENCH_MPY_CG [500] switches per task of the
# shorter callgrind run, BENCH_MPY_CPU [5000] of the shorter CPU-time run; BENCH_RUNS rounds.
# The deterministic board (mpy_qemu_overhead): AIOPROF_MPY_QEMU_FIRMWARE, _STOCK_FIRMWARE and
# _NATIVE; BENCH_QEMU_OVERHEAD=0 leaves it out; BENCH_QEMU_SWITCHES, _TASKS, _SHIFT, _PADS
# (tests/bench/qemu_overhead.py).

MPY_TOLERANCE=0.30 # issue 26: within 30 % for every engine

# mpy_cost MICROPYTHON ENGINE: "INSTR ALLOCS" per switch, or "fail LOG" (the log says why).
mpy_cost() {
    local mp=$1 engine=$2 n stats=() out
    for n in "$mpy_cg" $((mpy_cg * 3)); do
        out=$tmp/cg.mpy.$engine.$n
        valgrind --tool=callgrind --callgrind-out-file="$out" "$mp" "$bench_dir/mpy_overhead.py" one "$engine" \
            "$mpy_tasks" "$n" > /dev/null 2> "$out.log" || { echo "fail $out.log"; return 1; }
        stats+=("$(python3 "$bench_dir/callgrind_stat.py" "$out" gc_alloc 2>> "$out.log")") ||
            { echo "fail $out.log"; return 1; }
        rm -f "$out"
    done
    awk -v a="${stats[0]}" -v b="${stats[1]}" -v n=$((mpy_tasks * mpy_cg * 2)) 'BEGIN {
        split(a, x, " "); split(b, y, " ")
        printf "%.0f %.3f\n", ((y[1] - y[2]) - (x[1] - x[2])) / n, (y[3] - x[3]) / n }'
}

# mpy_device_says CAPTURE: what the device says the hook cost per switch (two events at its cost
# per event, and its drain time over the switches), and that cost per event: "NS NS", or nothing.
mpy_device_says() {
    "$top" -r "$1" --json 2> /dev/null | python3 -c '
import json, sys
j = json.load(sys.stdin)
d, events = j["device"] or {}, j["stream"]["events"]
ns = d.get("event_cost_ns")
if ns is not None and events:
    print("%.1f %.1f" % (2 * ns + d["drain_us"] * 1000.0 * 2 / events, ns))'
}

# mpy_cpu_ns MICROPYTHON ENGINE N [CAPTURE]: CPU nanoseconds per switch (user + system of the
# process, from wait4: the kernel's exact total, which other processes' turns on the core do not
# lengthen as they do wall time) of the runs of N and 3N switches per task, their difference over
# the 2N switches between them (start-up and imports cancel out); nothing when a run failed. With
# CAPTURE the runs write their frames to files, the longer one's to CAPTURE (what the device says
# is then of the same run and the same output as the time measured).
mpy_cpu_ns() {
    local mp=$1 e=$2 n=$3 cap=${4:-} a b
    local mode=(one "$e" "$mpy_tasks")
    [ -n "$cap" ] && mode=(capture "$e" "$mpy_tasks")
    a=$(python3 "$measure" run "$mp" "$bench_dir/mpy_overhead.py" "${mode[@]}" "$n" ${cap:+"$cap.short"} |
        awk '$3 == 0 { print $2 }')
    b=$(python3 "$measure" run "$mp" "$bench_dir/mpy_overhead.py" "${mode[@]}" $((n * 3)) ${cap:+"$cap"} |
        awk '$3 == 0 { print $2 }')
    [ -n "$a" ] && [ -n "$b" ] && awk -v a="$a" -v b="$b" -v s=$((mpy_tasks * n * 2)) 'BEGIN { printf "%.1f\n", (b - a) * 1e9 / s }'
}

# mpy_calibrate MICROPYTHON ENGINE BASE_MICROPYTHON BASE_ENGINE: "SAYS EXTRA BASE" in ns per switch:
# over $runs rounds (each the base, then the engine writing its frames to a file), the least of
# what the device says in the engine's longer run (its own clock, which other processes' turns only
# lengthen), the engine's extra CPU time over the base from the least of each (a machine shared
# with other work only adds to a run's time: its cache, its core's other thread), and the base's
# least; nothing when a measurement failed.
mpy_calibrate() {
    local mp=$1 e=$2 bmp=$3 be=$4 r says="" x y d bx="" by=""
    least() { awk -v a="$1" -v b="$2" 'BEGIN { print (a == "" || b + 0 < a + 0) ? b : a }'; }
    for ((r = 0; r < runs; r++)); do
        x=$(mpy_cpu_ns "$bmp" "$be" "$mpy_cpu") && y=$(mpy_cpu_ns "$mp" "$e" "$mpy_cpu" "$tmp/cal.$e.aiop") || return 1
        bx=$(least "$bx" "$x") by=$(least "$by" "$y")
        read -r d _ < <(mpy_device_says "$tmp/cal.$e.aiop")
        [ -n "$d" ] && says=$(least "$says" "$d")
    done
    [ -n "$says" ] || return 1
    awk -v s="$says" -v x="$bx" -v y="$by" 'BEGIN { printf "%s %.1f %s\n", s, y - x, x }'
}

# mpy_qemu_overhead: the header's overhead against what the application pays on a deterministic
# board (tests/bench/qemu_overhead.py: MicroPython's qemu port under QEMU -icount, every figure the
# same on a loaded host), per engine; sets issue 26's overhead row and returns 0, or returns 1
# (the firmwares are not named, or a run failed: the sentence says which).
mpy_qemu_overhead() {
    local out=$tmp/qemu-overhead line e says m rel spread kind ref rrel ok app_ok text="" verdicts=() app_verdicts=()
    [ "${BENCH_QEMU_OVERHEAD:-1}" = 0 ] && { say "  (the deterministic board's figures: BENCH_QEMU_OVERHEAD=0)"; return 1; }
    if [ -z "${AIOPROF_MPY_QEMU_FIRMWARE:-}${AIOPROF_MPY_QEMU_STOCK_FIRMWARE:-}" ] || ! command -v qemu-system-arm > /dev/null; then
        say "  (the deterministic board's figures: set AIOPROF_MPY_QEMU_FIRMWARE, AIOPROF_MPY_QEMU_STOCK_FIRMWARE and"
        say "  AIOPROF_MPY_QEMU_NATIVE, with qemu-system-arm installed)"
        return 1
    fi
    say "MicroPython on a deterministic board (qemu mps2-an385 -icount shift=${BENCH_QEMU_SHIFT:-3}, tests/bench/qemu_overhead.py):"
    say "the device's figure per switch against the hook's work (or the least switches); what the app pays (medians):"
    python3 "$bench_dir/qemu_overhead.py" "$top" "$out" > "$out.txt" 2>&1
    sed 's/^/  /' "$out.txt" | while IFS= read -r line; do say "$line"; done
    while read -r _ e _ m _ says _ rel _ spread _ _ _ _ rest; do
        kind=$(mpy_field ref "$rest")
        [ "$kind" = least ] && kind="least switches' difference" || kind="hook's $kind"
        ref=$(mpy_field ref_ns "$rest")
        rrel=$(mpy_field ref_error "$rest")
        # judged by the reference (qemu_overhead.py: the hook's work, or for the python engine the
        # least switches): what the app pays also holds the allocator's scan for asyncio's frame,
        # which what ran before moves (the spread)
        ok=$(awk -v r="$rrel" -v t="$MPY_TOLERANCE" 'BEGIN { if (r == "" || r == "nan") print "?"; else print (r <= t && r >= -t) ? "met" : "NOT met" }')
        [[ " $rest " == *" deterministic yes "* ]] || ok="?"
        summary_row "MicroPython $e engine, what the device says per switch against the $kind (qemu -icount)" \
            "within $(awk -v t="$MPY_TOLERANCE" 'BEGIN { printf "%d", t * 100 }') %" \
            "$says ns against $ref ns ($rrel); the app pays $m ns ($rel, spread $spread ns)" "$ok"
        # issue 26's goal is what the app pays: judged on that, the reference beside it
        app_ok=$(awk -v r="$rel" -v t="$MPY_TOLERANCE" 'BEGIN { if (r == "" || r == "nan") print "?"; else print (r <= t && r >= -t) ? "met" : "NOT met" }')
        [[ " $rest " == *" deterministic yes "* ]] || app_ok="?"
        text+="${text:+, }$e app $rel ($rrel against the $kind)"
        verdicts+=("$ok")
        app_verdicts+=("$app_ok")
    done < <(grep '^engine ' "$out.txt")
    [ -n "$text" ] || { say "  (the deterministic board gave no figure: see $out.txt)"; return 1; }
    i26_row overhead "$text (qemu -icount; against the reference: $(mpy_all_met "${verdicts[@]}"))" \
        "$(mpy_all_met "${app_verdicts[@]}")"
}

# mpy_field NAME "KEY VALUE ...": the value after NAME, or nothing.
mpy_field() {
    echo "$2" | awk -v k="$1" '{ for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }'
}

# mpy_all_met VERDICT...: "met" when every one is, "?" when one is unknown, else "NOT met".
mpy_all_met() {
    local v out=met
    for v in "$@"; do
        case $v in met) ;; "NOT met") out="NOT met" ;; *) [ "$out" = met ] && out="?" ;; esac
    done
    echo "$out"
}

part_mpy() {
    local fw=${AIOPROF_MICROPYTHON:-} stock=${AIOPROF_MICROPYTHON_STOCK:-} mp e line goal limit
    local -A instr allocs ns ratio says cost build extra
    local overhead_text="" overhead_verdicts=()
    mpy_tasks=${BENCH_MPY_TASKS:-20}
    mpy_switches=${BENCH_MPY_SWITCHES:-2000}
    mpy_cg=${BENCH_MPY_CG:-500}
    mpy_cpu=${BENCH_MPY_CPU:-5000}
    if [ -z "$fw" ] && [ -z "$stock" ]; then
        skip "MicroPython engines" "set AIOPROF_MICROPYTHON and AIOPROF_MICROPYTHON_STOCK to unix-port builds (docs/micropython.md)"
        for e in firmware python overhead; do i26_why "$e" "no MicroPython builds (AIOPROF_MICROPYTHON, AIOPROF_MICROPYTHON_STOCK)"; done
        say ""
        return
    fi
    if ! command -v valgrind > /dev/null; then
        skip "MicroPython engines" "valgrind is not installed (apt-get install valgrind)"
        for e in firmware python overhead; do i26_why "$e" "valgrind is not installed"; done
        say ""
        return
    fi
    export MICROPYPATH="$src/device/micropython:${AIOPROF_NATIVE_DIR:-$src/device/micropython}:.frozen"
    local capture=$tmp/mpy-capture
    mkdir -p "$capture"
    # the firmware engine against its own build without the hook; the others against the stock one
    local mpy_runs=()
    [ -n "$fw" ] && mpy_runs+=("$fw:none:firmware-none" "$fw:firmware:firmware")
    # the firmware engine as a user has it (issue 26): enable()'s defaults (the drain task), against
    # the firmware that never imported aioprof.py (its names cost every qstr lookup: docs/micropython.md)
    [ -n "$fw" ] && mpy_runs+=("$fw:bare:firmware-bare" "$fw:firmware-user:firmware-user")
    # memory (docs/micropython.md, "Memory"): the firmware engine with it on (the default, above)
    # and off (compiled in, enable(memory=False)), against a build without it
    # (AIOPROF_MICROPYTHON_NOALLOC: the C module built with AIOPROF_ALLOC=0), when that is named
    local noalloc=${AIOPROF_MICROPYTHON_NOALLOC:-}
    [ -n "$fw" ] && mpy_runs+=("$fw:firmware-nomem:firmware-nomem")
    [ -n "$noalloc" ] && mpy_runs+=("$noalloc:firmware:firmware-noalloc")
    [ -n "$stock" ] && mpy_runs+=("$stock:none:none" "$stock:native:native" "$stock:python:python")
    for line in "${mpy_runs[@]}"; do
        IFS=: read -r mp e label <<< "$line"
        build[$label]=$mp
        local got="" why=""
        read -r got why < <(mpy_cost "$mp" "$e")
        if [ -n "$got" ] && [ "$got" != fail ]; then
            instr[$label]=$got allocs[$label]=$why
        else
            say "  $label: callgrind gave no count: $(tail -n 1 "$why" 2> /dev/null) (see $why)"
        fi
    done
    # times: one process per build, the engines interleaved in it
    local engines
    for mp in $fw $stock; do
        engines="native python"
        [ "$mp" = "$fw" ] && engines=firmware
        while read -r what e rest; do
            case $what in
                engine)
                    label=$e
                    [ "$mp" = "$fw" ] && [ "$e" = none ] && label=firmware-none
                    ns[$label]=$(echo "$rest" | awk '{ print $2 }')
                    ratio[$label]=$(echo "$rest" | awk '{ print $6 }')
                    ;;
                capture)
                    read -r says[$e] cost[$e] < <(mpy_device_says "$(echo "$rest" | awk '{ print $1 }')")
                    ;;
            esac
        done < <("$mp" "$bench_dir/mpy_overhead.py" time "$mpy_tasks" "$mpy_switches" "$runs" "$capture" $engines \
                 2> "$tmp/mpy.err")
    done

    say "MicroPython: what each engine adds per asyncio task switch (unix port, tests/bench/mpy_overhead.py:"
    say "$mpy_tasks tasks awaiting sleep_ms(0); instructions under callgrind, $((mpy_cg * 3)) and $mpy_cg switches per task,"
    say "without the allocator's search; ns the median of $runs interleaved rounds, 'extra' the median of the"
    say "rounds' ratios times none's median; 'device says': from aioprof-top's report of a captured run, two"
    say "events at the cost the engine measured at enable() and the drain's share, per switch):"
    printf '  %-14s %13s %9s %14s %9s %9s %9s %12s %11s\n' engine "instr/switch" "vs none" "allocs/switch" "ns" "vs none" \
        "extra ns" "device says" "ns/event"
    for label in firmware-none firmware firmware-bare firmware-user firmware-nomem firmware-noalloc none native python; do
        [ -n "${build[$label]:-}" ] || continue
        local base=none
        [ "$label" = firmware ] && base=firmware-none
        [ "$label" = firmware-user ] && base=firmware-bare
        [ "$label" = firmware-nomem ] || [ "$label" = firmware-noalloc ] && base=firmware-none
        local iv="" tv=""
        if [ "$label" != none ] && [ "$label" != firmware-none ] && [ "$label" != firmware-bare ] &&
            [ -n "${instr[$label]:-}" ] && [ -n "${instr[$base]:-}" ]; then
            iv=$(awk -v a="${instr[$label]}" -v b="${instr[$base]}" 'BEGIN { printf "%+.1f %%", (a / b - 1) * 100 }')
        fi
        [ "$label" != none ] && [ "$label" != firmware-none ] && [ -n "${ratio[$label]:-}" ] &&
            tv=$(awk -v r="${ratio[$label]}" 'BEGIN { printf "%+.1f %%", r * 100 }')
        local xv=""
        [ -n "$tv" ] && [ -n "${ns[$base]:-}" ] && extra[$label]=$(awk -v r="${ratio[$label]}" -v n="${ns[$base]}" 'BEGIN { printf "%.1f", r * n }') &&
            xv=${extra[$label]}
        printf '  %-14s %13s %9s %14s %9s %9s %9s %12s %11s\n' "$label" "${instr[$label]:-?}" "$iv" "${allocs[$label]:-?}" \
            "${ns[$label]:-?}" "$tv" "$xv" "${says[$label]:-}" "${cost[$label]:-}"
    done
    say "  (firmware-none: the build with the C module, hook off: the firmware engine's baseline;"
    say "  firmware-bare: the same without aioprof.py imported; firmware-user: the firmware engine with"
    say "  enable()'s defaults, the drain task too, aioprof.py from the filesystem, against firmware-bare;"
    say "  firmware-nomem: memory compiled in, enable(memory=False); firmware-noalloc: the C module built"
    say "  with AIOPROF_ALLOC=0, AIOPROF_MICROPYTHON_NOALLOC)"
    # memory's own cost: per switch, instructions, against the build without it
    if [ -n "${instr[firmware-noalloc]:-}" ]; then
        local on off
        [ -n "${instr[firmware]:-}" ] &&
            on=$(awk -v a="${instr[firmware]}" -v b="${instr[firmware-noalloc]}" 'BEGIN { printf "%.1f", (a / b - 1) * 100 }')
        [ -n "${instr[firmware-nomem]:-}" ] &&
            off=$(awk -v a="${instr[firmware-nomem]}" -v b="${instr[firmware-noalloc]}" 'BEGIN { printf "%.1f", (a / b - 1) * 100 }')
        summary_row "MicroPython firmware engine, memory compiled in but off, over the build without it (instructions)" \
            "<= 3 %" "${off:-?} %" "$(verdict "${off:-}" '<=' 3)"
        summary_row "MicroPython firmware engine, memory on, over the build without it (instructions)" \
            "<= 5 %" "${on:-?} %" "$(verdict "${on:-}" '<=' 5)"
    else
        say "  (memory's cost against a build without it: set AIOPROF_MICROPYTHON_NOALLOC)"
    fi
    for label in firmware native python; do
        [ -n "${build[$label]:-}" ] || continue
        case $label in firmware) limit=3 ;; native) limit=10 ;; python) limit=60 ;; esac
        local base=none
        [ "$label" = firmware ] && base=firmware-none
        local pct="" tpct=""
        [ -n "${instr[$label]:-}" ] && [ -n "${instr[$base]:-}" ] &&
            pct=$(awk -v a="${instr[$label]}" -v b="${instr[$base]}" 'BEGIN { printf "%.1f", (a / b - 1) * 100 }')
        [ -n "${ratio[$label]:-}" ] && tpct=$(awk -v r="${ratio[$label]}" 'BEGIN { printf "%.1f", r * 100 }')
        summary_row "MicroPython $label engine, overhead per task switch (instructions; time)" "<= $limit %" \
            "${pct:-?} %; ${tpct:-?} %" "$(verdict "$pct" '<=' "$limit")"
        [ "$label" = python ] && i26_row python "${pct:-?} %; ${tpct:-?} %" \
            "$(mpy_all_met "$(verdict "$pct" '<=' 60)" "$(verdict "$tpct" '<=' 60)")"
        if [ "$label" = firmware ]; then
            local upct=""
            [ -n "${instr[firmware-user]:-}" ] && [ -n "${instr[firmware-bare]:-}" ] &&
                upct=$(awk -v a="${instr[firmware-user]}" -v b="${instr[firmware-bare]}" 'BEGIN { printf "%.1f", (a / b - 1) * 100 }')
            summary_row "MicroPython firmware engine as a user has it (enable()'s defaults, aioprof.py from the filesystem; instructions)" \
                "<= 3 %" "${upct:-?} %" "$(verdict "$upct" '<=' 3)"
            i26_row firmware "${pct:-?} %; ${tpct:-?} %; ${upct:-?} %" "$(mpy_all_met "$(verdict "$pct" '<=' 3)" \
                "$(verdict "$tpct" '<=' 3)" "$(verdict "$upct" '<=' 3)")"
        fi
        local within says_c extra_c base_c rel ok ins=""
        within="within $(awk -v t="$MPY_TOLERANCE" 'BEGIN { printf "%d", t * 100 }') %"
        read -r says_c extra_c base_c < <(mpy_calibrate "${build[$label]}" "$label" "${build[$base]}" none)
        # the instruction counts' view of the same extra: their ratio times the base's CPU time
        [ -n "${instr[$label]:-}" ] && [ -n "${instr[$base]:-}" ] && [ -n "$base_c" ] &&
            ins=$(awk -v a="${instr[$label]}" -v b="${instr[$base]}" -v n="$base_c" 'BEGIN { printf "%.1f", (a / b - 1) * n }')
        if [ -n "$says_c" ] && [ -n "$extra_c" ]; then
            rel=$(awk -v d="$says_c" -v m="$extra_c" 'BEGIN { if (m > 0) printf "%+.2f", d / m - 1 }')
            ok=$(awk -v r="$rel" -v t="$MPY_TOLERANCE" 'BEGIN { if (r == "") print "?"; else print (r <= t && r >= -t) ? "met" : "NOT met" }')
            say "  $label: the device says $says_c ns a switch (least of $runs captures); the extra CPU time is $extra_c ns" \
                "(least of $runs rounds each, on $base_c ns)${ins:+; the ratio of instructions gives $ins ns}; ${rel:-?}"
            summary_row "MicroPython $label engine, what the device says per switch against the measured (CPU time)" "$within" \
                "$says_c ns against $extra_c ns (${rel:-?})" "$ok"
            overhead_text+="${overhead_text:+, }$label ${rel:-?}"
            overhead_verdicts+=("$ok")
        else
            say "  $label: the calibration runs failed (see $tmp/mpy.err)"
            summary_row "MicroPython $label engine, what the device says per switch against the measured (CPU time)" "$within" "?" "?"
            overhead_text+="${overhead_text:+, }$label ?"
            overhead_verdicts+=("?")
        fi
    done
    # the deterministic board's figures, when its firmwares are named, are the row's (the CPU time
    # above is noise-level on a loaded host: docs/usage.md "The overhead in the header")
    if ! mpy_qemu_overhead && [ -n "$overhead_text" ]; then
        i26_row overhead "$overhead_text (unix CPU time)" "$(mpy_all_met "${overhead_verdicts[@]}")"
    fi
    [ -n "$fw" ] || i26_why firmware "no firmware build (AIOPROF_MICROPYTHON)"
    [ -n "$stock" ] || i26_why python "no stock build (AIOPROF_MICROPYTHON_STOCK)"
    mpy_spans "$fw" "$stock"
    say ""
}

# mpy_spans FIRMWARE STOCK: what a span pair costs inside a task per engine (mpy_span_cost.py: the
# median of rounds against the same loop without it; issue 24's goal, python engine: < 2 us).
mpy_spans() {
    local fw=$1 stock=$2 line mp e ns=""
    say "MicroPython: what a span pair (with aioprof.span(\"x\"): pass) costs inside a task (tests/bench/mpy_span_cost.py):"
    for line in "${fw:+$fw:firmware}" "${stock:+$stock:native}" "${stock:+$stock:python}"; do
        [ -n "$line" ] || continue
        IFS=: read -r mp e <<< "$line"
        [ "$e" = native ] && [ -z "${AIOPROF_NATIVE_DIR:-}" ] && continue
        local out
        out=$("$mp" "$bench_dir/mpy_span_cost.py" "$e" 20000 "$runs" 2>&1 | tail -n 1)
        say "  $out"
        [ "$e" = python ] && ns=$(echo "$out" | awk '$2 ~ /^[0-9]+$/ { print $2 }')
    done
    [ -n "$stock" ] && summary_row "MicroPython python engine, a span pair inside a task" "< 2000 ns" "${ns:-?} ns" \
        "$(verdict "$ns" '<' 2000)"
}
