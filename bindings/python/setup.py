# SPDX-License-Identifier: Apache-2.0
"""setuptools hook (the metadata is in pyproject.toml): records where libgpuverify was
installed, when GPUVERIFY_INSTALL_LIBDIR is set at build time, in the installed package's
gpuverify/_config.py, searched before the system's dynamic loader (gpuverify/_native.py).

    GPUVERIFY_INSTALL_LIBDIR=/opt/gpuverify/lib pip install --no-build-isolation ./bindings/python
"""
import os

from setuptools import setup
from setuptools.command.build_py import build_py


class BuildPy(build_py):
    def run(self):
        super().run()
        libdirs = [d for d in os.environ.get("GPUVERIFY_INSTALL_LIBDIR", "").split(os.pathsep)
                   if d]
        if libdirs:
            target = os.path.join(self.build_lib, "gpuverify", "_config.py")
            with open(target, "w") as f:
                f.write('"""Written by setup.py from GPUVERIFY_INSTALL_LIBDIR."""\n'
                        "LIBRARY_DIRS = %r\n" % [os.path.abspath(d) for d in libdirs])


setup(cmdclass={"build_py": BuildPy})
