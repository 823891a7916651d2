#!/usr/bin/env bash
# The installed program, not the build tree's: `cmake --install` into a temporary prefix, then
# drive what landed there with nothing pointing back at the build (no AIOPROF_SIM, a PATH of the
# system's folders): --version, --demo finding its own simulator (also after the whole prefix is
# moved, and through PATH when it is not beside), the man pages through man, the completions
# valid and working, the docs. Then DESTDIR: everything under it, nothing at the real prefix.
# man and zsh checks are skipped where those are missing, except in CI (.ci/run installs them).
set -euo pipefail
source "$(dirname "$0")/io_common.bash"
: "${AIOPROF_BUILD:?set AIOPROF_BUILD to the build tree}"

in_ci() { [ -n "${CI:-}" ] && [ "$CI" != false ] && [ "$CI" != 0 ]; }
# have TOOL: whether it is there; a missing one fails in CI, and is a note elsewhere
have() {
    command -v "$1" > /dev/null && return 0
    in_ci && fail "$1 is not installed, and CI must check it"
    echo "pkg_install: note: $1 is not installed; its checks are skipped"
    return 1
}
# installed ARGS...: runs a command with a clean environment, as a user who just installed it
installed() {
    env -i HOME="$WORK" PATH="${CLEAN_PATH:-/usr/bin:/bin}" LANG=C.UTF-8 "$@"
}

prefix=$WORK/prefix
cmake --install "$AIOPROF_BUILD" --prefix "$prefix" > "$WORK/install.log" 2>&1 \
    || fail "cmake --install failed: $(cat "$WORK/install.log")"
for f in bin/aioprof-top bin/aioprof-sim share/man/man1/aioprof-top.1.gz share/man/man1/aioprof-sim.1.gz \
         share/bash-completion/completions/aioprof-top share/bash-completion/completions/aioprof-sim \
         share/zsh/site-functions/_aioprof-top share/zsh/site-functions/_aioprof-sim \
         share/doc/aioprof-top/README.md share/doc/aioprof-top/copyright \
         share/doc/aioprof-top/docs/usage.md share/doc/aioprof-top/docs/micropython.md; do
    [ -s "$prefix/$f" ] || fail "the install has no $f: $(cat "$WORK/install.log")"
done
# the board's files: every one the manifest names (the python files, each prebuilt module) is
# there with its bytes, and the manifest beside them (docs/micropython.md, "Prebuilt native modules")
board=$prefix/share/aioprof-top/micropython
python3 - "$board" "$AIOPROF_SRC/device/micropython" <<'PY' || fail "the installed board files are not the source tree's (above)"
import hashlib, json, os, sys
board, src = sys.argv[1:]
digest = lambda p: hashlib.sha256(open(p, "rb").read()).hexdigest()
m = json.load(open(os.path.join(board, "mpy", "manifest.json")))
names = m["python"] + [mod["path"] for mod in m["modules"]] + ["mpy/manifest.json"]
bad = [n for n in names if not os.path.isfile(os.path.join(board, n)) or digest(os.path.join(board, n)) != digest(os.path.join(src, n))]
for n in bad:
    print("pkg_install: the installed %s is missing or differs from device/micropython/%s" % (n, n))
if len(m["modules"]) < 7:
    print("pkg_install: the installed manifest lists %d modules" % len(m["modules"]))
    bad.append("modules")
sys.exit(1 if bad else 0)
PY
[ ! -e "$board/mpy/build.py" ] || fail "build.py was installed with the board files"

# the README's links to docs/ work where it is installed
for link in $(grep -o '](docs/[a-z-]*\.md)' "$prefix/share/doc/aioprof-top/README.md" | tr -d '()]'); do
    [ -f "$prefix/share/doc/aioprof-top/$link" ] || fail "the installed README links to $link, which is not installed"
done
# nothing went anywhere else
outside=$(grep -v "^$prefix/" "$AIOPROF_BUILD/install_manifest.txt" || true)
[ -z "$outside" ] || fail "installed outside the prefix: $outside"

# --version says the build's version
for prog in aioprof-top aioprof-sim; do
    if [ "$prog" = aioprof-top ]; then want=$("$AIOPROF_TOP" --version); else want=$("$AIOPROF_SIM" --version); fi
    got=$(installed "$prefix/bin/$prog" --version) || fail "installed $prog --version exited $?"
    [ "$got" = "$want" ] || fail "installed $prog --version says '$got', the build '$want'"
done
version=$("$AIOPROF_TOP" --version)

# demo TOP SECONDS: the installed --demo; exit 0, and the simulator it ran named on stderr
demo() {
    local top=$1 seconds=$2 rc=0
    installed "$top" --demo --duration "$seconds" --report -v > "$WORK/report.txt" 2> "$WORK/err" || rc=$?
    [ "$rc" = 0 ] || fail "$top --demo exited $rc: $(cat "$WORK/err")"
}
# the hook closes its first frame after a second of device time: 3 s leave room for a slow start
demo "$prefix/bin/aioprof-top" 3
grep -qw slow "$WORK/report.txt" && grep -qw quicker "$WORK/report.txt" \
    || fail "the installed --demo: no 'slow' and 'quicker' rows: $(cat "$WORK/report.txt")"
grep -q "started $prefix/bin/aioprof-sim (pid" "$WORK/err" \
    || fail "the installed --demo did not run the installed simulator: $(cat "$WORK/err")"

# the whole prefix moved elsewhere: found relative to the program, not where it was installed
mv "$prefix" "$WORK/moved"
prefix=$WORK/moved
demo "$prefix/bin/aioprof-top" 1
grep -q "started $prefix/bin/aioprof-sim (pid" "$WORK/err" \
    || fail "after moving the prefix, --demo did not run the simulator beside it: $(cat "$WORK/err")"

# not beside it: PATH, the last resort; then nowhere: one sentence, exit 1
mkdir "$WORK/elsewhere" "$WORK/empty"
mv "$prefix/bin/aioprof-sim" "$WORK/elsewhere/"
CLEAN_PATH=$WORK/elsewhere demo "$prefix/bin/aioprof-top" 1
grep -q "started $WORK/elsewhere/aioprof-sim (pid" "$WORK/err" \
    || fail "--demo did not find the simulator through PATH: $(cat "$WORK/err")"
rc=0
CLEAN_PATH=$WORK/empty installed "$prefix/bin/aioprof-top" --demo --duration 1 --report > /dev/null 2> "$WORK/err" || rc=$?
[ "$rc" = 1 ] && grep -q "cannot find the simulator aioprof-sim" "$WORK/err" \
    || fail "no simulator anywhere: exit $rc, $(cat "$WORK/err")"
[ "$(wc -l < "$WORK/err")" = 1 ] || fail "no simulator anywhere: more than one line: $(cat "$WORK/err")"
mv "$WORK/elsewhere/aioprof-sim" "$prefix/bin/"

# the man pages, as man finds them: by -M, and from PATH (man-db looks in bin/../share/man)
if have man; then
    for page in aioprof-top aioprof-sim; do
        got=$(installed man -M "$prefix/share/man" -w "$page") || fail "man -w $page exited $?"
        [ "$got" = "$prefix/share/man/man1/$page.1.gz" ] || fail "man -w $page found '$got'"
        got=$(CLEAN_PATH=$prefix/bin:/usr/bin:/bin installed man -w "$page") || fail "man -w $page through PATH exited $?"
        [ "$got" = "$prefix/share/man/man1/$page.1.gz" ] || fail "man -w $page through PATH found '$got'"
        installed env MANPAGER=cat MANWIDTH=100 man -M "$prefix/share/man" "$page" > "$WORK/$page.txt" 2>&1 \
            || fail "man $page exited $?: $(cat "$WORK/$page.txt")"
        grep -q "${version}" "$WORK/$page.txt" || fail "man $page does not say the version ${version}"
        grep -q -- "--version" "$WORK/$page.txt" || fail "man $page has no --version: $(head "$WORK/$page.txt")"
    done
fi

# the completions: valid, and the installed bash one completes
for prog in aioprof-top aioprof-sim; do
    bash -n "$prefix/share/bash-completion/completions/$prog" || fail "the bash completion of $prog is not valid bash"
done
got=$(installed bash --norc --noprofile -c 'source "$1"; COMP_WORDS=(aioprof-top --rep); COMP_CWORD=1
    _aioprof_top; echo "${COMPREPLY[*]}"' bash "$prefix/share/bash-completion/completions/aioprof-top")
[ "$got" = "--replay --report" ] || fail "bash completes 'aioprof-top --rep' to '$got'"
if have zsh; then
    for prog in aioprof-top aioprof-sim; do
        zsh -n "$prefix/share/zsh/site-functions/_$prog" || fail "the zsh completion of $prog is not valid zsh"
    done
    # zsh finds it where it was installed (compinit reads #compdef)
    got=$(installed zsh -f -c 'fpath=("$1" $fpath); autoload -Uz compinit; compinit -u -D; echo ${_comps[aioprof-top]} ${_comps[aioprof-sim]}' \
        zsh "$prefix/share/zsh/site-functions")
    [ "$got" = "_aioprof-top _aioprof-sim" ] || fail "zsh's compinit did not pick up the completions: '$got'"
fi

# DESTDIR: staged under it, with the prefix's layout; nothing at the real prefix
real=/opt/aioprof-top-test-$$
DESTDIR=$WORK/staged cmake --install "$AIOPROF_BUILD" --prefix "$real" > "$WORK/install.log" 2>&1 \
    || fail "cmake --install with DESTDIR failed: $(cat "$WORK/install.log")"
[ ! -e "$real" ] || fail "DESTDIR was not honoured: $real exists"
for f in bin/aioprof-top bin/aioprof-sim share/man/man1/aioprof-top.1.gz share/doc/aioprof-top/copyright \
         share/aioprof-top/micropython/aioprof.py share/aioprof-top/micropython/mpy/manifest.json; do
    [ -s "$WORK/staged$real/$f" ] || fail "DESTDIR install has no $real/$f"
done
got=$(installed "$WORK/staged$real/bin/aioprof-top" --version) || fail "the staged aioprof-top --version exited $?"
[ "$got" = "$version" ] || fail "the staged aioprof-top says '$got'"

echo "pkg_install: all checks passed"
