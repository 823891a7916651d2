# Sourced by the tests that compare aioprof-top with the simulator's ground truth (truth_*.sh,
# trace_*.sh): where the programs are, a scratch directory removed at exit, and the capture step.
# Each test sets status=1 on a failure and ends with `exit $status`.
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=${AIOPROF_TOP:-${AIOPROF_BUILD:-build}/host/aioprof-top}
SIM=${AIOPROF_SIM:-${AIOPROF_BUILD:-build}/device/sim/aioprof-sim}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0

# truth_capture NAME SIM_ARGS...: the simulator's bytes in $tmp/NAME.aiop and its truth in
# $tmp/NAME.truth.json. Returns 1 (and says so, and sets status) when the simulator fails.
truth_capture() {
    local name=$1
    shift
    if ! "$SIM" "$@" -q -o "$tmp/$name.aiop" --truth "$tmp/$name.truth.json"; then
        echo "FAIL $name: the simulator failed"
        status=1
        return 1
    fi
}
