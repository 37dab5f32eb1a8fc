#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Installs what gpuverify needs on Debian 12 (as root, or through sudo).
#   setup-debian.sh build   to build it and run gv-check: compilers and libraries only, so that
#                           a GPU node gets no daemon (scripts/gv-check runs this)
#   setup-debian.sh test    everything the tests use as well (.ci/run): the daemons that the
#                           integration tests start themselves (Slurm, munge, Prometheus),
#                           valgrind, sanitizers, iproute2 for the multi-node Slurm test
set -eu
build="build-essential cmake pkg-config libjansson-dev libhwloc-dev zlib1g-dev libsqlite3-dev python3"
test_only="libcmocka-dev abigail-tools valgrind clang-format libopenmpi-dev openmpi-bin
          python3-jsonschema python3-pytest python3-yaml python3-venv
          prometheus prometheus-node-exporter clang libclang-rt-14-dev
          help2man groff-base man-db iproute2 util-linux file
          munge slurmctld slurmd slurm-client libpmix-dev shellcheck buildah debootstrap locales"
case "${1:-}" in
build) packages=$build ;;
test) packages="$build $test_only" ;;
*)
    echo "usage: setup-debian.sh build|test" >&2
    exit 2
    ;;
esac
missing=$(for p in $packages; do dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
          grep -q 'install ok installed' || echo "$p"; done)
[ -z "$missing" ] && exit 0
run() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
run apt-get update -qq
# Debian starts a daemon it installs unless told not to: nothing of the test set runs as a
# service; the tests start their own.
policy=/usr/sbin/policy-rc.d
made_policy=0
if [ "$1" = test ] && [ ! -e "$policy" ]; then
    run sh -c "printf '#!/bin/sh\nexit 101\n' >$policy && chmod 755 $policy"
    made_policy=1
fi
# shellcheck disable=SC2086 # one word per package
DEBIAN_FRONTEND=noninteractive run apt-get install -y -qq --no-install-recommends $missing
[ "$made_policy" -eq 0 ] || run rm -f "$policy"
