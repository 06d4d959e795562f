"""Per-rank JSONL run reports: write (crash-safe for diagnoses), read, merge across ranks."""

from __future__ import annotations

import json
import math
import os
import platform
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from denpex_callbacks.core.diagnosis import Diagnosis
from denpex_callbacks.core.observation import Observation

REPORT_GLOB = "rank*.jsonl"
OUTPUT_DIR_FIELD = "{output_dir}"


def report_path(directory: str | os.PathLike[str], rank: int) -> Path:
    """Where rank ``rank`` writes its report."""
    return Path(directory) / f"rank{rank}.jsonl"


def is_url(path: str | os.PathLike[str]) -> bool:
    """True for a remote or in-memory location (``s3://bucket/run``, ``memory://x``).

    Example:
        >>> is_url("s3://bucket/run"), is_url("memory://x"), is_url("out/denpex_reports")
        (True, True, False)
    """
    return "://" in os.fspath(path)


def resolve_report_dir(report_dir: str | None, output_dir: str | None = None) -> str | None:
    """Where the run reports go: ``report_dir`` taken inside ``output_dir`` when relative.

    Every adapter's rule: the framework's output folder is HF's ``args.output_dir`` or
    Lightning's ``default_root_dir``; the plain loop and DeepSpeed have none, so theirs is taken
    from the working directory. ``"{output_dir}"`` in the path is replaced by that folder.

    Args:
        report_dir: The configured folder (None: no report).
        output_dir: The framework's output folder (None: the working directory).

    Example:
        >>> resolve_report_dir("denpex_reports", "out")
        'out/denpex_reports'
        >>> resolve_report_dir("{output_dir}/r", "out"), resolve_report_dir("/abs", "out")
        ('out/r', '/abs')
        >>> resolve_report_dir("denpex_reports") is None, resolve_report_dir(None, "out")
        (False, None)
    """
    if report_dir is None:
        return None
    root = output_dir or "."
    if OUTPUT_DIR_FIELD in report_dir:
        return report_dir.replace(OUTPUT_DIR_FIELD, root)
    if os.path.isabs(report_dir) or output_dir is None:
        return report_dir
    return os.path.join(root, report_dir)


def new_report_location(directory: str | os.PathLike[str], rank: int) -> str:
    """Where a new run writes rank ``rank``'s report without overwriting an earlier run's.

    ``directory/rank<k>.jsonl`` when free, else ``directory/run-<n>/rank<k>.jsonl`` with the
    first free ``n`` from 2. Every rank asks for its own file, so ranks of one run agree
    whenever the earlier runs had as many ranks. A URL (``s3://``, ``memory://``) is looked up
    through fsspec.

    Example:
        >>> import tempfile
        >>> root = tempfile.mkdtemp()
        >>> first = new_report_location(root, 0)
        >>> _ = open(first, "w").write("{}")
        >>> os.path.relpath(new_report_location(root, 0), root)
        'run-2/rank0.jsonl'
    """
    base = os.fspath(directory).rstrip("/")
    exists = _exists_function(base)
    candidate = f"{base}/rank{rank}.jsonl"
    run = 2
    while exists(candidate):
        candidate = f"{base}/run-{run}/rank{rank}.jsonl"
        run += 1
    return candidate


def _exists_function(base: str) -> Any:
    if not is_url(base):
        return os.path.exists
    import fsspec  # only for URLs: installed with Lightning, optional otherwise

    filesystem, _ = fsspec.core.url_to_fs(base)
    return filesystem.exists


class ReportWriter:
    """Writes one rank's run report. Never raises into training: callers guard it.

    Diagnosis records are flushed and fsynced as they are written so a run killed right
    after a diagnosis keeps it. Step records are sampled: every ``record_every`` steps, plus
    steps where something happened (a skip, a scale change, a non-finite loss) until
    ``max_step_records`` of those have been written.
    """

    def __init__(
        self,
        directory: str | os.PathLike[str],
        rank: int = 0,
        *,
        record_every: int = 50,
        max_step_records: int = 10_000,
        append: bool = False,
    ) -> None:
        # A resumed run continues its report; a new run never overwrites an earlier one's.
        base = os.fspath(directory).rstrip("/") or "."
        self.location = f"{base}/rank{rank}.jsonl" if append else new_report_location(base, rank)
        self.path = Path(self.location)
        self.append = append
        self.record_every = record_every
        self.max_step_records = max_step_records
        self.event_records = 0
        self._file: IO[str] | None = None
        self._last_scale: float | None = None

    def _open(self) -> IO[str]:
        if self._file is None:
            mode = "a" if self.append else "w"
            if is_url(self.location):
                import fsspec  # a remote report folder (Lightning's default_root_dir)

                self._file = fsspec.open(self.location, mode, encoding="utf-8").open()
            else:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self._file = open(self.path, mode, encoding="utf-8")  # noqa: SIM115
        return self._file

    def _write(self, record: dict[str, Any], *, durable: bool = False) -> None:
        handle = self._open()
        handle.write(json.dumps(record, default=str, allow_nan=False) + "\n")
        if durable:
            handle.flush()
            if not is_url(self.location):  # remote files are durable once closed
                os.fsync(handle.fileno())

    def header(self, setup: dict[str, Any], versions: dict[str, str]) -> None:
        """The first record: what ran, where, with which versions."""
        self._write(
            {
                "type": "header",
                "time": time.time(),
                "host": platform.node(),
                "pid": os.getpid(),
                "versions": versions,
                "setup": setup,
            },
            durable=True,
        )

    def diagnosis(self, diagnosis: Diagnosis) -> None:
        """A diagnosis record, on disk before this returns."""
        self._write({"type": "diagnosis", "time": time.time(), **diagnosis.to_dict()},
                    durable=True)

    def amendment(self, diagnosis: Diagnosis) -> None:
        """A diagnosis completed with later evidence; readers replace the original with it."""
        self._write({"type": "amendment", "time": time.time(), **diagnosis.to_dict()},
                    durable=True)

    def step(self, obs: Observation) -> None:
        """A step record if the sampling rule keeps this step."""
        scale = obs.scale
        eventful = bool(obs.was_skipped) or (scale != self._last_scale) or (
            obs.loss is not None and not math.isfinite(obs.loss)
        )
        self._last_scale = scale
        if eventful and self.event_records < self.max_step_records:
            self.event_records += 1
        elif obs.step % self.record_every != 0:
            return
        self._write({"type": "step", **obs.to_dict()})

    def summary(self, summary: dict[str, Any]) -> None:
        """The closing record."""
        self._write({"type": "summary", "time": time.time(), **summary}, durable=True)

    def close(self) -> None:
        """Flush and close the file."""
        if self._file is not None:
            self._file.flush()
            self._file.close()
            self._file = None


@dataclass
class RunReport:
    """One rank's report as read back."""

    path: Path
    header: dict[str, Any] = field(default_factory=dict)
    diagnoses: list[Diagnosis] = field(default_factory=list)
    steps: list[Observation] = field(default_factory=list)
    summary: dict[str, Any] | None = None
    truncated: bool = False

    @property
    def rank(self) -> int:
        """The rank that wrote the report."""
        setup = self.header.get("setup") or {}
        return int(setup.get("rank", 0))

    def first_nonfinite_step(self) -> tuple[int, float] | None:
        """(step, time) where this rank's loss first went non-finite, else None."""
        for diag in self.diagnoses:
            if diag.code == "AMP006" and diag.step is not None:
                return diag.step, float(diag.evidence.get("time") or 0.0)
        for obs in self.steps:
            if obs.loss is not None and not math.isfinite(obs.loss):
                return obs.step, obs.time or 0.0
        return None


def iter_records(lines: Iterable[str]) -> Iterable[tuple[dict[str, Any] | None, str]]:
    """Parse JSONL lines; a line that is not JSON yields (None, line)."""
    for line in lines:
        text = line.strip()
        if not text:
            continue
        try:
            record = json.loads(text)
        except ValueError:
            yield None, text
            continue
        yield (record if isinstance(record, dict) else None), text


def read_report(path: str | os.PathLike[str]) -> RunReport:
    """Read one rank's report. A torn last line (a killed process) is tolerated.

    Raises:
        OSError: When the file cannot be read.
        ValueError: When the file is not a denpex run report.
    """
    report = RunReport(Path(path))
    with open(path, encoding="utf-8", errors="replace") as handle:
        for record, _text in iter_records(handle):
            if record is None:
                report.truncated = True
                continue
            kind = record.get("type")
            if kind == "header":
                report.header = record
            elif kind == "diagnosis":
                report.diagnoses.append(Diagnosis.from_dict(record))
            elif kind == "amendment":
                _merge_amendment(report.diagnoses, Diagnosis.from_dict(record))
            elif kind == "step":
                report.steps.append(Observation.from_dict(record))
            elif kind == "summary":
                report.summary = record
    if not report.header and not report.diagnoses and not report.steps:
        raise ValueError(f"{path}: not a denpex run report (no header record)")
    return report


def _merge_amendment(diagnoses: list[Diagnosis], amended: Diagnosis) -> None:
    # The latest record of the same id and first step is the one amended.
    for index in range(len(diagnoses) - 1, -1, -1):
        if (diagnoses[index].code, diagnoses[index].step) == (amended.code, amended.step):
            diagnoses[index] = amended
            return
    diagnoses.append(amended)


def is_report_file(path: str | os.PathLike[str]) -> bool:
    """True when the file starts with a denpex header record."""
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            first = handle.readline(65536)
        record = json.loads(first)
    except (OSError, ValueError):
        return False
    return isinstance(record, dict) and record.get("type") == "header"


def read_report_dir(directory: str | os.PathLike[str]) -> list[RunReport]:
    """Read every ``rank*.jsonl`` in a folder, ordered by rank.

    Raises:
        ValueError: When the folder holds no report.
    """
    paths = sorted(Path(directory).glob(REPORT_GLOB))
    if not paths:
        raise ValueError(f"{directory}: no denpex run reports (rank*.jsonl) in this directory")
    return sorted((read_report(p) for p in paths), key=lambda r: r.rank)


def initiating_rank(reports: Iterable[RunReport]) -> tuple[int, int] | None:
    """(rank, step) of the rank whose loss went non-finite first, or None when none did.

    Ties on the step are broken by wall time, then by rank.
    """
    firsts = []
    for report in reports:
        first = report.first_nonfinite_step()
        if first is not None:
            firsts.append((first[0], first[1], report.rank))
    if not firsts:
        return None
    step, _time, rank = min(firsts)
    return rank, step
