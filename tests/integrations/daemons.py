# SPDX-License-Identifier: Apache-2.0
"""What the tests that start real daemons (Slurm's, Prometheus') share: a free loopback port,
and stopping what they started whatever state the test left it in."""
import os
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


def munged(folder, munged_path="munged", munge_path="munge"):
    """A munged of the test's own under folder (its etc/, run/, log/ and state/ made by the
    caller; every directory on the socket's path searchable by all, as munged checks): writes
    its key and returns (command line, socket, a function true once it answers)."""
    key = os.path.join(folder, "etc", "munge.key")
    with open(key, "wb") as f:
        f.write(os.urandom(1024))
    os.chmod(key, 0o600)
    sock = os.path.join(folder, "run", "munge.socket")
    argv = [munged_path, "-F", "--socket=" + sock, "--key-file=" + key,
            "--pid-file=" + os.path.join(folder, "run", "munged.pid"),
            "--log-file=" + os.path.join(folder, "log", "munged.log"),
            "--seed-file=" + os.path.join(folder, "state", "munged.seed")]
    return argv, sock, lambda: subprocess.run([munge_path, "-n", "-S", sock],
                                              capture_output=True).returncode == 0
