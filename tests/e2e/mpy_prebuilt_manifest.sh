#!/usr/bin/env bash
# The prebuilt native modules (device/micropython/mpy/) against their manifest and the sources they
# were built from, and that the check fails on damaged copies (tests/mpy/check_prebuilt.py). Needs no
# MicroPython: runs in CI. When it fails after a change to device/ or proto/: make mpy MPY_SRC=...
set -u
src=${AIOPROF_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
exec python3 "$src/tests/mpy/check_prebuilt.py" "$src"
