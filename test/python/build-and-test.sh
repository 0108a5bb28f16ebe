#!/usr/bin/env bash
# The Python package: a virtual environment (build/python/venv) with the build and test
# dependencies from PyPI, downloaded once into build/python/wheels (the wheel test installs
# from there too), then `pip install .` and pytest on test/python. Run by ./build-and-test.sh.
# PYTHON names the interpreter (default python3: on Debian and Ubuntu, python3-venv and
# python3-dev, which cmake/install-deps.sh installs).
set -euo pipefail
cd "$(dirname "$0")/../.."
root=build/python
# mako: pyopencl.array.sum, which test/python/benchmark.py times beside clreduce.
requirements=(scikit-build-core nanobind numpy pyopencl mako pytest)

[ -x "$root/venv/bin/python" ] || "${PYTHON:-python3}" -m venv "$root/venv"
python="$root/venv/bin/python"
"$python" -m pip download -q --dest "$root/wheels" "${requirements[@]}"
"$python" -m pip install -q --no-index --find-links "$root/wheels" "${requirements[@]}"
# Every core, also where no Ninja is installed and scikit-build-core falls back to make.
export CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}"
# With the environment's own build dependencies, and CMake's build folder kept in build/python,
# so that the wheel test and the next run rebuild only what changed.
"$python" -m pip install -q --no-build-isolation --config-settings=build-dir="$root/cmake" .

export CLREDUCE_WHEELHOUSE="$PWD/$root/wheels" CLREDUCE_BUILD_DIR="$PWD/$root/cmake"
# Any exit but 0 fails the run, pytest's 5 (no test collected) too.
"$python" -m pytest -q -ra test/python
