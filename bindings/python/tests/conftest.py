# SPDX-License-Identifier: Apache-2.0
"""The C build's fixtures and fake NVIDIA libraries, as ctest passes them:
GPUVERIFY_LIBRARY (the built libgpuverify.so.1), GV_TEST_FIXTURES, GV_TEST_FAKELIB, GV_CHECK."""
import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))


def _need(name):
    value = os.environ.get(name)
    if not value:
        pytest.skip("%s is not set (run through ctest)" % name)
    return value


@pytest.fixture
def fixtures():
    return _need("GV_TEST_FIXTURES")


@pytest.fixture
def fakelib():
    return _need("GV_TEST_FAKELIB")


@pytest.fixture
def gv_check():
    return _need("GV_CHECK")


@pytest.fixture
def node(fixtures, fakelib, monkeypatch):
    """node(sysroot, scenario, **context) -> a Context over that fixture with the fakes
    answering (context: Context's other options)."""
    import gpuverify

    opened = []

    def make(sysroot="h100-open", scenario="h100x8", **context):
        monkeypatch.setenv("GV_FAKE_SCENARIO", os.path.join(fixtures, "scenarios",
                                                            scenario + ".conf"))
        ctx = gpuverify.Context(sysroot=os.path.join(fixtures, "sysroots", sysroot),
                                library_dir=fakelib, **context)
        opened.append(ctx)
        return ctx

    yield make
    for ctx in opened:
        ctx.close()
