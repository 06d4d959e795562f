#!/usr/bin/env bash
# The GPU check of denpex-callbacks, one command:   scripts/gpu_check.sh OUTDIR [--cpu] [options]
#
# On a machine with one CUDA GPU, no network, and a python3 (3.12) that already has torch,
# transformers, accelerate, lightning and pytorch-lightning (the device machine's image), it
# installs DeepSpeed and the dependencies that machine lacks from wheels in .whl/ (repo root,
# git-ignored), then this package (pip install --no-deps --no-build-isolation -e .), then runs
# scripts/gpu_check.py: real fp16 on CUDA through the plain-PyTorch monitor, HF Trainer,
# Lightning and DeepSpeed ZeRO 2 (an injected fault and a healthy run each, asserting the
# diagnoses), a host-device sync count, and the step-overhead comparison on a ~100M-parameter
# transformer (50 steps). It writes OUTDIR/gpu_check.json (+ gpu_check.log) and exits 0 when
# every check passed. Takes under 8 minutes (the Python part stops starting runs after
# --budget-s, default 380 s). Options after OUTDIR go to gpu_check.py (--frameworks torch,hf).
#
# --cpu is the dry run (the test suite runs it): the same code paths on CPU with tiny sizes,
# with the repo's .venv (or $PYTHON), installing nothing.
#
# Preparing the wheels, once, in the repo root of a machine where pip works (.whl/ is in
# .gitignore; never commit wheels). Versions as tested with deepspeed 0.19.8:
#
#   python3 -m pip download --no-deps --only-binary=:all: --python-version 3.12 \
#     --implementation cp --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 \
#     --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
#     --platform manylinux1_x86_64 -d .whl \
#     hjson==3.1.0 pydantic==2.14.4 pydantic-core==2.50.5 annotated-types==0.8.0 \
#     typing-inspection==0.4.5 typing-extensions==4.16.0
#   .venv/bin/python -m pip wheel --no-deps --no-build-isolation -w .whl deepspeed==0.19.8
#
# (deepspeed is an sdist: the second line builds a pure-Python wheel, no ops compiled; the
# venv's torch is only needed to run its setup.py. The check uses torch's Adam, so no op is
# JIT-built on the GPU.) DeepSpeed's other needs (einops, msgpack, ninja, numpy, packaging,
# psutil, py-cpuinfo, tqdm, nvidia-ml-py) are in the device image. About 5 MB in all.
# Then, with the device tool:  run(command="scripts/gpu_check.sh $OUT", carry=[".whl"],
# timeout_s=540); copy $OUT/gpu_check.json to benchmarks/results/<YYYY-MM-DD-HHMM>-gpu.json
# and run benchmarks/render.py to put its table into docs/benchmarks.md.
set -euo pipefail

if [[ $# -lt 1 || $1 == -* ]]; then
    echo "usage: $0 OUTDIR [--cpu] [gpu_check.py options]" >&2
    exit 2
fi
OUTDIR=$1
shift
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
mkdir -p "$OUTDIR"
export HF_HUB_OFFLINE=1 TOKENIZERS_PARALLELISM=false PYTHONUNBUFFERED=1
export TORCH_EXTENSIONS_DIR="$ROOT/.cache/torch_extensions" MPLCONFIGDIR="$ROOT/.cache/matplotlib"

dry_run=0
for arg in "$@"; do
    [[ $arg == --cpu ]] && dry_run=1
done

if [[ $dry_run == 1 ]]; then
    PY=${PYTHON:-$ROOT/.venv/bin/python}
else
    PY=${PYTHON:-python3}
    export DS_ACCELERATOR=cuda
    if ! "$PY" -c "import deepspeed" >/dev/null 2>&1; then
        if ! compgen -G "$ROOT/.whl/*.whl" >/dev/null; then
            echo "gpu check: deepspeed is not installed and .whl/ has no wheels:" \
                 "see the top of $0" >&2
            exit 2
        fi
        SITE=/tmp/denpex_site
        "$PY" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
            --target "$SITE" "$ROOT"/.whl/*.whl
        export PYTHONPATH="$SITE${PYTHONPATH:+:$PYTHONPATH}"
    fi
    "$PY" -m pip install -q --no-index --no-deps --no-build-isolation -e "$ROOT"
fi

"$PY" "$ROOT/scripts/gpu_check.py" "$OUTDIR" "$@" 2>&1 | tee "$OUTDIR/gpu_check.log"
