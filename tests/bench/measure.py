#!/usr/bin/env python3
"""The measurements of tests/bench/run.sh that a shell cannot take precisely.

  measure.py run [-o OUT] [-e ERR] CMD [ARG...]
      One run of CMD, its standard output to OUT (default /dev/null), its standard error to ERR
      (default /dev/null). Prints "WALL_S CPU_S EXIT": wall seconds from fork to exit, and the
      child's user + system CPU seconds (getrusage, via wait4). Not its peak memory: a child's
      ru_maxrss keeps the high-water mark from before its exec, Python's own tens of MB; the
      memory part uses /usr/bin/time, whose footprint before the exec is about 1 MB.

  measure.py live --reader top|cat --pacer PACER --capture FILE --rate B_PER_S --chunk BYTES
                  --seconds S [--top AIOPROF_TOP] [--size COLSxROWS] [--work DIR]
                  [--keys KEY... --shows TEXT]
      A reader of a pty that PACER (tests/bench/pty_pacer.c) feeds from FILE at the given pace:
      aioprof-top's live table in a tmux pane of the given size (default 120x40), or `cat` (the
      baseline: the least any reader of those bytes costs). Once the reader is under way (the
      table shows the device, or cat has read), its CPU time is taken over S seconds of wall
      time, from /proc/PID/schedstat (nanoseconds; /proc/PID/stat's clock ticks where it is
      missing). Prints "CPU_PERCENT B_PER_S WINDOW_S FULL": percent of one core, the bytes the
      pacer wrote per second in the window (/proc/PID/io), which the reader took, and how many
      of the pacer's writes in the window found the pty full (the reader let the bytes pile up
      past what the kernel holds: a board's ring would have overflowed). --keys are
      sent to the table (tmux key names) once it shows the device, and the window starts when
      the screen shows TEXT (the timeline: --keys T --shows "timeline 5 s").

  measure.py tui-replay --top AIOPROF_TOP --file FILE [--size COLSxROWS] [--work DIR]
      aioprof-top -r FILE --speed 0 in the live table under tmux, until the screen says
      "end of recording". Prints "WALL_S CPU_S": from the launch until the end was seen
      (includes tmux's start and up to 20 ms of polling), and aioprof-top's CPU time by then.

Exit 0; 1 with one sentence on stderr when the measurement could not be taken; 2 on bad usage.
Nothing here judges a figure: run.sh compares them.
"""
import argparse
import os
import shlex
import signal
import subprocess
import sys
import tempfile
import time

POLL_S = 0.02
START_PATIENCE_S = 60.0


class Failed(Exception):
    pass


def cpu_seconds(pid):
    """CPU time (user + system) of a process so far."""
    try:
        with open('/proc/%d/schedstat' % pid) as f:
            ns = int(f.read().split()[0])
        if ns > 0:
            return ns / 1e9
    except (OSError, ValueError, IndexError):
        pass
    try:
        with open('/proc/%d/stat' % pid) as f:
            # the command may hold spaces and parentheses: the fields start after the last ')'
            fields = f.read().rsplit(')', 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf('SC_CLK_TCK')
    except (OSError, ValueError, IndexError):
        raise Failed('process %d is gone' % pid)


def io_count(pid, field):
    try:
        with open('/proc/%d/io' % pid) as f:
            for line in f:
                if line.startswith(field + ':'):
                    return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return None


def bytes_read(pid):
    return io_count(pid, 'rchar')


def bytes_written(pid):
    return io_count(pid, 'wchar')


def wait_for(what, check, patience=START_PATIENCE_S):
    deadline = time.monotonic() + patience
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(POLL_S)
    raise Failed('%s did not happen within %.0f s' % (what, patience))


def full_so_far(pacer, log_path):
    """The pacer's count of writes that found the pty full, asked by SIGUSR1."""
    before = open(log_path).read().count(' full so far')
    pacer.send_signal(signal.SIGUSR1)
    wait_for('the pacer saying its count', lambda: open(log_path).read().count(' full so far') > before
             or pacer.poll() is not None)
    lines = [l for l in open(log_path).read().splitlines() if l.endswith(' full so far')]
    if len(lines) <= before:
        raise Failed('the pacer stopped: %s' % open(log_path).read().strip())
    return int(lines[-1].split()[1])


def cmd_run(argv):
    p = argparse.ArgumentParser(prog='measure.py run')
    p.add_argument('-o', default=os.devnull)
    p.add_argument('-e', default=os.devnull)
    p.add_argument('cmd', nargs=argparse.REMAINDER)
    a = p.parse_args(argv)
    if not a.cmd:
        p.error('no command')
    with open(a.o, 'wb') as out, open(a.e, 'wb') as err:
        t0 = time.monotonic()
        try:
            child = subprocess.Popen(a.cmd, stdout=out, stderr=err, stdin=subprocess.DEVNULL)
        except OSError as e:
            raise Failed('cannot run %s: %s' % (a.cmd[0], e.strerror))
        _, status, ru = os.wait4(child.pid, 0)
        wall = time.monotonic() - t0
    child.returncode = os.waitstatus_to_exitcode(status)
    print('%.6f %.6f %d' % (wall, ru.ru_utime + ru.ru_stime, child.returncode))


class Tmux:
    """A private tmux server with one pane running one command."""

    def __init__(self, size, command, work):
        self.sock = 'aioprof-bench-%d' % os.getpid()
        cols, rows = size.split('x')
        env_cmd = 'exec env TERM=screen LANG=C.UTF-8 LC_ALL=C.UTF-8 %s 2>%s' % (
            ' '.join(shlex.quote(c) for c in command), shlex.quote(os.path.join(work, 'stderr')))
        self.work = work
        self.started = time.monotonic()
        subprocess.run(['tmux', '-f', '/dev/null', '-L', self.sock, 'new-session', '-d',
                        '-x', cols, '-y', rows, env_cmd], check=True)
        out = subprocess.run(['tmux', '-L', self.sock, 'display', '-p', '#{pane_pid}'],
                             capture_output=True, text=True)
        try:
            self.pid = int(out.stdout.strip())
        except ValueError:
            self.close()
            raise Failed('tmux did not say which process runs in its pane')

    def screen(self):
        out = subprocess.run(['tmux', '-L', self.sock, 'capture-pane', '-p'],
                             capture_output=True, text=True, errors='replace')
        return out.stdout

    def alive(self):
        """The pane's process still runs (as the shell, env, or aioprof-top they exec)."""
        return os.path.exists('/proc/%d' % self.pid)

    def running_top(self):
        try:
            with open('/proc/%d/comm' % self.pid) as f:
                return f.read().strip() == 'aioprof-top'
        except OSError:
            return False

    def why_not(self):
        try:
            with open(os.path.join(self.work, 'stderr')) as f:
                return f.read().strip().splitlines()[-1]
        except (OSError, IndexError):
            return 'no message'

    def close(self):
        subprocess.run(['tmux', '-L', self.sock, 'kill-server'],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def cmd_live(argv):
    p = argparse.ArgumentParser(prog='measure.py live')
    p.add_argument('--reader', choices=('top', 'cat'), required=True)
    p.add_argument('--top')
    p.add_argument('--pacer', required=True)
    p.add_argument('--capture', required=True)
    p.add_argument('--rate', type=float, required=True)
    p.add_argument('--chunk', type=int, required=True)
    p.add_argument('--seconds', type=float, required=True)
    p.add_argument('--size', default='120x40')
    p.add_argument('--work')
    p.add_argument('--keys', nargs='+', default=[])
    p.add_argument('--shows')
    a = p.parse_args(argv)
    if a.reader == 'top' and not a.top:
        p.error('--reader top needs --top')
    if bool(a.keys) != bool(a.shows):
        p.error('--keys and --shows go together')
    work = a.work or tempfile.mkdtemp(prefix='aioprof-bench.')
    link = os.path.join(work, 'pty.%d' % os.getpid())
    if os.path.exists(link):
        os.unlink(link)
    pacer_log = open(os.path.join(work, 'pacer.log'), 'w+')
    # the pacer outlives the window; it is stopped with SIGTERM when the window is over
    pacer = subprocess.Popen([a.pacer, a.capture, str(a.rate), str(a.chunk),
                              str(a.seconds + START_PATIENCE_S + 10), link], stderr=pacer_log)
    tmux = reader = None
    try:
        wait_for('the pacer making its pty', lambda: os.path.exists(link) or pacer.poll() is not None)
        if pacer.poll() is not None:
            raise Failed('the pacer stopped: %s' % open(pacer_log.name).read().strip())
        pty = open(link).read().strip()
        if a.reader == 'top':
            tmux = Tmux(a.size, [a.top, pty], work)
            pid = tmux.pid

            def under_way():
                if not tmux.alive():
                    raise Failed('aioprof-top stopped: %s' % tmux.why_not())
                return tmux.running_top() and 'aioprof-sim' in tmux.screen()
            wait_for('the table showing the device', under_way)
            if a.keys:
                subprocess.run(['tmux', '-L', tmux.sock, 'send-keys'] + a.keys, check=True)
                wait_for('the table showing %r' % a.shows, lambda: a.shows in tmux.screen())
        else:
            reader = subprocess.Popen(['cat', pty], stdout=subprocess.DEVNULL)
            pid = reader.pid
            wait_for('cat reading', lambda: (bytes_read(pid) or 0) > 0)
        # the rate is what the pacer wrote: the reader's own count includes its start-up's reads
        f0 = full_so_far(pacer, pacer_log.name)
        c0, w0, t0 = cpu_seconds(pid), bytes_written(pacer.pid), time.monotonic()
        time.sleep(a.seconds)  # the measurement window itself, not a synchronisation
        c1, w1, t1 = cpu_seconds(pid), bytes_written(pacer.pid), time.monotonic()
        f1 = full_so_far(pacer, pacer_log.name)
        if tmux and not tmux.alive():
            raise Failed('aioprof-top stopped during the window: %s' % tmux.why_not())
        if pacer.poll() is not None:
            raise Failed('the pacer stopped during the window (the capture is too short?): %s'
                         % open(pacer_log.name).read().strip())
        rate = (w1 - w0) / (t1 - t0) if w0 is not None and w1 is not None else -1
        print('%.4f %.0f %.3f %d' % ((c1 - c0) / (t1 - t0) * 100, rate, t1 - t0, f1 - f0))
    finally:
        if tmux:
            tmux.close()
        if reader:
            reader.terminate()
            reader.wait()
        if pacer.poll() is None:
            pacer.send_signal(signal.SIGTERM)
            pacer.wait()
        pacer_log.close()


def cmd_tui_replay(argv):
    p = argparse.ArgumentParser(prog='measure.py tui-replay')
    p.add_argument('--top', required=True)
    p.add_argument('--file', required=True)
    p.add_argument('--size', default='120x40')
    p.add_argument('--work')
    a = p.parse_args(argv)
    work = a.work or tempfile.mkdtemp(prefix='aioprof-bench.')
    tmux = Tmux(a.size, [a.top, '-r', a.file, '--speed', '0'], work)
    try:
        def at_end():
            if not tmux.alive():
                raise Failed('aioprof-top stopped: %s' % tmux.why_not())
            return tmux.running_top() and 'end of recording' in tmux.screen()
        wait_for('the end of the recording', at_end, patience=600)
        wall = time.monotonic() - tmux.started
        print('%.6f %.6f' % (wall, cpu_seconds(tmux.pid)))
    finally:
        tmux.close()


def main():
    commands = {'run': cmd_run, 'live': cmd_live, 'tui-replay': cmd_tui_replay}
    if len(sys.argv) < 2 or sys.argv[1] not in commands:
        sys.stderr.write(__doc__)
        return 2
    try:
        commands[sys.argv[1]](sys.argv[2:])
    except Failed as e:
        sys.stderr.write('measure.py: %s.\n' % e)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
