"""Makes the repo root importable, so the tests can import ``benchmarks`` (importlib mode)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
