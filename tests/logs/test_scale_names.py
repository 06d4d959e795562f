"""The loss scale under any name a loop gives it (denpex_callbacks/logs/lexicon.py's scale
rule, and the reader's guard on a bare ``scale``): glued, abbreviated and namespaced keys are
read as the loss scale, a bare ``scale`` only where its values are a dynamic scaler's.

Every log is built here from a loop's own print format (each names it), with a GradScaler's
update rule (torch/amp/grad_scaler.py ``_amp_update_scale_``: halve on an overflow, double after
``growth_interval`` clean steps); healthy controls stand beside the faults.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from excerpts import diagnose_lines, faults

from denpex_callbacks.logs.doctor import diagnose

# A loop's print, formatted with ``step``, ``loss`` and ``scale`` (each a custom training loop
# printing ``scaler.get_scale()`` under its own name for it).
NEW_SPELLINGS = {
    # print(f"ep {epoch} it {it} | xent {loss:.4f} | gnorm {norm:.1f} | lscale {scale:g}")
    "lscale": "ep 1 it {step} | xent {loss:.4f} | gnorm 1.2 | lscale {scale:g}",
    # print(f"it {it}, loss {loss:.4f}, loss_sc {scale:g}")
    "loss_sc": "it {step}, loss {loss:.4f}, loss_sc {scale:g}",
    # print(f"step={step} loss={loss:.4f} fp16_scale={scale}")
    "fp16_scale": "step={step} loss={loss:.4f} fp16_scale={scale}",
    # print({"step": step, "train/loss": loss, "grad_scaler/scale": scale}): a metrics dict
    "grad_scaler/scale": "{{'step': {step}, 'train/loss': {loss:.4f}, "
                         "'grad_scaler/scale': {scale}}}",
    # print(f"step: {step} | train/loss: {loss:.4f} | optimizer/loss_scale: {scale}")
    "optimizer/loss_scale": "step: {step} | train/loss: {loss:.4f} | "
                            "optimizer/loss_scale: {scale}",
    # print(f"[step {step}] loss: {loss:.4f} ls_scale: {scale:g}") (guarded: "ls" may be
    # label smoothing)
    "ls_scale": "[step {step}] loss: {loss:.4f} ls_scale: {scale:g}",
    # print(f"step {step} | loss {loss:.4f} | scale {scale:g}") (guarded: a bare scale)
    "scale": "step {step} | loss {loss:.4f} | scale {scale:g}",
}
# Spellings the list of exact phrases knew already: the rule must keep reading them.
KNOWN_SPELLINGS = {
    # print(f"Step {step}: Loss={loss:.4f}, LossScale={scale}")
    "LossScale": "Step {step}: Loss={loss:.4f}, LossScale={scale}",
    # print(f"iter {step} loss {loss:.4f} scaler.scale {scale}")
    "scaler.scale": "iter {step} loss {loss:.4f} scaler.scale {scale}",
    # print(f"step {step} | loss {loss:.4f} | amp_scale {scale:g} | cur_scale {scale:g}")
    "amp_scale": "step {step} | loss {loss:.4f} | amp_scale {scale:g}",
    "cur_scale": "step {step} | loss {loss:.4f} | cur_scale {scale:g}",
    "scaler_scale": "step {step} | loss {loss:.4f} | scaler_scale {scale:g}",
    "lossscale": "step {step} | loss {loss:.4f} | lossscale {scale:g}",
}
# A loop writing tab-separated values: print("step\tloss\tlr\tscale") once, then
# print(f"{step}\t{loss:.4f}\t{lr:g}\t{scale:g}") every step.
TSV_HEADER = "step\tloss\tlr\tscale"
TSV_ROW = "{step}\t{loss:.4f}\t0.0003\t{scale:g}"

HEALTHY = 200  # clean steps at 65536 before the collapse
# A collapse: after ``healthy`` clean steps every step overflows (the loss finite) and the
# scale halves, 65536 -> 2**-4: AMP003 at its first step, AMP004 where it falls below 1.
COLLAPSE = [("AMP003", HEALTHY + 1), ("AMP004", HEALTHY + 17)]
# Value rows are read up to metric_reader.HEADER_REACH (200) lines under their header row.
TSV_HEALTHY = 100


def _loss(step: int) -> float:
    return 2.5 - step / 10000


def _collapse(fmt: str, healthy: int = HEALTHY) -> list[str]:
    """Steps 1..healthy at 65536, then a halving every step down to 2**-4."""
    lines, scale = [], 65536.0
    for step in range(1, healthy + 21):
        if step > healthy:
            scale /= 2
        lines.append(fmt.format(step=step, loss=_loss(step), scale=scale))
    return lines


def _sawtooth(fmt: str, steps: int = 1200, interval: int = 100) -> list[str]:
    """GradScaler(growth_interval=interval) at its ceiling: every growth above 65536 overflows
    on the next step and is halved back (a healthy run)."""
    lines, scale, tracker = [], 65536.0, 0
    for step in range(1, steps + 1):
        if scale > 65536.0:  # the overflow: halve, reset the tracker
            scale, tracker = scale / 2, 0
        else:
            tracker += 1
            if tracker == interval:
                scale, tracker = scale * 2, 0
        lines.append(fmt.format(step=step, loss=_loss(step), scale=scale))
    return lines


def _same_either_way(tmp_path: Path, lines: list[str]) -> list[tuple[str, int | None]]:
    """(id, step) of the faults, checked equal with quiet runs counted and read one by one."""
    path = tmp_path / "both.log"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    counted, one_by_one = diagnose(str(path)), diagnose(str(path), quiet_runs=False)
    found = [(d.code, d.step) for d in counted.faults]
    assert found == [(d.code, d.step) for d in one_by_one.faults]
    return found


@pytest.mark.parametrize("name", NEW_SPELLINGS)
def test_a_collapse_under_a_new_name_is_found(tmp_path: Path, name: str) -> None:
    lines = _collapse(NEW_SPELLINGS[name])
    assert faults(tmp_path, lines) == COLLAPSE, name
    assert _same_either_way(tmp_path, lines) == COLLAPSE


@pytest.mark.parametrize("name", KNOWN_SPELLINGS)
def test_a_collapse_under_a_known_name_is_still_found(tmp_path: Path, name: str) -> None:
    assert faults(tmp_path, _collapse(KNOWN_SPELLINGS[name])) == COLLAPSE, name


def test_a_collapse_in_a_scale_column_under_a_header_row_is_found(tmp_path: Path) -> None:
    lines = [TSV_HEADER, *_collapse(TSV_ROW, TSV_HEALTHY)]
    result = diagnose_lines(tmp_path, lines)
    assert [(d.code, d.step) for d in result.faults] == [("AMP003", TSV_HEALTHY + 1),
                                                         ("AMP004", TSV_HEALTHY + 17)]
    assert "scale" in result.reading.keys


@pytest.mark.parametrize("name", [*NEW_SPELLINGS, *KNOWN_SPELLINGS])
def test_a_sawtooth_under_any_name_stays_quiet(tmp_path: Path, name: str) -> None:
    fmt = NEW_SPELLINGS.get(name) or KNOWN_SPELLINGS[name]
    lines = _sawtooth(fmt)
    assert faults(tmp_path, lines) == [], name
    assert _same_either_way(tmp_path, lines) == []


def test_a_sawtooth_in_a_scale_column_stays_quiet(tmp_path: Path) -> None:
    lines = [TSV_HEADER, *_sawtooth(TSV_ROW, steps=190, interval=30)]
    result = diagnose_lines(tmp_path, lines)
    assert result.faults == []
    assert result.reading.keys["scale"] == 190  # read, and healthy


# --- a bare "scale" that is no loss scale --------------------------------------------------
@pytest.mark.parametrize("value", ["0.5", "1.0", "1", "0.25"])
def test_a_constant_small_bare_scale_is_unread(tmp_path: Path, value: str) -> None:
    # print(f"step {step} | loss {loss:.4f} | scale {args.scale}"): a model's fixed scale
    lines = [f"step {step} | loss {_loss(step):.4f} | scale {value}" for step in range(1, 400)]
    result = diagnose_lines(tmp_path, lines)
    assert result.faults == []
    assert "scale" not in result.reading.keys  # not read as the loss scale at all


def test_a_varying_image_scale_is_unread(tmp_path: Path) -> None:
    # print(f"it {it} | loss {loss:.4f} | scale {s:.3f}"): a random-resize augmentation's
    # scale drawn per batch in [0.5, 2.0], sometimes halving and doubling on the way
    rng = random.Random(3)
    scales = [rng.uniform(0.5, 2.0) for _ in range(600)]
    lines = [f"it {i} | loss {_loss(i):.4f} | scale {s:.3f}" for i, s in enumerate(scales, 1)]
    result = diagnose_lines(tmp_path, lines)
    assert result.faults == []
    assert "scale" not in result.reading.keys


def test_an_image_scale_column_that_halves_is_no_collapse(tmp_path: Path) -> None:
    # The same header row as a loss scale's, over a multi-scale schedule that starts at 1.0
    # and halves to 1/64: powers of two, but from no scaler's start (2**7 or more).
    lines = [TSV_HEADER] + [TSV_ROW.format(step=step, loss=_loss(step),
                                           scale=2.0 ** -min(step // 50, 6))
                            for step in range(1, 400)]
    assert faults(tmp_path, lines) == []


def test_a_bare_scale_that_grows_fourfold_between_lines_stops_being_read(
        tmp_path: Path) -> None:
    # A power-of-two "scale" that jumps x4 (a resolution schedule 128 -> 512 -> 128 ...),
    # which no scaler does between two lines: unread from the jump, no skip rate raised.
    lines = [f"step {step} | loss {_loss(step):.4f} | scale {128 if step % 20 < 10 else 512}"
             for step in range(1, 600)]
    result = diagnose_lines(tmp_path, lines)
    assert result.faults == []
    assert result.reading.keys.get("scale") == 9  # steps 1..9, before the jump at step 10


def test_scaler_settings_in_a_config_dump_are_no_scale(tmp_path: Path) -> None:
    # megatron/training/arguments.py _print_args: f"  {arg} {'.' * (48 - len(arg))} {value}",
    # then a healthy custom loop's lines
    settings = [("loss_scale_window", 1000), ("min_loss_scale", 1.0),
                ("initial_scale_power", 16), ("scale_factor", 2.0), ("scale_window", 1000),
                ("hysteresis", 2)]
    lines = [f"  {arg} {'.' * (48 - len(arg))} {value}" for arg, value in settings]
    lines += [f"step {step} | loss {_loss(step):.4f}" for step in range(1, 100)]
    result = diagnose_lines(tmp_path, lines)
    assert result.faults == []
    assert not any("scale" in key for key in result.reading.keys)
