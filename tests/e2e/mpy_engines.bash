# The unix-port engines a test runs a program in, sourced by mpy_seed_unix.sh and mpy_spans_unix.sh
# after they set `name` (the test's name, for the skip line). Reads AIOPROF_MICROPYTHON (firmware
# engine), AIOPROF_MICROPYTHON_STOCK (python engine; native too with AIOPROF_NATIVE_DIR) and
# AIOPROF_TOP; skips (exit 77) without any binary. Sets src, top, out (a folder removed at exit),
# here (tests/micropython), MICROPYPATH, and runs: "engine:binary" for each engine to run.
src=${AIOPROF_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
top=${AIOPROF_TOP:?AIOPROF_TOP must name the aioprof-top binary}
fw=${AIOPROF_MICROPYTHON:-}
stock=${AIOPROF_MICROPYTHON_STOCK:-}
if [ -z "$fw" ] && [ -z "$stock" ]; then
    echo "$name: SKIPPED: set AIOPROF_MICROPYTHON and/or AIOPROF_MICROPYTHON_STOCK (docs/micropython.md)"
    exit 77
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
here="$src/tests/micropython"
export MICROPYPATH="$src/device/micropython:$here:${AIOPROF_NATIVE_DIR:-$here}:.frozen"
runs=()
[ -n "$fw" ] && runs+=("firmware:$fw")
if [ -n "$stock" ]; then
    [ -n "${AIOPROF_NATIVE_DIR:-}" ] && runs+=("native:$stock")
    runs+=("python:$stock")
fi
