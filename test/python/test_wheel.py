"""The package as others install it: a wheel built from the source tree, installed into a new
virtual environment and imported there."""

import os
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_wheel_installs_and_reduces_in_a_new_environment(tmp_path, device):
    # The build reuses this environment's scikit-build-core and nanobind and, where
    # test/python/build-and-test.sh set it, the CMake build folder of `pip install .`.
    build = [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation"]
    if "CLREDUCE_BUILD_DIR" in os.environ:
        build += [f"--config-settings=build-dir={os.environ['CLREDUCE_BUILD_DIR']}"]
    subprocess.run([*build, "-w", str(tmp_path / "dist"), str(ROOT)], check=True)
    (wheel,) = (tmp_path / "dist").glob("clreduce-*.whl")

    venv.create(tmp_path / "venv", with_pip=True)
    python = str(tmp_path / "venv" / "bin" / "python")
    # NumPy from the packages the set-up downloaded, where it did.
    wheelhouse = os.environ.get("CLREDUCE_WHEELHOUSE")
    offline = ["--no-index", "--find-links", wheelhouse] if wheelhouse else []
    subprocess.run([python, "-m", "pip", "install", "-q", *offline, str(wheel)], check=True)

    program = "import clreduce, numpy; print(clreduce.sum(numpy.arange(1000, dtype='int64')))"
    ran = subprocess.run([python, "-c", program], cwd=tmp_path, capture_output=True, text=True)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.strip() == "499500"
