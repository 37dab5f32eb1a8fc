# SPDX-License-Identifier: Apache-2.0
"""Another gpuverify holding a GPU, as the integration tests stage it: a process named as
gpuverify-worker is (its comm, "gpuverify-worke") holding the GPU's lock file (flock) with what
gpu_lock.c writes there (its PID, since when, the program's name), as if it had held the GPU for
`held_s` seconds. gv-check checks the note against the kernel's holder (/proc/locks), so the
holder's PID is the process's own: `holder.pid`. Shared by the Slurm and NHC tests."""
import os
import subprocess
import sys

BUS_ID = "0000:18:00.0"  # GPU 0 of the h100-open fixture and of h100x1-compute

_HOLD = (
    "import ctypes, fcntl, os, sys, time\n"
    "ctypes.CDLL(None).prctl(15, b'gpuverify-worker', 0, 0, 0)  # PR_SET_NAME\n"
    "f = open(sys.argv[1], 'w')\n"
    "fcntl.flock(f, fcntl.LOCK_EX)\n"
    "f.write('pid=%d\\nsince_ms=%d\\nprogram=gpuverify-worke\\n' %"
    " (os.getpid(), time.time() * 1000 - float(sys.argv[2]) * 1000))\n"
    "f.flush()\n"
    "print('held', flush=True)\n"
    "time.sleep(float(sys.argv[3]))\n")


def start(locks, held_s, life_s=120):
    """Starts the holder in the lock folder `locks` and returns it once it holds the lock."""
    holder = subprocess.Popen(
        [sys.executable, "-c", _HOLD, os.path.join(locks, "gpuverify-gpu-%s.lock" % BUS_ID),
         str(held_s), str(life_s)], stdout=subprocess.PIPE, text=True)
    holder.stdout.readline()
    return holder


def stop(holder):
    holder.kill()
    holder.wait()

