"""Logs as the platforms and trackers that ran a job hand them on, not tried before: each
excerpt a known training format (a loop's ``epoch 1 step N loss X``, HF Trainer's dict rows,
Megatron-LM's iteration line) inside the platform's own lines or records, or the tracker's
own file, written from the tool's source.

Missed on the parent commit (8a66528), fixed here:

- Ludwig's metrics tables (ludwig-ai/ludwig ``ludwig/trainers/trainer.py``: ``logger.info(
  f"\\nRunning evaluation for step: {progress_tracker.steps}, epoch: {progress_tracker.
  epoch}")`` over ``utils/metrics_printed_table.py``'s ``tabulate(printed_table, headers=
  "firstrow", tablefmt="fancy_grid", floatfmt=".4f")``, a row per metric, a column per
  split): the rows print no step, so each ``loss`` row was counted as a row of its own
  (AMP006 at "step" 7, not 1000). Now a table drawn in box-drawing characters hands over the
  line above it where that names a step (reader.py ``_table_heading``), and an evaluation
  heading that measured nothing numbers the rows below it (metric_reader.py
  ``_heading_step``).
- DVCLive's ``dvclive/metrics.json`` (iterative/dvclive ``live.py`` ``make_summary`` and
  ``log_metric``, ``serialize.py`` ``dump_json(..., indent=4)``: ``train/loss`` nested as
  ``"train": {"loss": "nan"}``, ``"step"`` at the top level): the nested object's rows were
  read apart from the step (AMP006 at step 1, not 400). Now an input that is one JSON object
  whose values nest is read as one line, its keys joined by ``/`` (json_documents.py).

Missed and left as a strict xfail: Ludwig 0.5's tables (ludwig/models/trainer.py
``run_evaluation``), a row per split and a column per metric: the reader reads no such table,
boxed or piped (the evaluation rows' NaN is AMP013 without a step; the training row's is not
seen).

Read right on the parent already (kept as guards of shapes no other test writes):
submitit's ``*_0_log.out`` (facebookincubator/submitit ``submitit/core/logger.py``:
``"%(name)s %(levelname)s (%(asctime)s) - %(message)s"``), sacred's run logger
(IDSIA/sacred ``run.py``: ``"Result: {}"``, ``"Completed after %s"``; ``"%(levelname)s -
%(name)s - %(message)s"``), Neptune's client lines (neptune-ai/neptune-client ``internal/
utils/logger.py``: ``"[%(name)s] [%(levelname)s] %(message)s"``, the level lower-case and
padded to 7), ClearML's task lines (``ClearML Task: created new task id=...``, ``ClearML
results page: ...``, ``%(asctime)s - %(name)s - %(levelname)s - %(message)s``), ``aws logs
get-log-events``' JSON (``events[].message``), Kaggle's log as JSON lines (``stream_name``,
``time``, ``data``), Azure ML's MPI ranks (Open MPI's ``--tag-output`` ``[1,N]<stdout>:``),
a Databricks driver's log4j lines (``yy/MM/dd HH:mm:ss LEVEL Class: message``) between the
job's, DVCLive's ``plots/metrics/*.tsv`` (``plots/metric.py``: ``timestamp``, ``step``, the
metric's name, tab-separated), a W&B ``wandb-summary.json`` (``NaN`` as Python's ``json``
writes it).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from excerpts import assert_read_through, loop_lines, ranked_faults

NAN_FROM = 20
Wrap = Callable[[list[str]], list[str]]


_diagnosed = ranked_faults


# -- Ludwig: a checkpoint's metrics table under the step it was taken at ------------------


def _fancy_grid(table: list[list[object]], corner: str = "") -> list[str]:
    """tabulate's ``fancy_grid`` (python-tabulate ``tabulate.py`` ``_table_formats``: ``╒═╤╕``
    over the header, ``╞═╪╡`` under it, ``├─┼┤`` between rows, ``╘═╧╛`` closing; a cell
    padded by one blank each side, numbers right-aligned, a numeric column's header padded by
    ``MIN_PADDING`` = 2) of ``headers="firstrow"`` and ``floatfmt=".4f"``, ``corner`` the
    header's first cell."""
    head = [corner, *map(str, table[0])]
    rows = [[str(row[0]), *(f"{value:.4f}" for value in row[1:])] for row in table[1:]]
    widths = [max(len(r[i]) + (2 if i and r is head else 0) for r in [head, *rows])
              for i in range(len(head))]

    def rule(left: str, middle: str, right: str, fill: str) -> str:
        return left + middle.join(fill * (w + 2) for w in widths) + right

    def cells(values: list[str]) -> str:
        return "│" + "│".join(f" {v.ljust(w) if not i else v.rjust(w)} "
                              for i, (v, w) in enumerate(zip(values, widths, strict=True))) + "│"

    out = [rule("╒", "╤", "╕", "═"), cells(head), rule("╞", "╪", "╡", "═")]
    for i, row in enumerate(rows):
        out += ([rule("├", "┼", "┤", "─")] if i else []) + [cells(row)]
    return [*out, rule("╘", "╧", "╛", "═")]


def _ludwig(metrics: tuple[str, ...], every: int, nan_from: int | None = None,
            checkpoints: int = 8) -> list[str]:
    """Ludwig's trainer at each checkpoint (ludwig/trainers/trainer.py ``_evaluation``: the
    heading, then ``print_metrics_table``'s table, utils/metrics_printed_table.py: the
    metric names sorted, ``combined_loss`` last, a column per split), NaN from step
    ``nan_from`` on in every split's loss."""
    lines = ["Training:   0%|          | 0/2000 [00:00<?, ?it/s]"]
    for k in range(1, checkpoints + 1):
        step = k * every
        bad = nan_from is not None and step >= nan_from
        losses = [float("nan")] * 3 if bad else [0.9 - k / 50, 0.95 - k / 60, 0.96 - k / 60]
        table: list[list[object]] = [["train", "validation", "test"]]
        for name in (*metrics, "combined_loss"):
            table.append([name, *(losses if "loss" in name else [0.7 + k / 100, 0.69, 0.68])])
        lines += ["", f"Running evaluation for step: {step}, epoch: {k}", *_fancy_grid(table),
                  "Evaluation took 3.2100s", ""]
    return lines


BINARY = ("accuracy", "loss", "precision", "recall", "roc_auc", "specificity")
CATEGORY = ("accuracy", "hits_at_k", "loss")


def test_ludwig_tables_take_the_step_of_their_heading(tmp_path: Path) -> None:
    """Before: AMP006 at step 7 and at step 11 (each table's rows counted as rows)."""
    assert _diagnosed(tmp_path, _ludwig(BINARY, 250, nan_from=1000)) == [("AMP006", 1000, 0)]
    assert _diagnosed(tmp_path, _ludwig(CATEGORY, 137, nan_from=822)) == [("AMP006", 822, 0)]


def test_healthy_ludwig_tables_stay_silent(tmp_path: Path) -> None:
    """Controls (pass on the parent too): both output features, checkpoints every 137 and
    every 250 steps."""
    assert _diagnosed(tmp_path, _ludwig(BINARY, 250)) == []
    assert _diagnosed(tmp_path, _ludwig(CATEGORY, 137, checkpoints=12)) == []


def _ludwig_05(nan_from: int, every: int = 100, checkpoints: int = 8) -> list[str]:
    """Ludwig 0.5's tables (ludwig/models/trainer.py ``run_evaluation``: the same heading,
    then per output feature ``[[name] + metric names]`` and a row per split, ``train``,
    ``vali``, ``test``, and a ``[[combined, loss]]`` table; tabulate's ``fancy_grid``), NaN
    from step ``nan_from`` on in every split's loss."""
    lines: list[str] = []
    for k in range(1, checkpoints + 1):
        step = k * every
        losses = [float("nan")] * 3 if step >= nan_from else [0.9 - k / 50, 0.95 - k / 60,
                                                               0.96 - k / 60]
        splits = ("train", "vali", "test")
        lines += ["", f"Running evaluation for step: {step}, epoch: {k - 1}"]
        lines += _fancy_grid([["loss", "accuracy", "roc_auc"],
                              *([s, v, 0.7, 0.8] for s, v in zip(splits, losses, strict=True))],
                             corner="label")
        lines += _fancy_grid([["loss"], *([s, v] for s, v in zip(splits, losses, strict=True))],
                             corner="combined")
    return lines


def test_ludwig_05_tables_with_a_row_per_split(tmp_path: Path) -> None:
    """The right answer: the training row's NaN at the heading's step."""
    assert _diagnosed(tmp_path, _ludwig_05(nan_from=500))[:1] == [("AMP006", 500, 0)]


# -- DVCLive's summary: one JSON object, nested by the metric's path -----------------------


def _dvclive_summary(loss: float | str, step: int, *, eval_loss: float | str = 1.3) -> list[str]:
    """DVCLive's ``metrics.json`` after ``live.log_metric("train/loss", ...)``,
    ``live.log_metric("eval/loss", ...)`` and ``next_step()`` (iterative/dvclive ``live.py``:
    a NaN logged as ``str(val)``, nested by ``set_in`` on the name's parts, ``"step"`` added
    after the metrics; ``serialize.py`` ``dump_json(..., indent=4)``)."""
    summary = {"train": {"loss": loss, "acc": 0.51}, "eval": {"loss": eval_loss, "acc": 0.5},
               "step": step}
    return json.dumps(summary, indent=4).splitlines()


def test_a_nested_summary_is_read_with_its_step(tmp_path: Path) -> None:
    """Before: AMP006 at step 1 (the nested rows read apart from ``"step"``); for the
    evaluation's NaN, AMP006 at step 2 (``eval``'s ``"loss"`` read without its split, as a
    training loss); AMP006 at step 1 for the path two deep."""
    assert _diagnosed(tmp_path, _dvclive_summary("nan", 1999)) == [("AMP006", 1999, 0)]
    assert _diagnosed(tmp_path, _dvclive_summary(0.42, 1999, eval_loss="nan")) == [
        ("AMP013", 1999, 0)]
    # the metric's path two deep (``live.log_metric("train/lm/loss", ...)``), the step first
    deep = {"step": 640, "train": {"lm": {"loss": "nan"}, "lr": 1e-4}}
    assert _diagnosed(tmp_path, json.dumps(deep, indent=4).splitlines()) == [
        ("AMP006", 640, 0)]


def test_healthy_summaries_and_histories_stay_silent(tmp_path: Path) -> None:
    """Controls: a finite summary (nested; a step of 0, as a run that never called
    ``next_step`` leaves it), a configuration with lists (not read as a summary), and an HF
    ``trainer_state.json`` pasted whole (its ``log_history`` list: read as before)."""
    assert _diagnosed(tmp_path, _dvclive_summary(0.42, 0)) == []
    assert _diagnosed(tmp_path, _dvclive_summary(0.42, 1999)) == []
    state = {"best_metric": None, "global_step": 30, "log_history": [
        {"loss": round(2.5 - i / 20, 4), "grad_norm": 1.0, "learning_rate": 5e-05,
         "epoch": i / 10, "step": i * 10} for i in range(1, 4)], "max_steps": 30}
    assert _diagnosed(tmp_path, json.dumps(state, indent=2).splitlines()) == []


# -- Read right on the parent already: guards -----------------------------------------------


def _kaggle_jsonl(lines: list[str]) -> list[str]:
    return [json.dumps({"stream_name": "stdout", "time": 3.5 + i, "data": line + "\n"},
                       separators=(",", ":")) for i, line in enumerate(lines)]


def _get_log_events(lines: list[str]) -> list[str]:
    """``aws logs get-log-events --output json`` (botocore's GetLogEvents shape: ``events``
    of ``timestamp``, ``message``, ``ingestionTime``; the CLI indents by 4)."""
    return json.dumps({"events": [{"timestamp": 1714557600123 + i, "message": line,
                                   "ingestionTime": 1714557601000 + i}
                                  for i, line in enumerate(lines)],
                       "nextForwardToken": "f/3", "nextBackwardToken": "b/3"},
                      indent=4).splitlines()


READ_ALREADY: dict[str, Wrap] = {
    "submitit": lambda ls: [
        "submitit INFO (2024-05-01 10:00:00,123) - Starting with JobEnvironment(job_id=4242_0,"
        " hostname=node-017, local_rank=0(1), node=0(1), global_rank=0(1))",
        "submitit INFO (2024-05-01 10:00:00,124) - Loading pickle: /ckpt/4242_submitted.pkl",
        *ls, "submitit INFO (2024-05-01 10:30:00,000) - Job completed successfully"],
    "sacred": lambda ls: [
        "INFO - amp_mnist - Running command 'main'", 'INFO - amp_mnist - Started run with ID "7"',
        *ls, "INFO - amp_mnist - Result: 1.25", "INFO - amp_mnist - Completed after 0:12:31"],
    "neptune": lambda ls: [
        "[neptune] [info   ] Neptune initialized. Open in the app: https://app.neptune.ai/w/p/"
        "e/P-12", *ls, "[neptune] [info   ] Shutting down background jobs, please wait a "
        "moment...", "[neptune] [info   ] Done!"],
    "clearml": lambda ls: [
        "ClearML Task: created new task id=1ca59ef1f86d44bd81cb517d529d9e5a",
        "2024-05-01 10:00:00,123 - clearml.Task - INFO - No repository found, storing script "
        "code instead", "ClearML results page: https://app.clear.ml/projects/4043/experiments/"
        "1ca59ef1f86d44bd81cb517d529d9e5a/output/log", *ls],
    "aws_get_log_events": _get_log_events,
    "kaggle_json_lines": _kaggle_jsonl,
    "databricks_log4j": lambda ls: [
        y for i, x in enumerate(ls) for y in ([
            f"24/05/01 10:00:{i % 60:02d} INFO DAGScheduler: Job {i} finished: collect at "
            "<stdin>:1, took 0.101 s"] if i % 5 == 0 else []) + [x]],
}


@pytest.mark.parametrize("wrapper", sorted(READ_ALREADY))
def test_platform_lines_read_through(tmp_path: Path, wrapper: str) -> None:
    """A guard: right on the parent too."""
    assert_read_through(tmp_path, READ_ALREADY[wrapper])


def test_azure_mpi_ranks_and_tracker_files(tmp_path: Path) -> None:
    """A guard (right on the parent): Open MPI's ``[1,N]<stdout>:`` tags of an Azure ML MPI
    job name the rank; DVCLive's ``.tsv`` (step 0 first, a timestamp column) and a W&B
    summary on one line hold the step."""
    tagged = [line for pair in zip(loop_lines(), loop_lines(NAN_FROM), strict=True)
              for line in (f"[1,0]<stdout>:{pair[0]}", f"[1,1]<stdout>:{pair[1]}")]
    assert _diagnosed(tmp_path, tagged) == [("AMP006", NAN_FROM, 1)]
    tsv = ["timestamp\tstep\tloss"] + [
        f"{1714557600123 + s * 1000}\t{s}\t{'nan' if s >= 120 else 3 - s / 500}"
        for s in range(0, 400, 10)]
    assert _diagnosed(tmp_path, tsv) == [("AMP006", 120, 0)]
    summary = {"train/loss": float("nan"), "train/global_step": 400, "_step": 79,
               "_runtime": 1234.5, "_wandb": {"runtime": 1234}}
    assert _diagnosed(tmp_path, [json.dumps(summary)]) == [("AMP006", 400, 0)]
