#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The Debian packages on this machine (.ci/run's last stage; as root, it installs into /usr):
# built by scripts/build-debs.sh, installed with apt-get (which must resolve every Depends from
# Debian), then check_install.sh's checks on /usr: the tools find the library without a RUNPATH,
# gv-check runs its checks over the fakes in the installed worker, the manual pages render, the
# integrations are all there, and the consumer builds with find_package and pkg-config.
# Installing starts and enables nothing. Then the packages are purged and must leave no file.
# usage: check_debs.sh BUILD WORK   (BUILD: a test build, for its fixtures and fake libraries)
# shellcheck disable=SC2086 # $packages and $debs: a word each
set -eu
src=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "$1" && pwd) work=$2
packages="libgpuverify1 libgpuverify-dev gpuverify gpuverify-integrations"
run() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
fail() {
    echo "FAIL: $*" >&2
    exit 1
}

for p in $packages; do
    if dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
        fail "$p is installed already: this check installs and purges its own"
    fi
done
rm -rf "$work"
mkdir -p "$work"
work=$(cd "$work" && pwd)
debs=$("$src/scripts/build-debs.sh" "$work/debs")
echo "built:" $debs
purge() { DEBIAN_FRONTEND=noninteractive run apt-get purge -y -qq $packages >/dev/null 2>&1 || true; }
trap purge EXIT
units_before=$(systemctl list-unit-files 2>/dev/null | grep -c gpuverify || true)
# apt-get, not dpkg -i: the packages' Depends are resolved, so a wrong name fails here.
DEBIAN_FRONTEND=noninteractive run apt-get install -y -qq --no-install-recommends \
    $debs >"$work/apt.log" 2>&1 ||
    fail "apt-get install: $(tail -n 20 "$work/apt.log")"
for p in $packages; do
    dpkg-query -W -f='${Status}' "$p" | grep -q 'install ok installed' || fail "$p not installed"
done
echo "ok: installed $packages"

# What the packages hold, as check_install.sh wants it listed.
tools="" pages=""
for f in $(dpkg -L gpuverify libgpuverify-dev); do
    case $f in
    /usr/bin/*) [ "$(head -c 4 "$f" | od -An -c | tr -d ' ')" = '177ELF' ] &&
        tools="$tools${tools:+;}$(basename "$f")" ;;
    /usr/share/man/man[13]/*) pages="$pages${pages:+;}$(basename "$f")" ;;
    esac
done
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
INSTALLED_PREFIX=/usr sh "$src/tests/install/check_install.sh" "$build" "$work/check" \
    "$build/tests/fixtures" "$build/tests/fakelib" "$src/tests/consumer" \
    "$src/examples/integrations" bin "lib/$multiarch" libexec share/man share "" "" \
    "$tools" "$pages" 0

# No PKG_CONFIG_PATH: the system's pkg-config finds it.
pkg-config --cflags --libs gpuverify | grep -q -- '-lgpuverify' ||
    fail "pkg-config --libs gpuverify: $(pkg-config --cflags --libs gpuverify 2>&1)"
gv-check --version | grep -q "^gv-check $(dpkg-query -W -f='${Version}' gpuverify)" ||
    fail "gv-check --version: $(gv-check --version 2>&1)"
units_after=$(systemctl list-unit-files 2>/dev/null | grep -c gpuverify || true)
[ "$units_after" = "$units_before" ] ||
    fail "installing added systemd units: $(systemctl list-unit-files | grep gpuverify)"
echo "ok: pkg-config, gv-check --version, no unit enabled or added"

listed=$(dpkg -L $packages | sort -u)
purge
trap - EXIT
left=""
for f in $listed; do
    [ -f "$f" ] && left="$left $f"
done
[ -z "$left" ] || fail "purged, yet left:$left"
echo "ok: purged, no file left"
echo "the Debian packages install, work and purge"
