"""The log tests' helpers (run_makers) importable by name (importlib mode keeps this folder
off sys.path)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
