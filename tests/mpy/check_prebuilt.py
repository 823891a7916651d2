#!/usr/bin/env python3
"""The prebuilt native modules against their manifest (device/micropython/mpy/build.py check), and
that check's own failures: on copies of the tree in a temp dir, each a different damage (a byte of
a module, its header's arch, a source changed without a rebuild, a module gone, a stray one, a mip
package that names a missing file or leaves out its module), the check must exit 1 and say what is
wrong. The mip packages (device/micropython/package*.json) list the manifest's files exactly. Needs only Python's standard library (runs in CI).
  check_prebuilt.py REPO_TOP"""
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile

failures = []


def check(top):
    script = os.path.join(top, "device", "micropython", "mpy", "build.py")
    out = subprocess.run([sys.executable, script, "check", "--top", top], stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, universal_newlines=True)
    return out.returncode, out.stdout


def copy_tree(top, dest):

    for part in ("device", "proto"):
        shutil.copytree(os.path.join(top, part), os.path.join(dest, part),
                        ignore=shutil.ignore_patterns("build-*", "__pycache__"))
    shutil.copy(os.path.join(top, "CMakeLists.txt"), os.path.join(dest, "CMakeLists.txt"))  # the version
    return dest


def manifest_of(top):
    with open(os.path.join(top, "device", "micropython", "mpy", "manifest.json")) as f:
        return json.load(f)


def write_manifest(top, manifest):
    with open(os.path.join(top, "device", "micropython", "mpy", "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=2)


def expect_failure(name, top, damage, words):
    """damage(copy) breaks a fresh copy; the check must fail (1) with every one of words said."""
    with tempfile.TemporaryDirectory() as tmp:
        copy = copy_tree(top, os.path.join(tmp, "repo"))
        damage(copy)
        rc, text = check(copy)
        missing = [w for w in words if w not in text]
        if rc != 1 or missing:
            failures.append("%s: the check gave %d and did not say %s:\n%s" % (name, rc, missing, text))
        else:
            print("ok: %s: %s" % (name, text.strip().splitlines()[0]))


def main():
    top = os.path.abspath(sys.argv[1])
    manifest = manifest_of(top)
    first = manifest["modules"][0]["path"]
    module = lambda t, rel=first: os.path.join(t, "device", "micropython", rel)

    rc, text = check(top)
    if rc != 0:
        # the one failure the lead fixes with make mpy: say it plainly
        print(text, end="")
        print("check_prebuilt: the prebuilt modules do not match this tree (see above)")
        return 1
    print("ok: the tree: " + text.strip())
    arches = {m["arch"] for m in manifest["modules"]}
    for want in ("armv6m", "armv7m", "armv7emsp", "armv7emdp", "rv32imc", "xtensa", "x64"):
        if want not in arches:
            failures.append("the manifest has no module for %s" % want)

    def flip_byte(t):
        with open(module(t), "r+b") as f:
            f.seek(100)
            b = f.read(1)
            f.seek(100)
            f.write(bytes([b[0] ^ 0xFF]))

    def wrong_arch(t):
        # a header for another arch with its size and sha256 made right: only the header check sees it
        with open(module(t), "rb") as f:
            data = bytearray(f.read())
        data[2] = (data[2] & 3) | (9 << 2 if data[2] >> 2 != 9 else 4 << 2)
        with open(module(t), "wb") as f:
            f.write(data)
        m = manifest_of(t)
        m["modules"][0]["sha256"] = hashlib.sha256(bytes(data)).hexdigest()
        write_manifest(t, m)

    def source_changed(t):
        with open(os.path.join(t, "device", "aioprof.c"), "a") as f:
            f.write("/* changed without make mpy */\n")

    def module_gone(t):
        os.remove(module(t))

    def stray(t):
        d = os.path.join(t, "device", "micropython", "mpy", "armv6m", "7.0")
        os.makedirs(d)
        shutil.copy(module(t), os.path.join(d, "_aioprof_native.mpy"))

    def python_gone(t):
        os.remove(os.path.join(t, "device", "micropython", manifest["python"][0]))

    def mip_missing_path(t):
        path = os.path.join(t, "device", "micropython", "package-x64-6.3.json")
        package = json.load(open(path))
        package["urls"][-1][1] = "mpy/x64/6.9/_aioprof_native.mpy"
        json.dump(package, open(path, "w"))

    def mip_module_dropped(t):
        path = os.path.join(t, "device", "micropython", "package-armv6m-6.3.json")
        package = json.load(open(path))
        package["urls"].pop()
        json.dump(package, open(path, "w"))

    def mip_stray(t):
        base = os.path.join(t, "device", "micropython")
        shutil.copy(os.path.join(base, "package.json"), os.path.join(base, "package-armv9-6.3.json"))

    expect_failure("a mip package naming a missing file", top, mip_missing_path,
                   ["package-x64-6.3.json", "mpy/x64/6.9/_aioprof_native.mpy", "not in device/micropython/"])
    expect_failure("a mip package without its module", top, mip_module_dropped,
                   ["package-armv6m-6.3.json", "does not list the manifest's files"])
    expect_failure("a stray mip package", top, mip_stray, ["package-armv9-6.3.json", "no such module"])
    expect_failure("a byte flipped", top, flip_byte, [first, "sha256"])
    expect_failure("another arch's header", top, wrong_arch, [first, "arch code"])
    expect_failure("a source changed", top, source_changed, ["device/aioprof.c", "make mpy"])
    expect_failure("a module gone", top, module_gone, [first, "not in the tree"])
    expect_failure("a stray module", top, stray, ["mpy/armv6m/7.0/_aioprof_native.mpy", "not in the manifest"])
    expect_failure("a python file gone", top, python_gone, [manifest["python"][0], "missing"])
    for f in failures:
        print("FAIL: " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
