"""pytest plugin (entry point ``pytest11``, name ``denpex``): fp16 health smoke tests for a
user's CI.

Installing denpex-callbacks registers two fixtures::

    def test_fp16_stays_healthy(amp_smoke):
        amp_smoke(model, make_batch, steps=50)     # trains a copy; fails on diagnoses

    def test_my_loop_stays_healthy(amp_monitor):
        amp_monitor.attach(scaler=scaler, optimizer=opt, model=model)
        for step in range(50):
            ...                                    # the test's own fp16 loop
            amp_monitor.step(loss)                 # fails at teardown on diagnoses

Options: ``--denpex-fail-on warning|error`` (ini ``denpex_fail_on``), ``--denpex-report DIR``
(ini ``denpex_report``), ``--denpex-device auto|cpu|cuda`` (ini ``denpex_device``); marker
``@pytest.mark.denpex(fail_on=..., thresholds={...}, disable=(...))`` per test.
``-p no:denpex`` switches the plugin off.

torch is imported only when a test uses a fixture (or something else already imported it),
so installing denpex-callbacks without torch never breaks a pytest run.

This module holds what pytest itself calls (options, session hooks, the fixtures); the
settings are resolved in :mod:`denpex_callbacks.testing.plugin_settings`, and a test is judged
on its diagnoses in :mod:`denpex_callbacks.testing.plugin_verdict`.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Generator, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from denpex_callbacks.core.config import MonitorConfig, build_config
from denpex_callbacks.core.diagnosis import Diagnosis
from denpex_callbacks.core.thresholds import Thresholds
from denpex_callbacks.testing.plugin_settings import (
    CALL_FAIL_ON_CHOICES,
    DEVICE_CHOICES,
    FAIL_ON_CHOICES,
    MARKER,
    REPORTS_WRITTEN_KEY,
    SETTINGS_KEY,
    check_fail_on,
    claim_report_dir,
    marker_options,
    monitor_config,
    resolve_settings,
    settings_of,
)
from denpex_callbacks.testing.plugin_verdict import (
    AmpSmokeWarning,
    failure_text,
    faults_at,
    judge,
    lines_left_to_the_plugin,
)

if TYPE_CHECKING:  # torch is imported only when a fixture is used
    import torch

    from denpex_callbacks.testing.smoke import MakeBatch, SmokeResult
    from denpex_callbacks.torch import AmpMonitor

__all__ = ["AmpSmoke", "AmpSmokeWarning", "amp_monitor", "amp_smoke"]

FIXTURES = ("amp_smoke", "amp_monitor")

_header_shown_key = pytest.StashKey[bool]()
_call_failed_key = pytest.StashKey[bool]()


# -- options and session hooks -----------------------------------------------------------------


def pytest_addoption(parser: pytest.Parser) -> None:
    """Register the ``--denpex-*`` options and their ini equivalents."""
    group = parser.getgroup("denpex", "denpex-callbacks fp16 smoke tests")
    group.addoption(
        "--denpex-fail-on", dest="denpex_fail_on", choices=FAIL_ON_CHOICES, default=None,
        help="fail amp_smoke/amp_monitor tests on diagnoses at or above this severity "
             "(default: warning; ini: denpex_fail_on)",
    )
    group.addoption(
        "--denpex-report", dest="denpex_report", metavar="DIR", default=None,
        help="write the JSONL run report of every smoke test to DIR/<test node id> "
             "(ini: denpex_report)",
    )
    group.addoption(
        "--denpex-device", dest="denpex_device", choices=DEVICE_CHOICES, default=None,
        help="where amp_smoke trains: auto (CUDA when present, else CPU), cpu or cuda "
             "(ini: denpex_device)",
    )
    parser.addini("denpex_fail_on", "amp_smoke/amp_monitor fail on: warning or error",
                  default="warning")
    parser.addini("denpex_report", "folder for the smoke tests' run reports (relative to "
                  "the rootdir)", default="")
    parser.addini("denpex_device", "where amp_smoke trains: auto, cpu or cuda", default="auto")


def pytest_configure(config: pytest.Config) -> None:
    """Resolve the options once and register the ``denpex`` marker."""
    config.addinivalue_line(
        "markers",
        f"{MARKER}(fail_on=None, thresholds=None, disable=()): per-test settings of the "
        "amp_smoke and amp_monitor fixtures (fail_on: warning, error or never)",
    )
    config.stash[SETTINGS_KEY] = resolve_settings(config)
    config.stash[REPORTS_WRITTEN_KEY] = []


def pytest_report_header(config: pytest.Config) -> str | None:
    """Say where amp_smoke trains, when torch is already imported (never import it here)."""
    if "torch" not in sys.modules:
        return None  # said after collection, and only if a test uses a fixture
    config.stash[_header_shown_key] = True
    return _header_line(config)


def pytest_report_collectionfinish(
    config: pytest.Config, items: list[pytest.Item]
) -> str | None:
    """Say where amp_smoke trains, if a collected test uses a fixture and the header did not."""
    if config.stash.get(_header_shown_key, False):
        return None
    if not any(name in getattr(item, "fixturenames", ()) for item in items for name in FIXTURES):
        return None
    return _header_line(config)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """Remember whether the test body failed, so amp_monitor adds no second failure."""
    report = yield
    if report.when == "call":
        item.stash[_call_failed_key] = report.failed
    return report


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    """Point at the run reports written in this session."""
    # A run that raised before its first step leaves no report behind: count what is there.
    written = [p for p in config.stash.get(REPORTS_WRITTEN_KEY, []) if Path(p).is_dir()]
    settings = config.stash.get(SETTINGS_KEY, None)
    if written and settings is not None and settings.report_root is not None:
        terminalreporter.write_line(
            f"denpex: {len(written)} run report(s) in {settings.report_root} "
            f"(read them with `denpex diagnose {settings.report_root}`)"
        )


# -- fixtures ----------------------------------------------------------------------------------


class AmpSmoke:
    """The callable the ``amp_smoke`` fixture returns; one per test.

    Call it as ``amp_smoke(model, make_batch, steps=50, **options)``: it trains a deep copy of
    ``model`` under fp16 autocast and a dynamic GradScaler (CUDA when present, else CPU) and
    fails the test when a diagnosis at or above the ``fail_on`` level fires. See
    :func:`denpex_callbacks.testing.smoke.run_amp_smoke` for the batch and loss contracts.

    Attributes:
        results: One :class:`~denpex_callbacks.testing.smoke.SmokeResult` per call, in order.
    """

    def __init__(self, item: pytest.Item) -> None:
        self._item = item
        self.results: list[SmokeResult] = []

    def __call__(
        self,
        model: torch.nn.Module,
        make_batch: MakeBatch,
        steps: int = 50,
        *,
        fail_on: str | None = None,
        device: str | None = None,
        thresholds: Thresholds | Mapping[str, Any] | None = None,
        config: MonitorConfig | None = None,
        **options: Any,
    ) -> list[Diagnosis]:
        """Train a copy of ``model`` for ``steps`` iterations in fp16; return its diagnoses.

        Args:
            model: A ``torch.nn.Module``; it is deep-copied, never changed.
            make_batch: ``make_batch(step) -> batch``; a mapping is passed as
                ``model(**batch)``, a tuple/list as ``model(*batch)``, anything else as
                ``model(batch)``. Tensors are moved to the training device.
            steps: Iterations to train.
            fail_on: ``"warning"``, ``"error"`` or ``"never"`` for this call (default: the
                marker, then ``--denpex-fail-on``, then ini ``denpex_fail_on``).
            device: ``"auto"``, ``"cpu"``, ``"cuda"``... (default ``--denpex-device``).
            thresholds: Detection thresholds (:class:`Thresholds` or a dict of overrides;
                default: the marker's).
            config: A full :class:`MonitorConfig`.
            **options: The training options of
                :func:`~denpex_callbacks.testing.smoke.run_amp_smoke`: ``optimizer`` (called as
                ``optimizer(parameters, lr=lr)``, default AdamW), ``lr`` (1e-3), ``loss_fn``
                (``loss_fn(output, batch)``; default the model's own loss), ``init_scale``
                (2**16), ``growth_interval`` (2000), ``max_grad_norm`` (None), ``seed`` (0).

        Returns:
            All diagnoses (info included) when none reaches ``fail_on``.
        """
        smoke = _import_torch_side("denpex_callbacks.testing.smoke")
        settings = settings_of(self._item.config)
        marker = marker_options(self._item)
        level = fail_on or marker.get("fail_on") or settings.fail_on
        check_fail_on(level, CALL_FAIL_ON_CHOICES, "fail_on")
        with lines_left_to_the_plugin():
            result: SmokeResult = smoke.run_amp_smoke(
                model, make_batch, steps,
                config=monitor_config(config, marker, self._item.nodeid, thresholds),
                report_dir=claim_report_dir(self._item),
                device=device or settings.device,
                **options,
            )
        self.results.append(result)
        where = (f"amp_smoke trained a copy of the model for {result.steps_run} steps on "
                 f"{result.device}, init scale {result.init_scale:g}, growth interval "
                 f"{result.growth_interval}")
        if result.error is not None:
            where += f"; then the training raised {type(result.error).__name__}: {result.error}"
            if not faults_at(result.diagnoses, level):
                raise result.error  # nothing explains it: the test shows torch's own traceback
        judge(result.diagnoses, level, where, result.report_dir)
        return result.diagnoses


@pytest.fixture
def amp_smoke(request: pytest.FixtureRequest) -> AmpSmoke:
    """A callable that trains a copy of a model in fp16 and fails the test on diagnoses.

    Example (in a user's test file)::

        def test_fp16_stays_healthy(amp_smoke):
            amp_smoke(MyModel(), lambda step: {"x": torch.randn(8, 16)}, steps=50)
    """
    return AmpSmoke(request.node)


@pytest.fixture
def amp_monitor(request: pytest.FixtureRequest) -> Iterator[AmpMonitor]:
    """An :class:`~denpex_callbacks.torch.AmpMonitor` for the test's own training loop.

    Attach the loop's objects before the first iteration (``amp_monitor.attach(scaler=...,
    optimizer=..., model=...)``, or pass them to the first ``step()``), call
    ``amp_monitor.step(loss)`` after ``scaler.update()``; at teardown the monitor is closed
    and the test fails on diagnoses at or above the ``fail_on`` level.
    """
    adapter = _import_torch_side("denpex_callbacks.torch")  # torch only when the fixture is used
    item = request.node
    settings = settings_of(item.config)
    marker = marker_options(item)
    level = marker.get("fail_on") or settings.fail_on
    check_fail_on(level, CALL_FAIL_ON_CHOICES, "fail_on")
    config = build_config(monitor_config(None, marker, item.nodeid),
                          report_dir=claim_report_dir(item))
    monitor: AmpMonitor = adapter.AmpMonitor(config=config)
    with lines_left_to_the_plugin():
        yield monitor
        monitor.close()
    where = f"amp_monitor watched the test's own loop for {monitor.monitor.run.steps_seen} steps"
    if item.stash.get(_call_failed_key, False):
        # The test already failed: show the diagnoses beside its failure, not as a second one.
        faults = faults_at(monitor.diagnoses, level)
        if faults:
            text = failure_text(faults, level, where, config.report_dir)
            item.add_report_section("teardown", "denpex", text)
        return
    judge(monitor.diagnoses, level, where, config.report_dir)


def _import_torch_side(module: str) -> Any:
    """Import a torch-using denpex module, failing the test clearly when torch is missing."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        reason = str(exc)
    # Failed outside the except block: the import error's chain would only add noise.
    pytest.fail(f"denpex fixtures need torch ({reason}); install it, e.g. "
                "`pip install denpex-callbacks[torch]`", pytrace=False)


def _header_line(config: pytest.Config) -> str:
    settings = settings_of(config)
    try:
        from denpex_callbacks.testing import smoke
    except ImportError:
        return "denpex: torch is not installed: amp_smoke/amp_monitor tests will fail"
    try:
        trains = f"trains on {smoke.describe_device(smoke.pick_device(settings.device))}"
    except (RuntimeError, ValueError) as exc:
        trains = f"cannot train: {exc}"
    reports = f"; reports in {settings.report_root}" if settings.report_root else ""
    return f"denpex: amp_smoke {trains}; fail on {settings.fail_on}{reports}"

