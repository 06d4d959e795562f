"""Listings of a job's log newest line first, read in the order the job printed them.

``gcloud logging read`` returns entries "in order of decreasing timestamps, most-recent entries
first" (its ``--order``, default ``desc``; the same for ``gcloud run jobs logs read``), printed
by gcloud's default YAML resource printer (``---`` between records, keys in sorted order:
``receiveTimestamp`` before ``timestamp``, ``textPayload`` or ``jsonPayload.message``) or by
``--format=json`` (an indented array); ``journalctl -r -o short-iso`` lists the newest line
first with an ISO time. Each record carries a loop's own ``epoch 1 step N loss X`` line or HF
Trainer's dict row.

A listing that prints no time (``gcloud logging read --format="value(textPayload)"``) is told by
the steps its rows print, running backwards on a first reading.

Before: each listing was read as listed, so a run that went NaN at step 20 and stayed NaN to
its last step, 40, was reported at step 40 (the first NaN line the listing shows); HF rows
(no step printed: the row counts) at row 1. The oldest-first listings are controls (they pass
on the parent too).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from excerpts import diagnose_lines, faults, hf_rows, loop_lines, megatron_line

from denpex_callbacks.logs.newest_first import oldest_first

NAN_FROM = 20


def _time(i: int, later: float = 0.0) -> str:
    seconds = 3 * i + later
    return f"2024-05-01T10:{int(seconds) // 60:02d}:{seconds % 60:09.6f}Z"


def _yaml(lines: list[str], newest_first: bool = True) -> list[str]:
    """gcloud's default printer: each entry a YAML document, keys sorted."""
    entries = [["---", f"insertId: 1x2y3z{i}", "logName: projects/p/logs/train",
                f"receiveTimestamp: '{_time(i, 1.4)}'", "resource:", "  labels:",
                "    job_id: '123'", "  type: ml_job", "severity: INFO",
                f"textPayload: {line}", f"timestamp: '{_time(i)}'"]
               for i, line in enumerate(lines)]
    return [x for entry in (entries[::-1] if newest_first else entries) for x in entry]


def _json(lines: list[str], newest_first: bool = True) -> list[str]:
    """``--format=json``: an indented array of the entries."""
    entries = [{"insertId": f"1x2y3z{i}", "jsonPayload": {"message": line},
                "logName": "projects/p/logs/train", "receiveTimestamp": _time(i, 1.4),
                "severity": "INFO", "timestamp": _time(i)} for i, line in enumerate(lines)]
    return json.dumps(entries[::-1] if newest_first else entries, indent=2).splitlines()


def _run_jobs(lines: list[str], newest_first: bool = True) -> list[str]:
    """``gcloud run jobs logs read``: severity, a time to the second, the payload."""
    rows = [f"INFO 2024-05-01 10:{i // 60:02d}:{i % 60:02d} {line}" for i, line in enumerate(lines)]
    return rows[::-1] if newest_first else rows


def _journal(lines: list[str], newest_first: bool = True) -> list[str]:
    """``journalctl -r -o short-iso``."""
    rows = [f"{_time(i)[:19]}+0000 node-1 python3[4711]: {line}" for i, line in enumerate(lines)]
    return rows[::-1] if newest_first else rows


LISTINGS = {"gcloud_yaml": _yaml, "gcloud_json": _json, "gcloud_run_jobs": _run_jobs,
            "journalctl_reverse": _journal}


@pytest.mark.parametrize("listing", sorted(LISTINGS))
def test_a_newest_first_listing_is_read_in_the_order_printed(tmp_path: Path,
                                                               listing: str) -> None:
    """Before: AMP006 at step 40 (the loop) and at row 1 (HF's rows)."""
    lister = LISTINGS[listing]
    assert faults(tmp_path, lister(loop_lines(NAN_FROM))) == [("AMP006", NAN_FROM)]
    assert faults(tmp_path, lister(hf_rows(10))) == [("AMP006", 10)]
    result = diagnose_lines(tmp_path, lister(loop_lines(NAN_FROM)))
    assert any("listed newest line first" in problem for problem in result.problems)


@pytest.mark.parametrize("listing", sorted(LISTINGS))
def test_oldest_first_listings_and_healthy_runs_are_read_as_they_are(tmp_path: Path,
                                                                     listing: str) -> None:
    """Controls: ``--order=asc`` (gcloud's records still print their two times in falling
    order), and healthy runs listed either way. Pass on the parent too."""
    lister = LISTINGS[listing]
    assert faults(tmp_path, lister(loop_lines(NAN_FROM), newest_first=False)) == [
        ("AMP006", NAN_FROM)]
    result = diagnose_lines(tmp_path, lister(loop_lines(NAN_FROM), newest_first=False))
    assert not any("newest" in problem for problem in result.problems)
    for run in (loop_lines, hf_rows):
        for newest in (True, False):
            assert faults(tmp_path, lister(run(), newest_first=newest)) == []


def test_what_is_not_a_newest_first_listing() -> None:
    """A log with a few times out of order (two ranks' lines interleaved), one whose times
    print no fraction and repeat, one with a time only on its start-up lines, and a log
    without times are read as they are."""
    interleaved = [f"2024-05-01T10:00:{(s + (3 if s % 2 else 0)) % 60:02d}Z rank{s % 2} step {s}"
                   for s in range(40)]
    assert oldest_first("\n".join(interleaved).encode()) is None
    repeated = [f"2024-05-01 10:00:{s // 10:02d} step {s} loss 1.0" for s in range(100)]
    assert oldest_first("\n".join(repeated).encode()) is None
    start_up = ["2024-05-01 10:00:05 starting", "2024-05-01 10:00:01 config read", *loop_lines()]
    assert oldest_first("\n".join(start_up).encode()) is None
    assert oldest_first("\n".join(loop_lines()[::-1]).encode()) is None


def test_a_listing_without_times_is_told_by_its_steps(tmp_path: Path) -> None:
    """``--format="value(textPayload)"``: the payloads alone, newest first. Before: AMP006 at
    step 40. Megatron's iteration lines too (before: at iteration 400)."""
    payloads = loop_lines(NAN_FROM)[::-1]
    assert faults(tmp_path, payloads) == [("AMP006", NAN_FROM)]
    result = diagnose_lines(tmp_path, payloads)
    assert any("its steps run backwards" in problem for problem in result.problems)
    iterations = [megatron_line(i, loss=float("nan") if i >= 200 else 2.5 - i / 1e4)
                  for i in range(10, 410, 10)][::-1]
    assert faults(tmp_path, iterations) == [("AMP006", 200)]


def test_steps_that_go_back_now_and_then_are_read_as_printed(tmp_path: Path) -> None:
    """Controls (pass on the parent too): each epoch's batches counted from 1 again, a run
    resumed from a checkpoint (its counter back once), and a healthy listing newest first."""
    epochs = [f"epoch {e} step {s} loss {'nan' if (e, s) >= (3, 5) else '2.1000'}"
              for e in range(1, 5) for s in range(1, 11)]
    assert faults(tmp_path, epochs)[:1] == [("AMP006", 25)]
    resumed = [*loop_lines()[:30], *loop_lines(NAN_FROM)[9:]]
    assert faults(tmp_path, resumed) == [("AMP006", NAN_FROM)]
    assert faults(tmp_path, loop_lines()[::-1]) == []


def test_times_above_the_log_do_not_turn_it_round(tmp_path: Path) -> None:
    """Controls: a checkpoint listing newest first (``ls -lt --full-time``) above a loop's
    oldest-first lines: its times run backwards, the rows' steps then ran backwards too, so
    the log is read as written (AMP006 at step 30, not at its last step, 60)."""
    listing = [f"drwxr-xr-x 2 user user 4096 2024-05-{9 - k:02d} 1{9 - k}:00:00.123456789 +0000 "
               f"ckpt-{(9 - k) * 1000}" for k in range(10)]
    loop = [f"step {s} loss {'nan' if s >= 30 else f'{100 - s:.1f}'} lr 0.001"
            for s in range(10, 70, 10)]
    assert faults(tmp_path, ["+ ls -lt --full-time checkpoints/", "total 40", *listing,
                             *loop]) == [("AMP006", 30)]
