#!/usr/bin/env bash
# The firmware's qstr pool holds aioprof.py's names (modaioprof_names.c, aioprof_py_names): importing
# aioprof.py from the filesystem and enable() with its defaults intern none of them, so that no
# qstr pool is added that every lookup of the firmware's own names would walk (docs/micropython.md,
# "Overhead"). Only what C cannot name is allowed: the file's path and the strings that are not
# identifiers. A name aioprof.py gains fails here, with the line to add. Needs
#   AIOPROF_MICROPYTHON  a unix build with this branch's C module
# Skips (exit 77) without it, or when the build has no micropython.qstr_info.
set -u
src=${AIOPROF_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
mp=${AIOPROF_MICROPYTHON:-}
if [ -z "$mp" ]; then
    echo "mpy_qstrs_unix: SKIPPED: set AIOPROF_MICROPYTHON to a unix build with the C module (docs/micropython.md)"
    exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export MICROPYPATH="$src/device/micropython:.frozen"
if ! "$mp" "$src/tests/micropython/qstrs_new.py" > "$tmp/out" 2> "$tmp/err"; then
    if grep -q "qstr_info" "$tmp/err"; then
        echo "mpy_qstrs_unix: SKIPPED: this build has no micropython.qstr_info"
        exit 77
    fi
    echo "FAIL mpy_qstrs_unix: the script failed:"; cat "$tmp/err"; exit 1
fi
python3 - "$tmp/out" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
if "\n----\n" not in text:
    sys.exit("FAIL mpy_qstrs_unix: no marker in the script's output")
before, after = text.split("\n----\n", 1)
names = lambda t: re.findall(r"^Q\((.*)\)$", t, re.M)
old = set(names(before))
new = [q for q in names(after) if q not in old and q != "----"]
missing = [q for q in new if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", q)]
if not names(before):
    sys.exit("FAIL mpy_qstrs_unix: qstr_info listed nothing")
if missing:
    print("FAIL mpy_qstrs_unix: aioprof.py interns %d names the firmware's pool lacks; add to "
          "aioprof_py_names in device/micropython/modaioprof_names.c:" % len(missing))
    print("    " + " ".join("MP_QSTR_%s," % q for q in sorted(missing)))
    sys.exit(1)
print("mpy_qstrs_unix: ok (interned only what C cannot name: %s)" % ", ".join(repr(q) for q in new))
PY
