#!/usr/bin/python3
"""The prebuilt native modules: builds device/micropython/mpy/<arch>/<mpy-version>/_aioprof_native.mpy
for every arch and .mpy sub-version in PLAN and writes manifest.json beside them; checks them.

  build.py build --mpy-src CLONE [--work DIR] [--jobs N]   (make mpy MPY_SRC=CLONE)
  build.py check [--top DIR]                               (the ctest e2e/mpy_prebuilt_manifest)
  build.py one --mpy-src CLONE --arch ARCH --out FILE [--work DIR]
      one arch's module of the newest .mpy sub-version, built from this tree as build does, into
      FILE; the repository's files are left alone (make bench's native module row)

build takes each release tree out of CLONE (a MicroPython git clone with its tags) with git archive,
builds the natmod (device/micropython/natmod/Makefile) in it from scratch, and copies the .mpy
here, and writes the mip packages (device/micropython/package*.json): the same sources, release and
compilers give the same bytes. It needs Debian's
/usr/bin/python3 with pyelftools (mpy_ld.py) and the cross compilers in TOOLCHAINS.
check needs nothing but Python's standard library: each file's header, size and sha256 against the
manifest, the hash of the sources it was built from against the tree's, and the mip packages
against the manifest's list of files.
Exit codes: 0 ok, 1 a check failed or a build broke, 2 usage."""
import argparse
import concurrent.futures
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
NATMOD_MAKEFILE = "device/micropython/natmod/Makefile"
MODULE = "_aioprof_native.mpy"
SCHEMA = 1

# The front end and the python engine (paths under device/micropython/): every board gets them.
PYTHON_FILES = ["aioprof.py", "aioprof_frames.py", "aioprof_fallback.py", "aioprof_wrapper.py"]

# What each .mpy sub-version is built with: the oldest release of it that links the module for
# that arch. The runtime table (py/nativeglue.h) is the ABI; within a sub-version it only grew at
# its end, so a module built with the oldest release runs on every later one of the same
# sub-version (docs/micropython.md, "Prebuilt native modules").
ARM_X = ["armv6m", "armv7m", "armv7emsp", "armv7emdp", "xtensa", "x64"]
PLAN = [
    ("v1.21.0", 1, ARM_X),
    ("v1.22.0", 2, ARM_X),
    ("v1.23.0", 3, ARM_X),
    # mpy_ld.py links rv32imc from 1.25 on (the module is .mpy 6.3 like the 1.23 ones)
    ("v1.25.0", 3, ["rv32imc"]),
]
ARCHES = ["armv6m", "armv7m", "armv7emsp", "armv7emdp", "rv32imc", "xtensa", "x64"]

# MP_NATIVE_ARCH_* (py/persistentcode.h): the arch in the header's third byte, above 2 bits of
# sub-version
ARCH_CODE = {"x64": 2, "armv6m": 4, "armv7m": 5, "armv7emsp": 7, "armv7emdp": 8, "xtensa": 9,
             "rv32imc": 11}
TOOLCHAINS = {"armv6m": "arm-none-eabi-", "armv7m": "arm-none-eabi-", "armv7emsp": "arm-none-eabi-",
              "armv7emdp": "arm-none-eabi-", "rv32imc": "riscv64-unknown-elf-",
              "xtensa": "xtensa-lx106-elf-", "x64": ""}
DEBIAN_PACKAGES = {"arm-none-eabi-": "gcc-arm-none-eabi libnewlib-arm-none-eabi",
                   "riscv64-unknown-elf-": "gcc-riscv64-unknown-elf picolibc-riscv64-unknown-elf",
                   "xtensa-lx106-elf-": "gcc-xtensa-lx106 picolibc-xtensa-lx106-elf", "": "gcc"}

# The boards each arch's module is for (an ARM firmware also loads the ARM arches below its own).
BOARDS = {
    "armv6m": ["RP2040 (Raspberry Pi Pico, Pico W)", "SAMD21 (Adafruit M0 boards)",
               "STM32F0/G0/L0 (Cortex-M0/M0+)", "nRF51 (BBC micro:bit v1)",
               "any Cortex-M3/M4/M7 board (Thumb-1 code runs there)"],
    "armv7m": ["Cortex-M3 boards (qemu MPS2_AN385)", "any Cortex-M4/M7 board"],
    "armv7emsp": ["STM32F4 (Pyboard v1.x, STM32F405/F411 boards)", "RP2350 in ARM mode (Pico 2)",
                  "nRF52 (Cortex-M4F)", "SAMD51", "STM32L4/WB", "Cortex-M7 with single-precision FPU"],
    "armv7emdp": ["STM32F76x/H7 (Pyboard D SF6, NUCLEO_H743ZI, Portenta H7)",
                  "i.MX RT10xx (Teensy 4.x)", "qemu MPS2_AN500 (Cortex-M7)"],
    "rv32imc": ["ESP32-C3", "ESP32-C6", "RP2350 in RISC-V mode", "qemu VIRT_RV32"],
    "xtensa": ["ESP8266"],
    "x64": ["unix port on x86-64 (Linux, macOS)"],
}


class Failure(Exception):
    """A check that failed or a build step that broke: one sentence for the user."""


def sha256_bytes(data):
    return hashlib.sha256(data).hexdigest()


def sha256_file(path):
    with open(path, "rb") as f:
        return sha256_bytes(f.read())


def sources_digest(top, paths):
    """One hash over the named repo files: each path with its content's sha256, in path order."""
    h = hashlib.sha256()
    for rel in sorted(paths):
        full = os.path.join(top, rel)
        if not os.path.isfile(full):
            raise Failure("the source %s that the prebuilt modules were built from is gone: run "
                          "make mpy MPY_SRC=<a MicroPython clone> to rebuild them" % rel)
        h.update(("%s\0%s\n" % (rel, sha256_file(full))).encode())
    return h.hexdigest()


# ---------------------------------------------------------------------------------------------
# check


def check_header(data, mod):
    """Says what is wrong with a module's first bytes against its manifest entry, or None."""
    if len(data) < 4 or data[0:1] != b"M":
        return "does not start with the .mpy magic 'M'"
    if data[1] != mod["mpy_version"]:
        return "is .mpy version %d, the manifest says %d" % (data[1], mod["mpy_version"])
    sub = data[2] & 3
    if sub != mod["mpy_sub_version"]:
        return "is .mpy sub-version %d, the manifest says %d" % (sub, mod["mpy_sub_version"])
    code = ARCH_CODE.get(mod["arch"])
    if code is None:
        return "has an arch the manifest names but this script does not know (%s)" % mod["arch"]
    if data[2] >> 2 != code:
        return "has arch code %d, %s is %d" % (data[2] >> 2, mod["arch"], code)
    return None


def check(top):
    """Every problem with the prebuilt modules under top, as sentences (empty: all good)."""
    base = os.path.join(top, "device", "micropython")
    mpy_dir = os.path.join(base, "mpy")
    manifest_path = os.path.join(mpy_dir, "manifest.json")
    try:
        with open(manifest_path) as f:
            manifest = json.load(f)
    except (OSError, ValueError) as e:
        return ["%s can not be read (%s)" % (manifest_path, e)]
    if manifest.get("schema") != SCHEMA:
        return ["%s has schema %r, this script reads %d" % (manifest_path, manifest.get("schema"), SCHEMA)]
    problems = []
    for name in manifest.get("python", []):
        if not os.path.isfile(os.path.join(base, name)):
            problems.append("device/micropython/%s, named in the manifest's python files, is missing" % name)
    listed = set()
    for mod in manifest.get("modules", []):
        rel = mod["path"]
        listed.add(rel)
        path = os.path.join(base, rel)
        if not os.path.isfile(path):
            problems.append("%s is in the manifest but not in the tree" % rel)
            continue
        with open(path, "rb") as f:
            data = f.read()
        if len(data) != mod["size"]:
            problems.append("%s has %d bytes, the manifest says %d" % (rel, len(data), mod["size"]))
        if sha256_bytes(data) != mod["sha256"]:
            problems.append("%s's sha256 is not the manifest's" % rel)
        wrong = check_header(data, mod)
        if wrong:
            problems.append("%s %s" % (rel, wrong))
        want = "mpy/%s/%d.%d/%s" % (mod["arch"], mod["mpy_version"], mod["mpy_sub_version"], MODULE)
        if rel != want:
            problems.append("%s is not at its arch and version's place (%s)" % (rel, want))
    for root, _dirs, files in os.walk(mpy_dir):
        for name in files:
            if name.endswith(".mpy"):
                rel = os.path.relpath(os.path.join(root, name), base)
                if rel not in listed:
                    problems.append("%s is in the tree but not in the manifest" % rel)
    try:
        now = sources_digest(top, manifest["sources"])
    except Failure as e:
        problems.append(str(e))
    else:
        if now != manifest["sources_sha256"]:
            known = manifest.get("source_sha256", {})
            changed = [p for p in sorted(manifest["sources"])
                       if known.get(p) != sha256_file(os.path.join(top, p))]
            problems.append("the device/ and proto/ sources changed since the prebuilt modules were "
                            "built (%s): run make mpy MPY_SRC=<a MicroPython clone with its tags> "
                            "to rebuild them" % (", ".join(changed) or "which ones is not recorded"))
    problems += check_mip(top, manifest)
    return problems


# ---------------------------------------------------------------------------------------------
# mip packages: device/micropython/package.json (the front end and the python engine) and
# package-<arch>-<mpy version>.json (the same and that arch's module), for
#   mpremote mip install github:OWNER/REPO/device/micropython/package-armv6m-6.3.json
# mip fetches each "urls" source relative to the package file's folder, so they sit above the
# files they name (a "../" in a URL is not something every server takes).


def project_version(top):
    with open(os.path.join(top, "CMakeLists.txt")) as f:
        m = re.search(r"project\(\w+ VERSION ([0-9.]+)", f.read())
    if not m:
        raise Failure("CMakeLists.txt names no project VERSION")
    return m.group(1)


def mip_packages(manifest, version):
    """{file name under device/micropython/: its JSON text} for the manifest's files."""
    python = [[name, name] for name in manifest["python"]]
    packages = {"package.json": {"urls": python, "version": version}}
    for mod in manifest["modules"]:
        name = "package-%s-%d.%d.json" % (mod["arch"], mod["mpy_version"], mod["mpy_sub_version"])
        packages[name] = {"urls": python + [[MODULE, mod["path"]]], "version": version}
    def text(p):
        urls = ",\n".join("    " + json.dumps(u) for u in p["urls"])
        return '{\n  "urls": [\n%s\n  ],\n  "version": %s\n}\n' % (urls, json.dumps(p["version"]))
    return {name: text(p) for name, p in packages.items()}


def check_mip(top, manifest):
    """What is wrong with the mip packages: each one there and as the manifest makes it, each path
    it names a file, and no package file the manifest does not make."""
    base = os.path.join(top, "device", "micropython")
    problems = []
    try:
        want = mip_packages(manifest, project_version(top))
    except Failure as e:
        return [str(e)]
    for name, text in sorted(want.items()):
        path = os.path.join(base, name)
        try:
            with open(path) as f:
                have = f.read()
            package = json.loads(have)
        except (OSError, ValueError) as e:
            problems.append("the mip package device/micropython/%s can not be read (%s)" % (name, e))
            continue
        for dest, source in package.get("urls", []):
            if not os.path.isfile(os.path.join(base, source)):
                problems.append("the mip package %s names %s, which is not in device/micropython/" % (name, source))
        if have != text:
            problems.append("the mip package %s does not list the manifest's files with version %s: "
                            "run make mpy to write it again" % (name, json.loads(text)["version"]))
    for name in os.listdir(base):
        if re.fullmatch(r"package(-.*)?\.json", name) and name not in want:
            problems.append("the mip package %s is not one the manifest makes (no such module)" % name)
    return problems


# ---------------------------------------------------------------------------------------------
# build


def run(cmd, **kw):
    return subprocess.run(cmd, check=False, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          universal_newlines=True, **kw)


def release_versions(clone):
    """{tag: (mpy_version, sub_version)} for every release tag from v1.21.0 on in the clone."""
    out = run(["git", "-C", clone, "tag", "--list", "v1.*"])
    if out.returncode != 0:
        raise Failure("%s is not a git clone of MicroPython (git tag: %s)" % (clone, out.stdout.strip()))
    found = {}
    for tag in out.stdout.split():
        m = re.fullmatch(r"v1\.(\d+)\.(\d+)", tag)
        if not m or int(m.group(1)) < 21:
            continue
        text = run(["git", "-C", clone, "show", "%s:py/persistentcode.h" % tag]).stdout
        ver = re.search(r"#define MPY_VERSION (\d+)", text)
        sub = re.search(r"#define MPY_SUB_VERSION (\d+)", text)
        if ver and sub:
            found[tag] = (int(ver.group(1)), int(sub.group(1)))
    return found


def tag_key(tag):
    return tuple(int(x) for x in tag[1:].split("."))


def extract(clone, tag, work):
    """The release tree of tag under work/src/tag (kept between runs, named by its commit)."""
    commit = run(["git", "-C", clone, "rev-parse", "%s^{commit}" % tag]).stdout.strip()
    tree = os.path.join(work, "src", tag)
    stamp = os.path.join(tree, ".aioprof-commit")
    if os.path.isfile(stamp) and open(stamp).read().strip() == commit:
        return tree, commit
    shutil.rmtree(tree, ignore_errors=True)
    os.makedirs(tree)
    archive = subprocess.Popen(["git", "-C", clone, "archive", tag], stdout=subprocess.PIPE)
    untar = subprocess.run(["tar", "-x", "-C", tree], stdin=archive.stdout)
    archive.stdout.close()
    if archive.wait() != 0 or untar.returncode != 0:
        raise Failure("git archive %s of %s failed" % (tag, clone))
    with open(stamp, "w") as f:
        f.write(commit + "\n")
    return tree, commit


def compiler_line(arch):
    prefix = TOOLCHAINS[arch]
    out = run([prefix + "gcc", "--version"]) if shutil.which(prefix + "gcc") else None
    if out is None or out.returncode != 0:
        raise Failure("%sgcc is missing: apt-get install %s" % (prefix, DEBIAN_PACKAGES[prefix]))
    return out.stdout.splitlines()[0]


def repo_deps(build_dir, top):
    """The repo files the compiler read for this build (from its -MMD .d files)."""
    deps = {NATMOD_MAKEFILE}
    for root, _dirs, files in os.walk(build_dir):
        for name in files:
            if not name.endswith(".d"):
                continue
            with open(os.path.join(root, name)) as f:
                text = f.read().replace("\\\n", " ")
            for word in text.split()[1:]:
                path = os.path.normpath(os.path.join(build_dir, word.rstrip(":")))
                rel = os.path.relpath(path, top)
                # the repo's own sources only (not the release tree, which may sit in build/)
                if rel.split(os.sep)[0] in ("device", "proto"):
                    deps.add(rel)
    return deps


def build_one(tree, tag, arch, work, top):
    build_dir = os.path.join(work, "build", tag, arch)
    shutil.rmtree(build_dir, ignore_errors=True)
    os.makedirs(build_dir)
    env = dict(os.environ)
    env["PATH"] = "/usr/bin:" + env.get("PATH", "")
    env["LC_ALL"] = "C"
    out = run(["make", "-f", os.path.join(top, NATMOD_MAKEFILE), "MPY_DIR=" + tree, "ARCH=" + arch,
               "PYTHON=/usr/bin/python3", "CFLAGS_EXTRA=-MMD"], cwd=build_dir, env=env)
    if out.returncode != 0:
        tail = "\n".join(out.stdout.splitlines()[-15:])
        raise Failure("the %s build with %s failed:\n%s" % (arch, tag, tail))
    with open(os.path.join(build_dir, MODULE), "rb") as f:
        data = f.read()
    return data, repo_deps(build_dir, top)


def build(clone, work, jobs, top):
    clone = os.path.abspath(clone)
    work = os.path.abspath(work)
    versions = release_versions(clone)
    for tag, sub, _arches in PLAN:
        if versions.get(tag) != (6, sub):
            raise Failure("%s in %s is not the .mpy 6.%d release this script builds with (%r)"
                          % (tag, clone, sub, versions.get(tag)))
    # a sub-version newer than the plan knows would need a build of its own
    unknown = sorted({v for v in versions.values() if v not in {(6, s) for _t, s, _a in PLAN}})
    if unknown:
        raise Failure("%s has releases of .mpy %s, which build.py's PLAN does not build: add them"
                      % (clone, ", ".join("%d.%d" % v for v in unknown)))
    compilers = {arch: compiler_line(arch) for arch in ARCHES}
    trees = {tag: extract(clone, tag, work) for tag, _s, _a in PLAN}
    jobs_list = [(tag, sub, arch) for tag, sub, arches in PLAN for arch in arches]
    results = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = {pool.submit(build_one, trees[tag][0], tag, arch, work, top): (tag, sub, arch)
                   for tag, sub, arch in jobs_list}
        for fut in concurrent.futures.as_completed(futures):
            results[futures[fut]] = fut.result()

    mpy_dir = os.path.join(top, "device", "micropython", "mpy")
    for arch in ARCHES:
        shutil.rmtree(os.path.join(mpy_dir, arch), ignore_errors=True)
    all_sources = set()
    modules = []
    for tag, sub, arch in sorted(jobs_list, key=lambda j: (ARCHES.index(j[2]), j[1])):
        data, deps = results[(tag, sub, arch)]
        all_sources |= deps
        rel = "mpy/%s/6.%d/%s" % (arch, sub, MODULE)
        dest = os.path.join(mpy_dir, "..", rel)
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        with open(dest, "wb") as f:
            f.write(data)
        releases = sorted((t for t, v in versions.items() if v == (6, sub) and tag_key(t) >= tag_key(tag)),
                          key=tag_key)
        modules.append({
            "path": rel, "arch": arch, "mpy_version": 6, "mpy_sub_version": sub,
            "micropython": "%s (%s)" % (tag, trees[tag][1]),
            "releases": releases,
            "compiler": compilers[arch],
            "sha256": sha256_bytes(data), "size": len(data),
            "sources_sha256": sources_digest(top, deps),
            "boards": BOARDS[arch],
        })
    sources = sorted(all_sources)
    manifest = {
        "schema": SCHEMA,
        "python": PYTHON_FILES,
        "sources": sources,
        "sources_sha256": sources_digest(top, sources),
        "source_sha256": {p: sha256_file(os.path.join(top, p)) for p in sources},
        "modules": modules,
    }
    with open(os.path.join(mpy_dir, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=2, sort_keys=False)
        f.write("\n")
    base = os.path.join(top, "device", "micropython")
    for name in os.listdir(base):
        if re.fullmatch(r"package(-.*)?\.json", name):
            os.remove(os.path.join(base, name))
    for name, text in mip_packages(manifest, project_version(top)).items():
        with open(os.path.join(base, name), "w") as f:
            f.write(text)
    return modules


def build_single(clone, arch, out, work, top):
    """arch's module of the newest sub-version in PLAN, built from top's sources into out; returns
    the release it was built with."""
    plans = [(sub, tag) for tag, sub, arches in PLAN if arch in arches]
    if not plans:
        raise Failure("no module is built for arch %s (build.py knows %s)" % (arch, ", ".join(ARCHES)))
    _sub, tag = max(plans)
    compiler_line(arch)
    tree, _commit = extract(os.path.abspath(clone), tag, os.path.abspath(work))
    data, _deps = build_one(tree, tag, arch, os.path.abspath(work), top)
    with open(out, "wb") as f:
        f.write(data)
    return tag


def main(argv):
    parser = argparse.ArgumentParser(prog="build.py", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command")
    b = sub.add_parser("build", help="rebuild every prebuilt module and the manifest")
    b.add_argument("--mpy-src", required=True, help="a MicroPython git clone with its release tags")
    b.add_argument("--work", default=os.path.join(TOP, "build", "mpy"),
                   help="where the release trees and build directories go (default build/mpy)")
    b.add_argument("--jobs", type=int, default=2)
    c = sub.add_parser("check", help="check the prebuilt modules against the manifest and the sources")
    c.add_argument("--top", default=TOP, help="the repository's top directory (default: this one)")
    o = sub.add_parser("one", help="build one arch's module from this tree into a file")
    o.add_argument("--mpy-src", required=True, help="a MicroPython git clone with its release tags")
    o.add_argument("--arch", required=True, choices=ARCHES)
    o.add_argument("--out", required=True, help="the .mpy to write")
    o.add_argument("--work", default=os.path.join(TOP, "build", "mpy"),
                   help="where the release tree and build directory go (default build/mpy)")
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_usage(sys.stderr)
        return 2
    try:
        if args.command == "one":
            tag = build_single(args.mpy_src, args.arch, args.out, args.work, TOP)
            print("%s: %d bytes (%s, built with %s)" % (args.out, os.path.getsize(args.out), args.arch, tag))
            return 0
        if args.command == "build":
            modules = build(args.mpy_src, args.work, max(1, args.jobs), TOP)
            for m in modules:
                print("%-44s %6d bytes  %s" % (m["path"], m["size"], m["micropython"].split()[0]))
            problems = check(TOP)
        else:
            problems = check(os.path.abspath(args.top))
    except Failure as e:
        print("build.py: %s" % e, file=sys.stderr)
        return 1
    for p in problems:
        print("build.py: %s" % p, file=sys.stderr)
    if problems:
        return 1
    if args.command == "check":
        print("build.py: the prebuilt modules match their manifest and the sources")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
