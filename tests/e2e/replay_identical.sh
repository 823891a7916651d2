#!/usr/bin/env bash
# The existing captures and recordings read as they always did: the replay corpus (every simulator
# workload, drops, damage, resets, wraps, clock steps back, repeats, silences, recordings with
# gaps, the golden vectors' streams) gives the same reports, JSON and trace export as the code that
# made it, and still holds against the simulator's truth (tests/e2e/replay_identical.py).
source "$(dirname "$0")/truth_common.bash"
python3 "$here/replay_identical.py" "$TOP" "$here/../replay/corpus" "$tmp" || status=1
exit $status
