#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Builds gpuverify's image from container/Containerfile and runs it: `gv-check --version`, and
# with --check BUILDDIR gv-check over the fakes of a build tree (BUILDDIR/tests/fakelib and
# fixtures, bind-mounted read-only), its exit status compared with the same run outside.
#
# Usage: container/build-image.sh [-t TAG] [--base IMAGE] [--bootstrap] [--check BUILDDIR]
#                                 [--no-build]
#   -t TAG        the image's name (default localhost/gpuverify:<version from gv_common.h>, the
#                 name the DaemonSet uses; push it to a registry of yours and name it there)
#   --base IMAGE  a Debian 12 image to build on (default docker.io/library/debian:bookworm-slim
#                 where it is present or can be pulled, else the bootstrapped one below)
#   --bootstrap   skip the registry: make localhost/gpuverify-base:bookworm with debootstrap from
#                 the Debian mirror ($MIRROR, default http://deb.debian.org/debian) and import it
#   --check DIR   after the build, run gv-check over DIR's fakes inside the image
#   --no-build    only the checks, on an image already built
#   --print-tag   print the default TAG and exit
# The tool: $TOOL, else buildah, podman, docker, the first found (docker only with a daemon).
# buildah and podman run as root with $BUILDAH_ISOLATION (default chroot: works inside a
# container) and their configured storage driver ($STORAGE_DRIVER to change it, e.g. vfs).
# Exit: 0 built (and checked), 1 a build or check failed, 77 no tool or no base image to use.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
src=$(dirname "$here")
version=$(sed -n 's/^#define GV_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\).*/\2/p' \
          "$src/include/gpuverify/gv_common.h" | paste -sd. -)
tag=localhost/gpuverify:$version base=${BASE:-} bootstrap=no check="" build=yes
base_local=localhost/gpuverify-base:bookworm
upstream=docker.io/library/debian:bookworm-slim
mirror=${MIRROR:-http://deb.debian.org/debian}
while [ $# -gt 0 ]; do
    case $1 in
        -t) tag=$2; shift 2 ;;
        --base) base=$2; shift 2 ;;
        --bootstrap) bootstrap=yes; shift ;;
        --check) check=$(cd "$2" && pwd); shift 2 ;;
        --no-build) build=no; shift ;;
        --print-tag) echo "$tag"; exit 0 ;;
        -h|--help) sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) echo "build-image.sh: unknown argument $1" >&2; exit 2 ;;
    esac
done
say() { echo "build-image.sh: $*" >&2; }
skip() { say "$*"; exit 77; }

tool=${TOOL:-}
if [ -z "$tool" ]; then
    for t in buildah podman docker; do
        command -v $t >/dev/null 2>&1 || continue
        if [ $t = docker ] && ! docker info >/dev/null 2>&1; then
            say "docker: no daemon reachable ($(docker info 2>&1 | grep -m1 -i 'cannot connect\|error' || true))"
            continue
        fi
        tool=$t; break
    done
fi
[ -n "$tool" ] || skip "no buildah, podman or docker with a daemon (Debian: apt-get install buildah)"
export BUILDAH_ISOLATION="${BUILDAH_ISOLATION:-chroot}"
say "tool $tool ($($tool --version 2>&1 | head -1))"

exists() {
    case $tool in
        buildah) buildah inspect --type image "$1" >/dev/null 2>&1 ;;
        *) $tool image inspect "$1" >/dev/null 2>&1 ;;
    esac
}

# A Debian 12 minbase root from the mirror apt uses, as slim as debian:bookworm-slim's dpkg
# settings make later installs, imported as a one-layer image.
bootstrap_base() {
    command -v debootstrap >/dev/null || skip "no base image and no debootstrap (Debian: apt-get install debootstrap)"
    [ "$(id -u)" -eq 0 ] || skip "debootstrap needs root"
    work=$(mktemp -d "${TMPDIR:-/var/tmp}/gpuverify-base.XXXXXX")
    trap 'rm -rf "$work"' EXIT
    say "bootstrapping Debian 12 from $mirror"
    if ! debootstrap --variant=minbase bookworm "$work/rootfs" "$mirror" >"$work/log" 2>&1; then
        tail -20 "$work/log" >&2
        skip "debootstrap failed"
    fi
    r=$work/rootfs
    cat >"$r/etc/apt/sources.list" <<EOF
deb $mirror bookworm main
deb $mirror bookworm-updates main
deb ${SECURITY_MIRROR:-http://deb.debian.org/debian-security} bookworm-security main
EOF
    cat >"$r/etc/dpkg/dpkg.cfg.d/docker-slim" <<'EOF'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/groff/*
path-exclude /usr/share/info/*
path-exclude /usr/share/lintian/*
path-exclude /usr/share/linda/*
path-exclude /usr/share/locale/*
EOF
    printf 'APT::Install-Recommends "false";\n' >"$r/etc/apt/apt.conf.d/docker-no-recommends"
    rm -rf "$r"/var/cache/apt/archives/*.deb "$r"/var/cache/apt/*.bin "$r"/var/lib/apt/lists/* \
           "$r"/var/log/* "$r"/usr/share/man/* "$r"/usr/share/locale/* "$r"/usr/share/doc/*/[!c]*
    find "$r/dev" -mindepth 1 -delete # the runtime makes /dev
    tar --numeric-owner -C "$r" -cf "$work/rootfs.tar" .
    case $tool in
        buildah)
            c=$(buildah from scratch)
            buildah add --quiet "$c" "$work/rootfs.tar" / >/dev/null
            buildah config --cmd /bin/bash --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "$c"
            buildah commit --quiet --rm "$c" "$base_local" >/dev/null ;;
        *) $tool import --change 'CMD ["/bin/bash"]' "$work/rootfs.tar" "$base_local" >/dev/null ;;
    esac
    rm -rf "$work"; trap - EXIT
}

if [ $build = yes ]; then
    start=$(date +%s)
    if [ -z "$base" ]; then
        if [ $bootstrap = no ] && exists "$upstream"; then base=$upstream
        elif exists "$base_local"; then base=$base_local
        elif [ $bootstrap = no ] && $tool pull "$upstream" >/dev/null 2>"${TMPDIR:-/tmp}/gv-pull.$$"; then
            base=$upstream
        else
            [ $bootstrap = yes ] || say "cannot pull $upstream: $(tail -1 "${TMPDIR:-/tmp}/gv-pull.$$")"
            bootstrap_base; base=$base_local
        fi
        rm -f "${TMPDIR:-/tmp}/gv-pull.$$"
    fi
    say "base $base ($(($(date +%s) - start)) s)"
    set -- -f "$here/Containerfile" --build-arg "BASE=$base" --build-arg "VERSION=$version" \
        --build-arg "REVISION=$(git -C "$src" rev-parse HEAD 2>/dev/null || echo unknown)" -t "$tag"
    case $tool in
        buildah|podman) $tool build --ignorefile "$here/Containerfile.dockerignore" "$@" "$src" ;;
        docker) docker build "$@" "$src" ;;
    esac
    say "built $tag in $(($(date +%s) - start)) s"
fi

# A command inside the image: its status, and its output on stdout. Arguments: mounts
# (SRC:DST) until --, then the command.
in_image() {
    vols=
    while [ "$1" != -- ]; do vols="$vols -v $1:ro"; shift; done
    shift
    # shellcheck disable=SC2086 # one word per option
    case $tool in
        buildah)
            c=$(buildah from --pull-never --quiet "$tag")
            s=0; buildah run $vols "$c" -- "$@" || s=$?
            buildah rm "$c" >/dev/null; return $s ;;
        *) $tool run --rm $vols "$tag" "$@" ;;
    esac
}
status() { s=0; "$@" >"${TMPDIR:-/tmp}/gv-out.$$" 2>&1 || s=$?; echo $s; }

failures=0
v=$(in_image -- gv-check --version 2>&1) || { say "gv-check --version failed in the image: $v"; exit 1; }
say "in the image: $v"
case $v in *"$version"*) ;; *) say "FAIL: gv-check --version does not say $version"; failures=1 ;; esac

if [ -n "$check" ]; then
    fix=$check/tests/fixtures lib=$check/tests/fakelib
    if [ ! -d "$fix/sysroots" ] || [ ! -e "$lib/libnvidia-ml.so.1" ]; then
        say "no fakes in $check (build with tests)"; exit 1
    fi
    passive='^cuda,^mem,^gemm,^cudnn,^driver.compat,^topo,^rdma,^gpudirect,^nccl'
    for scenario in h100x8 h100x8-gpu-lost; do
        set -- --sysroot /fakes/fixtures/sysroots/h100-open --library-dir /fakes/lib --checks "$passive"
        out=$(GV_FAKE_SCENARIO=$fix/scenarios/$scenario.conf status "$check/examples/gv-check" \
              --sysroot "$fix/sysroots/h100-open" --library-dir "$lib" --checks "$passive")
        in=$(status in_image "$fix:/fakes/fixtures" "$lib:/fakes/lib" -- \
             env GV_FAKE_SCENARIO=/fakes/fixtures/scenarios/$scenario.conf gv-check "$@")
        verdict=$(grep -m1 '=> ' "${TMPDIR:-/tmp}/gv-out.$$" || tail -1 "${TMPDIR:-/tmp}/gv-out.$$")
        if [ "$in" = "$out" ]; then say "fake $scenario: exit $in inside as outside ($verdict)"
        else say "FAIL: fake $scenario: exit $in inside, $out outside"; cat "${TMPDIR:-/tmp}/gv-out.$$" >&2; failures=1
        fi
    done
fi
rm -f "${TMPDIR:-/tmp}/gv-out.$$"
exit $failures
