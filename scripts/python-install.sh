#!/usr/bin/env bash
# Installs the Python package dsgd (and the dsgd command) with pip, against the torch you have.
#
#   scripts/python-install.sh            # a Python with torch: $DSGD_PYTHON, the active venv's,
#                                        # python3 on PATH, else Debian's /usr/bin/python3
#   scripts/python-install.sh PYTHON     # that interpreter
#
# A Python inside a virtual environment gets the package there. A system Python (Debian's, with
# python3-torch) gets a venv of its own, .venv/ in the repository, that sees the system's packages
# (--system-site-packages: its torch, numpy, pandas). The build runs without build isolation, so
# that it compiles against that torch's LibTorch; it reuses build/pip/ and ccache, so running it
# again only rebuilds what changed. Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."

has_torch() { "$1" -c "import torch" >/dev/null 2>&1; }

python=${1:-${DSGD_PYTHON:-}}
if [ -z "$python" ]; then
  for candidate in "${VIRTUAL_ENV:+$VIRTUAL_ENV/bin/python}" "$(command -v python3 || true)" \
                   /usr/bin/python3; do
    if [ -n "$candidate" ] && [ -x "$candidate" ] && has_torch "$candidate"; then
      python=$candidate
      break
    fi
  done
fi
if [ -z "$python" ] || ! has_torch "$python"; then
  echo "python-install: no Python with torch found${python:+ ($python has none)}." >&2
  echo "  Debian: apt-get install python3-torch (scripts/setup.sh does), then run this again;" >&2
  echo "  or: python3 -m venv ~/torch2 && ~/torch2/bin/pip install torch," >&2
  echo "      then scripts/python-install.sh ~/torch2/bin/python" >&2
  exit 2
fi

in_venv=$("$python" -c "import sys; print(int(sys.prefix != sys.base_prefix))")
if [ "$in_venv" = 0 ]; then
  if [ ! -x .venv/bin/python ]; then
    echo "python-install: creating .venv (over $python, seeing its packages)"
    "$python" -m venv --system-site-packages .venv
  fi
  python=.venv/bin/python
fi

"$python" -m pip install --quiet "scikit-build-core>=0.8" "pybind11>=2.10"
"$python" -m pip install --no-build-isolation .
echo "python-install: done: $python imports dsgd"
if [ "$in_venv" = 0 ]; then echo "  activate the venv with: source .venv/bin/activate"; fi
