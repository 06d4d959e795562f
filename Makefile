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

.PHONY: demo test test-slow lint typecheck docs pytest bench venv clean

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

bench: venv
	$(BIN)/python benchmarks/run_all.py

clean:
	rm -rf $(VENV) .cache build *.egg-info
