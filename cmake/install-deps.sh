#!/usr/bin/env bash
# Installs, from the distribution's own packages, what clreduce needs to build and test:
# the Khronos headers, the ICD loader, TCLAP, Catch2, TBB (parallel host reference), PoCL (the
# default CPU device), Oclgrind (kernel checking), Open MPI (clreduce-mpi and its tests) and
# Python's venv and headers (the Python package; its own dependencies come from PyPI).
# Debian bookworm and Ubuntu 24.04.
# Installs only what is missing; uses sudo when not run as root.
set -euo pipefail

packages=(cmake g++ make pkg-config opencl-c-headers opencl-clhpp-headers ocl-icd-opencl-dev
          libtclap-dev catch2 libtbb-dev pocl-opencl-icd oclgrind openmpi-bin libopenmpi-dev
          python3-venv python3-dev
          "$@")
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$package")
done
[ ${#missing[@]} -eq 0 ] && exit 0

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "Installing: ${missing[*]}"
$sudo apt-get update -qq
$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
  "${missing[@]}" >/dev/null
