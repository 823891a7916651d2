# What a test script measures itself, to compare with the host's report of the same run: each
# task calls begin() when it is resumed and end() before it suspends; the script prints
# report() at the end as "truth NAME count=N total_us=T errors=E instances=I" lines (device text, which
# aioprof-top passes on as "device: ..." lines on stderr).
import time

_rows = {}
_t0 = {}


def _row(name):
    r = _rows.get(name)
    if r is None:
        r = _rows[name] = [0, 0, 0, -1]  # slices, microseconds, instances ended by an error, instances
    return r


def begin(key):
    _t0[key] = time.ticks_us()


def end(key, name, error=False):
    # error: this slice ended the instance with an exception or a cancellation
    r = _row(name)
    r[0] += 1
    r[1] += time.ticks_diff(time.ticks_us(), _t0.pop(key))
    if error:
        r[2] += 1


def born(name, n=1):
    # an instance of name was created (rows without born() calls do not check instances)
    r = _row(name)
    r[3] = n if r[3] < 0 else r[3] + n


def count(name, slices=1, errors=0):
    # slices too short to time (the check then looks at counts only)
    r = _row(name)
    r[0] += slices
    r[1] = -1
    r[2] += errors


def report():
    for name in sorted(_rows):
        n, us, err, inst = _rows[name]
        print("truth %s count=%d total_us=%d errors=%d instances=%d" % (name, n, us, err, inst))
