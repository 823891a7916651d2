// Runs aioprof's Python side in MicroPython's WebAssembly port under Node.js, capturing the VM's
// stdout as raw bytes (frames and text together, as a board's USB-CDC would carry them).
//
//   node run_wasm.mjs script ENGINE SCRIPT.py CAPTURE   one asyncio test script; ENGINE python or
//                                                        none (the script without the hook)
//   node run_wasm.mjs golden VECTORS.txt CAPTURE        the golden vectors through the fallback
//   node run_wasm.mjs life ENGINE SCENARIO OUT ERR      one scenario of life.py (stdout to OUT,
//                                                        stderr to ERR)
//   node run_wasm.mjs missing OUT                       missing.py: enable()'s sentence for a
//                                                        missing file or asyncio (stdout to OUT)
//
// The package (@micropython/micropython-webassembly-pyscript, pinned in package.json) is looked
// up from NODE_PATH or this directory. Its asyncio has no run(): the script's main() is started
// with create_task and awaited at top level. Exit code: 0, or 1 when the Python side failed.
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";

const here = path.dirname(new URL(import.meta.url).pathname);
const repo = path.resolve(here, "..", "..");

async function loadPackage() {
    const require = createRequire(path.join(process.env.AIOPROF_NODE_MODULES || here, "x.js"));
    const entry = require.resolve("@micropython/micropython-webassembly-pyscript/micropython.mjs");
    return import(pathToFileURL(entry).href);
}

function usage() {
    process.stderr.write(
        "usage: node run_wasm.mjs script ENGINE SCRIPT.py CAPTURE | golden VECTORS.txt CAPTURE | " +
            "life ENGINE SCENARIO OUT ERR | missing OUT\n",
    );
    process.exit(2);
}

// Copies a host file into the VM's file system.
function put(mp, dir, file) {
    mp.FS.writeFile(dir + "/" + path.basename(file), fs.readFileSync(file));
}

async function main() {
    const [mode, a, b, c, d] = process.argv.slice(2);
    if (!mode || (mode === "script" && !c) || (mode === "golden" && !b) || (mode === "life" && !d) || (mode === "missing" && !a)) usage();
    const { loadMicroPython } = await loadPackage();
    const chunks = [];
    const errChunks = [];
    // linebuffer false: every byte as it is written, 0x00 and 0x0A included
    const mp = await loadMicroPython({
        stdout: (bytes) => chunks.push(Buffer.from(bytes)),
        stderr: (bytes) => (mode === "life" ? errChunks.push(Buffer.from(bytes)) : process.stderr.write(Buffer.from(bytes))),
        linebuffer: false,
    });
    mp.FS.mkdir("/aioprof");
    put(mp, "/aioprof", path.join(repo, "device/micropython/aioprof.py"));
    put(mp, "/aioprof", path.join(repo, "device/micropython/aioprof_fallback.py"));
    put(mp, "/aioprof", path.join(repo, "device/micropython/aioprof_frames.py"));
    put(mp, "/aioprof", path.join(repo, "device/micropython/aioprof_wrapper.py"));
    put(mp, "/aioprof", path.join(here, "truth.py"));
    let ok = true;
    try {
        if (mode === "golden") {
            put(mp, "/aioprof", a);
            put(mp, "/aioprof", path.join(here, "golden_fallback.py"));
            mp.runPython(
                "import sys\nsys.argv[:] = ['golden_fallback.py', '/aioprof/" + path.basename(a) +
                    "', '/aioprof']\nexec(open('/aioprof/golden_fallback.py').read(), {'__name__': '__main__'})\n",
            );
        } else if (mode === "missing") {
            put(mp, "/aioprof", path.join(here, "missing.py"));
            mp.FS.mkdir("/missing");
            mp.runPython(
                "import sys\nsys.argv[:] = ['missing.py', '/aioprof', '/missing']\n" +
                    "exec(open('/aioprof/missing.py').read(), {'__name__': '__main__'})\n",
            );
        } else if (mode === "life") {
            put(mp, "/aioprof", path.join(here, "life.py"));
            mp.runPython("import sys\nsys.path.insert(0, '/aioprof')\nimport asyncio, life\n" +
                "s = life.scenario('" + a + "', '" + b + "')\ns.setup()\n");
            // started from outside any task, as asyncio.run starts a program's main
            await mp.runPythonAsync("await asyncio.create_task(s.main())\n");
            mp.runPython("s.finish()\n");
        } else {
            const engine = a;
            put(mp, "/aioprof", b);
            const name = path.basename(b);
            mp.runPython("import sys\nsys.path.insert(0, '/aioprof')\n");
            if (engine !== "none") {
                mp.runPython("import aioprof\naioprof.enable(impl='" + engine + "')\n");
            }
            mp.runPython("import asyncio\ng = {'__name__': '__script__'}\nexec(open('/aioprof/" + name + "').read(), g)\n");
            await mp.runPythonAsync("await asyncio.create_task(g['main']())\n");
            if (engine !== "none") {
                mp.runPython("aioprof.disable()\n");
            }
        }
    } catch (err) {
        process.stderr.write("run_wasm: the Python side failed: " + err + "\n");
        ok = false;
    }
    if (mode === "life") {
        fs.writeFileSync(c, Buffer.concat(chunks));
        fs.writeFileSync(d, Buffer.concat(errChunks));
    } else {
        fs.writeFileSync(mode === "golden" ? b : mode === "missing" ? a : c, Buffer.concat(chunks));
    }
    process.exit(ok ? 0 : 1);
}

main();
