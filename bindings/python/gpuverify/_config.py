# SPDX-License-Identifier: Apache-2.0
"""Where this copy of the package looks for libgpuverify before the system's search.

The build backend rewrites LIBRARY_DIRS in the installed copy when GPUVERIFY_INSTALL_LIBDIR is
set at build time (`GPUVERIFY_INSTALL_LIBDIR=/opt/gpuverify/lib pip install ...`); a packager
may also set it here. Empty: the interpreter's prefix and the system's search only."""
LIBRARY_DIRS = []
