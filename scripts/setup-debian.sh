#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Installs what gpuverify needs to build and test on Debian 12 (as root, or through sudo).
set -eu
packages="build-essential cmake pkg-config libjansson-dev libhwloc-dev zlib1g-dev libsqlite3-dev libcmocka-dev python3
          abigail-tools valgrind clang-format libopenmpi-dev openmpi-bin
          python3-jsonschema python3-pytest python3-yaml python3-pip python3-setuptools python3-venv
          prometheus prometheus-node-exporter clang libclang-rt-14-dev
          help2man groff-base man-db
          munge slurmctld slurmd slurm-client libpmix-dev shellcheck buildah debootstrap"
missing=$(for p in $packages; do dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
          grep -q 'install ok installed' || echo "$p"; done)
[ -z "$missing" ] && exit 0
run() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
run apt-get update -qq
# shellcheck disable=SC2086 # one word per package
DEBIAN_FRONTEND=noninteractive run apt-get install -y -qq --no-install-recommends $missing
