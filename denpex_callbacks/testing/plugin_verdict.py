"""The denpex pytest fixtures' verdict: fail, warn or pass a test on its diagnoses.

A diagnosis at or above the test's ``fail_on`` level fails it with one text holding every such
diagnosis (a consequence as one line naming its cause); lesser warnings go to pytest's warnings
summary as :class:`AmpSmokeWarning`. While a fixture trains, the monitor's own diagnosis lines
are kept out of pytest's captured log, so that each diagnosis is shown once. Imports no torch.
"""

from __future__ import annotations

import contextlib
import logging
import warnings
from collections.abc import Iterator

import pytest

from denpex_callbacks.core.diagnosis import Diagnosis
from denpex_callbacks.core.log_line import render_line
from denpex_callbacks.core.monitor import LOGGER_NAME
from denpex_callbacks.core.severity import Severity
from denpex_callbacks.core.sinks import DIAGNOSIS_RECORD


class AmpSmokeWarning(UserWarning):
    """Diagnoses below the ``fail_on`` level: shown in pytest's warnings summary."""


class _DropDiagnosisLines(logging.Filter):
    """Drops the monitor's diagnosis lines: the plugin's own report shows each one once."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not hasattr(record, DIAGNOSIS_RECORD)


@contextlib.contextmanager
def lines_left_to_the_plugin() -> Iterator[None]:
    """While a fixture trains, keep diagnosis lines out of pytest's captured log.

    pytest would show each diagnosis again under "Captured log"; the failure text (or the
    warning) already holds all of them. Other denpex records (an internal error) still show.
    """
    drop = _DropDiagnosisLines()
    logger = logging.getLogger(LOGGER_NAME)
    logger.addFilter(drop)
    try:
        yield
    finally:
        logger.removeFilter(drop)


def faults_at(diagnoses: list[Diagnosis], level: str) -> list[Diagnosis]:
    """The diagnoses at or above ``level`` (none for ``"never"``)."""
    if level == "never":
        return []
    threshold = Severity(level).rank
    return [d for d in diagnoses if d.severity.rank >= threshold]


def judge(diagnoses: list[Diagnosis], level: str, where: str, report_dir: str | None) -> None:
    """Fail on diagnoses at or above ``level``; warn about the lesser ones."""
    if level == "never":
        return  # the caller asked for the diagnoses and judges them itself
    faults = faults_at(diagnoses, level)
    if faults:
        pytest.fail(failure_text(faults, level, where, report_dir), pytrace=False)
    lesser = [d for d in diagnoses if d.severity.rank >= Severity.WARNING.rank]
    if lesser:
        warnings.warn(
            AmpSmokeWarning(failure_text(lesser, level, where, report_dir, failing=False)),
            stacklevel=3,
        )


def failure_text(
    diagnoses: list[Diagnosis],
    level: str,
    where: str,
    report_dir: str | None,
    *,
    failing: bool = True,
) -> str:
    verdict = f"at or above {level}" if failing else f"below fail-on level {level}"
    lines = [f"denpex: {len(diagnoses)} fp16 diagnosis(es) {verdict} ({where})", ""]
    for diagnosis in diagnoses:
        # A consequence is one line naming its cause; the cause has the full block.
        shown = render_line(diagnosis) if diagnosis.caused_by else diagnosis.render_text()
        lines += [shown, ""]
    if report_dir:
        lines.append(f"run report: {report_dir}")
    elif failing:
        lines.append("keep the run report with --denpex-report DIR; "
                     "relax with --denpex-fail-on error or @pytest.mark.denpex(fail_on=...)")
    return "\n".join(lines).rstrip()
