# SPDX-License-Identifier: Apache-2.0
"""A command run on a pseudo-terminal, as a person at a terminal would run it: the tools decide
on colour, progress lines and wrapping by whether their output is a terminal. Shared by the
CLI tests."""
import fcntl
import os
import pty
import select
import struct
import subprocess
import termios
import time


def run_on_terminal(argv, env, cols=None, stderr_too=True, timeout=120):
    """argv with stdout (and stderr, with stderr_too; else it is discarded) on one
    pseudo-terminal, `cols` columns wide when given: (exit status or None when it had to be
    killed at the timeout, all it wrote, "\\r\\n" as "\\n")."""
    master, slave = pty.openpty()
    if cols:
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, cols, 0, 0))
    try:
        p = subprocess.Popen(argv, stdin=slave, stdout=slave,
                             stderr=slave if stderr_too else subprocess.DEVNULL, env=env,
                             close_fds=True)
    finally:
        os.close(slave)
    data = b""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        ready, _, _ = select.select([master], [], [], 0.5)
        if ready:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: every writer closed the terminal
                break
            if not chunk:
                break
            data += chunk
        elif p.poll() is not None:
            break
    os.close(master)
    try:
        rc = p.wait(timeout=max(1, end - time.monotonic()))
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
        rc = None
    return rc, data.decode(errors="replace").replace("\r\n", "\n")
