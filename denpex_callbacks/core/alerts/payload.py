"""The alert a diagnosis becomes: one JSON object, with a ``text`` chat webhooks show as is.

Every string taken from the run (summary, fix, run name, report path) is masked first
(:func:`denpex_callbacks.core.masking.mask`), as in the doctor's output.
"""

from __future__ import annotations

import os
import platform
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from denpex_callbacks.core.diagnosis import Diagnosis
from denpex_callbacks.core.masking import mask
from denpex_callbacks.core.numbers import round_numbers

ENV_RUN_NAME = "DENPEX_RUN_NAME"
MAX_FIELD = 600  # characters per text field: an alert points to the report, it is not the report
WANDB_TITLE_MAX = 63  # wandb.alert: "must be less than 64 characters long"


@dataclass(frozen=True)
class AlertContext:
    """Where the run is: the part of an alert that no diagnosis knows.

    Attributes:
        framework: ``torch``, ``hf``, ``lightning`` or ``deepspeed``.
        world_size: Number of ranks.
        run_name: The framework's run name (None: see :func:`run_name`).
        report_path: This rank's JSONL run report (None: no report is written).
        host: The machine (default: ``platform.node()``).
    """

    framework: str = "torch"
    world_size: int = 1
    run_name: str | None = None
    report_path: str | None = None
    host: str = ""


def run_name(given: str | None, environ: Mapping[str, str] | None = None) -> str | None:
    """The run's name: given by the framework, else ``DENPEX_RUN_NAME``, else the active
    wandb run's name, else the Slurm job (``SLURM_JOB_NAME#SLURM_JOB_ID``), else None.

    Example:
        >>> run_name(None, {"SLURM_JOB_NAME": "pretrain", "SLURM_JOB_ID": "8812"})
        'pretrain#8812'
        >>> run_name("bert-fp16", {"DENPEX_RUN_NAME": "other"})
        'bert-fp16'
    """
    env = os.environ if environ is None else environ
    if given:
        return given
    if env.get(ENV_RUN_NAME):
        return env[ENV_RUN_NAME]
    wandb = sys.modules.get("wandb")  # only if the user's code imported it
    name = getattr(getattr(wandb, "run", None), "name", None)
    if isinstance(name, str) and name:
        return name
    job = env.get("SLURM_JOB_NAME")
    if job:
        return f"{job}#{env['SLURM_JOB_ID']}" if env.get("SLURM_JOB_ID") else job
    return None


def first_fix(diagnosis: Diagnosis) -> str:
    """What to do first: the cause's id when this diagnosis follows from another, else its fix.

    Example:
        >>> from denpex_callbacks.core.diagnosis import Finding
        >>> d = Diagnosis.from_finding(Finding("AMP004", 9, "scale 0.5")).with_cause("AMP003")
        >>> first_fix(d)[:47]
        'Fix AMP003 first: this is a consequence of it. '
    """
    if diagnosis.caused_by:
        return f"Fix {diagnosis.caused_by} first: this is a consequence of it. {diagnosis.fix}"
    return diagnosis.fix


def build_payload(diagnosis: Diagnosis, context: AlertContext) -> dict[str, Any]:
    """The JSON object POSTed for ``diagnosis``.

    Example:
        >>> from denpex_callbacks.core.diagnosis import Finding
        >>> d = Diagnosis.from_finding(Finding("AMP006", 7, "loss is nan at step 7"))
        >>> p = build_payload(d, AlertContext(run_name="bert", host="node3"))
        >>> p["id"], p["step"], p["rank"], p["host"], p["run"]
        ('AMP006', 7, 0, 'node3', 'bert')
        >>> print(p["text"].splitlines()[0])
        denpex AMP006 non-finite-loss [error]: Loss is NaN or inf
        >>> d = Diagnosis.from_finding(Finding("AMP003", 9, "loss scale 65536.0 -> 1024.0"))
        >>> build_payload(d, AlertContext(host="node3"))["summary"]
        'loss scale 65536 -> 1024'
    """
    name = run_name(context.run_name)
    payload: dict[str, Any] = {
        "id": diagnosis.code,
        "slug": diagnosis.slug,
        "severity": diagnosis.severity.value,
        "title": diagnosis.title,
        "step": diagnosis.step,
        "rank": diagnosis.rank,
        "world_size": context.world_size,
        "host": context.host or platform.node(),
        "run": _clean(name) if name else None,
        "framework": context.framework,
        # Numbers rounded as the console line rounds them; only here, not in the run name
        # or report path, where a number is part of a name.
        "summary": _clean(round_numbers(diagnosis.summary)),
        "fix": _clean(round_numbers(first_fix(diagnosis))),
        "caused_by": diagnosis.caused_by,
        "report": _clean(context.report_path) if context.report_path else None,
        "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "source": "denpex-callbacks",
    }
    payload["text"] = alert_text(payload)
    return payload


def alert_text(payload: Mapping[str, Any]) -> str:
    """Plain text for chat: headline, where, what was seen, the fix, the report."""
    where = [f"run {payload['run']}"] if payload.get("run") else []
    where.append(f"host {payload['host']}")
    where.append(f"rank {payload['rank']}/{payload['world_size']}")
    step = payload.get("step")
    where.append("at start-up" if step is None else f"step {step}")
    lines = [
        f"denpex {payload['id']} {payload['slug']} [{payload['severity']}]: {payload['title']}",
        f"{', '.join(where)} ({payload['framework']})",
        f"Observed: {payload['summary']}",
        f"Fix: {payload['fix']}",
    ]
    if payload.get("report"):
        lines.append(f"Report: {payload['report']} (denpex diagnose on it for the detail)")
    return "\n".join(lines)


def wandb_title(payload: Mapping[str, Any]) -> str:
    """A short title for ``wandb.alert`` (W&B throttles repeats of one title per run).

    Example:
        >>> wandb_title({"id": "AMP003", "slug": "loss-scale-collapse", "rank": 2})
        'denpex AMP003 loss-scale-collapse (rank 2)'
    """
    title = f"denpex {payload['id']} {payload['slug']} (rank {payload['rank']})"
    return title[:WANDB_TITLE_MAX]


def _clean(text: str) -> str:
    """Masked, one line, bounded."""
    flat = " ".join(mask(str(text)).split())
    return flat if len(flat) <= MAX_FIELD else flat[: MAX_FIELD - 3] + "..."
