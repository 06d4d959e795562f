"""A NaN check printed as a yes/no answer (issue #27, yesno54): the doctor reads the answer.

Debug prints of a check (``print(f"Loss is NaN: {torch.isnan(loss)}")``) name a NaN and the
loss on every healthy step; the answer after them says whether one was found. ``False``, ``0``,
``no``, ``tensor(False, ...)``, ``Array(False, ...)``: nothing (silent). ``True``, ``1``,
``tensor(True, ...)``: a NaN loss (AMP006 at the step the log gives; an evaluation loss's,
AMP013). A denial (``Test passed: loss did not become NaN``) is silent too.

The public sources were read by file id in the code index (which named no repository for
them); each builder names its id and the print it copies.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.logs.excerpts import faults

FIRST, LAST, EVERY = 10, 300, 10  # steps logged (every 10th: not the default of 1)


def cuda_bool(answer: bool) -> str:
    """``str(torch.isnan(loss))`` of a 0-d bool tensor on the GPU: torch's repr."""
    return f"tensor({answer}, device='cuda:0')"


def loss_row(step: int, loss: float) -> str:
    """The loop's own row (lr 3e-5 and a constant scale of 2048: non-default settings)."""
    return f"Epoch 2 | step {step} | loss {loss:.4f} | lr 3.0e-05 | scale 2048.0"


def mae_check(step: int, loss: float, answer: bool) -> list[str]:
    """The MAE-3D validation debug script's check (code index file id 60399754893):
    ``print(f"Training loss: {loss.item()}")``, ``print(f"Training loss is NaN:
    {torch.isnan(loss)}")`` on a CUDA tensor, after the loop's row."""
    return [loss_row(step, loss), f"Training loss: {loss}",
            f"Training loss is NaN: {cuda_bool(answer)}"]


def mt5_check(step: int, loss: float, answer: bool) -> list[str]:
    """The mT5 summarisation notebook's check (file id 4381071093): ``print(f"Loss:
    {outputs.loss.item()}")``, ``print(f"Loss is nan: {torch.isnan(outputs.loss).item()}")``
    (``.item()``: a Python bool)."""
    return [loss_row(step, loss), f"Loss: {loss}", f"Loss is nan: {answer}"]


def loss_val_check(step: int, loss: float, answer: bool) -> list[str]:
    """A loop's ``Loss is NaN: {torch.isnan(loss_val)}`` (file id 11658169684)."""
    return [loss_row(step, loss), f"Loss is NaN: {cuda_bool(answer)}"]


def diffusion_check(step: int, loss: float, answer: bool) -> list[str]:
    """The diffusion trainer's loss check (file id 67370680561): ``print(f"NaN in loss:
    {torch.isnan(nll_result).any()}")`` and ``print(f"Inf in loss:
    {torch.isinf(nll_result).any()}")`` (``.any()``: a 0-d bool tensor)."""
    return [loss_row(step, loss), f"NaN in loss: {cuda_bool(answer)}",
            f"Inf in loss: {cuda_bool(False)}"]


def velcore_check(step: int, loss: float, answer: bool) -> list[str]:
    """The VelCore trainer's debug lines (file id 66746980592): ``print(f"  Classification loss
    (before clamp): {classification_loss.item():.4f}")``, ``print(f"  Classification loss is
    NaN: {torch.isnan(classification_loss).any()}")``."""
    return [loss_row(step, loss), f"  Classification loss (before clamp): {loss:.4f}",
            f"  Classification loss is NaN: {cuda_bool(answer)}"]


def jax_check(step: int, loss: float, answer: bool) -> list[str]:
    """The haiku trainer (file id 25209066600): ``jax.debug.print("[DEBUG] Checking for NaN in
    loss: {}", jnp.isnan(loss))`` inside its jitted step (a 0-d bool array prints ``False``),
    then ``print(f"[Training] Step {step}, Loss: {loss:.4f}")``."""
    return [f"[DEBUG] Checking for NaN in loss: {answer}",
            f"[Training] Step {step}, Loss: {loss:.4f}"]


def count_check(step: int, loss: float, answer: bool) -> list[str]:
    """A check that prints its finding as a count or a question (``NaN detected in loss:
    {int(torch.isnan(loss).sum())}``, ``Any NaN in loss? {bool(torch.isnan(loss).any())}``),
    the forms of the prints above with an integer or a Python bool."""
    return [loss_row(step, loss), f"NaN detected in loss: {int(answer)}",
            f"Any NaN in loss? {answer}"]


BUILDERS: dict[str, Callable[[int, float, bool], list[str]]] = {
    "mae": mae_check, "mt5": mt5_check, "loss_val": loss_val_check,
    "diffusion": diffusion_check, "velcore": velcore_check, "jax": jax_check,
    "count": count_check,
}


def run(build: Callable[[int, float, bool], list[str]], nan_at: int | None = None) -> list[str]:
    """A healthy run's rows, each with its check answering no; at ``nan_at`` the loss is NaN
    and the check answers yes."""
    lines: list[str] = []
    for step in range(FIRST, LAST + 1, EVERY):
        if step == nan_at:
            lines += build(step, float("nan"), True)
        else:
            lines += build(step, 3.2 - step * 0.004, False)
    return lines


@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_checks_that_answer_no_are_silent(tmp_path: Path, name: str) -> None:
    assert faults(tmp_path, run(BUILDERS[name])) == []


@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_a_check_that_answers_yes_is_the_nan_loss(tmp_path: Path, name: str) -> None:
    """The NaN at its step, once: jax.debug.print's ``Checking for NaN in loss: True`` (a
    check named, read as no finding) is above its row, whose ``Loss: nan`` tells the step."""
    assert faults(tmp_path, run(BUILDERS[name], nan_at=120)) == [("AMP006", 120)]


def test_a_real_nan_row_beside_checks_of_another_tensor(tmp_path: Path) -> None:
    """The check is on a term of the loss; the loop's own row says the loss went NaN."""
    lines = run(velcore_check)
    index = lines.index(loss_row(150, 3.2 - 150 * 0.004))
    lines[index] = loss_row(150, float("nan"))
    assert faults(tmp_path, lines) == [("AMP006", 150)]


def test_a_denied_nan_after_a_test_is_silent(tmp_path: Path) -> None:
    """A unit test's verdict after a healthy run (``print("Test passed: loss did not become
    NaN")``): a denial, no evaluation loss named ``become``."""
    lines = [*run(loss_val_check), "Test passed: loss did not become NaN"]
    assert faults(tmp_path, lines) == []


def eval_rows(nan_at: int | None) -> list[str]:
    """Training rows, an evaluation every 50 steps with its check (``print(f"Val loss is NaN:
    {torch.isnan(val_loss).item()}")``, the mT5 notebook's print on its validation loss)."""
    lines: list[str] = []
    for step in range(FIRST, LAST + 1, EVERY):
        lines.append(loss_row(step, 3.2 - step * 0.004))
        if step % 50 == 0:
            lines.append(f"Val loss is NaN: {step == nan_at}")
    return lines


def test_an_evaluation_check_that_answers_no_is_silent(tmp_path: Path) -> None:
    assert faults(tmp_path, eval_rows(None)) == []


def test_an_evaluation_check_that_answers_yes_is_amp013(tmp_path: Path) -> None:
    assert faults(tmp_path, eval_rows(200)) == [("AMP013", 200)]
