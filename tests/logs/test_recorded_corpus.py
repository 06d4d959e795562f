"""The doctor on logs recorded from real runs of other tools (tests/logs/recorded/).

mmengine 0.10.7 (Runner), Keras 3.15.1 (torch backend), PaddlePaddle 3.3.1 (hapi
``Model.fit`` and a loop with ``paddle.amp.GradScaler``), PyTorch-Ignite 0.5.5 and skorch
1.4.0 ran small trainings on CPU, healthy and with a fault injected;
``scripts/record_log_corpus.py`` recorded what they printed and ``MANIFEST.json`` states what
each run must be diagnosed as (from the fault injected). A case marked ``known_gap`` is one
the doctor does not get right yet: its test is a strict xfail, which fails once it passes.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from pathlib import Path

import pytest

from denpex_callbacks.cli import main
from denpex_callbacks.logs.doctor import diagnose
from denpex_callbacks.logs.events import METRICS, PROGRESS
from denpex_callbacks.logs.parsers import LineParser

RECORDED = Path(__file__).parent / "recorded"
MANIFEST = json.loads((RECORDED / "MANIFEST.json").read_text(encoding="utf-8"))
CASES = MANIFEST["cases"]
IDS = [f"{case['tool']}/{case['case']}" for case in CASES]
# A case the manifest marks ``known_gap`` (none since skorch's table rows, which hold no
# keyword, reach the header-row reader) is a strict xfail: it fails once the doctor gets it.
GAP = pytest.mark.xfail(strict=True, reason="a known gap of the doctor (MANIFEST.json)")
MARKED = [pytest.param(case, marks=GAP) if case["known_gap"] else case for case in CASES]


def test_manifest_names_versions_and_every_log() -> None:
    versions = MANIFEST["versions"]
    assert versions["torch"].startswith("2.13.0")
    tools = {case["tool"] for case in CASES}
    assert tools >= {"mmengine", "keras", "paddlepaddle", "pytorch-ignite", "skorch"}
    for tool in tools:
        assert tool in versions
        mine = [case for case in CASES if case["tool"] == tool]
        assert any(c["expected"]["healthy"] for c in mine), tool
        assert any(not c["expected"]["healthy"] for c in mine), tool
    for case in CASES:
        log = RECORDED / case["log"]
        assert log.exists() and 0 < log.stat().st_size < 16_000, log
    listed = {RECORDED / case["log"] for case in CASES}
    assert set(RECORDED.glob("*/*.log")) == listed
    assert len(LEFT) >= 2


@pytest.mark.parametrize("case", MARKED, ids=IDS)
def test_doctor_on_recorded_log(case: dict[str, object]) -> None:
    expected = case["expected"]
    assert isinstance(expected, dict)
    result = diagnose(str(RECORDED / str(case["log"])))
    assert result.error is None and not result.problems
    found = [{"id": d.code, "step": d.step} for d in result.faults]
    assert found == expected["faults"]
    if expected["healthy"]:
        assert all(d.severity.value == "info" for d in result.diagnoses)
        assert result.timeline.points or result.reading is not None  # read, not refused


LEFT = [(case, name) for case in CASES for name in case["files"]]


@pytest.mark.parametrize(("case", "name"), LEFT, ids=[name for _case, name in LEFT])
def test_doctor_on_the_files_a_run_leaves(case: dict[str, object], name: str) -> None:
    """mmengine's ``vis_data/scalars.json`` (one JSON object a logged iteration) says what
    its log says."""
    expected = case["expected"]
    assert isinstance(expected, dict)
    result = diagnose(str(RECORDED / name))
    assert result.error is None
    assert [{"id": d.code, "step": d.step} for d in result.faults] == expected["faults"]


@pytest.mark.parametrize("case", MARKED, ids=IDS)
def test_cli_exit_code(case: dict[str, object], capsys: pytest.CaptureFixture[str]) -> None:
    expected = case["expected"]
    assert isinstance(expected, dict)
    code = main(["diagnose", str(RECORDED / str(case["log"]))])
    out = capsys.readouterr().out
    assert code == (0 if expected["healthy"] else 1)
    if expected["healthy"]:
        assert "no fault found" in out and "as metrics" in out  # healthy, not unreadable
    else:
        first = expected["faults"][0]
        step = "" if first["step"] is None else f"step {first['step']}"
        # (a step that is no printed counter says its basis after it: step_basis.py)
        said = r"(?: \([^()]*\))?, " if step else ""
        assert f"{first['id']}" in out and re.search(re.escape(f"({step}") + said + "rank 0", out)


def test_the_evidence_names_the_cause() -> None:
    high_lr = diagnose(str(RECORDED / "mmengine" / "high_lr.log")).faults[0]
    assert high_lr.evidence["lr"] == 1000.0  # the learning rate the run diverged under
    terminated = diagnose(str(RECORDED / "keras" / "nan_terminate.log")).faults[0]
    assert "TerminateOnNaN" in terminated.summary and "batch 6 " in terminated.summary
    off = diagnose(str(RECORDED / "paddlepaddle" / "scaler_cpu.log")).faults[0]
    assert "paddle.amp.GradScaler" in off.summary and "Place(cpu)" in off.summary
    overflow = diagnose(str(RECORDED / "paddlepaddle" / "scaler_overflow.log"))
    assert overflow.faults[0].evidence["scale_at_start"] == 1024.0
    # Paddle prints "Found inf or nan" in update(), then the loop prints "step N, loss ...":
    # one step each, 60 steps of which 51 (10 to 60) skipped, not 111 steps
    assert (overflow.timeline.steps, overflow.timeline.skipped) == (60, 51)


# --- leave-one-family-out: the generic reader alone, per tool --------------------------------
# Oracles written from each tool's format string, independent of the reader: (step, loss,
# scale) of every metric print, in order, with the epoch taken from the ``Epoch 2/3`` line
# the reader never sees (no keyword brings it there).
_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_EPOCH = re.compile(r"^Epoch (\d+)/\d+$")
PRINTS = {  # what prints a metric line, from the tools' own source
    # mmengine/runner/log_processor.py: "Epoch(train) [{epoch}][{iter}/{len}]  ... loss: {v}"
    "mmengine": re.compile(r"Epoch\(train\)\s+\[(\d+)\]\[\s*(\d+)/(\d+)\].*\bloss: (\S+)"),
    # keras/src/utils/progbar.py: "{current}/{target} {bar} ... - loss: {value}"
    "keras": re.compile(r"^\s*(\d+)/(\d+) .* - loss: ([-+]?(?:nan|inf|\d[\d.]*(?:e[-+]?\d+)?))"),
    # paddle/hapi/progressbar.py: "step {current}/{num} - loss: {value} - {time}/step"
    "hapi": re.compile(r"^step\s+(\d+)/(\d+) - loss: (\S+) -"),
    # the GradScaler loop's own print; paddle/amp/grad_scaler.py's overflow message
    "loop": re.compile(r"^step (\d+), loss (\S+)$"),
    "paddle_scale": re.compile(r"Found inf or nan, current scale is: (\S+),"),
    # ignite/handlers/tqdm_logger.py: "Epoch [{e}/{n}]: [{n_fmt}/{total_fmt}] ...{postfix}"
    "ignite": re.compile(r"Epoch \[(\d+)/\d+\]: \[(\d+)/(\d+)\].*?, loss=([-+]?(?:nan|inf|"
                         r"\d[\d.]*(?:e[-+]?\d+)?))"),
    # skorch/callbacks/logging.py (PrintLog, a tabulate table): "  {epoch}  {train_loss} ..."
    # (a row an epoch: the epoch it prints is its step, as for pytorch-tabnet's rows)
    "skorch": re.compile(r"^\s+(\d+)\s+([-+]?(?:nan|inf|\d[\d.]*))\s"),
}


def _oracle(text: str) -> list[tuple[int | None, float | None, float | None]]:
    """(step, loss, scale) of every metric print in a recorded log, in order."""
    out: list[tuple[int | None, float | None, float | None]] = []
    epoch = 1
    for line in text.split("\n"):
        for segment in _ANSI.sub("", line).replace("\b", "").split("\r"):
            if found := _EPOCH.match(segment.strip()):
                epoch = int(found.group(1))
            elif (found := PRINTS["mmengine"].search(segment)) or (
                    found := PRINTS["ignite"].search(segment)):
                e, n, total = (int(g) for g in found.groups()[:3])
                out.append(((e - 1) * total + n, float(found.group(4)), None))
            elif found := PRINTS["skorch"].match(segment):
                out.append((int(found.group(1)), float(found.group(2)), None))
            elif (found := PRINTS["keras"].match(segment)) or (
                    found := PRINTS["hapi"].match(segment)):
                n, total = int(found.group(1)), int(found.group(2))
                out.append(((epoch - 1) * total + n, float(found.group(3)), None))
            elif found := PRINTS["loop"].match(segment):
                out.append((int(found.group(1)), float(found.group(2)), None))
            elif found := PRINTS["paddle_scale"].search(segment):
                out.append((None, None, float(found.group(1))))
    return out


def _read_alone(text: str) -> list[tuple[int | None, float | None, float | None]]:
    """The same, as the generic reader reads it with every family parser switched off."""
    parser = LineParser(families=())
    return [(e.step, e.loss, e.scale_after)
            for number, line in enumerate(text.split("\n"), 1)
            for e in parser.parse(line, number) if e.kind in (METRICS, PROGRESS)]


def _same(a: float | None, b: float | None) -> bool:
    if a is None or b is None:
        return a is b
    return a == b or (math.isnan(a) and math.isnan(b))


def test_generic_reader_alone_recovers_each_tool() -> None:
    """With every family parser off, the generic reader recovers the step, loss and scale of
    at least 90% of each tool's metric prints (in the order the tool printed them)."""
    prints: Counter[str] = Counter()
    recovered: Counter[str] = Counter()
    for case in CASES:
        # read_text() would make each carriage return a line break
        text = (RECORDED / case["log"]).read_bytes().decode("utf-8")
        expected, got = _oracle(text), _read_alone(text)
        prints[case["tool"]] += len(expected)
        rest = list(got)
        for fact in expected:
            match = next((g for g in rest
                          if all(_same(x, y) for x, y in zip(g, fact, strict=True))), None)
            if match is not None:
                rest.remove(match)
                recovered[case["tool"]] += 1
    assert set(prints) == {case["tool"] for case in CASES}
    for tool, count in prints.items():
        assert count >= 10, (tool, count)
        assert recovered[tool] >= 0.9 * count, (tool, recovered[tool], count)
