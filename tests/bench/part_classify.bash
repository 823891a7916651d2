# shellcheck shell=bash disable=SC2154  # the knobs and paths come from run.sh and bench_lib.bash
# Part "classify" of tests/bench/run.sh: how well the reader tells damaged frames from device text.
# Every frame of every workload (20 device seconds, 30- and 32-bit ticks) and of an idle device,
# damaged at every byte four ways; device text with and without control bytes (docs/protocol.md
# section 1; tests/bench/bench_classify.c says how it counts).

part_classify() {
    local classify=$build/tests/bench/bench_classify w bits captures=()
    say "reader: damaged frames against device text"
    if ! have "$classify" || ! have "$sim"; then
        skip "classify" "$classify or $sim is not built"
        say ""
        return
    fi
    for w in $(sim_workloads); do
        for bits in 30 32; do
            "$sim" -w "$w" --clock virtual --duration 20 --tick-bits "$bits" -q -o "$tmp/c-$w-$bits.aiop" 2> /dev/null \
                && captures+=("$tmp/c-$w-$bits.aiop")
        done
    done
    if [ "${#captures[@]}" -eq 0 ]; then
        skip "classify" "the simulator made no captures"
    else
        "$classify" "${captures[@]}" | sed -e "s|$tmp/c-||" -e 's|\.aiop||' -e 's/^/  /'
    fi
    say ""
}
