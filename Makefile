# Two commands on a fresh machine: `make demo` and `make test`.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
# Every install goes through the constraints file (torch 2.13.0 CPU, tested framework versions).
export PIP_CONSTRAINT := $(CURDIR)/constraints.txt
export PIP_DISABLE_PIP_VERSION_CHECK := 1
# DeepSpeed's JIT-built CPU ops and other caches stay inside the repo (git-ignored).
export TORCH_EXTENSIONS_DIR := $(CURDIR)/.cache/torch_extensions
export MPLCONFIGDIR := $(CURDIR)/.cache/matplotlib
export HF_HUB_OFFLINE := 1
export TOKENIZERS_PARALLELISM := false
export NO_MKDOCS_2_WARNING := 1

.PHONY: demo test test-slow test-min check-install lint typecheck docs pytest bench venv clean

$(BIN)/.installed: pyproject.toml constraints.txt
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade "pip>=24" setuptools wheel
	$(BIN)/python -m pip install -q torch==2.13.0
	$(BIN)/python -m pip install -q -e ".[all,test]"
	touch $@

venv: $(BIN)/.installed

demo: venv
	$(BIN)/python examples/torch/train.py --fault overflow

lint: venv
	$(BIN)/ruff check .

typecheck: venv
	$(BIN)/mypy

# The manual (docs/, mkdocs + material); --strict: a broken link or reference fails the build.
docs: venv
	$(BIN)/mkdocs build --strict --quiet

# Long checks are marked `slow` and skipped here; `make test-slow` runs them, with the checks
# of the examples and of the benchmark harness (the GPU check's --cpu dry run among them).
# The adapters' tests run twice: as a CPU run takes them (host numbers), and through the device
# path a GPU run takes (DENPEX_DEVICE_STANDIN=1: the CPU stand-in of the CUDA ring and events).
ADAPTER_TESTS := tests/plain_torch tests/hf tests/lightning tests/deepspeed tests/integrations \
	tests/locate tests/plugin tests/zoo

pytest: venv
	$(BIN)/python -m pytest -q -m "not slow"
	DENPEX_DEVICE_STANDIN=1 $(BIN)/python -m pytest -q -m "not slow" $(ADAPTER_TESTS)

test: lint typecheck docs pytest

test-slow: venv
	$(BIN)/python -m pytest -q -m slow tests denpex_callbacks
	$(BIN)/python -m pytest -q examples/tests benchmarks/tests

# The minimum-versions job: the declared floors (constraints-min.txt, torch 2.13.0 as everywhere)
# in a venv of their own, running the adapter tests and the examples. MIN_TESTS is the job's
# whole selection; tests/versions/min_versions_plugin.py skips, with the reason, the few tests
# that need a release above a floor (only where it is older).
MIN_VENV := .venv-min
MIN_TESTS := tests/versions tests/hf tests/lightning tests/deepspeed tests/integrations \
	tests/plain_torch tests/locate/test_locate_hf.py tests/locate/test_rerun_hf.py \
	tests/locate/test_locate_lightning.py tests/locate/test_rerun_lightning.py \
	tests/locate/test_locate_deepspeed.py tests/locate/test_rerun_deepspeed.py examples/tests
test-min $(MIN_VENV)/bin/.installed: export PIP_CONSTRAINT := $(CURDIR)/constraints-min.txt

$(MIN_VENV)/bin/.installed: pyproject.toml constraints-min.txt
	test -x $(MIN_VENV)/bin/python || $(PY) -m venv $(MIN_VENV)
	$(MIN_VENV)/bin/python -m pip install -q --upgrade "pip>=24" setuptools
	$(MIN_VENV)/bin/python -m pip install -q torch==2.13.0
	$(MIN_VENV)/bin/python -m pip install -q -e ".[hf,lightning,deepspeed]" pytorch-lightning \
		pytest hypothesis tensorboard wandb
	touch $@

test-min: $(MIN_VENV)/bin/.installed
	PYTHONPATH=tests/versions $(MIN_VENV)/bin/python -m pytest -q -p min_versions_plugin $(MIN_TESTS)

# `pip install .`, `pip install -e .` and `python -m build` without a deprecation warning.
check-install:
	scripts/check_install.sh

bench: venv
	$(BIN)/python benchmarks/run_all.py

clean:
	rm -rf $(VENV) $(MIN_VENV) .cache build *.egg-info
