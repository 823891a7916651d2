#!/usr/bin/env python3
"""aioprof-top reads the existing captures and recordings as it always did: every case of the replay
corpus (tests/replay/corpus, made once by tests/replay/make_corpus.py) gives the text report (per
name and per instance) and the JSON byte for byte as when the corpus was made, and the trace
export the same events; and where the simulator's truth exists, the figures still hold against it
(tests/e2e/truth_compare.py, in the case's mode).

Usage: replay_identical.py AIOPROF_TOP CORPUS_DIR WORK_DIR
Prints one line per case; exits 1 when any differs."""
import difflib
import json
import lzma
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
# the tool's version is the only thing a report may say differently
VERSION = re.compile(rb'("version":\t")[^"]*(")')


def cases(corpus):
    for line in open(os.path.join(corpus, 'cases.txt')):
        if line.startswith('#') or not line.strip():
            continue
        name, mode, _ = (x.strip() for x in line.split('|', 2))
        yield name, mode


def run(top, corpus, args, out):
    env = dict(os.environ, LC_ALL='C.UTF-8')
    with open(out, 'wb') as f:
        return subprocess.run([top] + args, cwd=corpus, env=env, stdout=f, stderr=subprocess.DEVNULL,
                              timeout=120).returncode


def differs(want, got):
    """The first lines where two outputs differ, or None when they are the same."""
    want, got = VERSION.sub(rb'\1-\2', want), VERSION.sub(rb'\1-\2', got)
    if want == got:
        return None
    diff = difflib.unified_diff(want.decode(errors='replace').splitlines(),
                                got.decode(errors='replace').splitlines(), 'expected', 'now', lineterm='', n=1)
    return '\n'.join(list(diff)[:12])


def trace_events(data):
    """The trace's events and metadata, the tool's version left out."""
    doc = json.loads(data)
    doc.get('otherData', {}).pop('version', None)
    return doc


def check(top, corpus, work, name, mode):
    problems = []
    capture = name + '.aiop'
    for ext, args in (('.report', ['--report']), ('.instances', ['--report', '--instances']), ('.json', ['--json'])):
        out = os.path.join(work, name + ext)
        rc = run(top, corpus, ['-r', capture] + args, out)
        if rc != 0:
            problems.append('%s: exit %d' % (' '.join(args), rc))
            continue
        d = differs(open(os.path.join(corpus, name + ext), 'rb').read(), open(out, 'rb').read())
        if d:
            problems.append('%s differs:\n%s' % (' '.join(args), d))
    if mode != '-':
        cmd = ['python3', os.path.join(HERE, 'truth_compare.py'), os.path.join(work, name + '.json'),
               os.path.join(corpus, name + '.truth.json'), mode]
        if mode in ('exact', 'damaged'):
            cmd.append(os.path.join(corpus, name.split('+')[0] + '.aiop'))
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            problems.append('against the truth (%s):\n%s' % (mode, r.stdout.strip()))
    expected_trace = os.path.join(corpus, name + '.trace.json.xz')
    if os.path.exists(expected_trace):
        trace = os.path.join(work, name + '.trace.json')
        rc = run(top, corpus, ['-r', capture, '--report', '--export-trace', trace, '--force'], os.devnull)
        try:
            got = trace_events(open(trace, 'rb').read())
            want = trace_events(lzma.open(expected_trace).read())
            if rc != 0:
                problems.append('--export-trace: exit %d' % rc)
            elif got != want:
                events = zip(want['traceEvents'], got['traceEvents'])
                first = next((i for i, (a, b) in enumerate(events) if a != b), None)
                problems.append('the trace differs: %d events, %d expected%s' % (
                    len(got['traceEvents']), len(want['traceEvents']),
                    '' if first is None else '; event %d is %s, expected %s' % (
                        first, json.dumps(got['traceEvents'][first]), json.dumps(want['traceEvents'][first]))))
        except (OSError, ValueError) as e:
            problems.append('the trace does not parse: %s' % e)
    return problems


def main():
    top, corpus, work = (os.path.abspath(p) for p in sys.argv[1:4])
    failed = 0
    for name, mode in cases(corpus):
        problems = check(top, corpus, work, name, mode)
        if problems:
            failed += 1
            print('FAIL %s' % name)
            for p in problems:
                print('     ' + p.replace('\n', '\n     '))
        else:
            print('ok   %s' % name)
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
