"""The doctor's three output formats: text for people, JSON for machines, markdown for issues.

Every string that quotes the log goes through :func:`~denpex_callbacks.core.masking.mask`.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, replace
from typing import Any

from denpex_callbacks.core.diagnosis import Diagnosis
from denpex_callbacks.core.masking import mask
from denpex_callbacks.core.ordering import order
from denpex_callbacks.core.rerun_verdict import across_ranks
from denpex_callbacks.logs.doctor import Result, summary_counts
from denpex_callbacks.logs.folder_verdict import describe_files, files_json
from denpex_callbacks.logs.reading import describe
from denpex_callbacks.logs.reading import to_json as reading_json
from denpex_callbacks.logs.step_basis import EPOCH, SAMPLES

FORMATS = ("text", "json", "markdown")
# Step bases whose steps count another unit than optimizer steps, and how the verdict names it
_OTHER_UNITS = {SAMPLES: ("samples", "the log prints no batch size"),
                EPOCH: ("epochs", "one row an epoch")}
JSON_VERSION = 1


def diagnosis_json(d: Diagnosis) -> dict[str, Any]:
    """One diagnosis as the JSON output lists it (masked)."""
    out = d.to_dict()
    out["evidence"] = _mask_deep(out["evidence"])
    out["quotes"] = [mask(q) for q in out["quotes"]]
    out["summary"] = mask(out["summary"])
    return out


def _mask_deep(value: Any) -> Any:
    if isinstance(value, str):
        return mask(value)
    if isinstance(value, dict):
        return {k: _mask_deep(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_mask_deep(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    return value


def _masked(d: Diagnosis) -> Diagnosis:
    return replace(d, summary=mask(d.summary), quotes=tuple(mask(q) for q in d.quotes),
                   evidence=_mask_deep(d.evidence))


def _verdict(result: Result) -> str:
    counts = summary_counts(result)
    if result.error:
        return result.error
    faults = result.faults
    bases = counts["step_bases"]
    what = f"{counts['steps']} step(s) reconstructed, {counts['skipped']} skipped by overflow"
    if bases and all(basis in _OTHER_UNITS for basis in bases):
        # Steps in samples or epochs span that unit (six MNIST rows of epoch 3 span 3202
        # samples from the run's start): the rows read are what the log showed.
        units = " and ".join(_OTHER_UNITS[basis][0] for basis in bases)
        why = "; ".join(_OTHER_UNITS[basis][1] for basis in bases)
        what = (f"{counts['rows']} row(s) read (their steps count {units}, not optimizer "
                f"steps: {why}), {counts['skipped']} skipped by overflow")
    elif counts["steps_are_rows"]:
        what += " (no row prints its step: steps are counted by the log's rows)"
    elif SAMPLES in bases:
        what += " (the rows count samples, not steps: the log prints no batch size)"
    if result.kind == "folder":
        what = f"{describe_files(result)}; {what}"
    elif result.kind != "reports":
        what = f"{describe(result.reading, _unit(result))}; {what}"
    if not faults:
        return f"{result.path}: no fault found ({what})"
    return f"{result.path}: {len(faults)} fault(s) ({what})"


def _unit(result: Result) -> str:
    return "lines" if result.kind == "log" else "records"


def _initiating(result: Result) -> str | None:
    if result.initiating is None:
        return None
    rank, step = result.initiating
    return f"initiating rank: {rank} (its loss went non-finite first, at step {step})"


def _reruns(result: Result) -> list[str]:
    """Each rank's failing-step re-run verdict, and one line across ranks."""
    if not result.reruns:
        return []
    lines = ["re-run of the failing step (hardware or software?), per rank:"]
    lines += [f"  {verdict.line()}" for verdict in result.reruns]
    if across := across_ranks(result.reruns, result.ranks):
        lines.append(f"  across ranks: {across}")
    return lines


def render_text(results: list[Result]) -> str:
    """Plain text: a verdict per input, then each diagnosis block."""
    out: list[str] = []
    for result in results:
        if result.error:
            continue
        out.append(mask(_verdict(result)))
        if line := _initiating(result):
            out.append("  " + line)
        out += ["  " + mask(line) for line in _reruns(result)]
        for d in result.diagnoses:
            if d.severity.value == "info" and not result.faults:
                continue
            out.append("")
            out.append(_masked(d).render_text())
        out.append("")
    return "\n".join(out).rstrip() + "\n" if out else ""


def render_markdown(results: list[Result]) -> str:
    """Markdown to paste into an issue."""
    out = ["## denpex diagnose", ""]
    for result in results:
        if result.error:
            out += [f"- **unreadable**: `{mask(result.error)}`", ""]
            continue
        out += [f"**{mask(_verdict(result))}**", ""]
        if line := _initiating(result):
            out += [f"- {line}", ""]
        if reruns := _reruns(result):
            out += [f"- {mask(reruns[0])}", *(f"  - {mask(r.strip())}" for r in reruns[1:]), ""]
        for d in result.diagnoses:
            out += [_masked(d).render_markdown(), ""]
    return "\n".join(out).rstrip() + "\n"


def render_json(results: list[Result], exit_code: int) -> str:
    """One JSON object: ``diagnoses`` (all inputs, most important first), ``inputs`` (per
    input: status, counts, timeline, initiating rank), ``exit_code``."""
    everything = order([d for r in results for d in r.diagnoses])
    inputs = []
    for result in results:
        entry: dict[str, Any] = {"path": result.path, "kind": result.kind,
                                 "status": "error" if result.error else "read"}
        if result.error:
            entry["error"] = mask(result.error)
        else:
            entry.update(summary_counts(result))
            if result.kind == "folder":
                entry["read"] = files_json(result)
            elif result.kind != "reports":
                entry["read"] = reading_json(result.reading, _unit(result))
            entry["problems"] = [mask(p) for p in result.problems]
            entry["healthy"] = not result.faults
            entry["initiating_rank"] = (
                {"rank": result.initiating[0], "step": result.initiating[1]}
                if result.initiating else None)
            entry["reruns"] = [dict(asdict(v), host=mask(v.host), reason=mask(v.reason))
                               for v in result.reruns]
            entry["timeline"] = result.timeline.to_dict()
        inputs.append(entry)
    document = {
        "version": JSON_VERSION,
        "exit_code": exit_code,
        # Healthy only when every input was read and none has a fault: an unreadable input
        # proves nothing about its run.
        "healthy": not any(r.faults or r.error for r in results),
        "diagnoses": [diagnosis_json(d) for d in everything],
        "inputs": inputs,
        "timeline": inputs[0].get("timeline") if len(inputs) == 1 else None,
    }
    return json.dumps(document, indent=2, allow_nan=False, default=str) + "\n"
