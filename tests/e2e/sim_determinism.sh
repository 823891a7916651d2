#!/usr/bin/env bash
# The simulator is deterministic with the virtual clock: one seed, one byte stream, one truth;
# another seed, another stream. The end-to-end tests of aioprof-top rely on both.
set -euo pipefail
: "${AIOPROF_SIM:?AIOPROF_SIM must name the aioprof-sim binary}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for w in seed instances busy nested; do
    args=(-w "$w" --duration 5 --clock virtual --text 25 --hostile-text -q)
    "$AIOPROF_SIM" "${args[@]}" --seed 11 -o "$tmp/a.bin" --truth "$tmp/a.json"
    "$AIOPROF_SIM" "${args[@]}" --seed 11 -o "$tmp/b.bin" --truth "$tmp/b.json"
    # stdout and -o must carry the same bytes
    "$AIOPROF_SIM" "${args[@]}" --seed 11 > "$tmp/c.bin"
    [ -s "$tmp/a.bin" ] || { echo "$w: empty output"; exit 1; }
    cmp "$tmp/a.bin" "$tmp/b.bin" || { echo "$w: same seed, different bytes"; exit 1; }
    cmp "$tmp/a.bin" "$tmp/c.bin" || { echo "$w: stdout differs from -o"; exit 1; }
    cmp "$tmp/a.json" "$tmp/b.json" || { echo "$w: same seed, different truth"; exit 1; }
    if [ "$w" != seed ]; then
        # the seed workload is the fixed example from the discussion; the others are randomised
        "$AIOPROF_SIM" "${args[@]}" --seed 12 -o "$tmp/d.bin"
        if cmp -s "$tmp/a.bin" "$tmp/d.bin"; then
            echo "$w: seeds 11 and 12 gave the same bytes"; exit 1
        fi
    fi
    echo "$w: deterministic ($(stat -c %s "$tmp/a.bin") bytes)"
done
