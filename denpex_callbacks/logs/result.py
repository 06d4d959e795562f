"""What the doctor found in one input: the result every reader fills and every format renders."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from denpex_callbacks.core.diagnosis import Diagnosis
from denpex_callbacks.core.rerun_verdict import RankVerdict
from denpex_callbacks.core.severity import Severity
from denpex_callbacks.core.timeline import Timeline
from denpex_callbacks.logs.reader import ReadStats
from denpex_callbacks.logs.reading import Reading


@dataclass
class FileRead:
    """One file of a run folder and what came of reading it.

    Attributes:
        name: The path inside the folder.
        kind: ``"log"``, ``"trainer_state"``, ``"csv"``, ``"tfevents"`` or ``"reports"``.
        status: ``"read"``; ``"unusable"`` (a text file with nothing to diagnose: noted, not
            an error); ``"bad"`` (a run file that could not be read: exit 2).
        what: What was read from it (``412 lines: ...``), or why it could not be.
        why: Why this file was picked among others of its kind (``the most complete of 3``).
        faults: Diagnoses above info found in it.
    """

    name: str
    kind: str
    status: str
    what: str
    why: str = ""
    faults: int = 0

    def line(self) -> str:
        """How the verdict names it: ``train.log (412 lines: 380 as metrics ...)``."""
        why = f"; {self.why}" if self.why else ""
        return f"{self.name} ({self.what}{why})"


@dataclass
class Result:
    """What the doctor found in one input.

    Attributes:
        path: The input as given (``-`` for stdin).
        kind: ``"log"``, ``"reports"``, a run file (``"trainer_state"``, ``"csv"``,
            ``"tfevents"``), or ``"folder"``: a folder of the files a run leaves.
        diagnoses: Most important first.
        timeline: Reconstructed scale/loss timeline.
        error: Why the input could not be read (then nothing else is filled).
        problems: Notes about input that was read anyway (non-UTF-8 bytes, truncated .gz).
        stats: Reader counts (logs only).
        families: Log families recognised, with their line counts.
        initiating: (rank, step) of the rank whose loss went non-finite first.
        reruns: Each rank's failing-step re-run verdict (run reports only).
        ranks: The ranks whose reports were read (run reports only).
        reading: What was read, by which part (logs and run files).
        files: Each file of a run folder that was read, and how (folders only).
        steps_are_rows: The log's metric rows print no step: its steps are the rows'
            places in the log (an HF Trainer's dict rows in a file), not optimizer steps.
        step_bases: Where the rows' steps came from, each basis once
            (:mod:`~denpex_callbacks.logs.step_basis`: ``printed``, ``epoch_length``,
            ``samples``, ``epoch``, ``interval``, ``rows``).
    """

    path: str
    kind: str = "log"
    diagnoses: list[Diagnosis] = field(default_factory=list)
    timeline: Timeline = field(default_factory=Timeline)
    error: str | None = None
    problems: list[str] = field(default_factory=list)
    stats: ReadStats | None = None
    families: Counter[str] = field(default_factory=Counter)
    initiating: tuple[int, int] | None = None
    reruns: list[RankVerdict] = field(default_factory=list)
    ranks: list[int] = field(default_factory=list)
    reading: Reading = field(default_factory=Reading)
    files: list[FileRead] = field(default_factory=list)
    steps_are_rows: bool = False
    step_bases: list[str] = field(default_factory=list)

    @property
    def faults(self) -> list[Diagnosis]:
        """Diagnoses above info."""
        return [d for d in self.diagnoses if d.severity.rank >= Severity.WARNING.rank]

    @property
    def unusable(self) -> bool:
        """True when the input was bad (unreadable, or read with problems)."""
        return self.error is not None or bool(self.problems)


def summary_counts(result: Result) -> dict[str, Any]:
    """Numbers that say what was read, for the healthy-run message."""
    stats = result.stats
    return {
        "steps": result.timeline.steps,
        "rows": result.timeline.observed,
        "skipped": result.timeline.skipped,
        "lines": stats.lines if stats else None,
        "bytes": stats.bytes_read if stats else None,
        "families": dict(result.families),
        "steps_are_rows": result.steps_are_rows,
        "step_bases": list(result.step_bases),
    }
