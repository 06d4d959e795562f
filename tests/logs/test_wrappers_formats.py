"""Logs as the platforms that run a job hand them on: a known training format (a loop's
``epoch 1 step N loss X``, HF Trainer's dict rows, Megatron-LM's iteration line) behind each
platform's own prefix or record, each written from its source:

- Determined's wrap_rank.py (determined-ai/determined ``harness/determined/launch/
  wrap_rank.py`` ``forward_stream``: ``f"[rank={rank}] {line}"``) and its master's task log
  line (``master/pkg/model/task.go`` ``TaskLog.Message``: ``[time] container [rank=N] ||
  LEVEL: log``, the container's first eight characters or eight blanks, the rank only where
  wrap_rank.py gave one);
- a SageMaker job's stream as ``aws logs tail`` prints it (aws/aws-cli ``awscli/customizations/
  logs/tail.py`` DetailedLogEventsFormatter: ``'%s %s %s' % (time, logStreamName, message)``,
  the time ``isoformat(timespec='microseconds')``), smdistributed's ``[1,mpirank:1,algo-2]
  <stdout>:`` in its message;
- a Kubeflow PyTorchJob's pods behind ``kubectl logs --prefix`` (kubeflow/training-operator
  ``pkg/controller.v1/pytorch/envvar.go``: pods ``{job}-{master|worker}-{index}``, RANK the
  master's index and a worker's index + 1; kubernetes/kubectl ``pkg/cmd/logs/logs.go``:
  ``[pod/NAME/CONTAINER] ``);
- read right on the parent already, kept as guards of formats no other test writes: Cloud
  Logging's exported entries (``jsonPayload.message`` as Vertex AI's custom jobs write it,
  ``textPayload``; one JSON object a line, and ``gcloud logging read --format=json --order=asc``'s
  indented array), CloudWatch's exports (``aws logs tail``: ``{timestamp} {stream} {message}``,
  awscli ``customizations/logs/tail.py``; the console's tab-separated time and message),
  Airflow's task log (``[%(asctime)s] {%(filename)s:%(lineno)d} %(levelname)s - %(message)s``,
  apache/airflow ``config_templates/airflow_local_settings.py`` LOG_FORMAT, through
  ``utils/log/logging_mixin.py``), docker compose v1's ``trainer_1  | ``, Kaggle's saved
  version log (Kaggle/kaggle-api ``kernels_output``: a JSON array of ``{"stream_name",
  "time", "data"}``), tqdm.notebook's text fallback (tqdm ``notebook.py``: the TqdmWarning
  ``IProgress not found`` and the widget's repr ``HBox(children=(FloatProgress(...``).

Each fault test failed on the parent commit (22c81d2) except where its docstring says so.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from excerpts import assert_read_through, diagnose_lines, hf_rows, loop_lines, megatron_line

NAN_FROM = 20


def _megatron(nan_from: int | None = None) -> list[str]:
    return [megatron_line(i, loss=float("nan") if nan_from and i >= nan_from else 2.5 - i / 1e4)
            for i in range(10, 410, 10)]


def _diagnosed(tmp_path: Path, lines: list[str]) -> list[tuple[str, int | None, int]]:
    return [(d.code, d.step, d.rank) for d in diagnose_lines(tmp_path, lines).faults]


def _two_ranks(prefix: Callable[[int], str], healthy: list[str],
               faulty: list[str]) -> list[str]:
    """Rank 0's and rank 1's lines in turn, each behind its prefix."""
    return [line for pair in zip(healthy, faulty, strict=True)
            for line in (prefix(0) + pair[0], prefix(1) + pair[1])]


RANKED = {
    "determined_wrap_rank": lambda r: f"[rank={r}] ",
    "determined_task_log": lambda r: f"[2024-05-01T10:00:0{r}.123456Z] f6114bb3 [rank={r}] || "
                                     "INFO: ",
    # aws logs tail's default (detailed) line of a SageMaker job's stream, its message
    # smdistributed's mpirun tag
    "sagemaker_aws_logs_tail": lambda r: (
        f"2024-05-01T10:00:00.123000+00:00 gpt2-2024-05-01-10-00-00-123/algo-{r + 1}-1714557600"
        f" [1,mpirank:{r},algo-{r + 1}]<stdout>:"),
    "kubeflow_pods": lambda r: ("[pod/gpt2-master-0/pytorch] " if r == 0 else
                                f"[pod/gpt2-worker-{r - 1}/pytorch] "),
    "kubeflow_pods_timestamped": lambda r: (f"[pod/gpt2-{'master' if r == 0 else 'worker'}-0/"
                                            "pytorch] 2024-05-01T10:00:00.123456789Z "),
}


@pytest.mark.parametrize("wrapper", sorted(RANKED))
def test_the_rank_a_platform_names(tmp_path: Path, wrapper: str) -> None:
    """Before: the rank was 0 (the prefix was read as no rank, or taken off with the
    collector's), and HF's rows without a step from both ranks were counted as one run's (the
    NaN at row 20, not 10)."""
    prefix = RANKED[wrapper]
    assert _diagnosed(tmp_path, _two_ranks(prefix, loop_lines(), loop_lines(NAN_FROM))) == [
        ("AMP006", NAN_FROM, 1)]
    assert _diagnosed(tmp_path, _two_ranks(prefix, hf_rows(), hf_rows(10))) == [
        ("AMP006", 10, 1)]
    assert _diagnosed(tmp_path, _two_ranks(prefix, _megatron(), _megatron(200))) == [
        ("AMP006", 200, 1)]


def test_healthy_ranks_a_platform_names_stay_silent(tmp_path: Path) -> None:
    """Controls (pass on the parent too)."""
    for prefix in RANKED.values():
        for run in (loop_lines, hf_rows, _megatron):
            assert _diagnosed(tmp_path, _two_ranks(prefix, run(), run())) == []


def test_a_task_log_without_a_rank_and_a_launchers_rank_behind_a_pod(tmp_path: Path) -> None:
    """Non-default settings: a one-slot Determined trial (no wrap_rank.py: no ``[rank=N]``, and
    a line without a container, eight blanks); torchrun ``--tee`` inside a Kubeflow pod, whose
    ``[default1]:`` names the rank, not the pod; a pod that is no Kubeflow replica names none.
    Before: the task log's NaN was found (rank 0) and the others too (passes on the parent)."""
    solo = [f"[2024-05-01T10:00:00.123456Z] {'f6114bb3' if i % 2 else ' ' * 8} || INFO: {line}"
            for i, line in enumerate(loop_lines(NAN_FROM))]
    assert _diagnosed(tmp_path, solo) == [("AMP006", NAN_FROM, 0)]
    tee = _two_ranks(lambda r: f"[pod/gpt2-worker-1/pytorch] [default{r}]:", loop_lines(),
                     loop_lines(NAN_FROM))
    assert _diagnosed(tmp_path, tee) == [("AMP006", NAN_FROM, 1)]
    plain_pod = [f"[pod/llm-train-0/main] {line}" for line in loop_lines(NAN_FROM)]
    assert _diagnosed(tmp_path, plain_pod) == [("AMP006", NAN_FROM, 0)]


def _entry(payload: str, line: str) -> dict[str, object]:
    body: object = {"message": line, "levelname": "INFO"} if payload == "jsonPayload" else line
    return {"insertId": "1x2y3z", payload: body, "resource": {"type": "ml_job"},
            "timestamp": "2024-05-01T10:00:00.123456Z", "severity": "INFO"}


READ_ALREADY: dict[str, Callable[[list[str]], list[str]]] = {
    "cloud_logging_json": lambda ls: [json.dumps(_entry("jsonPayload", x)) for x in ls],
    "cloud_logging_text": lambda ls: [json.dumps(_entry("textPayload", x)) for x in ls],
    "gcloud_read_asc": lambda ls: json.dumps([_entry("jsonPayload", x) for x in ls],
                                             indent=2).splitlines(),
    "aws_logs_tail": lambda ls: [f"2024-05-01T10:00:00.123000+00:00 algo-1-1714557600 {x}"
                                 for x in ls],
    "cloudwatch_export": lambda ls: [f"2024-05-01T10:00:00.123Z\t{x}" for x in ls],
    "airflow": lambda ls: [f"[2024-05-01, 10:00:00 UTC] {{logging_mixin.py:188}} INFO - {x}"
                           for x in ls],
    "compose_v1": lambda ls: [f"trainer_1  | {x}" for x in ls],
    "kaggle_version_log": lambda ls: [json.dumps(
        [{"stream_name": "stdout", "time": 3.5 + i, "data": x + "\n"} for i, x in enumerate(ls)])],
    "tqdm_notebook_fallback": lambda ls: [
        "/opt/conda/lib/python3.10/site-packages/tqdm/notebook.py:71: TqdmWarning: IProgress "
        "not found. Please update jupyter and ipywidgets. See https://ipywidgets.readthedocs.io"
        "/en/stable/user_install.html",
        *[y for i, x in enumerate(ls) for y in (
            ["HBox(children=(FloatProgress(value=0.0, max=40.0), HTML(value='')))"]
            if i % 10 == 0 else []) + [x]]],
}


@pytest.mark.parametrize("wrapper", sorted(READ_ALREADY))
def test_records_and_prefixes_read_through(tmp_path: Path, wrapper: str) -> None:
    """A guard: right on the parent too (no other test writes these records)."""
    assert_read_through(tmp_path, READ_ALREADY[wrapper])
