"""Runs a command in a pseudo-terminal, as a person at a terminal would, and presses keys.

    python3 terminal.py TIMEOUT STEPS -- command args...

STEPS is a JSON list of [WHEN, KEYS] pairs, followed in order: once WHEN has appeared in
the output (colours and cursor moves stripped, after where the previous WHEN appeared),
KEYS (Python escapes, e.g. \\x03 for Ctrl-C, \\x1b[B for the down arrow) are written to
the terminal, as typing them does. Copies everything the command writes to stdout. Exits
with the command's exit status (128 + N when signal N ended it), or 124 when TIMEOUT
seconds pass first.
"""
import fcntl
import json
import os
import pty
import re
import select
import signal
import struct
import sys
import termios
import time

timeout = float(sys.argv[1])
steps = [(when.encode(), keys.encode().decode('unicode_escape').encode('latin-1')) for when, keys in json.loads(sys.argv[2])]
command = sys.argv[sys.argv.index('--') + 1:]
ESCAPES = re.compile(rb'\x1b\[[0-9;?]*[A-Za-z]|\r')

pid, fd = pty.fork()
if pid == 0:
    # A terminal of 40 rows and 120 columns, as a window has (a new pty has 0 x 0).
    fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack('HHHH', 40, 120, 0, 0))
    os.execvp(command[0], command)

raw = b''
searched_from = 0
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
        raw += data
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
    if steps:
        screen = ESCAPES.sub(b'', raw)
        found = screen.find(steps[0][0], searched_from)
        if found >= 0:
            searched_from = found + len(steps[0][0])
            os.write(fd, steps[0][1])
            steps.pop(0)

_, status = os.waitpid(pid, 0)
if timed_out:
    sys.exit(124)
sys.exit(128 + os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status))
