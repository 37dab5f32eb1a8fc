# SPDX-License-Identifier: Apache-2.0
"""The package's PEP 517 build backend, in the tree so that `pip install ./bindings/python`
needs nothing but pip: no setuptools or wheel fetched from an index, no
`--no-build-isolation`, no `--system-site-packages`. The package is pure Python, so a wheel
is a zip of gpuverify/ and its metadata (PEP 427, core metadata 2.1).

When GPUVERIFY_INSTALL_LIBDIR is set at build time, the wheel's gpuverify/_config.py records
those directories, searched before the system's dynamic loader (gpuverify/_native.py):

    GPUVERIFY_INSTALL_LIBDIR=/opt/gpuverify/lib pip install ./bindings/python
"""
import base64
import hashlib
import io
import os
import re
import tarfile
import time
import zipfile

SOURCE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = "gpuverify"
# The project's metadata lives here, not in pyproject.toml's [project] table: reading TOML
# needs tomllib (Python 3.11+), and the package supports 3.9.
SUMMARY = "Python binding (ctypes) for libgpuverify: is this GPU node fit for work?"
REQUIRES_PYTHON = ">=3.9"
SCRIPTS = {"gpuverify": "gpuverify.__main__:main"}
CLASSIFIERS = ["Programming Language :: Python :: 3", "Operating System :: POSIX :: Linux",
               "License :: OSI Approved :: Apache Software License"]
TAG = "py3-none-any"
# Files of the sdist besides the package: what building a wheel from it needs, and the tests.
SDIST_EXTRA = ["pyproject.toml", "README.md", "build_backend/gpuverify_build.py"]


def version():
    """__version__ of gpuverify/__init__.py: one place for the number."""
    with open(os.path.join(SOURCE, PACKAGE, "__init__.py"), encoding="utf-8") as f:
        found = re.search(r'^__version__ = "([^"]+)"', f.read(), re.MULTILINE)
    if not found:
        raise RuntimeError("no __version__ = \"...\" line in gpuverify/__init__.py")
    return found.group(1)


def package_files():
    """(path in the wheel, path on disk) of every file the package installs, sorted."""
    found = []
    for root, dirs, names in os.walk(os.path.join(SOURCE, PACKAGE)):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(names):
            if name.endswith((".py", ".typed")):
                disk = os.path.join(root, name)
                found.append((os.path.relpath(disk, SOURCE).replace(os.sep, "/"), disk))
    return found


def metadata_text():
    with open(os.path.join(SOURCE, "README.md"), encoding="utf-8") as f:
        readme = f.read()
    lines = ["Metadata-Version: 2.1", "Name: " + PACKAGE, "Version: " + version(),
             "Summary: " + SUMMARY, "License: Apache-2.0", "Requires-Python: " + REQUIRES_PYTHON]
    lines += ["Classifier: " + c for c in CLASSIFIERS]
    lines += ["Description-Content-Type: text/markdown", "", readme]
    return "\n".join(lines)


def dist_info_files():
    """{name: text} of the .dist-info folder, RECORD aside."""
    return {
        "METADATA": metadata_text(),
        "WHEEL": "Wheel-Version: 1.0\nGenerator: gpuverify_build\nRoot-Is-Purelib: true\n"
                 "Tag: %s\n" % TAG,
        "entry_points.txt": "[console_scripts]\n" + "".join(
            "%s = %s\n" % (name, target) for name, target in SCRIPTS.items()),
    }


def dist_info_name():
    return "%s-%s.dist-info" % (PACKAGE, version())


def configured_library_dirs():
    """_config.py naming GPUVERIFY_INSTALL_LIBDIR's directories, or None when it is unset."""
    dirs = [d for d in os.environ.get("GPUVERIFY_INSTALL_LIBDIR", "").split(os.pathsep) if d]
    if not dirs:
        return None
    return ('"""Written by the build backend from GPUVERIFY_INSTALL_LIBDIR."""\n'
            "LIBRARY_DIRS = %r\n" % [os.path.abspath(d) for d in dirs])


def record_hash(data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
    return "sha256=" + digest.decode("ascii")


def write_wheel(wheel_directory, contents):
    """A wheel of contents, [(path in the wheel, bytes)], plus .dist-info; its file name."""
    name = "%s-%s-%s.whl" % (PACKAGE, version(), TAG)
    info = dist_info_name()
    contents = list(contents) + [(info + "/" + k, v.encode("utf-8"))
                                 for k, v in dist_info_files().items()]
    record = "".join("%s,%s,%d\n" % (path, record_hash(data), len(data))
                     for path, data in contents) + info + "/RECORD,,\n"
    contents.append((info + "/RECORD", record.encode("utf-8")))
    # A fixed date: the same sources give the same wheel.
    stamp = (1980, 1, 1, 0, 0, 0)
    with zipfile.ZipFile(os.path.join(wheel_directory, name), "w",
                         zipfile.ZIP_DEFLATED) as whl:
        for path, data in contents:
            entry = zipfile.ZipInfo(path, stamp)
            entry.external_attr = 0o644 << 16
            entry.compress_type = zipfile.ZIP_DEFLATED
            whl.writestr(entry, data)
    return name


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    config = configured_library_dirs()
    contents = []
    for path, disk in package_files():
        if config is not None and path == PACKAGE + "/_config.py":
            contents.append((path, config.encode("utf-8")))
            continue
        with open(disk, "rb") as f:
            contents.append((path, f.read()))
    return write_wheel(wheel_directory, contents)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    """PEP 660: a wheel whose .pth puts this source folder on sys.path (`pip install -e`)."""
    return write_wheel(wheel_directory, [(PACKAGE + ".pth", (SOURCE + "\n").encode("utf-8"))])


def build_sdist(sdist_directory, config_settings=None):
    base = "%s-%s" % (PACKAGE, version())
    name = base + ".tar.gz"
    files = [(p, os.path.join(SOURCE, p)) for p in SDIST_EXTRA] + package_files()
    tests = os.path.join(SOURCE, "tests")
    files += [("tests/" + n, os.path.join(tests, n)) for n in sorted(os.listdir(tests))
              if n.endswith(".py")]
    with tarfile.open(os.path.join(sdist_directory, name), "w:gz", format=tarfile.PAX_FORMAT) \
            as tar:
        for path, disk in files:
            tar.add(disk, arcname=base + "/" + path, recursive=False, filter=_plain)
        pkg_info = metadata_text().encode("utf-8")
        entry = tarfile.TarInfo(base + "/PKG-INFO")
        entry.size, entry.mode, entry.mtime = len(pkg_info), 0o644, int(time.time())
        tar.addfile(entry, io.BytesIO(pkg_info))
    return name


def _plain(entry):
    entry.uid = entry.gid = 0
    entry.uname = entry.gname = ""
    return entry


def _prepare_metadata(metadata_directory):
    info = os.path.join(metadata_directory, dist_info_name())
    os.makedirs(info, exist_ok=True)
    for name, text in dist_info_files().items():
        with open(os.path.join(info, name), "w", encoding="utf-8") as f:
            f.write(text)
    return dist_info_name()


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    return _prepare_metadata(metadata_directory)


def prepare_metadata_for_build_editable(metadata_directory, config_settings=None):
    return _prepare_metadata(metadata_directory)


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_editable(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []
