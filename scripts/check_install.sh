#!/usr/bin/env bash
# A clean install: `pip install .` (and -e .) and `python -m build` of this checkout, each in a venv of its
# own, with the newest setuptools and with the oldest that pyproject.toml's build-system allows
# (77.0.3: the first 77 on PyPI, where an SPDX `license` string and `license-files` begin).
# Fails on any deprecation warning in what they print, or on metadata without the license.
# Run by `make check-install` (and so by .ci/run).
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=0

warned() {  # $1: a log; prints its deprecation lines and says whether there were any
  if grep -niE "deprecat" "$1"; then
    echo "check-install: deprecation warnings in $2 (above)" >&2
    return 0
  fi
  return 1
}

wheel_metadata_names_the_license() {  # $1: a wheel
  "$work/venv/bin/python" - "$1" <<'EOF'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as wheel:
    (name,) = [n for n in wheel.namelist() if n.endswith(".dist-info/METADATA")]
    metadata = wheel.read(name).decode()
    licensed = [n for n in wheel.namelist() if n.endswith(".dist-info/licenses/LICENSE")]
for needed in ("License-Expression: Apache-2.0", "License-File: LICENSE"):
    if needed not in metadata.splitlines():
        sys.exit(f"check-install: {sys.argv[1]}: no '{needed}' in METADATA")
if not licensed:
    sys.exit(f"check-install: {sys.argv[1]}: LICENSE is not in the wheel")
EOF
}

python3 -m venv "$work/venv"
"$work/venv/bin/python" -m pip install -q --upgrade "pip>=24" build

# 1. pip install . (build isolation: the newest setuptools the build-system allows)
"$work/venv/bin/python" -m pip install -v --no-deps . > "$work/pip.log" 2>&1 \
  || { tail -40 "$work/pip.log"; exit 1; }
if warned "$work/pip.log" "pip install ."; then failed=1; fi

# 1b. the editable install `make venv` does
"$work/venv/bin/python" -m pip install -v --no-deps -e . > "$work/editable.log" 2>&1 \
  || { tail -40 "$work/editable.log"; exit 1; }
if warned "$work/editable.log" "pip install -e ."; then failed=1; fi
"$work/venv/bin/python" -m pip uninstall -q -y denpex-callbacks

# 2. python -m build: the sdist, then the wheel built from it
"$work/venv/bin/python" -m build --outdir "$work/dist" . > "$work/build.log" 2>&1 \
  || { tail -40 "$work/build.log"; exit 1; }
if warned "$work/build.log" "python -m build"; then failed=1; fi
tar tzf "$work"/dist/*.tar.gz > "$work/sdist.txt"
grep -q "^[^/]*/LICENSE$" "$work/sdist.txt" \
  || { echo "check-install: LICENSE is not in the sdist" >&2; failed=1; }
wheel_metadata_names_the_license "$work"/dist/*.whl || failed=1

# 3. the same build with the oldest setuptools allowed, without isolation
"$work/venv/bin/python" -m pip install -q "setuptools==77.0.3"
rm -rf "$work/dist"
"$work/venv/bin/python" -m build --no-isolation --outdir "$work/dist" . > "$work/build77.log" 2>&1 \
  || { tail -40 "$work/build77.log"; exit 1; }
if warned "$work/build77.log" "python -m build with setuptools 77.0.3"; then failed=1; fi
wheel_metadata_names_the_license "$work"/dist/*.whl || failed=1

if [ "$failed" = 0 ]; then
  echo "check-install: pip install . and python -m build (setuptools newest and 77.0.3): no" \
    "deprecation warning; the license is in the metadata, the sdist and the wheel"
fi
exit "$failed"
