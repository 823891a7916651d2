#!/usr/bin/env python3
"""The man pages, --help, the programs' option tables and the shell completions must agree.

For aioprof-top and aioprof-sim, the options (short letter, long name, whether it takes a value)
are read four ways and compared: from `PROG --help`, from the OPTIONS section of
docs/man/PROG.1.in, from the getopt_long table in the program's source (what it really accepts),
and from the bash completion (run in bash) and the zsh one (read). Also: every environment
variable the program reads (getenv) is in the man page's ENVIRONMENT; the pages render without a
warning; the values the completions offer (--sort keys, workloads...) are all accepted by the
program, and every value the program lists is offered.

Usage: pkg_docs.py SRC_DIR PROGRAM_DIR... (the folders of the built aioprof-top and aioprof-sim)
Prints what disagrees, and exits 1 if anything does.
"""
import glob
import os
import re
import shutil
import subprocess
import sys

SRC = sys.argv[1]
PROGRAM_DIRS = sys.argv[2:]

PROGRAMS = {
    "aioprof-top": {
        "options_c": "host/options.c",
        "sources": "host/**/*.c",
        # option -> (the program's own word list: command printing it, regexp that finds the line)
        "values": {
            "--sort": ("aioprof-top", ["--sort", "?"], r"--sort.*"),
            "--workload": ("aioprof-sim", ["--help"], r"--workload NAME.*"),
        },
        # options whose every value the man page names (aioprof-top's refers to aioprof-sim's)
        "man_values": ["--sort"],
    },
    "aioprof-sim": {
        "options_c": "device/sim/sim_options.c",
        "sources": "device/sim/*.c",
        "values": {
            "--workload": ("aioprof-sim", ["--help"], r"--workload NAME.*"),
            "--clock": ("aioprof-sim", ["--help"], r"--clock MODE.*"),
            "--tick-bits": ("aioprof-sim", ["--help"], r"--tick-bits \S+"),
        },
        "man_values": ["--workload", "--clock", "--tick-bits"],
    },
}

problems = []


def problem(text):
    problems.append(text)
    print("FAIL: " + text, file=sys.stderr)


def program(name):
    for d in PROGRAM_DIRS:
        p = os.path.join(d, name)
        if os.access(p, os.X_OK):
            return p
    sys.exit(f"pkg_docs: {name} is not in {PROGRAM_DIRS}")


def run(argv, **kw):
    return subprocess.run(argv, capture_output=True, text=True, timeout=60, **kw)


def fmt(opts):
    return ", ".join(sorted(f"{s + '/' if s else ''}{l}{' ARG' if a else ''}" for s, l, a in opts))


def help_options(text):
    """Option lines of --help: '  -b, --baud RATE  ...' or '      --list  ...'."""
    opts = set()
    for line in text.splitlines():
        m = re.match(r"^ {2,}(?:-(\w), )?(--[a-z][a-z0-9-]*)(?:[ =]([A-Z0-9|]\S*))?", line)
        if m:
            opts.add((m.group(1) and "-" + m.group(1), m.group(2), m.group(3) is not None))
    return opts


def man_sections(text):
    """{section name: its lines} of a man(7) source."""
    sections, name = {}, None
    for line in text.splitlines():
        m = re.match(r'^\.SH\s+"?([^"]*)"?\s*$', line)
        if m:
            name = m.group(1).strip()
            sections[name] = []
        elif name is not None:
            sections[name].append(line)
    return sections


def man_options(lines):
    """The tag line of every .TP in OPTIONS that names an option: \\fB\\-b\\fR, \\fB\\-\\-baud\\fR \\fIRATE\\fR."""
    opts = set()
    for i, line in enumerate(lines[:-1]):
        if line.strip() != ".TP":
            continue
        tag = lines[i + 1]
        names = re.findall(r"\\fB(\\-(?:\\-)?[A-Za-z0-9](?:[a-z0-9]|\\-)*)\\fR", tag)
        names = [n.replace("\\-", "-") for n in names]
        longs = [n for n in names if n.startswith("--")]
        shorts = [n for n in names if not n.startswith("--")]
        if not longs:
            continue
        rest = re.sub(r"\\fB\\-[^\\]*(?:\\-[^\\]*)*\\fR", "", tag)
        takes = re.sub(r"[\s,]", "", rest) != ""
        opts.add((shorts[0] if shorts else None, longs[0], takes))
    return opts


def source_options(path):
    """The long_options[] table and the getopt string of the program's source."""
    text = open(path).read()
    table = re.search(r"struct option long_options\[\]\s*=\s*\{(.*?)\n\};", text, re.S)
    getopt = re.search(r'getopt_long\([^"]*"([^"]*)"', text)
    if table is None or getopt is None:
        problem(f"{path}: no long_options[] table or getopt_long string found; "
                "tests/e2e/pkg_docs.py reads the options from them")
        return set()
    shorts_with_value = set(re.findall(r"(\w):", getopt.group(1)))
    opts = set()
    for name, arg, val in re.findall(r'\{"([^"]+)",\s*(\w+),\s*\w+,\s*([^}]+?)\s*\}', table.group(1)):
        short = re.fullmatch(r"'(\w)'", val)
        s = "-" + short.group(1) if short else None
        takes = arg != "no_argument"
        if s and (short.group(1) in shorts_with_value) != takes:
            problem(f"{path}: -{short.group(1)} and --{name} disagree on taking a value")
        opts.add((s, "--" + name, takes))
    return opts


def bash_complete(script, func, words):
    """COMPREPLY of a bash completion function for the command line `words` (the last is
    completed). Runs bash without any startup file."""
    cmd = ('source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 )); '
           'COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}; ' + func + ' "$1" "${COMP_WORDS[-1]}" '
           '"${COMP_WORDS[-2]}"; printf "%s\\n" "${COMPREPLY[@]}"')
    r = run(["bash", "--norc", "--noprofile", "-c", cmd, "bash", script] + words)
    if r.returncode != 0:
        problem(f"{script}: completing {' '.join(words)!r} failed: {r.stderr.strip()}")
    return set(w for w in r.stdout.splitlines() if w)


def zsh_specs(text):
    """{option: takes a value, value words or None} from the _arguments specs of a zsh completion."""
    specs = {}
    for line in text.splitlines():
        line = line.strip()
        if not line.startswith("'"):
            continue
        m = re.match(r"'(?:\([^)]*\))?'?(\{[^}]*\}|--?[A-Za-z0-9][a-z0-9-]*[=+]?)", line)
        if not m:
            continue
        names = m.group(1).strip("{}").split(",")
        words = re.search(r":[^:']*:\(([^)]*)\)'", line)
        for n in names:
            takes = n.endswith(("=", "+"))
            specs[n.rstrip("=+")] = (takes, words.group(1).split() if words else None)
    return specs


def check_program(name, cfg):
    exe = program(name)
    r = run([exe, "--help"])
    if r.returncode != 0:
        problem(f"{name} --help exited {r.returncode}")
    from_help = help_options(r.stdout)
    man_path = os.path.join(SRC, "docs/man", name + ".1.in")
    if not os.path.isfile(man_path):
        problem(f"{name} has no man page: {man_path}")
        return
    sections = man_sections(open(man_path).read())
    from_man = man_options(sections.get("OPTIONS", []))
    from_source = source_options(os.path.join(SRC, cfg["options_c"]))
    if not from_help or not from_man:
        problem(f"{name}: no options found in --help ({len(from_help)}) or in {man_path} ({len(from_man)})")
    for label, opts in (("--help", from_help), ("the man page", from_man)):
        if opts != from_source:
            problem(f"{name}: {label} and the program's option table disagree:\n"
                    f"  only in {label}: {fmt(opts - from_source) or '-'}\n"
                    f"  only in the program: {fmt(from_source - opts) or '-'}")
    if from_help != from_man:
        problem(f"{name}: --help and the man page disagree:\n"
                f"  only in --help: {fmt(from_help - from_man) or '-'}\n"
                f"  only in the man page: {fmt(from_man - from_help) or '-'}")

    # every environment variable the program reads is documented
    env_text = "\n".join(sections.get("ENVIRONMENT", []))
    for src in glob.glob(os.path.join(SRC, cfg["sources"]), recursive=True):
        for var in re.findall(r'getenv\("([A-Z_]+)"\)', open(src).read()):
            if not re.search(r"(^|[\s\"])" + var + r"(\s|$|\")", env_text, re.M):
                problem(f"{name}: {os.path.relpath(src, SRC)} reads ${var}, which the man page's "
                        "ENVIRONMENT does not describe")
    for section in ("NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "EXIT STATUS", "ENVIRONMENT", "SEE ALSO"):
        if section not in sections:
            problem(f"{name}: the man page has no {section} section")

    # the page renders cleanly
    r = run(["groff", "-man", "-ww", "-z", man_path]) if shutil.which("groff") else None
    if r is not None and (r.returncode != 0 or r.stderr.strip()):
        problem(f"{name}: groff warns about {man_path}: {r.stderr.strip()}")

    # bash completion: the options it offers are those of --help
    every = {o for s, l, _ in from_help for o in (s, l) if o}
    bash_file = os.path.join(SRC, "completions/bash", name)
    func = "_" + name.replace("-", "_")
    offered = bash_complete(bash_file, func, [name, "-"])
    if offered != every:
        problem(f"{name}: the bash completion offers other options than --help:\n"
                f"  only offered: {' '.join(sorted(offered - every)) or '-'}\n"
                f"  not offered: {' '.join(sorted(every - offered)) or '-'}")
    # zsh completion: the same options, with and without a value as --help says
    zsh_file = os.path.join(SRC, "completions/zsh", "_" + name)
    specs = zsh_specs(open(zsh_file).read())
    zsh_opts = set(specs)
    if zsh_opts != every:
        problem(f"{name}: the zsh completion offers other options than --help:\n"
                f"  only offered: {' '.join(sorted(zsh_opts - every)) or '-'}\n"
                f"  not offered: {' '.join(sorted(every - zsh_opts)) or '-'}")
    for s, l, takes in from_help:
        for o in (s, l):
            if o in specs and specs[o][0] != takes:
                problem(f"{name}: the zsh completion says {o} {'takes no' if takes else 'takes a'} value")

    # the values offered for an option are exactly the ones the program knows
    for opt, (lister, argv, pattern) in cfg["values"].items():
        words = bash_complete(bash_file, func, [name, opt, ""])
        r = run([program(lister)] + argv)
        m = re.search(pattern, r.stdout + r.stderr)
        listed = set(re.findall(r"[a-z0-9]+", m.group(0))) if m else set()
        # what the program really accepts, from the words its own text lists
        checker = program("aioprof-sim") if opt == "--workload" else exe
        flag = "-w" if opt == "--workload" else opt
        known = {w for w in listed if run([checker, flag, w, "--version"]).returncode == 0}
        if not known:
            problem(f"{name} {opt}: found no accepted value in {lister} {' '.join(argv)}")
        bad = {w for w in words if run([checker, flag, w, "--version"]).returncode != 0}
        if bad:
            problem(f"{name}: the bash completion offers {opt} values the program refuses: {sorted(bad)}")
        if known - words:
            problem(f"{name}: the bash completion does not offer {opt} {sorted(known - words)}")
        if opt in cfg["man_values"]:
            options_text = "\n".join(sections["OPTIONS"])
            missing = {w for w in known if not re.search(r"\\fB" + w + r"\\fR|^\.BR? " + w + r"\b", options_text, re.M)}
            if missing:
                problem(f"{name}: the man page does not name the {opt} values {sorted(missing)}")
        zsh_words = specs.get(opt, (True, None))[1]
        if zsh_words is not None and set(zsh_words) != words:
            problem(f"{name}: bash and zsh offer different {opt} values: {sorted(words)} / {sorted(zsh_words)}")


for name, cfg in PROGRAMS.items():
    check_program(name, cfg)
if problems:
    sys.exit(1)
print("pkg_docs: --help, the man pages, the option tables and the completions agree")
