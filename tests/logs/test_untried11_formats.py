"""Untried image and video generation trainers: excerpts written from each tool's own format
strings (each names its source), a fault beside healthy controls with non-default settings.

Tried and already right before any change here (no test kept: the suite covers their layouts):
DiT's and SiT's ``(step={train_steps:07d}) Train Loss: {avg_loss:.4f}, Train Steps/Sec:
{steps_per_sec:.2f}`` behind their logger's ``[\\033[34m%(asctime)s\\033[0m] %(message)s``
(facebookresearch/DiT ``train.py``, willisma/SiT ``train.py``; LlamaGen's ``train_c2i.py``
prints the same line through the same logger, FoundationVision/LlamaGen ``utils/logger.py``);
CogVideo's SAT trainer line ``iteration {:8d}/{:8d} | ... | total loss {:.6E} | ... | loss
scale {:.1f} |speed ...`` (THUDM/SwissArmyTransformer ``sat/training/deepspeed_training.py``
``report_iteration_metrics``: a NaN loss, the loss scale collapsing and going below 1, and
FSDP2's ``loss scale N/A (FSDP2)``); LTX-Video-Trainer's loguru line ``Step {step}/{steps} -
Loss: {loss:.4f}, LR: {lr:.2e}, Time/Step: ...`` and its rich progress row ``Training Step
120/3000 ... Loss: 0.5000 LR: 2.00e-04`` (Lightricks/LTX-Video-Trainer
``src/ltxv_trainer/trainer.py``); EDM2's ``stats.jsonl``, flat means with ``NaN`` for a
value not finite (NVlabs/edm2 ``training/training_loop.py``: no ``Progress/tick``, so a NaN
is placed at its record, counted one a status report).

Missed before: LlamaGen's VQ tokenizer trainer, whose logging step prints its loss terms first,
each on a line of its own with no step (``(Generator) rec_loss: ..., generator_adv_loss: ...``
and ``(Discriminator) discriminator_adv_loss: ...``, FoundationVision/LlamaGen
``tokenizer/tokenizer_image/vq_loss.py``, logged at ``global_step % log_every == 0`` with
``global_step=train_steps+1``), then the step's own ``(step=0001000) Train Loss: ...``
(``vq_train.py``). Numbered one a row on from the last step, a NaN that began at step 1000
was claimed at 951. Now a record whose step row comes last (the layout read from the excerpt's
first records: ``trailing_steps.py``) gives its rows that step.
"""

from __future__ import annotations

from pathlib import Path

from excerpts import faults

# LlamaGen's logger (utils/logger.py): ``[\033[34m%(asctime)s\033[0m] %(message)s``
_LLAMAGEN = "[\033[34m2024-06-20 10:00:00\033[0m] "


def _term(value: float, bad: bool) -> str:
    """A loss term as ``vq_loss.py`` formats it (``{:.4f}``), NaN where ``bad``."""
    return "nan" if bad else f"{value:.4f}"


def _llamagen_vq(records: int, *, nan_from: int | None = None, log_every: int = 100,
                 disc_start: int = 20000, first: int = 0) -> list[str]:
    """LlamaGen's VQ trainer (``vq_train.py`` over ``vq_loss.py``): each logging step the
    generator's terms, the discriminator's, then the step's ``Train Loss`` (the sum of both
    losses); before ``disc_start`` the adversarial weights, and so those losses, are 0. Every
    term NaN from step ``nan_from`` on (the discriminator's too: 0 times NaN)."""
    lines = [_LLAMAGEN + "Dataset contains 1,281,167 images (/data/imagenet/train)",
             _LLAMAGEN + "Training for 40 epochs...", _LLAMAGEN + "Beginning epoch 0..."]
    for record in range(1, records + 1):
        step = first + record * log_every
        bad = nan_from is not None and step >= nan_from
        weight = 0.5 if step >= disc_start else 0.0
        rec, perceptual, adv = 0.04 - record * 1e-5, 0.31, 0.12 * weight
        lines += [
            _LLAMAGEN + f"(Generator) rec_loss: {_term(rec, bad)}, perceptual_loss: "
            f"{_term(perceptual, bad)}, vq_loss: {_term(0.011, bad)}, commit_loss: "
            f"{_term(0.0027, bad)}, entropy_loss: {0.0:.4f}, codebook_usage: {0.9713:.4f}, "
            f"generator_adv_loss: {_term(adv, bad)}, disc_adaptive_weight: "
            f"{_term(1.37 if weight else 1.0, bad)}, disc_weight: {weight:.4f}",
            _LLAMAGEN + f"(Discriminator) discriminator_adv_loss: {_term(1.98 * weight, bad)}, "
            f"disc_weight: {weight:.4f}, logits_real: {_term(0.21 * weight, bad)}, "
            f"logits_fake: {_term(-0.19 * weight, bad)}",
            _LLAMAGEN + f"(step={step:07d}) Train Loss: "
            f"{_term(rec + perceptual + 0.0137 + adv + 1.98 * weight, bad)}, "
            f"Train Steps/Sec: 1.87"]
    return lines


def test_llamagen_vq_nan_at_the_step_its_record_ends_with(tmp_path: Path) -> None:
    """Before: AMP006 at 951 and 721 (the generator's row counted one after the last step
    row). Now the record's step: 1000, and 740 with a log every 20 steps once the
    discriminator has started."""
    assert faults(tmp_path, _llamagen_vq(40, nan_from=1000, log_every=50)) == [
        ("AMP006", 1000)]
    assert faults(tmp_path, _llamagen_vq(60, nan_from=740, log_every=20, disc_start=0,
                                         first=200)) == [("AMP006", 740)]


def test_llamagen_vq_excerpt_cut_inside_a_record(tmp_path: Path) -> None:
    """A paste that begins at a record's second row (its ``(Discriminator)`` line): the
    layout is read from the first whole record. Before: AMP006 at 851."""
    lines = _llamagen_vq(30, nan_from=900, log_every=50, first=100)[4:]
    assert "(Discriminator)" in lines[0]
    assert faults(tmp_path, lines) == [("AMP006", 900)]


def test_llamagen_vq_controls(tmp_path: Path) -> None:
    """Healthy runs: before the discriminator starts (its loss and weights printed as
    0.0000 in every record: no loss stuck at zero), across its start, and with a log every
    25 steps (controls: silent on the parent too)."""
    assert faults(tmp_path, _llamagen_vq(40, log_every=25)) == []
    assert faults(tmp_path, _llamagen_vq(50, log_every=40, first=19200)) == []


def _leading_record(steps: int, nan_from: int | None = None, every: int = 50) -> list[str]:
    """A loop that prints its step first and the step's terms below it, one a line with no
    step (``print(f"step {step} loss {loss:.4f}")`` then ``print(f"  mse {mse:.4f}, vb
    {vb:.4f}")``): the layout whose records begin with their step."""
    lines = []
    for step in range(every, steps * every + 1, every):
        bad = nan_from is not None and step >= nan_from
        lines += [f"step {step} loss {_term(0.5, bad)}",
                  f"  mse {_term(0.4, bad)}, vb {_term(0.1, bad)}"]
    return lines


def test_records_that_begin_with_their_step_are_unchanged(tmp_path: Path) -> None:
    """The rule reads only a layout whose first record ends with its step: a record that
    begins with it keeps its step row's step (a control: the same on the parent)."""
    assert faults(tmp_path, _leading_record(30, nan_from=800)) == [("AMP006", 800)]
    assert faults(tmp_path, _leading_record(30)) == []
