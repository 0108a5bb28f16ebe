#!/usr/bin/env bash
# Sets up (distribution packages), builds, and runs every test: unit, device (on every OpenCL
# device found), CLI, Oclgrind and the CMake package (installed into build/test, then used by
# test/consumer); the Python package (test/python, its dependencies from PyPI into a virtual
# environment); then again the unit, device and CLI tests with the host code built under
# AddressSanitizer and UndefinedBehaviorSanitizer.
set -euo pipefail
cd "$(dirname "$0")"
cmake/install-deps.sh
jobs=$(nproc)
# Twice as many tests as cores: many of them wait on a process's start, mpirun's or PoCL's, more
# than they compute (the sanitized tests took 254 s instead of 296 on 2 cores).
tests=$((2 * jobs))
export CLREDUCE_REQUIRE_DEVICE=1 # a machine with no OpenCL device fails instead of skipping

cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
cmake --build build -j "$jobs"
ctest --test-dir build --output-on-failure -j "$tests"

# The Python package (docs/python.md): `pip install .` into build/python/venv, then pytest.
test/python/build-and-test.sh

# Oclgrind preloads its runtime, which ASan refuses, so its tests run in the plain build only.
# The long sweeps and runs repeat one host path over many kernel shapes and lengths, and the
# kernel mutants, argmin's and argmax's work-group sizes and short segments and the bools of
# any byte vary the kernel alone: the plain build runs them, and under the sanitizers they
# would take most of CI's time (about 9 minutes on 2 cores) to walk host code that the shorter
# tests already walk. The exact kernel's first builds (PoCL's cache off) check what PoCL's
# compiler prints, whose own leaks (in libLLVM) LeakSanitizer would report on the same stderr.
sweeps='reduces along axes, in work-groups that loop over tiles|back-to-back runs all validate'
sweeps+='|a randomised sweep of lengths|exact: every layout gives|of 67108865|of 16777219'
sweeps+="|validation fails a kernel that loses|pairs' tree quarters and halves"
sweeps+="|a work-item's vectors span segments|every nonzero byte of a bool"
sweeps+="|writes nothing on stderr, its kernel's build included"
# LeakSanitizer's tracking of dynamic TLS misreads a loaded library's block as an older glibc's
# layout and crashes scanning it at exit, after every assertion has passed (google/sanitizers
# issue 1322); leaks are still checked everywhere else.
cmake -S . -B build-sanitize -DCMAKE_BUILD_TYPE=Debug -DCLREDUCE_SANITIZE=ON
cmake --build build-sanitize -j "$jobs"
ASAN_OPTIONS=intercept_tls_get_addr=0 \
  ctest --test-dir build-sanitize --output-on-failure -j "$tests" -LE oclgrind -E "$sweeps"
