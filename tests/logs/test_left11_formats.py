"""Known misreadings, part 2 (issue #27): each excerpt built from the tool's own format
strings, the doctor's ids and steps asserted, and healthy controls in non-default settings."""

from __future__ import annotations

import re
from pathlib import Path

from excerpts import diagnose_lines, faults
from test_pastes_formats import KINDS, PASTES
from test_trainers_formats import _composer
from test_untried12_formats import _sam_hq

from denpex_callbacks.core.severity import Severity

NAN = float("nan")


def _collapsed(lines: list[str]) -> list[str]:
    """Lines as a chat tool shows them: a tab as blanks, a run of blanks as one."""
    return [re.sub(r" {2,}", " ", line.replace("\t", "    ")) for line in lines]


def test_collapsed_composer_records_by_epoch(tmp_path: Path) -> None:
    """Composer's records (mosaicml/composer ``composer/loggers/console_logger.py``, the
    ``\\t Train {name}: {value}`` rows under ``[epoch=2][batch=5/32]:``) collapsed by a chat
    tool: the rows are still read as their record's (the NaN at batch 130 of 32-batch epochs is
    the record's own batch count, not the row count), and a healthy run stays silent."""
    losses = [7.5 - i / 10 for i in range(30)]
    sick = _composer([NAN if i >= 12 else loss for i, loss in enumerate(losses)], 10,
                     epoch_length=40, eval_every=40)
    assert faults(tmp_path, _collapsed(sick))[:1] == [("AMP006", 130)]
    healthy = _composer(losses, 10, epoch_length=40, eval_every=40, eval_loss=3.25)
    assert faults(tmp_path, _collapsed(healthy)) == []


def _t2t_run(scaler_line: str, steps: int = 30) -> list[str]:
    """tensor2tensor's start (tensorflow/tensor2tensor ``tensor2tensor/utils/optimize.py``,
    ``ConditionalOptimizer.__init__``: ``tf.logging.info("Using optimizer %s", ...)`` and,
    with fp16 activations over fp32 weights, its loss scaler line) behind TF1's
    ``WARNING:tensorflow:``/``INFO:tensorflow:`` prefix, then tf.estimator's
    ``loss = %s, step = %s (%.3f sec)`` lines every 100 steps, the loss finite."""
    lines = ["INFO:tensorflow:Using optimizer adam", scaler_line]
    for i in range(1, steps + 1):
        lines += [f"INFO:tensorflow:global_step/sec: {3.9 + i / 1000:.4f}",
                  f"INFO:tensorflow:loss = {6.5 - i / 20:.4f}, step = {i * 100} (25.{i:03d} sec)"]
    return lines


def test_t2t_mixed_precision_without_a_loss_scaler(tmp_path: Path) -> None:
    """tensor2tensor's ``tf.logging.warning("Using mixed precision without a loss scaler will
    likely cause numerical errors.")`` (optimize.py, ``mixed_precision_optimizer_loss_scaler``
    unset): AMP001, fp16 without a loss scaler, though every loss is finite. Control: the
    same run with the exponential scaler at a non-default initial scale, whose ``info`` call
    hands a tuple to the logger (printed as the tuple): silent."""
    warned = "WARNING:tensorflow:Using mixed precision without a loss scaler will likely cause " \
        "numerical errors."
    assert faults(tmp_path, _t2t_run(warned)) == [("AMP001", None)]
    scaled = ("INFO:tensorflow:('Using Exponential Update Loss Scaler with', "
              "'init loss scale of 1024')")
    assert faults(tmp_path, _t2t_run(scaled)) == []


def _mace_line(epoch: int | None, loss: float, error: float, *, head: str | None = "Default",
               stress: bool = False) -> str:
    """One line of MACE's ``valid_err_log`` (ACEsuite/mace ``mace/tools/train.py``) behind its
    ``setup_logger`` format (``%(asctime)s.%(msecs)03d %(levelname)s: %(message)s``):
    ``{Initial|Epoch N}: head: {name}, loss={valid_loss:8.8f}, RMSE_E_per_atom={error_e:8.2f}
    meV, RMSE_F={error_f:8.2f} meV / A`` (0.3.x); without ``head:`` and with ``loss=
    {valid_loss:.4f}`` and ``{:.1f}`` errors before multi-head models (0.2.x); ``--error_table
    PerAtomRMSEstressvirials`` adds ``RMSE_stress=... meV / A^3``. ``loss`` is
    ``valid_loss``, the loss of an evaluation on the validation set."""
    phrase = "Initial" if epoch is None else f"Epoch {epoch}"
    stamp = f"2024-06-01 10:{(epoch or 0) // 60:02d}:{(epoch or 0) % 60:02d}.000 INFO: "
    if head is None:
        tail = f"RMSE_E_per_atom={error:.1f} meV, RMSE_F={error * 3:.1f} meV / A"
        if stress:
            tail += f", RMSE_stress_per_atom={error / 2:.1f} meV / A^3"
        return f"{stamp}{phrase}: loss={loss:.4f}, {tail}"
    tail = f"RMSE_E_per_atom={error:8.2f} meV, RMSE_F={error * 3:8.2f} meV / A"
    if stress:
        tail += f", RMSE_stress={error / 2:8.2f} meV / A^3"
    return f"{stamp}{phrase}: head: {head}, loss={loss:8.8f}, {tail}"


def _mace_console(nan_from: int | None = None, errors_nan: bool = True, **shape: object
                  ) -> list[str]:
    """MACE's console over 40 epochs: ``Started training, reporting errors on validation
    set`` (mace/tools/train.py ``train``), an ``Initial:`` line, one line an epoch; the
    validation loss NaN from epoch ``nan_from`` on (its errors too, or finite)."""
    lines = ["2024-06-01 10:00:00.000 INFO: Started training, reporting errors on validation set",
             "2024-06-01 10:00:00.000 INFO: Loss metrics on validation set",
             _mace_line(None, 0.9, 40.0, **shape)]  # type: ignore[arg-type]
    for epoch in range(40):
        bad = nan_from is not None and epoch >= nan_from
        error = NAN if bad and errors_nan else 20.0 / (1 + epoch)
        lines.append(_mace_line(epoch, NAN if bad else 0.5 / (1 + epoch), error,
                                **shape))  # type: ignore[arg-type]
    return lines


def test_mace_validation_loss_is_evaluation(tmp_path: Path) -> None:
    """MACE's printed ``loss`` is ``valid_loss`` (``valid_err_log`` is called with the loss
    ``evaluate`` returns on the validation loader): NaN there is the evaluation's, AMP013 at
    its epoch, not the training loss's AMP006 (before: AMP006 at 12). Read by the rule that
    an error of a property printed in an energy unit (``meV``) on a line naming no training
    loss and no learning rate reports an evaluation pass; a log that prints nothing but such
    epochs numbers its evaluation by the epoch."""
    assert faults(tmp_path, _mace_console(12)) == [("AMP013", 12)]
    assert faults(tmp_path, _mace_console(12, head=None, stress=True)) == [("AMP013", 12)]
    assert faults(tmp_path, _mace_console(12, errors_nan=False)) == [("AMP013", 12)]
    # an excerpt pasted from the middle: no header, no Initial line
    assert faults(tmp_path, _mace_console(12)[10:]) == [("AMP013", 12)]


def test_mace_controls_and_a_training_line_in_ev(tmp_path: Path) -> None:
    """Controls: healthy MACE consoles in non-default settings (a named head of a multi-head
    fine-tune, the stress table, the 0.2 format) are silent; a training loop's line that
    prints its learning rate beside errors in meV keeps its loss the training loss."""
    for shape in ({"head": "pt_head", "stress": True}, {"head": None}):
        assert faults(tmp_path, _mace_console(**shape)) == [], shape
    trained = [f"Epoch {e} step {e * 50}: loss={NAN if e >= 7 else 0.5 / (e + 1):.4f}, "
               f"lr=0.0100, RMSE_E={20.0 / (e + 1):.1f} meV" for e in range(1, 12)]
    assert faults(tmp_path, trained) == [("AMP006", 350)]


def _detector_csv(epochs: int, *, eval_nan_from: int | None, every: int = 4,
                  train_nan_from: int | None = None) -> list[str]:
    """A detector's ``learning_stats_detector.csv`` as DeepLabCut 3 writes it (DeepLabCut/
    DeepLabCut ``deeplabcut/pose_estimation_pytorch/runners/logger.py`` ``CSVLogger``:
    ``["step"] + sorted(metrics)``, a row an epoch, a cell left empty where the epoch did not
    log it): torchvision's Faster R-CNN losses summed to ``losses/train.total_loss``, and every
    ``every`` epochs the COCO metrics beside ``losses/eval.total_loss``, NaN from the
    evaluation of epoch ``eval_nan_from`` on (None: finite throughout), the training losses
    NaN from epoch ``train_nan_from`` on."""
    terms_names = ("loss_box_reg", "loss_classifier", "loss_objectness", "loss_rpn_box_reg")
    rows = [",".join(["step", "losses/eval.total_loss",
                      *(f"losses/train.{name}" for name in terms_names),
                      "losses/train.total_loss", "metrics/test.mAP@50", "metrics/test.mAP@50:95",
                      "metrics/test.mAR@50:95"])]
    for epoch in range(1, epochs + 1):
        bad = train_nan_from is not None and epoch >= train_nan_from
        terms = [weight / (1 + epoch / 8) for weight in (0.25, 0.35, 0.04, 0.03)]
        train = ["nan"] * 5 if bad else [f"{term!r}" for term in [*terms, sum(terms)]]
        cells = ["", "", "", ""]
        if epoch % every == 0:
            broken = eval_nan_from is not None and epoch >= eval_nan_from
            cells = ["nan" if broken else f"{sum(terms) * 1.3!r}", f"{50 + epoch * 0.5!r}",
                     f"{30 + epoch * 0.4!r}", f"{38 + epoch * 0.3!r}"]
        rows.append(",".join([str(epoch), cells[0], *train, *cells[1:]]))
    return rows


def test_evaluation_value_never_finite_is_info(tmp_path: Path) -> None:
    """An evaluation loss NaN in every evaluation row from the first (the detector computes
    none; DeepLabCut writes NaN there), beside finite COCO metrics and a training loss that is
    finite and falls: AMP013 at info, "never finite in this excerpt" (before: a warning).
    Twin: the same table whose evaluation loss was finite for its first evaluations and went
    NaN at epoch 20's is a warning at 20; a training loss that goes NaN is AMP006 first."""
    result = diagnose_lines(tmp_path, _detector_csv(40, eval_nan_from=1))
    assert [(d.code, d.step, d.severity) for d in result.diagnoses] == [
        ("AMP013", 4, Severity.INFO)]
    assert "never finite in this excerpt" in result.diagnoses[0].summary
    assert faults(tmp_path, _detector_csv(40, eval_nan_from=1, every=3)) == []
    assert faults(tmp_path, _detector_csv(40, eval_nan_from=20)) == [("AMP013", 20)]
    assert faults(tmp_path, _detector_csv(40, eval_nan_from=1, train_nan_from=30))[:1] == [
        ("AMP006", 30)]
    assert faults(tmp_path, _detector_csv(40, eval_nan_from=None, every=5)) == []


def _neptune_warning(value: str = "nan", line: int = 88) -> str:
    """neptune-client 1.x's warning for a NaN/inf appended to a float series (neptune-ai/
    neptune-client ``src/neptune/types/series/float_series.py``
    ``is_unsupported_float_with_warn``), printed by ``warn_once`` (``src/neptune/internal/
    warnings.py``: ``DEFAULT_FORMAT = "[%(name)s] [warning] %(filename)s:%(lineno)d:
    %(category)s: %(message)s"``, the logger's name ``neptune``, the user's file and line)."""
    return (f"[neptune] [warning] /home/user/project/train.py:{line}: NeptuneUnsupportedValue: "
            f"WARNING: A value you're trying to log (`{value}`) will be skipped because it's a "
            "non-standard float value that is not currently supported.")


def _neptune_run(warned_after: int | None, loss_nan_from: int | None = None,
                 extra: tuple[str, ...] = ()) -> list[str]:
    """A loop that prints ``epoch 1 step {s} loss {loss:.4f} lr 0.001`` and appends its
    metrics to a Neptune run; the warning once, after step ``warned_after`` (``warn_once``:
    the same wording is not said again); ``extra``: Neptune's other lines at the start."""
    lines = list(extra)
    for step in range(1, 41):
        bad = loss_nan_from is not None and step >= loss_nan_from
        lines.append(f"epoch 1 step {step} loss {'nan' if bad else f'{3 - step / 50:.4f}'} "
                     "lr 0.001")
        if step == warned_after:
            lines.append(_neptune_warning())
    return lines


def test_neptune_dropped_value_names_no_metric(tmp_path: Path) -> None:
    """Neptune's warning names no field and no step: the doctor says what it can, AMP009 (a
    NaN/inf hidden by the logger: Neptune dropped it) where the run was when it was printed,
    not AMP006 (the loss the console prints is finite) and not nothing (before: silent, the
    warning read as a Python warning and passed over). Alone, it is still AMP009."""
    assert faults(tmp_path, _neptune_run(25)) == [("AMP009", 25)]
    assert faults(tmp_path, [_neptune_warning("inf")]) == [("AMP009", None)]
    # the loss itself NaN on the console: that comes first, where it began
    assert faults(tmp_path, _neptune_run(25, loss_nan_from=25))[:1] == [("AMP006", 25)]


def test_neptune_controls(tmp_path: Path) -> None:
    """Controls: Neptune's other warnings (an unsupported type, ``warn_about_unsupported_type``
    over two lines) beside a healthy run: silent."""
    unsupported = ("[neptune] [warning] /home/user/project/train.py:90: NeptuneUnsupportedType: "
                   "You're attempting to log a type that is not directly supported by Neptune "
                   "(<class 'NoneType'>).",
                   "        Convert the value to a supported type, such as a string or float, "
                   "or use stringify_unsupported(obj)")
    assert faults(tmp_path, _neptune_run(None, extra=unsupported)) == []


def test_sam_hq_second_run_nan_in_its_first_epoch(tmp_path: Path) -> None:
    """Two SAM-HQ trainings in one log (test_untried12's ``_sam_hq``, SysCV/sam-hq
    ``train/train.py``), the second NaN from its batch 150, inside its first epoch: 150, as
    the run alone (before: 1350, numbered on from the first run's 1200 batches: the new run
    was seen only at its ``Finished epoch: 0``, after the NaN). The epoch's heading over its
    batches (``epoch:    0   learning rate:   0.0005``) is handed over with its first batch, and
    an epoch back at the first there begins the run before its batches."""
    first = _sam_hq(4, batches=300, every=50)
    assert faults(tmp_path, first + _sam_hq(4, batches=300, every=50, nan_at=150)) == [
        ("AMP006", 150)]
    assert faults(tmp_path, first + _sam_hq(2, batches=300, every=60, nan_at=120)) == [
        ("AMP006", 120)]


def test_sam_hq_second_runs_controls(tmp_path: Path) -> None:
    """Controls: a NaN in the second run's second epoch (test_review48's, 650), and two healthy
    runs of other loaders and intervals: as before."""
    first = _sam_hq(4, batches=300, every=50)
    assert faults(tmp_path, first + _sam_hq(4, batches=300, every=50, nan_at=650)) == [
        ("AMP006", 650)]
    assert faults(tmp_path, _sam_hq(3, batches=240, every=30) + _sam_hq(5, batches=240,
                                                                      every=60)) == []


def test_cuts_in_hard_wrapped_pastes(tmp_path: Path) -> None:
    """DeepSpeed's cascade and Megatron's iteration lines (test_pastes_formats' excerpts, from
    deepspeed/runtime/fp16/loss_scaler.py and megatron/training/training.py) hard-wrapped at
    80 and 100 columns, with ``<truncated 2000 lines>`` where the paste was cut, between a
    record's head and its rest too: read as the wrapped paste without the cut (before: the
    line after the cut was taken for a record's start, every rest of its shape with it, and
    the pieces were read as lines). A rest is joined to the head before the cut's line."""
    for width in ("wrap80", "wrap100"):
        cascade = PASTES[width](KINDS["deepspeed"][0]()).decode().splitlines()
        megatron = PASTES[width](KINDS["megatron"][0]()).decode().splitlines()
        for at in (len(cascade) // 3, len(cascade) // 2, len(cascade) // 2 + 1):
            cut = [*cascade[:at], "<truncated 2000 lines>", *cascade[at:]]
            assert faults(tmp_path, cut) == [("AMP003", 501), ("AMP004", 517)], (width, at)
        at = len(megatron) // 2
        assert faults(tmp_path, [*megatron[:at], "<truncated 2000 lines>", *megatron[at:]]) == [
            ("AMP006", 2000)], width


def test_cuts_in_hard_wrapped_healthy_pastes(tmp_path: Path) -> None:
    """Controls: the healthy DeepSpeed sawtooth and Megatron run wrapped at 100 columns, cut
    (``[... 300 lines omitted ...]``, ``...``) between a head and its rest, or between
    records: silent."""
    for kind in ("deepspeed", "megatron", "loop"):
        healthy = PASTES["wrap100"](KINDS[kind][1]()).decode().splitlines()
        at = len(healthy) // 2
        for marker, place in (("[... 300 lines omitted ...]", at), ("...", at + 1)):
            assert faults(tmp_path, [*healthy[:place], marker, *healthy[place:]]) == [], (
                kind, marker)
