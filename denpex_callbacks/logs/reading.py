"""What was read from an input, said plainly: which lines, read as what, by which part.

"No fault found" means something only beside what was read: ``read 412 lines: 380 as
metrics (loss, grad_norm) in an unrecognised key=value format, 32 DeepSpeed overflow
lines`` is a healthy run; ``read 412 lines: nothing usable`` is an unreadable one.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from denpex_callbacks.logs.metric_reader import FAMILY as GENERIC

FAMILY_NAMES = {
    "deepspeed": "DeepSpeed", "hf": "HF Trainer", "lightning": "Lightning",
    "fairseq": "fairseq", "apex": "apex", "megatron": "Megatron-LM", "system": "system",
    "torch": "torch", "denpex": "denpex", "paddle": "PaddlePaddle", "errors": "framework",
    "summary": "run-summary", "messages": "known-message", "sentences": "free-worded",
    "trainer_state": "HF trainer_state.json", "csv": "metrics.csv", "tfevents": "TensorBoard",
}
KIND_NAMES = {
    "overflow": "overflow", "growth": "scale-growth", "metrics": "metric",
    "progress": "step-counter", "flag": "error", "setup": "setup", "eval": "evaluation",
    "summary": "summary",
}
MAX_KEYS = 6


@dataclass
class Reading:
    """Lines read, per part that read them.

    Attributes:
        lines: Lines (or records) in the input.
        parts: Lines per (family, event kind); a line counts once per pair.
        keys: Metric keys the generic reader used, with their line counts.
        notations: Notations the generic reader met, with their line counts.
    """

    lines: int = 0
    parts: Counter[tuple[str, str]] = field(default_factory=Counter)
    keys: dict[str, int] = field(default_factory=dict)
    notations: dict[str, int] = field(default_factory=dict)

    def add_line(self, kinds: set[tuple[str, str]]) -> None:
        """Count one line read as each of ``kinds``."""
        for kind in kinds:
            self.parts[kind] += 1

    @property
    def used(self) -> int:
        """Lines that gave at least one event (a line read two ways counts in both)."""
        return sum(self.parts.values())


def describe(reading: Reading, unit: str = "lines") -> str:
    """One sentence: what was read and as what.

    Example:
        >>> r = Reading(412, Counter({("generic", "metrics"): 380,
        ...                           ("deepspeed", "overflow"): 32}),
        ...             keys={"loss": 380, "grad_norm": 380}, notations={"key=value": 380})
        >>> describe(r).split(": ", 1)[0]
        'read 412 lines'
        >>> for part in describe(r).split(": ", 1)[1].split(", 3"):
        ...     print(part)
        380 as metrics (loss, grad_norm) in an unrecognised key=value format
        2 DeepSpeed overflow lines
    """
    pieces: list[str] = []
    for (family, kind), count in _ordered(reading):
        if family == GENERIC:
            # The keys are the training metrics' (an evaluation row's go to its own stream):
            # named beside the metric lines only, not beside evaluations or counters.
            keys = ", ".join(k for k, _n in Counter(reading.keys).most_common(MAX_KEYS)
                             ) if kind == "metrics" else ""
            written = max(reading.notations, key=reading.notations.__getitem__, default="")
            name = KIND_NAMES.get(kind, kind)
            plural = name[:-1] + "ies" if name.endswith("y") else name + "s"
            what = "as metrics" if kind == "metrics" else f"as {plural}"
            pieces.append(f"{count} {what}" + (f" ({keys})" if keys else "")
                          + (f" in an unrecognised {written} format" if written else ""))
        else:
            name = FAMILY_NAMES.get(family, family)
            pieces.append(f"{count} {name} {KIND_NAMES.get(kind, kind)} {unit}")
    return f"read {reading.lines} {unit}: " + (", ".join(pieces) if pieces else "nothing usable")


def _ordered(reading: Reading) -> list[tuple[tuple[str, str], int]]:
    # Most lines first; ties by name, so neither the sentence nor the JSON depends on the
    # order a line's kinds came in (a set: its order moves with the interpreter's hash seed).
    return sorted(reading.parts.items(), key=lambda p: (-p[1], p[0]))


def to_json(reading: Reading, unit: str = "lines") -> dict[str, Any]:
    """The same for ``--format json``."""
    return {
        "unit": unit,
        "total": reading.lines,
        "parts": [{"family": family, "kind": kind, "count": count}
                  for (family, kind), count in _ordered(reading)],
        "generic_keys": dict(reading.keys),
        "generic_notations": dict(reading.notations),
        "summary": describe(reading, unit),
    }
