#!/usr/bin/env bash
# setup.sh - install what building and testing symheap needs, if it is missing.
#
# On Debian 12 (and derivatives with apt): gcc, make, cmake (>= 3.25),
# pkg-config; autoconf and automake (the test that builds an autotools project
# with symcc, tests/tools); clang and libclang-rt-14-dev (libFuzzer and clang's sanitizer
# runtimes) for the fuzz targets (build-fuzz/, docs/testing.md); and for the
# benchmark comparison (bench/compare.sh) Open MPI's OpenSHMEM: openmpi-bin,
# libopenmpi-dev; for the PMIx bootstrap (mpirun/srun, docs/cluster.md) and
# its tests (ctest -L pmix): libpmix-dev (pmix.h; configure finds it) and
# openmpi-bin (mpirun); for the UCX transport between nodes (docs/cluster.md)
# libucx-dev (ucp.h; configure finds it), and for its tests (ctest -L
# multinode, network namespaces) iproute2; for the Python module (python/,
# docs/python.md) and its tests, Debian's python3-dev, python3-numpy and
# python3-pytest (CMake uses /usr/bin/python3, not a pyenv/venv python3 first
# on PATH); for the Slurm tests (ctest -L slurm, scripts/slurm.sh) Debian's
# Slurm: slurmctld, slurmd, slurm-client (srun, sbatch; its PMIx plugin,
# slurm-wlm-basic-plugins, comes with them) and munge.  Packages already
# installed are
# left alone and nothing is
# printed; missing ones are installed with apt-get, non-interactively,
# through sudo when not root.  Elsewhere it only checks the commands and says
# what to install.  Called by ./dev.
set -euo pipefail

packages=(gcc make cmake pkg-config autoconf automake clang libclang-rt-14-dev openmpi-bin libopenmpi-dev libpmix-dev
          libucx-dev iproute2 python3-dev python3-numpy python3-pytest slurmctld slurmd slurm-client
          munge)

have_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }

if ! command -v dpkg-query >/dev/null || ! command -v apt-get >/dev/null; then
    missing=()
    for c in cc clang make cmake pkg-config; do command -v "$c" >/dev/null || missing+=("$c"); done
    if [ ${#missing[@]} -gt 0 ]; then
        echo "setup.sh: not a Debian system and missing: ${missing[*]}; install them (cmake >= 3.25) and rerun" >&2
        exit 1
    fi
    exit 0
fi

missing=()
for p in "${packages[@]}"; do have_pkg "$p" || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
    sudo=()
    if [ "$(id -u)" != 0 ]; then
        command -v sudo >/dev/null || {
            echo "setup.sh: need to install ${missing[*]} but am not root and sudo is missing; run as root: apt-get install ${missing[*]}" >&2
            exit 1
        }
        sudo=(sudo)
    fi
    echo "setup.sh: installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
        apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# Debian 12 ships cmake 3.25; an older one (e.g. Debian 11) cannot configure the tree.
ver=$(cmake --version | sed -n '1s/[^0-9]*\([0-9][0-9]*\.[0-9][0-9]*\).*/\1/p')
if [ "$(printf '%s\n3.25\n' "$ver" | sort -V | head -n1)" != 3.25 ]; then
    echo "setup.sh: cmake $ver is too old, symheap needs >= 3.25 (Debian 12 has it; or pip install cmake)" >&2
    exit 1
fi
