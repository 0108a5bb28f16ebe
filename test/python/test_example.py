"""The documentation's Python example runs as it is printed: its first ```python block, taken
from each --example-doc (README.md and docs/python.md unless told), in a process of its own."""

import re
import subprocess
import sys


def python_example(markdown):
    found = re.search(r"^```python\n(.*?)^```", markdown, re.MULTILINE | re.DOTALL)
    assert found, "no ```python block"
    return found.group(1)


def test_the_documented_example_runs(example_doc, tmp_path, device):
    script = tmp_path / "example.py"
    script.write_text(python_example(example_doc.read_text()))
    ran = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True,
                         text=True)
    assert ran.returncode == 0, ran.stderr
