"""One verdict for a run folder: what each file showed, merged, in the live path's order.

The files of one run describe the same steps (the stdout log, ``trainer_state.json`` and the
TensorBoard events all hold the loss of step 6), so their diagnoses are merged, not added:
each condition once, where it began first (the earliest step, then the lowest rank), the
other files and ranks that show it kept as evidence (``also_in``, ``also_on_ranks``). The
result is ordered with :func:`~denpex_callbacks.core.ordering.order`, as a live run is.

A run file that cannot be read (``trainer_state.json`` that is not JSON, a corrupt event
file) is a problem named with its path: the others are still diagnosed, and the exit code is
2. A text file with nothing to diagnose is only noted. Nothing readable at all: an error.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from denpex_callbacks.core.diagnosis import Diagnosis
from denpex_callbacks.core.ordering import order
from denpex_callbacks.logs.reader import InputError
from denpex_callbacks.logs.reading import describe
from denpex_callbacks.logs.result import FileRead, Result
from denpex_callbacks.logs.run_folder import LOG, RunFile

KNOWN = ("trainer_state.json, metrics.csv, events.out.tfevents.*, *.log, *.txt, *.out, "
         "rank*.jsonl")


def merge(folder: str, parts: list[tuple[RunFile, Result]]) -> Result:
    """The folder's result from each file's.

    Raises:
        InputError: When no file in the folder could be read.

    Example:
        >>> from denpex_callbacks.core.diagnosis import Finding
        >>> nan = Diagnosis.from_finding(Finding("AMP006", 6, "loss is nan"))
        >>> parts = [(RunFile("o/train.log", "train.log", "log"),
        ...           Result("o/train.log", diagnoses=[replace(nan, source="o/train.log")])),
        ...          (RunFile("o/trainer_state.json", "trainer_state.json", "trainer_state"),
        ...           Result("o/trainer_state.json", kind="trainer_state",
        ...                  diagnoses=[replace(nan, source="o/trainer_state.json")]))]
        >>> found = merge("o", parts)
        >>> [(d.code, d.step, d.evidence["also_in"]) for d in found.diagnoses]
        [('AMP006', 6, ['trainer_state.json'])]
    """
    result = Result(folder, kind="folder")
    if not parts:
        raise InputError(f"{folder}: no file a run leaves ({KNOWN}) in this folder")
    names = {part.path: run_file.name for run_file, part in parts}
    read: list[Result] = []
    for run_file, part in parts:
        result.files.append(_file_read(run_file, part))
        if part.error is not None:
            if run_file.kind != LOG:  # a run file that is broken: the user must know
                result.problems.append(part.error)
            continue
        if run_file.rank is not None:
            _ranked(part, run_file.rank)
        read.append(part)
        result.problems += part.problems
        result.families.update(part.families)
    if not read:
        shown = "; ".join(f.line() for f in result.files[:4])
        raise InputError(f"{folder}: read {len(parts)} file(s), none usable: {shown}")
    result.diagnoses = order(_merged(read, names))
    steps = max(read, key=lambda r: r.timeline.steps)
    result.timeline = steps.timeline
    result.initiating = _initiating(read, [f.rank for f, _ in parts if f.rank is not None])
    for part in read:
        result.reruns += part.reruns
        result.ranks = sorted({*result.ranks, *part.ranks})
    return result


def _ranked(part: Result, rank: int) -> None:
    """One rank's own log (``attempt_0/1/stdout.log``): its lines carry no rank prefix, so
    what the doctor placed on rank 0 is that rank's."""
    part.diagnoses = [replace(d, rank=rank) if d.rank == 0 else d for d in part.diagnoses]
    part.ranks = [rank]


def _initiating(read: list[Result], file_ranks: list[int]) -> tuple[int, int] | None:
    """(rank, step) where a loss went non-finite first: each log's own (several ranks in
    it), and across the ranks' own logs."""
    starts = [r.initiating for r in read if r.initiating is not None]
    if len(set(file_ranks)) > 1:
        starts += [(d.rank, d.step) for r in read for d in r.diagnoses
                   if d.code == "AMP006" and d.step is not None and r.ranks]
    return min(starts, key=lambda rs: (rs[1], rs[0])) if starts else None


def _file_read(run_file: RunFile, part: Result) -> FileRead:
    if part.error is not None:
        # The reader's message starts with the path: the verdict names the file once.
        reason = part.error.removeprefix(f"{part.path}: ")
        status = "unusable" if run_file.kind == LOG else "bad"
        return FileRead(run_file.name, run_file.kind, status, reason, run_file.why)
    if part.kind == "reports":
        what = f"denpex run reports of {len(part.ranks)} rank(s)"
    else:
        what = describe(part.reading, "lines" if part.kind == LOG else "records")
        what = what.removeprefix("read ")
    return FileRead(run_file.name, run_file.kind, "read", what, run_file.why,
                    len(part.faults))


def _merged(parts: list[Result], names: dict[str, str]) -> list[Diagnosis]:
    """Each condition once (per severity, as an escalation is kept beside its first report),
    where it began first; the rest as evidence."""
    first: dict[tuple[str, str], tuple[Diagnosis, str]] = {}
    more: dict[tuple[str, str], tuple[set[str], set[int]]] = {}
    # A consequence whose cause one file or rank saw (rank 1's NaN loss, averaged by DDP into
    # every rank's scale collapse) is that cause's consequence wherever else it is seen.
    causes: dict[tuple[str, str], str] = {}
    for part in parts:
        name = names.get(part.path, part.path)
        for diagnosis in part.diagnoses:
            key = (diagnosis.code, diagnosis.severity.value)
            files, ranks = more.setdefault(key, (set(), set()))
            files.add(name)
            ranks.update({diagnosis.rank, *diagnosis.evidence.get("also_on_ranks", [])})
            if diagnosis.caused_by is not None:
                causes.setdefault(key, diagnosis.caused_by)
            known = first.get(key)
            if known is None or _begins_before(diagnosis, known[0]):
                first[key] = (diagnosis, name)
    out = []
    for key, (diagnosis, name) in first.items():
        files, ranks = more[key]
        evidence: dict[str, Any] = dict(diagnosis.evidence)
        if others := sorted(files - {name}):
            evidence["also_in"] = others
        if others_ranks := sorted(ranks - {diagnosis.rank}):
            evidence["also_on_ranks"] = others_ranks
        out.append(replace(diagnosis, evidence=evidence,
                           caused_by=diagnosis.caused_by or causes.get(key)))
    return out


def _begins_before(diagnosis: Diagnosis, other: Diagnosis) -> bool:
    def where(d: Diagnosis) -> tuple[int, int]:
        return (d.step if d.step is not None else 1 << 62, d.rank)
    return where(diagnosis) < where(other)


def describe_files(result: Result) -> str:
    """``read 3 files: trainer_state.json (120 records: ...), train.log (412 lines: ...)``."""
    read = [f for f in result.files if f.status == "read"]
    shown = ", ".join(f.line() for f in result.files)
    return f"read {len(read)} of {len(result.files)} file(s): {shown}" \
        if len(read) < len(result.files) else f"read {len(read)} file(s): {shown}"


def files_json(result: Result) -> dict[str, Any]:
    """The same for ``--format json``."""
    return {
        "unit": "files",
        "total": len(result.files),
        "files": [{"name": f.name, "kind": f.kind, "status": f.status, "read": f.what,
                   "why": f.why, "faults": f.faults} for f in result.files],
        "summary": describe_files(result),
    }
