"""denpex-callbacks: diagnoses fp16 mixed-precision failures in training runs and logs.

The core (this namespace) imports neither torch nor any framework. Adapters live in
``denpex_callbacks.torch``, ``.hf``, ``.lightning`` and ``.deepspeed``.

Example:
    >>> from denpex_callbacks import Monitor, MonitorConfig, Observation
    >>> m = Monitor(MonitorConfig(report_dir=None))
    >>> [d.code for d in m.observe(Observation(0, loss=float("inf")))]
    ['AMP006']
"""

from denpex_callbacks.core.catalog import CATALOG, CatalogEntry, entry
from denpex_callbacks.core.config import MonitorConfig
from denpex_callbacks.core.diagnosis import AmpDiagnosisError, Diagnosis, Finding
from denpex_callbacks.core.monitor import Monitor
from denpex_callbacks.core.observation import Observation
from denpex_callbacks.core.report import RunReport, read_report, read_report_dir
from denpex_callbacks.core.run_setup import RunSetup
from denpex_callbacks.core.severity import Severity
from denpex_callbacks.core.thresholds import Thresholds

__version__ = "0.1.0"

__all__ = [
    "CATALOG",
    "AmpDiagnosisError",
    "CatalogEntry",
    "Diagnosis",
    "Finding",
    "Monitor",
    "MonitorConfig",
    "Observation",
    "RunReport",
    "RunSetup",
    "Severity",
    "Thresholds",
    "__version__",
    "entry",
    "read_report",
    "read_report_dir",
]
