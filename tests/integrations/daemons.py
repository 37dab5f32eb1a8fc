# SPDX-License-Identifier: Apache-2.0
"""What the tests that start real daemons (Slurm's, Prometheus') share: a free loopback port,
and stopping what they started whatever state the test left it in."""
import signal
import socket
import subprocess


def free_port():
    """A TCP port on 127.0.0.1 nobody listens on now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def stop(procs, names):
    """SIGTERM each still-running process of procs (name -> Popen) in the order of names, and
    SIGKILL it after 15 s."""
    for name in names:
        p = procs.get(name)
        if not p or p.poll() is not None:
            continue
        p.send_signal(signal.SIGTERM)
        try:
            p.wait(15)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait(5)
