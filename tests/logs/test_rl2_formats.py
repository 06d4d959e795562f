"""RL stacks, Lightning templates and example fine-tuning scripts: excerpts written from each
tool's own format strings (each builder names its source), a fault beside healthy controls
(non-default settings among them).

- DreamerV3's terminal output: a banner ``[Agent Step 1_200_000]`` (the printer's name, the
  step grouped by ``{:_}``) over ``Metrics filtered by: '...'``, a truncation note or a blank
  line, then its ``key value / key value`` line;
- lightning-hydra-template's RichProgressBar line, whose ``train/loss: nan`` follows the
  validation metrics;
- HF's ``run_clm_no_trainer.py``: a perplexity that overflows ``math.exp`` prints ``inf``
  beside a finite loss (no fault); a NaN evaluation loss is AMP013;
- huggingface/peft's examples: ``eval_ppl=tensor(inf, ...)`` (``torch.exp`` past a loss of
  88.7) beside a finite ``eval_epoch_loss`` is no fault (a false alarm before);
- sample-factory's ``Fps is (10 sec: nan, ...)`` before its first report: no metric;
- read right already, no test kept (the suite covers the same notation): trlx's tqdm
  description (``[losses/total_loss: 0.12 | ...]``), open_lm's ``Train Epoch: 0 [  163840/...
  (2%)] Loss: nan``, simpletransformers' ``Epochs 1/3. Running Loss:       nan`` bar, Ray
  Train's ``Training result`` box and Ray Tune's trial status table, DreamerV2's ``[50000]
  model_loss nan / ...``, brax's ``logging.info(metrics)`` dicts; rl_games and sample-factory
  print no loss on the console.
"""

from __future__ import annotations

import math
from pathlib import Path

from excerpts import diagnose_lines, faults

from denpex_callbacks.logs.doctor import diagnose

NAN = float("nan")


def _dreamer_value(value: float) -> str:
    """``TerminalOutput._format_value`` (danijar/elements ``elements/logger.py``)."""
    if value == 0:
        return "0"
    if 0.01 < abs(value) < 10000:
        return f"{value:.2f}".rstrip("0").rstrip("0").rstrip(".")
    text = f"{value:.1e}"
    for old, new in ((".0e", "e"), ("+0", ""), ("+", ""), ("-0", "-")):
        text = text.replace(old, new)
    return text


_FILTERED = "Metrics filtered by: 'score|length|fps|ratio|train/loss/|train/rand/'"


def _dreamer(nan_from: int | None = None, *, name: str | None = "Agent", every: int = 5000,
             grouped: bool = True, note: str = _FILTERED) -> list[str]:
    """DreamerV3's terminal output every ``every`` steps (danijar/dreamerv3
    ``dreamerv3/main.py`` ``elements.logger.TerminalOutput(config.logger.filter, 'Agent')``;
    danijar/elements ``elements/logger.py`` ``TerminalOutput.__call__``: ``f'{"-" * 20}[{name}
    Step {step:_}]{"-" * 20}'``, then ``Metrics filtered by: '{pattern}'``, then ``' /
    '.join(f'{k} {v}')``; the filter of ``dreamerv3/configs.yaml``). ``name=None, grouped=False``
    is the older embodied printer (``[Step {step}]``). ``note``: the line between, the empty
    one of an unfiltered output or ``f'{truncated} metrics truncated, filter to see specific
    keys.'`` past its 50 metrics."""
    lines = []
    for i in range(1, 30):
        step = i * every
        bad = nan_from is not None and step >= nan_from
        metrics = {"episode/score": 12.5 + i, "episode/length": 1000.0, "fps/policy": 812.3,
                   "fps/train": 40.1, "train/loss/dyn": 5.1 - i / 100,
                   "train/loss/rep": 5.1 - i / 100, "train/loss/image": 1.3e4 - i,
                   "train/loss/rew": 0.3, "train/loss/con": 0.004, "train/loss/policy": -0.01,
                   "train/loss/value": 2.3, "train/ratio": 32.0}
        if bad:
            metrics = {k: (NAN if "/loss/" in k else v) for k, v in metrics.items()}
        shown = f"{step:_}" if grouped else str(step)
        title = f"{name} Step {shown}" if name else f"Step {shown}"
        lines += ["", f'{"-" * 20}[{title}]{"-" * 20}', note,
                  " / ".join(f"{k} {_dreamer_value(v)}" for k, v in metrics.items()), ""]
    return lines


def test_dreamer_banner_names_its_printer_and_groups_its_step(tmp_path: Path) -> None:
    """Before: step 12 (the records counted): the banner ``[Agent Step 60_000]`` was no step
    line (a word before ``Step``, and ``60_000`` read as 60 then a tail)."""
    assert faults(tmp_path, _dreamer(60000)) == [("AMP006", 60000)]
    assert faults(tmp_path, _dreamer(60000, grouped=False)) == [("AMP006", 60000)]
    assert faults(tmp_path, _dreamer(600000, every=50000)) == [("AMP006", 600000)]


def test_dreamer_banner_over_a_note_or_a_blank_line(tmp_path: Path) -> None:
    """Before: step 12 (the records counted): a banner was looked for only on the line just
    above the metrics (the filter's line, which names ``train/loss/``, is handed over itself;
    the blank line of an unfiltered output and the truncation note hold no keyword)."""
    truncated = "12 metrics truncated, filter to see specific keys."
    for note in ("", truncated):
        assert faults(tmp_path, _dreamer(60000, note=note)) == [("AMP006", 60000)], note
        assert faults(tmp_path, _dreamer(note=note)) == [], note


def test_dreamer_controls(tmp_path: Path) -> None:
    """Healthy runs, the older printer's ``[Step 60000]`` among them (its fault passes on the
    parent too); the large image loss prints ``1.3e4``."""
    assert faults(tmp_path, _dreamer(60000, name=None, grouped=False)) == [("AMP006", 60000)]
    for lines in (_dreamer(), _dreamer(name=None, grouped=False), _dreamer(every=50000)):
        assert faults(tmp_path, lines) == []


_RICH_BAR = "\u2501" * 40


def _hydra_template(nan_epoch: int | None = None, *, epochs: int = 6, batches: int = 860,
                    rich: bool = True) -> list[str]:
    """ashleve/lightning-hydra-template: ``src/models/mnist_module.py`` logs ``train/loss`` and
    ``train/acc`` with ``on_step=False, on_epoch=True, prog_bar=True``, then ``val/loss``,
    ``val/acc``, ``val/acc_best``; ``configs/callbacks/default.yaml`` adds
    ``rich_progress_bar``. Lightning's RichProgressBar (``lightning/pytorch/callbacks/progress/
    rich_progress.py`` ``MetricsTextColumn``: ``f"{k}: {v} "``) writes its line per refresh;
    ``rich=False`` is the TQDM bar (``k=v`` in the postfix) of the same run."""
    lines = ["[2024-06-01 10:00:00,000][__main__][INFO] - Instantiating datamodule "
             "<src.data.mnist_datamodule.MNISTDataModule>",
             "[2024-06-01 10:00:01,000][__main__][INFO] - Starting training!"]
    shown: dict[str, float] = {"v_num": 0}
    best = 0.0
    for epoch in range(epochs):
        bad = nan_epoch is not None and epoch >= nan_epoch
        segments = []
        for done in (1, batches // 2, batches, batches):
            if done == batches and len(segments) == 3:  # the epoch's metrics, at its end
                accuracy = 0.098 if bad else round(0.95 + epoch / 1000, 3)
                best = max(best, accuracy)
                shown = {"v_num": 0, "val/loss": NAN if bad else round(0.2 - epoch / 100, 3),
                         "val/acc": accuracy, "val/acc_best": best,
                         "train/loss": NAN if bad else round(0.3 - epoch / 100, 3),
                         "train/acc": 0.098 if bad else round(0.9 + epoch / 1000, 3)}
            if rich:
                text = "".join(f"{k}: {v} " for k, v in shown.items())
                segments.append(f"Epoch {epoch}/{epochs - 1} {_RICH_BAR} {done}/{batches} "
                                f"0:00:12 \u2022 0:00:00 70.12it/s {text}")
            else:
                text = ", ".join(f"{k}={v}" for k, v in shown.items())
                segments.append(f"Epoch {epoch}: {done * 100 // batches:3d}%|\u2588\u2588\u2588"
                                f"| {done}/{batches} [00:12<00:00, 70.12it/s, {text}]")
        lines += segments if rich else ["\r".join(segments)]
    return lines


def test_rich_bar_training_loss_after_validation_metrics(tmp_path: Path) -> None:
    """Before: AMP013 alone: the Rich line's loss key is ``train/loss`` (not ``loss`` /
    ``train_loss``), and the search for another non-finite loss term read only TQDM's
    ``key=value``, so the line gave its ``val/loss: nan`` and no training loss."""
    assert faults(tmp_path, _hydra_template(3)) == [("AMP006", 3440), ("AMP013", 3440)]


def test_hydra_template_controls(tmp_path: Path) -> None:
    """Healthy runs on both bars, and the TQDM bar's fault (pass on the parent too)."""
    assert faults(tmp_path, _hydra_template(3, rich=False)) == [("AMP006", 3440),
                                                                ("AMP013", 3440)]
    for rich in (True, False):
        assert faults(tmp_path, _hydra_template(rich=rich)) == []
        assert faults(tmp_path, _hydra_template(rich=rich, epochs=3, batches=235)) == []


_ACCELERATE = "12/01/2023 10:00:00 - INFO - __main__ - "


def _clm_no_trainer(evaluations: list[tuple[float, float]], *, per_epoch: int = 290,
                    dtype: str = "") -> list[str]:
    """huggingface/transformers ``examples/pytorch/language-modeling/run_clm_no_trainer.py``:
    ``perplexity = math.exp(eval_loss)`` (``float("inf")`` on ``OverflowError``), then
    ``logger.info(f"epoch {epoch}: perplexity: {perplexity} eval_loss: {eval_loss}")`` with
    ``eval_loss`` a tensor (``tensor(2.9096, device='cuda:0')``); the training loss goes to
    the trackers only; a tqdm bar of the optimisation steps."""
    total = per_epoch * len(evaluations)
    lines = [_ACCELERATE + "***** Running training *****",
             _ACCELERATE + f"  Total optimization steps = {total}"]
    for epoch, loss in enumerate(evaluations):
        lines.append("\r".join(f"{i * 100 // total:3d}%|\u2588         | {i}/{total} "
                               f"[01:00<07:20,  2.00it/s]"
                               for i in range(epoch * per_epoch, (epoch + 1) * per_epoch + 1)))
        try:
            perplexity = math.exp(loss)
        except OverflowError:
            perplexity = float("inf")
        lines.append(_ACCELERATE + f"epoch {epoch}: perplexity: {perplexity} eval_loss: "
                                   f"tensor({loss:.4f}, device='cuda:0'{dtype})")
    return lines


def test_clm_no_trainer_controls(tmp_path: Path) -> None:
    """Controls (all pass on the parent too): ``perplexity: inf`` from ``OverflowError``
    beside a finite (huge) loss is no non-finite evaluation, nothing to diagnose; a NaN loss
    after it is the one finding."""
    path = tmp_path / "clm.log"
    path.write_text("\n".join(_clm_no_trainer([812.4531, 3.0131])) + "\n", encoding="utf-8")
    error = diagnose(str(path)).error
    assert error is not None and "nothing to diagnose" in error, error
    lines = _clm_no_trainer([812.4531, 3.0131, NAN])
    assert faults(tmp_path, lines) == [("AMP013", None)]
    assert diagnose_lines(tmp_path, lines).faults[0].evidence["rows"] == 1
    # a NaN evaluation loss (``math.exp(nan)`` raises nothing: perplexity NaN too): AMP013,
    # no step (the script prints only the epoch), in float16 too
    assert faults(tmp_path, _clm_no_trainer([3.0131, NAN, NAN])) == [("AMP013", None)]
    assert faults(tmp_path, _clm_no_trainer([3.0131, NAN],
                                            dtype=", dtype=torch.float16")) == [("AMP013", None)]


def _tensor(value: float) -> str:
    """A float32 CUDA scalar as an f-string prints it."""
    shown = f"{value:.4f}" if math.isfinite(value) else str(value)
    return f"tensor({shown}, device='cuda:0')"


def _peft(train: list[float], evaluation: list[float], *, batches: int = 7) -> list[str]:
    """huggingface/peft ``examples/causal_language_modeling/peft_prompt_tuning_clm.ipynb``
    (and the LoRA / prefix-tuning scripts beside it): ``train_ppl = torch.exp(train_epoch_loss)``
    and ``eval_ppl = torch.exp(eval_epoch_loss)`` on float32 tensors (+inf past a loss of
    88.7), then ``print(f"{epoch=}: {train_ppl=} {train_epoch_loss=} {eval_ppl=}
    {eval_epoch_loss=}")``, tqdm bars of the batches between."""
    lines = ["trainable params: 8,192 || all params: 559,222,784 || trainable%: 0.0015"]
    for epoch, (trained, evaluated) in enumerate(zip(train, evaluation, strict=True)):
        lines.append("\r".join(f"{i * 100 // batches:3d}%|{'#' * (i * 10 // batches):10s}| "
                               f"{i}/{batches} [00:01<00:00,  4.12it/s]"
                               for i in range(batches + 1)))
        ppl = [math.exp(v) if v < 88.7 else math.inf for v in (trained, evaluated)]
        lines.append(f"epoch={epoch}: train_ppl={_tensor(ppl[0])} train_epoch_loss="
                     f"{_tensor(trained)} eval_ppl={_tensor(ppl[1])} eval_epoch_loss="
                     f"{_tensor(evaluated)}")
    return lines


def test_peft_perplexity_overflow_beside_a_finite_loss_is_healthy(tmp_path: Path) -> None:
    """Before: AMP013 at step 0, a false alarm: ``eval_ppl=tensor(inf)`` is
    ``torch.exp(91.0)`` overflowing float32, and ``eval_epoch_loss`` (``epoch`` read as a
    count) was no evaluation loss beside it to say so."""
    assert faults(tmp_path, _peft([95.3, 2.3, 1.9], [91.0, 2.0, 1.8])) == []


def test_peft_controls_and_faults(tmp_path: Path) -> None:
    """NaN losses (pass on the parent too), and a healthy run."""
    assert faults(tmp_path, _peft([5.1, 2.3, NAN, NAN], [3.1, 2.0, NAN, NAN])) == [
        ("AMP006", 2), ("AMP013", 2)]
    assert faults(tmp_path, _peft([5.1, 2.3, 2.2], [3.1, 2.0, NAN])) == [("AMP013", 2)]
    assert faults(tmp_path, _peft([5.1, 2.3, 1.9], [3.1, 2.0, 1.8])) == []


def _sample_factory(reports: int = 20) -> list[str]:
    """sample-factory's runner report (alex-petrenko/sample-factory
    ``sample_factory/algo/runners/runner.py`` ``print_stats``: ``"Fps is %s. Total num frames:
    %d. Throughput: %s. Samples: %d. Policy #0 lag: (%s)"``, the throughput ``math.nan`` until
    two reports came, ``"Avg episode reward: %r"`` once an episode ended) through its colorlog
    handler (``sample_factory/utils/utils.py``: ``"%(log_color)s[%(asctime)s][%(process)05d]
    %(message)s"``, DEBUG in cyan)."""
    lines = ["[2024-06-01 10:00:00,000][01234] Starting training in ./train_dir/default..."]
    for i in range(reports):
        fps = "nan" if i < 2 else f"{5000.0 + i:.1f}"
        lines.append(f"\x1b[36m[2024-06-01 10:00:{i:02d},123][01234] Fps is (10 sec: {fps}, 60 "
                     f"sec: {fps}, 300 sec: {fps}). Total num frames: {i * 50000}. Throughput: "
                     f"0: {fps}. Samples: {i * 50000}. Policy #0 lag: (min: -1.0, avg: -1.0, "
                     f"max: -1.0)\x1b[0m")
        if i > 2:
            lines.append(f"\x1b[36m[2024-06-01 10:00:{i:02d},124][01234] Avg episode reward: "
                         f"[(0, '{i - 21:.3f}')]\x1b[0m")
    return lines


def test_sample_factory_nan_throughput_is_no_metric(tmp_path: Path) -> None:
    """Control: the NaN frame rates before the second report (and the rewards) are no
    training metric: nothing to diagnose (on the parent too)."""
    path = tmp_path / "sf.log"
    path.write_text("\n".join(_sample_factory()) + "\n", encoding="utf-8")
    error = diagnose(str(path)).error
    assert error is not None and "nothing to diagnose" in error, error
