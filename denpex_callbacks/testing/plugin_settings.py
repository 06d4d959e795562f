"""The denpex pytest plugin's settings: its options, its marker, and what each test gets.

The session's options (``--denpex-fail-on``, ``--denpex-report``, ``--denpex-device`` and their
ini keys) resolve once into :class:`Settings`; each test's ``@pytest.mark.denpex`` marker and
call arguments resolve into the :class:`~denpex_callbacks.core.config.MonitorConfig` its
fixture trains under, and its report folder (``DIR/<node id>``). Imports no torch.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from denpex_callbacks.core.config import MonitorConfig, build_config
from denpex_callbacks.core.thresholds import Thresholds

FAIL_ON_CHOICES = ("warning", "error")
CALL_FAIL_ON_CHOICES = (*FAIL_ON_CHOICES, "never")
DEVICE_CHOICES = ("auto", "cpu", "cuda")
MARKER = "denpex"
MARKER_KEYS = ("fail_on", "thresholds", "disable")
_MAX_DIR_NAME = 120

SETTINGS_KEY = pytest.StashKey["Settings"]()
REPORTS_WRITTEN_KEY = pytest.StashKey[list[str]]()  # report folders claimed in the session
_report_count_key = pytest.StashKey[int]()


@dataclass(frozen=True)
class Settings:
    """The session's denpex options, resolved from the command line and the ini file."""

    fail_on: str
    report_root: Path | None
    device: str


def resolve_settings(config: pytest.Config) -> Settings:
    """The session's settings: the command line first, then the ini file."""
    fail_on = config.getoption("denpex_fail_on") or str(config.getini("denpex_fail_on"))
    check_fail_on(fail_on, FAIL_ON_CHOICES, "denpex_fail_on")
    device = config.getoption("denpex_device") or str(config.getini("denpex_device"))
    if device not in DEVICE_CHOICES and not device.startswith("cuda:"):
        raise pytest.UsageError(
            f"denpex_device must be one of {', '.join(DEVICE_CHOICES)} or cuda:N, not {device!r}"
        )
    report = config.getoption("denpex_report")
    report_root: Path | None = None
    if report:
        report_root = Path(config.invocation_params.dir, report).resolve()
    elif config.getini("denpex_report"):
        report_root = Path(config.rootpath, str(config.getini("denpex_report"))).resolve()
    return Settings(fail_on=fail_on, report_root=report_root, device=device)


def settings_of(config: pytest.Config) -> Settings:
    """The settings ``pytest_configure`` resolved for this session."""
    return config.stash[SETTINGS_KEY]


def check_fail_on(value: Any, choices: tuple[str, ...], name: str) -> None:
    """Refuse a fail-on level outside ``choices`` (a usage error, not a test failure)."""
    if value not in choices:
        raise pytest.UsageError(f"{name} must be one of {', '.join(choices)}, not {value!r}")


def marker_options(item: pytest.Item) -> dict[str, Any]:
    """The keyword arguments of the closest ``@pytest.mark.denpex``, checked."""
    marker = item.get_closest_marker(MARKER)
    if marker is None:
        return {}
    unknown = sorted(set(marker.kwargs) - set(MARKER_KEYS))
    if unknown or marker.args:
        raise pytest.UsageError(
            f"@pytest.mark.{MARKER} takes keyword arguments {', '.join(MARKER_KEYS)} only; "
            f"got {', '.join(unknown) or 'positional arguments'}"
        )
    return dict(marker.kwargs)


def monitor_config(
    config: MonitorConfig | None,
    marker: Mapping[str, Any],
    test_id: str,
    thresholds: Thresholds | Mapping[str, Any] | None = None,
) -> MonitorConfig:
    """The monitor's configuration: ``config``, then the marker's, then the call's settings.

    Alerts (``DENPEX_ALERT_WEBHOOK`` in the CI job) name the test as the run.
    """
    changes: dict[str, Any] = {}
    if config is None or config.run_name is None:
        changes["run_name"] = test_id
    if marker.get("disable"):
        changes["disable"] = tuple(marker["disable"])
    chosen = thresholds if thresholds is not None else marker.get("thresholds")
    if chosen is not None:
        changes["thresholds"] = (
            chosen if isinstance(chosen, Thresholds) else Thresholds.from_dict(dict(chosen))
        )
    return build_config(config, **changes)


def claim_report_dir(item: pytest.Item) -> str | None:
    """The report folder of this test's next run: DIR/<node id>, then DIR/<node id>-2..."""
    root = settings_of(item.config).report_root
    if root is None:
        return None
    count = item.stash.get(_report_count_key, 0) + 1
    item.stash[_report_count_key] = count
    name = safe_name(item.nodeid) + (f"-{count}" if count > 1 else "")
    path = str(root / name)
    item.config.stash[REPORTS_WRITTEN_KEY].append(path)
    return path


def safe_name(nodeid: str) -> str:
    """A node id as one portable folder name (long ones keep a hash to stay unique).

    Example:
        >>> safe_name("tests/test_amp.py::test_fp16[cpu-1]")
        'tests_test_amp.py__test_fp16_cpu-1'
    """
    name = re.sub(r"[^A-Za-z0-9._-]+", "_", nodeid.replace("::", "__")).strip("._") or "test"
    if len(name) > _MAX_DIR_NAME:
        digest = hashlib.sha1(nodeid.encode()).hexdigest()[:10]
        name = f"{name[: _MAX_DIR_NAME - 11]}-{digest}"
    return name
