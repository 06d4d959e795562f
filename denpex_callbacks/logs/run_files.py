"""The files a failed run leaves beside its stdout: read as the same events as log lines.

- HF ``trainer_state.json``: ``log_history`` records (training records carry ``loss``;
  ``eval_*`` records and the closing ``train_runtime`` summary are not training steps). Each
  record goes through the HF family parser, so a 0 loss beside a NaN ``grad_norm`` is AMP009
  here too.
- Lightning CSVLogger ``metrics.csv``: one row per logging call, ``step`` the global step;
  columns are mapped through the lexicon (``train_loss_step`` wins over ``train_loss_epoch``).
- Metrics exported as CSV with one ``Value`` column named by the file (TensorBoard's
  dashboard download, ``run-RUN-tag-TAG.csv``) or one metric value a row named in a column
  (MLflow's chart download and client rows): read as a table of one step a row (``_wide``).
- TensorBoard ``events.out.tfevents.*``: scalar summaries grouped by step, tags mapped through
  the lexicon (``train/loss``, ``Loss/train``); read with the ``tensorboard`` package (the
  ``tensorboard`` extra), imported only here.
- In each of them, a watched run's own ``amp/fault/<id>`` = 1 is the diagnosis it made, from
  the first record holding it (:mod:`~denpex_callbacks.logs.fault_columns`).

W&B offline runs are not read: wandb's public API (``wandb.Api``) reads runs from a server;
an offline ``run-*.wandb`` file is only readable through ``wandb.sdk.internal.datastore``,
which is internal (no stability promise). ``wandb sync`` and then a log export is the way.

Each reader yields ``(record_number, text, events)`` for every record (events empty for one
that is not a training step); bad files raise :class:`InputError`
with one line.
"""

from __future__ import annotations

import csv
import json
import math
import os
from collections.abc import Iterator
from typing import Any

from denpex_callbacks.logs import hf, lexicon
from denpex_callbacks.logs.events import EVAL, METRICS, LogEvent
from denpex_callbacks.logs.fault_columns import FaultColumns
from denpex_callbacks.logs.list_cells import loss_total
from denpex_callbacks.logs.reader import InputError

TRAINER_STATE, CSV, TFEVENTS = "trainer_state", "csv", "tfevents"
Record = tuple[int, str, list[LogEvent]]
_HF_AMP_KEYS = {"amp/loss_scale": ("amp/loss_scale", "train/amp/loss_scale", "loss_scale"),
                "amp/skipped_steps": ("amp/skipped_steps", "train/amp/skipped_steps")}
_ROLES = (lexicon.LOSS, lexicon.SCALE, lexicon.GRAD_NORM)


def kind_of(path: str) -> str | None:
    """Which run file a path names (by its name), or None for a log.

    Example:
        >>> kind_of("out/checkpoint-9/trainer_state.json"), kind_of("v0/metrics.csv")
        ('trainer_state', 'csv')
        >>> kind_of("events.out.tfevents.1700000000.host.1.0"), kind_of("train.log")
        ('tfevents', None)
    """
    name = os.path.basename(path)
    if name == "trainer_state.json" or (name.endswith(".json") and _mentions(path, b"log_history")):
        return TRAINER_STATE
    if name.endswith(".csv"):
        return CSV
    if "tfevents" in name:
        return TFEVENTS
    return None


def _mentions(path: str, word: bytes) -> bool:
    try:
        with open(path, "rb") as handle:
            return word in handle.read(1 << 16)
    except OSError:
        return False


def records(path: str, kind: str) -> Iterator[Record]:
    """The events of a run file, record by record."""
    reader = {TRAINER_STATE: _trainer_state, CSV: _metrics_csv, TFEVENTS: _tfevents}[kind]
    return reader(path)


def _trainer_state(path: str) -> Iterator[Record]:
    try:
        with open(path, encoding="utf-8-sig") as handle:
            state = json.load(handle)
    except json.JSONDecodeError as err:
        raise InputError(f"{path}: not valid JSON ({err.msg} at line {err.lineno})") from None
    except UnicodeDecodeError:
        raise InputError(f"{path}: not a UTF-8 text file") from None
    history = state.get("log_history") if isinstance(state, dict) else None
    if not isinstance(history, list):
        raise InputError(f"{path}: no 'log_history' list: not an HF trainer_state.json")
    faults = FaultColumns(TRAINER_STATE)
    for number, entry in enumerate(history, 1):
        text = json.dumps(entry)
        if not isinstance(entry, dict) or "loss" not in entry:
            yield number, text, []  # evaluation records, the closing summary
            continue
        step = entry.get("step")
        # The scale and the skip count as the HF family reads them: denpex's own
        # ``amp/loss_scale`` / ``amp/skipped_steps`` (its metrics sink logs them through
        # Trainer.log), or a ``loss_scale`` the user logged.
        fields = {key: entry[key] for key in ("loss", "grad_norm", "learning_rate")
                  if key in entry}
        for name, keys in _HF_AMP_KEYS.items():
            found = next((entry[key] for key in keys if key in entry), None)
            if found is not None:
                fields[name] = found
        line = "{" + ", ".join(f"'{key}': {_plain(value)}" for key, value in fields.items()) + "}"
        at = step if isinstance(step, int) else None
        events = [_renamed(e, TRAINER_STATE, at) for e in hf.parse(line)]
        yield number, text, [*events, *faults.record(entry, at)]


def _metrics_csv(path: str) -> Iterator[Record]:
    try:
        with open(path, encoding="utf-8-sig", newline="") as handle:
            names, rows = _wide(path, csv.DictReader(handle))
            columns, terms = _csv_columns(path, names)
            evaluations = [name for name in names if lexicon.evaluation_metric(name)]
            faults = FaultColumns(CSV)
            for number, row in rows:
                values = {role: _number(row.get(column)) for role, column in columns.items()}
                if terms:
                    values[lexicon.LOSS] = _terms_total([_number(row.get(c)) for c in terms])
                text = ",".join(f"{k}={v}" for k, v in row.items() if v)
                # the step column by what the lexicon calls it (``Step``, ``global_step``,
                # ``iteration``), not Lightning's CSVLogger's name alone
                step = _number(row.get(columns.get(lexicon.STEP, "step")))
                at = int(step) if step is not None and math.isfinite(step) else None
                # a non-finite evaluation value is the evaluation's (``val_loss`` nan in
                # Lightning's validation row, or beside the training loss of its step)
                evaluated = [*_evaluated(row, evaluations, at), *faults.record(row, at)]
                if all(values.get(role) is None for role in _ROLES):
                    yield number, text, evaluated  # validation or epoch-only rows
                    continue
                yield number, text, [LogEvent(
                    METRICS, CSV, step=at, loss=values.get(lexicon.LOSS),
                    scale_after=values.get(lexicon.SCALE),
                    grad_norm=values.get(lexicon.GRAD_NORM), lr=values.get(lexicon.LR)),
                    *evaluated]
    except csv.Error as err:
        raise InputError(f"{path}: not a readable CSV ({err})") from None
    except UnicodeDecodeError:
        raise InputError(f"{path}: not a UTF-8 text file") from None


Rows = Iterator[tuple[int, dict[str, Any]]]
# A CSV of one metric's values whose name is the file's (TensorBoard's scalar dashboard's
# download: tensorboard/plugins/scalar/scalars_plugin.py writes ``Wall time,Step,Value``, the
# dashboard saves it as ``run-RUN-tag-TAG.csv``, a tag's ``/`` as ``_``).
_TAG_IN_NAME = "-tag-"
# A CSV of one metric value a row, named in a column (MLflow's chart download, mlflow/server/
# js/.../experimentPage.common-utils.ts chartMetricHistoryToCsv: ``Run,Run ID,metric,step,
# timestamp,value``; its client's ``Metric.to_dictionary()`` rows: ``key,value,timestamp,
# step``): read as the table of one row a step that its rows make.
_NAME_COLUMNS = ("metric", "key", "tag", "name")


def _wide(path: str, reader: csv.DictReader[str]) -> tuple[list[str], Rows]:
    """The columns and the numbered rows of a metrics CSV, one metric a column: a lone
    ``Value`` column named by the file's name, one metric a row turned into one step a row.

    Example:
        >>> import io
        >>> text = "Wall time,Step,Value\\n1.5,10,2.5\\n"
        >>> names, rows = _wide("run-v0-tag-train_loss.csv", csv.DictReader(io.StringIO(text)))
        >>> names, list(rows)
        (['Wall time', 'Step', 'train_loss'], [(2, {'Wall time': '1.5', 'Step': '10', \
'train_loss': '2.5'})])
    """
    names = list(reader.fieldnames or [])
    lowered = [name.lower() for name in names]
    numbered: Rows = enumerate(reader, 2)
    if "value" not in lowered or any(lexicon.role(name) in _ROLES for name in names):
        return names, numbered
    value = names[lowered.index("value")]
    named_by = next((names[lowered.index(c)] for c in _NAME_COLUMNS if c in lowered), None)
    if named_by is None:
        stem = os.path.splitext(os.path.basename(path))[0]
        tag = stem.rsplit(_TAG_IN_NAME, 1)[-1]
        renamed = [tag if name == value else name for name in names]
        return renamed, ((n, {tag if k == value else k: v for k, v in row.items()})
                         for n, row in numbered)
    step = next((name for name in names if lexicon.role(name) == lexicon.STEP), None)
    return _one_step_a_row(numbered, named_by, value, step) if step else (names, numbered)


def _one_step_a_row(numbered: Rows, named_by: str, value: str,
                    step_column: str) -> tuple[list[str], Rows]:
    """Rows of one metric each (its name in ``named_by``, its value in ``value``) as rows of
    one step each, in the order of their steps (MLflow lists one metric's history after
    another's)."""
    steps: dict[float, tuple[int, dict[str, Any]]] = {}
    metrics: list[str] = []
    for number, row in numbered:
        metric, step = row.get(named_by) or "", _number(row.get(step_column))
        if step is None or not math.isfinite(step):
            continue
        if metric not in metrics:
            metrics.append(metric)
        held = steps.setdefault(step, (number, {step_column: row.get(step_column)}))
        held[1][metric] = row.get(value)
    ordered = [steps[step] for step in sorted(steps)]
    return [step_column, *metrics], iter(ordered)


def _csv_columns(path: str, names: list[str] | Any) -> tuple[dict[str, str], list[str]]:
    """The column read for each role: the step-level loss before an epoch average; and,
    where no column is the loss, the columns of its terms, whose sum it is (torchmd-net's
    CSVLogger ``metrics.csv``: ``train_total_mse_loss``, ``train_y_mse_loss``, ... logged
    in torchmdnet/module.py ``on_train_epoch_end``, no plain loss), as the table reader
    sums a row's terms."""
    chosen: dict[str, str] = {}
    terms: list[str] = []
    for name in sorted(names or [], key=lambda n: ("epoch" in n.lower(), n)):
        kind = lexicon.role(name)
        if kind == lexicon.COMPONENT and "epoch" not in name.lower():
            terms.append(name)
        if kind is not None and kind not in chosen:
            chosen[kind] = name
    if lexicon.LOSS in chosen:
        terms = []
    if not terms and not any(role in chosen for role in _ROLES):
        shown = ", ".join(list(names or [])[:8]) or "none"
        raise InputError(f"{path}: a CSV without a loss, loss-scale or grad-norm column "
                         f"(columns: {shown})")
    return chosen, terms


def _evaluated(row: dict[str, Any], names: list[str], step: int | None) -> list[LogEvent]:
    """An evaluation event for each non-finite value of a row's evaluation columns, but a
    correlation's NaN beside a finite evaluation loss (constant predictions: an untrained
    regressor's first evaluation, nothing overflowed)."""
    found = [(name, value) for name in names if (value := _number(row.get(name))) is not None]
    finite_loss = any(math.isfinite(value) and "loss" in name.lower() for name, value in found)
    return [LogEvent(EVAL, CSV, step=step, loss=value, metric=name)
            for name, value in found if not math.isfinite(value)
            and not lexicon.undefined_correlation(name, value, finite_loss)]


def _terms_total(terms: list[float | None]) -> float | None:
    """The total of a row's loss terms (the cells it fills: see ``loss_total``); None where
    it fills none (an evaluation's row)."""
    filled = [term for term in terms if term is not None]
    return loss_total(filled) if filled else None


def _tfevents(path: str) -> Iterator[Record]:
    try:
        from tensorboard.backend.event_processing.event_file_loader import (
            EventFileLoader,
        )
    except ImportError:
        raise InputError(f"{path}: reading TensorBoard event files needs the tensorboard "
                         "package (pip install 'denpex-callbacks[tensorboard]')") from None
    steps: dict[int, dict[str, float]] = {}
    tagged: dict[int, dict[str, float]] = {}  # the run's own amp/fault/<id> tags, by step
    read = 0
    try:
        for event in EventFileLoader(path).Load():
            read += 1
            for value in event.summary.value:
                kind = lexicon.role(value.tag)
                if kind in _ROLES or kind == lexicon.LR:
                    number = _scalar(value)
                    if number is not None:
                        steps.setdefault(int(event.step), {}).setdefault(kind, number)
                elif "fault/" in value.tag and (number := _scalar(value)) is not None:
                    tagged.setdefault(int(event.step), {})[value.tag] = number
    except Exception as err:
        raise InputError(f"{path}: corrupt TensorBoard event file ({err})") from None
    if read == 0:  # every writer starts with a file_version record
        raise InputError(f"{path}: not a TensorBoard event file (no readable record)")
    if not steps:
        raise InputError(f"{path}: no scalar with a loss, loss-scale or grad-norm tag in this "
                         "TensorBoard event file")
    faults = FaultColumns(TFEVENTS)
    for step in sorted(steps.keys() | tagged.keys()):
        values = steps.get(step, {})
        yield step, f"step {step}: " + ", ".join(f"{k}={v}" for k, v in values.items()), [
            *([LogEvent(METRICS, TFEVENTS, step=step, loss=values.get(lexicon.LOSS),
                        scale_after=values.get(lexicon.SCALE),
                        grad_norm=values.get(lexicon.GRAD_NORM), lr=values.get(lexicon.LR))]
              if values else []),
            *faults.record(tagged.get(step, {}), step)]


def _scalar(value: Any) -> float | None:
    if value.HasField("simple_value"):
        return float(value.simple_value)
    tensor = value.tensor
    if tensor.float_val:
        return float(tensor.float_val[0])
    if tensor.double_val:
        return float(tensor.double_val[0])
    return None


def _number(text: Any) -> float | None:
    if text is None or text == "":
        return None
    try:
        return float(text)
    except (TypeError, ValueError):
        return None


def _plain(value: Any) -> str:
    return repr(value) if isinstance(value, str) else str(value)


def _renamed(event: LogEvent, family: str, step: int | None) -> LogEvent:
    object.__setattr__(event, "family", family)  # built just now by the parser, held by none
    if step is not None:
        object.__setattr__(event, "step", step)
    return event
