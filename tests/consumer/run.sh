#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Installs the build into a scratch prefix, moves it (the .pc file and CMake package must be
# relocatable), then builds and runs the consumer with find_package and with pkg-config.
# usage: run.sh BUILD_DIR CONSUMER_SOURCE WORK_DIR
set -eu
build=$1 src=$2 work=$3
rm -rf "$work"
cmake --install "$build" --prefix "$work/staged" >/dev/null
mv "$work/staged" "$work/prefix"
prefix=$work/prefix
sysroot=$GV_TEST_FIXTURES/sysroots/h100-open
libdir=$(dirname "$(find "$prefix" -name 'libgpuverify.so' | head -n1)")

cmake -S "$src" -B "$work/cmake-build" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$work/cmake-build" >/dev/null
LD_LIBRARY_PATH=$libdir "$work/cmake-build/consumer" "$sysroot"

export PKG_CONFIG_PATH=$libdir/pkgconfig
pkg-config --exists gpuverify
# Requires.private names hwloc and jansson: a static link must be able to find them.
pkg-config --static --libs gpuverify | grep -q -- '-lhwloc'
cc -std=c11 -Wall -Werror $(pkg-config --cflags gpuverify) "$src/main.c" \
    $(pkg-config --libs gpuverify) -o "$work/consumer-pc"
LD_LIBRARY_PATH=$libdir "$work/consumer-pc" "$sysroot"
test -x "$prefix/bin/gv-check"
echo "consumer built and ran with find_package and with pkg-config"
