#!/usr/bin/env bash
# The man pages are the reference: their options must be those of --help, of the programs' own
# option tables and of the bash and zsh completions, for aioprof-top and aioprof-sim alike, and
# every environment variable the programs read must be in them (tests/e2e/pkg_docs.py says how).
set -euo pipefail
: "${AIOPROF_TOP:?set AIOPROF_TOP to the aioprof-top binary}"
: "${AIOPROF_SIM:?set AIOPROF_SIM to the aioprof-sim binary}"
src=${AIOPROF_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
command -v python3 > /dev/null || { echo "SKIP: python3 is not installed" >&2; exit 77; }
# the zsh completion is only read, not run, when zsh is missing; its syntax is checked when not
if command -v zsh > /dev/null; then
    for f in "$src"/completions/zsh/_*; do
        zsh -n "$f" || { echo "FAIL: $f is not valid zsh" >&2; exit 1; }
    done
fi
for f in "$src"/completions/bash/*; do
    bash -n "$f" || { echo "FAIL: $f is not valid bash" >&2; exit 1; }
done
exec python3 "$src/tests/e2e/pkg_docs.py" "$src" "$(dirname "$AIOPROF_TOP")" "$(dirname "$AIOPROF_SIM")"
