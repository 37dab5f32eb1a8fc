# SPDX-License-Identifier: Apache-2.0
"""pip install into a plain virtual environment (offline, pip's defaults: build isolation, no
system site-packages; the build backend is in the tree), an sdist and an editable install, and
where the installed package finds libgpuverify: $GPUVERIFY_LIBRARY, the directory recorded at
install (GPUVERIFY_INSTALL_LIBDIR), the environment's prefix, then the system's search, every
place named when none loads."""
import ctypes.util
import os
import shutil
import subprocess

import pytest

SOURCE = os.path.join(os.path.dirname(__file__), "..")
SONAME = "libgpuverify.so.1"


@pytest.fixture(scope="module")
def venv(tmp_path_factory):
    """A plain venv (its own pip, nothing of the system's), the package installed into it from
    a copy of bindings/python, recording <root>/configured as the library's directory.
    {"python", "root", "configured", "prefix"}"""
    python = "/usr/bin/python3"
    if not os.path.exists(python):
        pytest.skip("needs Debian's /usr/bin/python3")
    root = tmp_path_factory.mktemp("venv")
    src = root / "src"
    shutil.copytree(SOURCE, src, ignore=shutil.ignore_patterns(
        "tests", "build", "*.egg-info", "__pycache__"))
    env_dir = root / "env"
    subprocess.run([python, "-m", "venv", str(env_dir)], check=True)
    configured = root / "configured"
    configured.mkdir()
    pip = subprocess.run(
        [str(env_dir / "bin" / "python"), "-m", "pip", "install", "--no-index", "--no-cache-dir",
         "--disable-pip-version-check", "-q", str(src)],
        capture_output=True, text=True, env=dict(os.environ, GPUVERIFY_INSTALL_LIBDIR=str(
            configured)))
    assert pip.returncode == 0, ("pip install failed (Debian: apt-get install python3-venv)\n"
                                 + pip.stdout + pip.stderr)
    return {"python": str(env_dir / "bin" / "python"), "root": root,
            "configured": str(configured), "prefix": str(env_dir / "lib")}


def run_in(venv, code, library=None):
    """code run by the venv's interpreter, away from the sources, with GPUVERIFY_LIBRARY set
    to library (or unset) and no LD_LIBRARY_PATH."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("GPUVERIFY_LIBRARY", "LD_LIBRARY_PATH", "PYTHONPATH")}
    if library:
        env["GPUVERIFY_LIBRARY"] = library
    return subprocess.run([venv["python"], "-c", code], capture_output=True, text=True,
                          env=env, cwd=str(venv["root"]))


WHERE = ("import gpuverify, gpuverify._native as n\n"
         "print(gpuverify.__file__)\n"
         "print(gpuverify.version(), n.library_found_by(), gpuverify.library_path())\n")


def test_pip_installs_offline_and_the_package_loads_the_built_library(venv):
    built = os.environ.get("GPUVERIFY_LIBRARY") or pytest.skip("GPUVERIFY_LIBRARY is not set")
    out = run_in(venv, "import gpuverify; print(gpuverify.version())", library=built)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "1.0.0"
    where = run_in(venv, WHERE, library=built)
    installed, found = where.stdout.splitlines()
    assert installed.startswith(str(venv["root"] / "env")), installed  # not the sources
    assert found.split()[1] == "$GPUVERIFY_LIBRARY"
    script = subprocess.run([os.path.join(os.path.dirname(venv["python"]), "gpuverify"),
                             "--version"], capture_output=True, text=True,
                            env=dict(os.environ, GPUVERIFY_LIBRARY=built))
    assert script.returncode == 0 and script.stdout.startswith("gpuverify (Python) 1.0.0")


def test_the_library_is_found_where_it_was_installed(venv):
    built = os.environ.get("GPUVERIFY_LIBRARY") or pytest.skip("GPUVERIFY_LIBRARY is not set")
    configured = os.path.join(venv["configured"], SONAME)
    prefixed = os.path.join(venv["prefix"], SONAME)
    try:
        os.symlink(built, configured)  # the directory recorded at install comes first
        os.symlink(built, prefixed)
        out = run_in(venv, WHERE)
        assert out.returncode == 0, out.stderr
        assert out.stdout.splitlines()[1].split() == ["1.0.0", "configured", configured]
        os.unlink(configured)  # then the environment's own lib/
        out = run_in(venv, WHERE)
        assert out.returncode == 0, out.stderr
        assert out.stdout.splitlines()[1].split() == ["1.0.0", "prefix", prefixed]
        # $GPUVERIFY_LIBRARY is the only place tried when set.
        out = run_in(venv, WHERE, library="/nonexistent/" + SONAME)
        assert "LibraryNotFoundError" in out.stderr and prefixed not in out.stderr
    finally:
        for link in (configured, prefixed):
            if os.path.lexists(link):
                os.unlink(link)


def test_none_loads_and_the_error_names_every_place_tried(venv):
    if ctypes.util.find_library("gpuverify"):
        pytest.skip("this machine has a libgpuverify the system's search finds")
    out = run_in(venv, "import gpuverify\n"
                       "try:\n"
                       "    gpuverify.version()\n"
                       "except gpuverify.LibraryNotFoundError as e:\n"
                       "    print(e)\n")
    assert out.returncode == 0, out.stderr
    message = out.stdout
    order = [os.path.join(venv["configured"], SONAME) + ": no such file",
             os.path.join(venv["prefix"], SONAME) + ": no such file",
             "find_library gpuverify: found nothing", "soname " + SONAME + ":"]
    places = [message.index(p) for p in order]
    assert places == sorted(places), message


def test_an_sdist_and_an_editable_install_build_offline(tmp_path):
    """The backend's sdist installs in a plain venv with nothing fetched, and `pip install -e`
    imports the package from the source folder."""
    python = "/usr/bin/python3"
    if not os.path.exists(python):
        pytest.skip("needs Debian's /usr/bin/python3")
    src = tmp_path / "src"
    shutil.copytree(SOURCE, src, ignore=shutil.ignore_patterns("build", "__pycache__"))
    sdist = subprocess.run(
        [python, "-c", "import sys; sys.path.insert(0, 'build_backend'); "
                       "import gpuverify_build; print(gpuverify_build.build_sdist(sys.argv[1]))",
         str(tmp_path)], capture_output=True, text=True, cwd=str(src))
    assert sdist.returncode == 0, sdist.stderr
    assert sdist.stdout.strip() == "gpuverify-1.0.0.tar.gz"
    archive = str(tmp_path / "gpuverify-1.0.0.tar.gz")
    for name, target, where in (("sdist", archive, "site-packages"),
                                ("editable", "-e " + str(src), str(src))):
        env_dir = tmp_path / name
        subprocess.run([python, "-m", "venv", str(env_dir)], check=True)
        pip = subprocess.run([str(env_dir / "bin" / "python"), "-m", "pip", "install",
                              "--no-index", "--no-cache-dir", "--disable-pip-version-check",
                              "-q"] + target.split(), capture_output=True, text=True)
        assert pip.returncode == 0, name + ": " + pip.stdout + pip.stderr
        out = subprocess.run([str(env_dir / "bin" / "python"), "-c",
                              "import gpuverify; print(gpuverify.__file__)"],
                             capture_output=True, text=True, cwd=str(tmp_path))
        assert out.returncode == 0, out.stderr
        assert where in out.stdout, (name, out.stdout)
