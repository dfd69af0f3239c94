"""Runs a command in a pseudo-terminal, as a person at a terminal would, and presses keys.

    python3 terminal.py WHEN KEYS TIMEOUT -- command args...

Copies everything the command writes to stdout. Once WHEN has appeared in the output,
writes KEYS (Python escapes, e.g. \\x03 for Ctrl-C) to the terminal, as typing them
does. Exits with the command's exit status (128 + N when signal N ended it), or 124
when TIMEOUT seconds pass first.
"""
import fcntl
import os
import pty
import select
import signal
import struct
import sys
import termios
import time

when = sys.argv[1].encode()
keys = sys.argv[2].encode().decode('unicode_escape').encode('latin-1')
timeout = float(sys.argv[3])
command = sys.argv[sys.argv.index('--') + 1:]

pid, fd = pty.fork()
if pid == 0:
    # A terminal of 40 rows and 120 columns, as a window has (a new pty has 0 x 0).
    fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack('HHHH', 40, 120, 0, 0))
    os.execvp(command[0], command)

seen = b''
sent = False
deadline = time.monotonic() + timeout
timed_out = False
while True:
    if time.monotonic() > deadline:
        timed_out = True
        os.kill(pid, signal.SIGKILL)
        break
    ready, _, _ = select.select([fd], [], [], 0.05)
    if ready:
        try:
            data = os.read(fd, 65536)
        except OSError:
            break
        if not data:
            break
        seen += data
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
    if not sent and when in seen:
        os.write(fd, keys)
        sent = True

_, status = os.waitpid(pid, 0)
if timed_out:
    sys.exit(124)
sys.exit(128 + os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status))
