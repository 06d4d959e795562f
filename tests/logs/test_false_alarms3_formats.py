"""False alarms, round three: the training stream of mainstream trainers under non-default
settings, each excerpt written from the tool's own format string (each test names it).

- HF Trainer (huggingface/transformers ``src/transformers/trainer.py``
  ``_maybe_log_save_evaluate``: ``logs["loss"] = round(tr_loss_scalar / (self.state.global_step
  - self._globalstep_last_logged), 4)``, ``logs["grad_norm"]``, ``logs["learning_rate"]``,
  ``num_input_tokens_seen`` with ``include_num_input_tokens_seen``; ``log`` adds ``epoch``
  and prints the dict): a memorised set at the default ``logging_steps=500`` averages one
  interval to 0.2 and the next to below 5e-5, printed ``0.0``, its gradient norm shrinking
  with it. Before the fix the doctor called that AMP007 at the first zero; the twin, whose
  gradient norm is 0.0 on the zeros (no gradient: an underflowed scale), stays AMP007.
- Keras ``mixed_float16``: a memorised set's ``loss: 0.0000e+00`` after a geometric fall
  (control).

Only the first test failed on the parent commit (73bf846); the others are controls and twins
that pass there too.
"""

from __future__ import annotations

from pathlib import Path

from excerpts import faults


def _hf_memorised(zero_grad: float | None = None, logging_steps: int = 500,
                  rate: float = 0.98) -> list[str]:
    """HF Trainer's logged dicts for a loss decaying as ``2 * rate**t`` per step, averaged
    over each logging interval and rounded to four places as the Trainer does; the
    gradient norm is the interval's loss (it shrinks with it) or ``zero_grad`` where the
    loss prints 0.0. Ends with the ``train_loss`` summary the Trainer logs."""
    lines = []
    for k in range(1, 41):
        first, last = (k - 1) * logging_steps, k * logging_steps
        mean = sum(2.0 * rate**t for t in range(first, last)) / logging_steps
        loss = round(mean, 4)
        grad = zero_grad if loss == 0.0 and zero_grad is not None else float(f"{mean:.4g}")
        lines.append(str({"loss": loss, "grad_norm": grad, "learning_rate": 0.0 if k == 1
                          else 2e-05, "num_input_tokens_seen": last * 4096,
                          "epoch": round(last / 20, 2)}))
    lines.append(str({"train_runtime": 812.3, "train_samples_per_second": 98.5,
                      "train_steps_per_second": 24.6, "train_loss": 0.0051, "epoch": 1000.0}))
    return lines


def test_hf_memorised_set_rounded_to_zero_is_a_fit(tmp_path: Path) -> None:
    """HF Trainer, default ``logging_steps=500``, a tiny memorised set: ``{'loss': 0.2, ...}``
    then ``{'loss': 0.0, 'grad_norm': 8.2e-06, ...}`` on every later line. Before the fix:
    AMP007 at step 2 (the zeros followed 0.2, above the 0.01 the decay rule allowed)."""
    assert faults(tmp_path, _hf_memorised()) == []


def test_hf_memorised_set_short_interval_control(tmp_path: Path) -> None:
    """Control: ``logging_steps=100`` shows the decay (0.63, 0.03, 0.0014, 0.0001, 0.0);
    already clean on the parent (the decay rule)."""
    assert faults(tmp_path, _hf_memorised(logging_steps=100, rate=0.97)) == []


def test_hf_zeros_without_gradient_stay_amp007(tmp_path: Path) -> None:
    """The twin of the fit rule: the same dicts with ``'grad_norm': 0.0`` on the zeros (no
    gradient flows: a scale that underflowed) stay AMP007 at the first zero. Passes on the
    parent too: it guards the rule's edge."""
    assert faults(tmp_path, _hf_memorised(zero_grad=0.0)) == [("AMP007", 2)]


def test_hf_zeros_with_nonfinite_gradient_stay_flagged(tmp_path: Path) -> None:
    """The twin's other edge: a NaN gradient norm on the zeros (skipped steps) is no fit.
    The zeros are ``logging_nan_inf_filter``'s stand-in for the NaN it hid: AMP009 alone
    since h52-sample33 (AMP007 beside it before: the stand-in read as a loss of 0)."""
    assert faults(tmp_path, _hf_memorised(zero_grad=float("nan"))) == [("AMP009", 2)]


def test_keras_mixed_float16_memorised_control(tmp_path: Path) -> None:
    """Control, Keras ``mixed_float16`` (the LossScaleOptimizer prints nothing): the
    ``Progbar`` line (keras-team/keras ``keras/src/utils/progbar.py`` ``update``: ``f"
    {avg:.4f}"`` above 1e-3, else ``f" {avg:.4e}"``) of a memorised set falls geometrically
    to ``loss: 0.0000e+00``. Already clean on the parent (the decay rule)."""
    lines = []
    for epoch in range(1, 41):
        loss = 0.69 * 0.6**epoch if epoch < 30 else 0.0
        shown = f"{loss:.4f}" if abs(loss) > 1e-3 else f"{loss:.4e}"
        lines += [f"Epoch {epoch}/40",
                  f"4/4 [==============================] - 0s 5ms/step - loss: {shown} - "
                  f"accuracy: 1.0000"]
    assert faults(tmp_path, lines) == []
