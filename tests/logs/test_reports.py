"""A folder of per-rank JSONL run reports, written by the core Monitor as the callbacks do."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from denpex_callbacks.cli import main
from denpex_callbacks.core.config import MonitorConfig
from denpex_callbacks.core.monitor import Monitor
from denpex_callbacks.core.observation import Observation
from denpex_callbacks.core.run_setup import RunSetup


def write_run(directory: Path, first_nan: dict[int, int], steps: int = 12) -> None:
    """Two ranks of a data-parallel run whose losses go NaN at the given steps."""
    for rank, nan_from in first_nan.items():
        monitor = Monitor(MonitorConfig(report_dir=str(directory)), rank=rank, world_size=2)
        monitor.start(RunSetup(active_precision="fp16-mixed", scaler="dynamic"))
        scale = 1024.0
        for step in range(1, steps + 1):
            bad = step >= nan_from
            after = scale / 2 if step > nan_from else scale
            monitor.observe(Observation(step, rank=rank, world_size=2, scale_before=scale,
                                        scale_after=after, loss=float("nan") if bad else 1.0,
                                        time=1000.0 + step))
            scale = after
        monitor.close()


def test_report_folder_names_the_initiating_rank(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    write_run(tmp_path, {0: 5, 1: 3})
    assert main(["diagnose", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "initiating rank: 1" in out and "at step 3" in out
    assert main(["diagnose", "--format", "json", str(tmp_path)]) == 1
    document = json.loads(capsys.readouterr().out)
    assert document["inputs"][0]["initiating_rank"] == {"rank": 1, "step": 3}
    first = document["diagnoses"][0]
    assert (first["id"], first["step"], first["rank"]) == ("AMP006", 3, 1)


def test_single_report_file_and_healthy_run(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    write_run(tmp_path, {0: 99, 1: 99})
    assert main(["diagnose", str(tmp_path / "rank0.jsonl")]) == 0
    assert "no fault found" in capsys.readouterr().out


def test_what_was_read_does_not_depend_on_the_order_of_a_lines_kinds() -> None:
    from collections import Counter

    from denpex_callbacks.logs.reading import Reading, describe

    kinds = [("errors", "flag"), ("generic", "eval"), ("messages", "overflow")]
    # tied counts, inserted in two orders (a line's kinds come as a set)
    sentences = {describe(Reading(3, Counter(dict.fromkeys(order, 1))))
                 for order in (kinds, kinds[::-1])}
    assert len(sentences) == 1


def test_the_metric_keys_are_named_beside_the_metric_lines_only() -> None:
    """The generic reader's keys are the training metrics' (a Comet summary's ``train_loss :
    nan`` beside ``val_loss : nan``): the evaluation lines were said to be ``(train_loss)``."""
    from collections import Counter

    from denpex_callbacks.logs.reading import Reading, describe

    reading = Reading(22, Counter({("generic", "metrics"): 1, ("generic", "eval"): 1}),
                      keys={"train_loss": 1}, notations={"key: value": 2})
    assert describe(reading) == (
        "read 22 lines: 1 as evaluations in an unrecognised key: value format, 1 as metrics "
        "(train_loss) in an unrecognised key: value format")
    summary = Reading(5, Counter({("generic", "summary"): 1}), notations={"key: value": 1})
    assert describe(summary) == "read 5 lines: 1 as summaries in an unrecognised key: value format"


def test_the_json_parts_do_not_depend_on_the_order_kinds_came_in() -> None:
    """Equal counts are ordered by name in the JSON as in the sentence: the kinds of a line
    come in a set, whose order moved with the hash seed (skorch's recorded ``high_lr.log``
    gave ``metrics`` before ``eval`` under one seed and after it under another)."""
    from collections import Counter

    from denpex_callbacks.logs.reading import Reading, to_json

    def parts(order: list[tuple[str, str]]) -> list[dict[str, object]]:
        return list(to_json(Reading(8, Counter(dict.fromkeys(order, 8)))).get("parts", []))

    one, other = [("generic", "metrics"), ("generic", "eval")], [("generic", "eval"),
                                                                  ("generic", "metrics")]
    assert parts(one) == parts(other)
    assert [p["kind"] for p in parts(one)] == ["eval", "metrics"]


def test_every_key_of_the_json_output_is_documented(capsys: pytest.CaptureFixture[str]) -> None:
    """docs/doctor.md's description of ``--format json`` names every key an input and a
    diagnosis carry (a new user found ``located``, ``read`` and ``reruns`` undocumented)."""
    root = Path(__file__).resolve().parents[2]
    log = root / "tests" / "logs" / "corpus" / "deepspeed_zero2_collapse.log"
    assert main(["diagnose", "--format", "json", str(log)]) == 1
    document = json.loads(capsys.readouterr().out)
    described = (root / "docs" / "doctor.md").read_text(encoding="utf-8").split(
        "- `json`:", 1)[1].split("\n\n", 1)[0]
    keys = {*document, *document["inputs"][0], *document["diagnoses"][0],
            *document["inputs"][0]["read"]}
    assert sorted(k for k in keys if f"`{k}`" not in described and f'"{k}"' not in described) == []
