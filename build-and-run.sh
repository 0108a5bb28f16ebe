#!/usr/bin/env bash
# Sets up (distribution packages), builds, and reduces 2^20 random ints on the default
# device. Arguments are passed to clreduce, e.g. ./build-and-run.sh --list
set -euo pipefail
cd "$(dirname "$0")"
cmake/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
cmake --build build -j "$(nproc)"
./build/clreduce "$@"
