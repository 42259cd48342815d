"""The package's static types: mypy (Debian's, scripts/setup.sh) checks the built package
(build/python/dsgd, where _core.pyi types the compiled module) with pyproject.toml's settings,
every public function annotated."""
import os
import subprocess
import sys

import dsgd


def test_the_package_type_checks():
    source = os.environ["DSGD_SOURCE_DIR"]
    package = os.path.dirname(dsgd.__file__)
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", os.path.join(source, "pyproject.toml"),
         "--no-incremental", "-p", "dsgd"],
        cwd=os.path.dirname(package), capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
