#!/usr/bin/env python3
"""Makes the replay corpus of tests/e2e/replay_identical.sh: captures and recordings of every
simulator workload and of the ways a stream goes wrong, their simulator truth where one exists,
and what aioprof-top made of each when the corpus was made (the expected outputs).

Usage: make_corpus.py [--keep] BUILD_DIR [OUT_DIR]

Run it once, with the build of the code whose output the corpus pins (then commit OUT_DIR, by
default tests/replay/corpus): the captures are kept as bytes, not remade, so that a later change of
the simulator or of the wire protocol leaves them what they are, the "existing recordings and
captures" that a reader must go on reading the same way. Before it writes an expected output it
checks that output against the simulator's truth (tests/e2e/truth_compare.py, in the case's mode),
so the expected files are not just a copy of a run. cases.txt lists every case: its name, the
truth mode or "-", and how it was made.

--keep: the captures (and truths) already in OUT_DIR stay as they are; only the cases not there yet
are made, with BUILD_DIR's simulator. Every expected output is made again, by BUILD_DIR's
aioprof-top. That is how the corpus moves to a new behaviour that is meant (say why in the commit)
without losing the captures of the devices before it.
"""
import json
import lzma
import os
import random
import shutil
import struct
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
E2E = os.path.join(HERE, '..', 'e2e')
sys.path.insert(0, E2E)
from wire import cobs_encode, crc16, frame_body, records, varint  # noqa: E402

W30, W32 = 1 << 30, 1 << 32
TRACED = ('seed', 'nested', 'text', 'drops-busy', 'clock-back-nested', 'dmg+flip', 'dmg+nostop', 'silence',
          'resets', 'rec-damaged', 'golden-labels', 'golden-drops', 'golden-stop')


class Corpus:
    def __init__(self, build, out, keep=False):
        self.sim = os.path.join(build, 'device', 'sim', 'aioprof-sim')
        self.top = os.path.join(build, 'host', 'aioprof-top')
        self.out = out
        # --keep: the captures there before this run, whose bytes are not made again
        self.old = {f[:-len('.aiop')] for f in os.listdir(out) if f.endswith('.aiop')} if keep else set()
        self.cases = []

    def kept(self, name):
        return name in self.old

    def path(self, name, ext):
        return os.path.join(self.out, name + ext)

    def simulate(self, name, args, truth=True):
        """A capture of the simulator (and its truth): NAME.aiop, NAME.truth.json."""
        if self.kept(name):
            return open(self.path(name, '.aiop'), 'rb').read()
        cmd = [self.sim] + args + ['-q', '-o', self.path(name, '.aiop')]
        if truth:
            cmd += ['--truth', self.path(name, '.truth.json')]
        subprocess.run(cmd, check=True)
        return open(self.path(name, '.aiop'), 'rb').read()

    def add(self, name, mode, how, data=None, truth_from=None):
        """A case: its capture (written when data is given), its truth (copied from truth_from's)."""
        if data is not None and not self.kept(name):
            open(self.path(name, '.aiop'), 'wb').write(data)
        if truth_from is not None and truth_from != name and not self.kept(name):
            shutil.copy(self.path(truth_from, '.truth.json'), self.path(name, '.truth.json'))
        self.cases.append((name, mode, how))

    def expect(self):
        """Runs aioprof-top on every case, checks it against the truth, keeps its outputs."""
        env = dict(os.environ, LC_ALL='C.UTF-8')
        problems = 0
        for name, mode, _ in self.cases:
            capture = name + '.aiop'
            for ext, args in (('.report', ['--report']), ('.instances', ['--report', '--instances']),
                              ('.json', ['--json'])):
                with open(self.path(name, ext), 'wb') as f:
                    rc = subprocess.run([self.top, '-r', capture] + args, cwd=self.out, env=env,
                                        stdout=f, stderr=subprocess.DEVNULL).returncode
                if rc != 0:
                    sys.exit('make_corpus: aioprof-top -r %s %s exited %d' % (capture, ' '.join(args), rc))
            if mode != '-':
                clean = self.path(name.split('+')[0], '.aiop')
                cmd = ['python3', os.path.join(E2E, 'truth_compare.py'), self.path(name, '.json'),
                       self.path(name, '.truth.json'), mode]
                if mode in ('exact', 'damaged'):
                    cmd.append(clean if os.path.exists(clean) else self.path(name, '.aiop'))
                if subprocess.run(cmd).returncode != 0:
                    print('make_corpus: %s does not hold against its truth (%s)' % (name, mode))
                    problems += 1
        with open(os.path.join(self.out, 'cases.txt'), 'w') as f:
            f.write('# name | truth mode (tests/e2e/truth_compare.py), - for none | how it was made\n')
            for name, mode, how in self.cases:
                f.write('%s | %s | %s\n' % (name, mode, how))
        if problems:
            sys.exit('make_corpus: %d cases do not hold against their truth' % problems)
        # the trace export of the cases that exercise it most (names and labels that come late,
        # hostile device text, nesting, every kind of mark), xz-compressed: it is wordy
        for name in TRACED:
            trace = self.path(name, '.trace.json')
            subprocess.run([self.top, '-r', name + '.aiop', '--report', '--export-trace', trace],
                           cwd=self.out, env=env, stdout=subprocess.DEVNULL, check=True)
            json.load(open(trace))
            with open(trace, 'rb') as f, lzma.open(trace + '.xz', 'wb', preset=9) as z:
                z.write(f.read())
            os.unlink(trace)


def segments(data):
    return data.split(b'\0')


def frame_indexes(segs):
    return [i for i, s in enumerate(segs) if s and frame_body(s) is not None]


def damage(data, how, seed, times=25):
    """Seeded damage as tests/e2e/truth_corrupt.sh does it, in its own words."""
    rng = random.Random(seed)
    data = bytearray(data)
    for _ in range(times):
        at = rng.randrange(len(data) // 20, len(data) - 1)
        if how == 'flip':
            data[at] ^= 1 << rng.randrange(8)
        elif how == 'delete':
            del data[at:at + rng.randrange(1, 40)]
        elif how == 'insert':
            data[at:at] = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 60)))
        elif how == 'zeros':
            data[at:at] = b'\0' * rng.randrange(1, 5)
    return bytes(data)


def without_frames(data, first, n):
    """The capture without its frames first .. first+n-1 (a silence the sequence number hides)."""
    segs = segments(data)
    frames = frame_indexes(segs)
    gone = set(frames[first:first + n])
    return b'\0'.join(s for i, s in enumerate(segs) if i not in gone)


def without_last_frame(data):
    segs = segments(data)
    last = frame_indexes(segs)[-1]
    return b'\0'.join(segs[:last])


def hello_cost_at(payload):
    """Where a HELLO body's event_cost is (docs/protocol.md section 3), or None when it has none."""
    i = 0
    for field in ('version', 'tick_hz', 'tick_bits', 'ring', 'flags', 'boot', 'drain', 'dropped', 'platform'):
        if field in ('tick_bits', 'flags'):
            i += 1
        else:
            v, i = varint(payload, i)
            if field == 'platform':
                i += v
    if i >= len(payload):
        return None
    _, i = varint(payload, i)  # period_ticks
    return i if i < len(payload) else None


def with_event_cost(data, cost):
    """The capture with every HELLO saying that an event costs the device `cost` (1/1024 tick, under
    128: one byte, as the 0 of the simulator it replaces), CRCs made again: what a device that knows
    its cost sends."""
    assert 0 < cost < 128
    segs = segments(data)
    for k, seg in enumerate(segs):
        body = frame_body(seg) if seg else None
        if body is None:
            continue
        body = bytearray(body)
        for tag, start, end, _, _, payload in list(records(bytes(body))):
            if tag == 0x70:
                at = hello_cost_at(payload)
                if at is not None:
                    assert end - len(payload) + at == end - 1 and body[end - 1] < 0x80
                    body[end - 1] = cost
        body[-2:] = crc16(bytes(body[:-2])).to_bytes(2, 'little')
        segs[k] = cobs_encode(bytes(body))
    return b'\0'.join(segs)


def rec_varint(v):
    out = bytearray()
    while v >= 0x80:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def recording(parts, seed):
    """A recording (docs/recording.md) of parts: bytes (read in pieces of 1 to 4096 bytes, 0 to 5 ms
    apart) or 'down' / 'up' (the link went away, came back); END at the end."""
    rng = random.Random(seed)
    meta = json.dumps({'format': 'aioprof recording', 'tool': 'make_corpus.py', 'source': 'sim'}).encode()
    out = bytearray(b'\x89AIOPREC' + struct.pack('<HI', 1, len(meta)) + meta)
    us = 1000
    for part in parts:
        if part == 'down' or part == 'up':
            out += bytes([2 if part == 'down' else 3]) + rec_varint(us) + rec_varint(0)
            us += rng.randrange(1000, 2000000)
            continue
        pos = 0
        while pos < len(part):
            piece = part[pos:pos + rng.randrange(1, 4097)]
            out += bytes([1]) + rec_varint(us) + rec_varint(len(piece)) + piece
            pos += len(piece)
            us += rng.randrange(0, 5000)
    out += bytes([4]) + rec_varint(us) + rec_varint(0)
    return bytes(out)


def golden_vectors():
    """The byte streams of tests/golden/vectors.txt as they are now: name -> bytes."""
    vectors, name, in_bytes = {}, None, False
    for line in open(os.path.join(HERE, '..', 'golden', 'vectors.txt')):
        line = line.rstrip('\n')
        if line.startswith('== '):
            name, in_bytes = line[3:].strip(), False
            vectors[name] = bytearray()
        elif line == 'bytes:':
            in_bytes = True
        elif line.endswith(':') and ' ' not in line:
            in_bytes = False
        elif in_bytes and line.strip():
            vectors[name] += bytes.fromhex(line)
    return {k: bytes(v) for k, v in vectors.items()}


def make(c):
    # every workload, clean: the figures equal the truth
    c.simulate('seed', ['-w', 'seed', '--duration', '12'])
    c.add('seed', 'exact', 'aioprof-sim -w seed --duration 12')
    c.simulate('instances', ['-w', 'instances', '--duration', '6', '--seed', '2'])
    c.add('instances', 'exact', 'aioprof-sim -w instances --duration 6 --seed 2')
    c.simulate('busy', ['-w', 'busy', '--duration', '2', '--seed', '3'])
    c.add('busy', 'exact', 'aioprof-sim -w busy --duration 2 --seed 3')
    c.simulate('nested', ['-w', 'nested', '--duration', '3', '--tick-bits', '32'])
    c.add('nested', 'exact', 'aioprof-sim -w nested --duration 3 --tick-bits 32')
    c.simulate('busy-400', ['-w', 'busy', '--tasks', '400', '--duration', '1'])
    c.add('busy-400', 'exact', 'aioprof-sim -w busy --tasks 400 --duration 1')
    c.simulate('busy-ring8k', ['-w', 'busy', '--duration', '1', '--ring', '8192', '--tick-bits', '32'])
    c.add('busy-ring8k', 'exact', 'aioprof-sim -w busy --duration 1 --ring 8192 --tick-bits 32')
    # device text, hostile too
    c.simulate('text', ['-w', 'nested', '--duration', '3', '--text', '5', '--hostile-text'])
    c.add('text', 'exact', 'aioprof-sim -w nested --duration 3 --text 5 --hostile-text')
    # drops: a small ring behind a slow port
    c.simulate('drops-busy', ['-w', 'busy', '--ring', '256', '--baud', '115200', '--duration', '3'])
    c.add('drops-busy', 'lower', 'aioprof-sim -w busy --ring 256 --baud 115200 --duration 3')
    c.simulate('drops-instances', ['-w', 'instances', '--ring', '256', '--baud', '9600', '--duration', '6'])
    c.add('drops-instances', 'lower', 'aioprof-sim -w instances --ring 256 --baud 9600 --duration 6')
    # wraps of the tick counter, clock steps back
    c.simulate('wrap-30', ['-w', 'busy', '--tick-bits', '30', '--start-tick', str(W30 - 500000), '--duration', '1'])
    c.add('wrap-30', 'exact', 'aioprof-sim -w busy --tick-bits 30 --start-tick 2^30-500000 --duration 1')
    c.simulate('wrap-32', ['-w', 'instances', '--tick-bits', '32', '--start-tick', str(W32 - 1), '--duration', '4'])
    c.add('wrap-32', 'exact', 'aioprof-sim -w instances --tick-bits 32 --start-tick 2^32-1 --duration 4')
    c.simulate('wrap-seed', ['-w', 'seed', '--tick-bits', '30', '--start-tick', str(W30 - 5000000),
                             '--duration', '30'])
    c.add('wrap-seed', 'exact', 'aioprof-sim -w seed --tick-bits 30 --start-tick 2^30-5000000 --duration 30')
    c.simulate('clock-back', ['-w', 'busy', '--clock-back', '7', '--duration', '1', '--tick-bits', '32',
                              '--start-tick', str(W32 - 500000)])
    c.add('clock-back', 'exact', 'aioprof-sim -w busy --clock-back 7 --duration 1 --tick-bits 32 --start-tick 2^32-500000')
    c.simulate('clock-back-nested', ['-w', 'nested', '--clock-back', '3', '--duration', '3'])
    c.add('clock-back-nested', 'exact', 'aioprof-sim -w nested --clock-back 3 --duration 3')
    # damage: bits flipped, bytes deleted, garbage and zeros inserted (seeded)
    clean = c.simulate('dmg', ['-w', 'instances', '--duration', '4', '--text', '7'])
    c.add('dmg', 'exact', 'aioprof-sim -w instances --duration 4 --text 7')
    for how, seed in (('flip', 1), ('delete', 2), ('insert', 3), ('zeros', 4)):
        name = 'dmg+%s' % how
        c.add(name, 'damaged', '25 x %s (seed %d) in dmg' % (how, seed), damage(clean, how, seed), 'dmg')
    nclean = c.simulate('ndmg', ['-w', 'nested', '--duration', '4', '--tick-bits', '32'])
    c.add('ndmg', 'exact', 'aioprof-sim -w nested --duration 4 --tick-bits 32')
    c.add('ndmg+flip', 'damaged', '25 x flip (seed 5) in ndmg', damage(nclean, 'flip', 5), 'ndmg')
    c.add('ndmg+delete', 'damaged', '25 x delete (seed 6) in ndmg', damage(nclean, 'delete', 6), 'ndmg')
    # joined late, cut in a frame, the end before the stop
    late = c.simulate('late', ['-w', 'instances', '--duration', '12', '--seed', '3'])
    c.add('late', 'late:0.6', 'the last 40 % of aioprof-sim -w instances --duration 12 --seed 3',
          late[len(late) * 6 // 10:])
    c.add('dmg+cut', '-', 'the first 23456 bytes of dmg', clean[:23456])
    c.add('dmg+nostop', '-', 'dmg without its last frame (the stop)', without_last_frame(clean))
    # repeats: stretches that came twice
    seed = open(c.path('seed', '.aiop'), 'rb').read()
    c.add('seed+repeat', '-', 'seed[:900] + seed[500:]', seed[:900] + seed[500:])
    busy = open(c.path('busy', '.aiop'), 'rb').read()
    c.add('busy+repeat', '-', 'busy[:20000] + busy[12000:30000] + busy[25000:]',
          busy[:20000] + busy[12000:30000] + busy[25000:])
    # 256 frames lost: a silence the sequence number does not show
    long_seed = c.simulate('silence', ['-w', 'seed', '--duration', '300'], truth=False)
    c.add('silence', '-', 'aioprof-sim -w seed --duration 300 without its frames 20 .. 275',
          without_frames(long_seed, 20, 256))
    # device resets: a capture followed by another boot's
    a = c.simulate('reset-a', ['-w', 'seed', '--duration', '3'], truth=False)
    b = c.simulate('reset-b', ['-w', 'nested', '--duration', '3', '--start-tick', '5000'], truth=False)
    for part in ('reset-a', 'reset-b'):
        os.unlink(c.path(part, '.aiop'))
    c.add('resets', '-', 'seed 3 s, then nested 3 s from tick 5000, then seed 3 s again', a + b + a)
    # recordings: read in pieces with receive times; the link going away and another device after it
    c.add('rec', '-', 'a recording of nested in pieces of 1-4096 bytes', recording([open(c.path('nested', '.aiop'), 'rb').read()], 1))
    c.add('rec-relink', '-', 'a recording: busy, the link down and up, seed, down and up, nested (late)',
          recording([busy, 'down', 'up', seed, 'down', 'up', nclean[len(nclean) // 2:]], 2))
    rec = bytearray(recording([busy], 3))
    del rec[len(rec) // 2]
    c.add('rec-damaged', '-', 'a recording of busy with its middle byte deleted', bytes(rec))
    # a device that says what an event costs it (the HELLO's event_cost): the overhead's two parts,
    # over drops, device resets and link gaps
    cost = with_event_cost(c.simulate('cost-seed', ['-w', 'seed', '--duration', '40']), 100)
    c.add('cost-seed', 'exact', 'aioprof-sim -w seed --duration 40, every HELLO with event_cost 100', cost)
    drops = with_event_cost(c.simulate('cost-drops', ['-w', 'busy', '--ring', '256', '--baud', '9600',
                                                      '--duration', '20']), 100)
    c.add('cost-drops', 'lower', 'aioprof-sim -w busy --ring 256 --baud 9600 --duration 20, event_cost 100',
          drops)
    c.add('cost-resets', '-', 'cost-seed, then cost-drops, then cost-seed again (two device resets)',
          cost + drops + cost)
    c.add('cost-relink', '-', 'a recording: cost-drops, the link down and up, cost-seed from its third',
          recording([drops, 'down', 'up', cost[len(cost) // 3:]], 4))
    # the golden vectors' streams as they were when the corpus was made
    for name, data in golden_vectors().items():
        c.add('golden-' + name, '-', 'tests/golden/vectors.txt: ' + name, data)


def main():
    args = sys.argv[1:]
    keep = args[:1] == ['--keep']
    args = args[keep:]
    if len(args) not in (1, 2):
        sys.exit(__doc__)
    out = os.path.abspath(args[1]) if len(args) == 2 else os.path.join(HERE, 'corpus')
    os.makedirs(out, exist_ok=True)
    c = Corpus(os.path.abspath(args[0]), out, keep)
    make(c)
    c.expect()
    print('make_corpus: %d cases in %s' % (len(c.cases), out))


if __name__ == '__main__':
    main()
