"""The package's static types: mypy (Debian's, scripts/setup.sh) checks the built package
(build/python/dsgd, where _core.pyi types the compiled module) with pyproject.toml's settings,
every public function annotated."""
import os
import subprocess
import sys

import pytest

import dsgd


def test_the_package_type_checks():
    # scripts/setup.sh installs Debian's mypy; a machine built by scripts/gpu-check.sh has only
    # PyTorch's Python, so the check is skipped there, saying why.
    pytest.importorskip("mypy", reason="mypy is not installed (Debian: apt-get install mypy)")
    source = os.environ["DSGD_SOURCE_DIR"]
    package = os.path.dirname(dsgd.__file__)
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", os.path.join(source, "pyproject.toml"),
         "--no-incremental", "-p", "dsgd"],
        cwd=os.path.dirname(package), capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
