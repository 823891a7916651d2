#!/usr/bin/env bash
# The simulator's spans workload: the spans its capture carries, read by the rules of
# docs/protocol.md and docs/usage.md ("Spans", spans_truth.py), are exactly its truth's (nested,
# across awaits, closed by a task that raised or was cancelled inside one), on the virtual clock and
# on the real one.
set -euo pipefail
: "${AIOPROF_SIM:?AIOPROF_SIM must name the aioprof-sim binary}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
here=$(cd "$(dirname "$0")" && pwd)
"$AIOPROF_SIM" -w spans --clock virtual --duration 10 -o "$tmp/v.bin" --truth "$tmp/v.json" -q
python3 "$here/spans_truth.py" "$tmp/v.bin" "$tmp/v.json"
"$AIOPROF_SIM" -w spans --duration 1 -o "$tmp/r.bin" --truth "$tmp/r.json" -q
python3 "$here/spans_truth.py" "$tmp/r.bin" "$tmp/r.json"
echo "sim_spans_truth: ok"
