"""JAX trainers, LLM toolkits and RL agents not tried before: excerpts written from each tool's
own format strings (each builder names its source), a fault at a known step beside healthy
controls (non-default settings among them).

- mesh-transformer-jax's (GPT-J's) validation line, ``validation loss for step {step}, set
  {name}: {val_loss}``: the step after "for" is the training step the evaluation ran at, not
  an evaluation's own counter (the evaluation words before it hid it);
- torchbeast's monobeast line ``Steps %i @ %.1f SPS. Loss %f. %sStats:`` over its pprint'd
  stats: before the first batch is learned it prints ``Loss inf.`` over ``{}`` (the default
  of ``stats.get("total_loss", float("inf"))``), no value measured (a false alarm before);
- rlkit's ``dump_tabular``: tabulate's ``simple`` two-column table between rules of dashes
  (rllab's logger, and the libraries that copied it), its ``Epoch`` row last: one record,
  read together as the ``| key | value |`` records are, numbered by its epoch; rlpyt's
  copy puts rllab's ``{timestamp} | `` before each row, its ``Iteration`` row first;
  garage's dowel sorts the keys and pads every other one with a leader of dots, its step the
  ``TotalEnvSteps`` row (the environment's steps, as stable-baselines3's total_timesteps);
- H2O LLM Studio's ``LLMTrainingException: NaN caught in loss during training. ...`` (a row of
  the messages table now: AMP010 before, its "disable mixed precision" read as a setting);
- lingvo's ``step:  2500 ... grad_norm/all:nan grad_scale_all:0 has_nan_or_inf:1 ...``
  status: ``grad_norm/all`` (the global norm over all variables) is a gradient norm;
- read right already, no test kept (the suite covers the same notation): minGPT's
  ``iter_dt 35.12ms; iter 1230: train loss nan`` (karpathy/minGPT projects/chargpt),
  safe-rlhf's bar ``Training 2/3 epoch (loss nan):  52%|...| 620/1200`` (safe_rlhf/trainers/
  supervised_trainer.py), a MaxText fork's padded ``completed step: 150, seconds: 1.234,
  TFLOP/s       : 123.456, loss          : nan``;
- left wrong (documented, no test): keras-rl's ``TrainEpisodeLogger`` (rl/callbacks.py) prints
  a metric whose episode values are all NaN as ``loss: --`` (``np.nanmean``'s warning caught),
  as it does before its warm-up ends, and numbers its line ``{step}/{nb_steps}: episode:
  N, ...``, a count the doctor does not take for the step: a diverged run reads as silence.

Each fault test failed on the parent commit (00ce8bf); the controls' docstrings say whether
they passed there.
"""

from __future__ import annotations

import math
import pprint
from pathlib import Path

from excerpts import faults

from denpex_callbacks.logs.doctor import diagnose

NAN = float("nan")


def _found(tmp_path: Path, lines: list[str]) -> list[tuple[str, int | None]]:
    """(id, step) of each diagnosis above info, where the lines may hold no training metric
    (an evaluation-only log is "nothing to diagnose" when healthy)."""
    path = tmp_path / "excerpt.log"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return [(d.code, d.step) for d in diagnose(str(path)).faults]


# --- mesh-transformer-jax: device_train.py ------------------------------------------------


def _gptj(nan_from: int | None = None, sets: tuple[str, ...] = ("pile",),
          val_every: int = 500, total: int = 5000) -> list[str]:
    """kingoflolz/mesh-transformer-jax ``device_train.py``: every ``val_every`` steps (``step %
    val_every == 1``: one step was taken to compile) a tqdm bar ``desc=f"validation for step
    {step}, set {name}"`` per set, then ``print(f"validation loss for step {step}, set
    {name}: {val_loss}")`` (a numpy float: ``nan`` once the weights are); the training loss
    goes to wandb only."""
    lines = ["jax devices: 8", "jax runtime initialized in 12.3456s", "Train fn compiled in 60.1s"]
    for step in range(1, total + 1, val_every):
        for name in sets:
            value = NAN if nan_from is not None and step >= nan_from else 2.5 - step / 10000
            lines.append(f"validation for step {step}, set {name}: 100%|##########| 16/16 "
                         f"[00:03<00:00,  4.80it/s]")
            lines.append(f"validation loss for step {step}, set {name}: {value}")
    return lines


def test_gptj_validation_nan_at_its_training_step(tmp_path: Path) -> None:
    """Before: AMP013 with no step (the step after "validation loss for" was read as no
    counter: the evaluation words before it took the key)."""
    assert faults(tmp_path, _gptj(2501)) == [("AMP013", 2501)]
    assert faults(tmp_path, _gptj(1501, sets=("pile", "owt"), val_every=250)) == [
        ("AMP013", 1501)]


def test_gptj_controls(tmp_path: Path) -> None:
    """Control (passes on the parent too): healthy validations, two sets, another interval."""
    assert _found(tmp_path, _gptj()) == []
    assert _found(tmp_path, _gptj(sets=("pile", "owt"), val_every=250)) == []


# --- torchbeast: torchbeast/monobeast.py train ---------------------------------------------


def _monobeast(nan_from: int | None = None, reports: int = 30, frames: int = 6400,
               waits: int = 2, start: int = 0) -> list[str]:
    """facebookresearch/torchbeast ``torchbeast/monobeast.py`` ``train``: every 5 s
    ``logging.info("Steps %i @ %.1f SPS. Loss %f. %sStats:\\n%s", step, sps, total_loss,
    mean_return, pprint.pformat(stats))`` under ``format="[%(levelname)s:%(process)d
    %(module)s:%(lineno)d %(asctime)s] %(message)s"``; ``total_loss = stats.get("total_loss",
    float("inf"))``, ``stats`` ``{}`` until a batch is learned (``waits`` reports);
    ``mean_episode_return`` is ``torch.mean`` of the batch's returns (NaN where no episode
    ended in it). ``step`` counts frames (``T * B`` a batch)."""
    lines, step = [], start
    for i in range(reports):
        stats: dict[str, object] = {}
        if i >= waits:
            step += frames
            bad = nan_from is not None and step >= nan_from
            returns = (1.0, 3.0) if i % 3 == 0 else ()
            stats = {"pg_loss": NAN if bad else 0.01 * i,
                     "baseline_loss": NAN if bad else 5.0 / (i + 1),
                     "entropy_loss": NAN if bad else -0.0123,
                     "total_loss": NAN if bad else 5.0 / (i + 1) + 0.01 * i,
                     "episode_returns": returns,
                     "mean_episode_return": 2.0 if returns else NAN}
        mean_return = (f"Return per episode: {stats['mean_episode_return']:.1f}. "
                       if stats.get("episode_returns") else "")
        message = (f"Steps {step} @ {0.0 if i == 0 else 1234.5:.1f} SPS. Loss "
                   f"{stats.get('total_loss', math.inf):f}. {mean_return}Stats:\n"
                   f"{pprint.pformat(stats)}")
        lines += f"[INFO:12345 monobeast:436 2024-03-01 10:00:{i % 60:02d},123] {message}".split(
            "\n")
    return lines


def test_monobeast_nan_loss_at_its_frame(tmp_path: Path) -> None:
    """Before: AMP006 at step 0 (the ``Loss inf.`` before the first batch) besides the one
    at 64000."""
    assert faults(tmp_path, _monobeast(64000)) == [("AMP006", 64000)]


def test_monobeast_controls(tmp_path: Path) -> None:
    """Controls: ``Loss inf.`` over ``{}`` before the first batch (AMP006 at step 0 before: a
    false alarm), none of it (the learner was quick), another batch size."""
    assert faults(tmp_path, _monobeast()) == []
    assert faults(tmp_path, _monobeast(waits=0)) == []
    assert faults(tmp_path, _monobeast(frames=80 * 32, waits=3)) == []


# --- rlkit: rlkit/core/logging.py dump_tabular, rlkit/core/rl_algorithm.py _log_stats -------


def _simple_table(rows: list[tuple[str, str]]) -> list[str]:
    """tabulate's ``simple`` table of two columns, no header (rlkit's vendored
    ``rlkit/core/tabulate.py``): the keys left-aligned, the values aligned on their decimal
    point, a rule of dashes above and below."""
    whole = [value.partition(".")[0] for _, value in rows]
    fraction = [value[len(w):] for w, (_, value) in zip(whole, rows, strict=True)]
    cells = [w.rjust(max(map(len, whole))) + f.ljust(max(map(len, fraction)))
             for w, f in zip(whole, fraction, strict=True)]
    key_width, value_width = max(len(key) for key, _ in rows), max(map(len, cells))
    rule = "-" * key_width + "  " + "-" * value_width
    return [rule, *(f"{key.ljust(key_width)}  {cell.rjust(value_width)}".rstrip()
                    for (key, _), cell in zip(rows, cells, strict=True)), rule]


def _rlkit(nan_from: int | None = None, epochs: int = 20, steps: int = 1000,
           alpha: bool = True) -> list[str]:
    """rail-berkeley/rlkit: ``BatchRLAlgorithm._log_stats`` (``rlkit/core/rl_algorithm.py``)
    logs ``"Epoch {} finished"`` (behind the timestamp and the experiment's prefix), records
    the replay buffer's, the trainer's (``rlkit/torch/sac/sac.py``: ``QF1 Loss``, ``Policy
    Loss``, ``Alpha Loss`` under ``use_automatic_entropy_tuning``), the exploration's, the
    evaluation's and the timings' values, ``record_tabular('Epoch', epoch)`` last, then
    ``dump_tabular(with_prefix=False, with_timestamp=False)``: ``tabulate(self._tabular)``
    a line each (``rlkit/core/logging.py``). Epochs count from 0."""
    lines = []
    for epoch in range(epochs):
        bad = nan_from is not None and epoch >= nan_from

        def shown(value: float, bad: bool = bad) -> str:
            return "nan" if bad else str(round(value, 7))

        rows = [("replay_buffer/size", str(steps * (epoch + 1) + 1000)),
                ("trainer/QF1 Loss", shown(5.0 / (epoch + 1))),
                ("trainer/QF2 Loss", shown(5.1 / (epoch + 1))),
                ("trainer/Policy Loss", shown(-3.0 - epoch / 2)),
                ("trainer/Q1 Predictions Mean", shown(3.0 + epoch / 2)),
                ("trainer/Log Pis Mean", shown(-1.5))]
        if alpha:
            rows += [("trainer/Alpha", shown(0.9 ** epoch)),
                     ("trainer/Alpha Loss", shown(-0.5 / (epoch + 1)))]
        rows += [("exploration/num steps total", str(steps * (epoch + 1) + 1000)),
                 ("evaluation/Average Returns", str(-90 + epoch * 10)),
                 ("time/epoch (s)", "12.3456"), ("time/total (s)", f"{12.3 * (epoch + 1):.1f}"),
                 ("Epoch", str(epoch))]
        lines.append(f"2024-03-01 10:{epoch:02d}:00.123456 UTC | [sac-halfcheetah] "
                     f"Epoch {epoch} finished")
        lines += _simple_table(rows)
    return lines


def test_rlkit_nan_losses_at_their_epoch(tmp_path: Path) -> None:
    """Before: AMP006 at step 48, each row of the table read as a line of its own and counted
    (the ``Epoch`` row, last, holds no keyword and was never read)."""
    assert faults(tmp_path, _rlkit(12)) == [("AMP006", 12)]
    assert faults(tmp_path, _rlkit(3, alpha=False)) == [("AMP006", 3)]


def test_rlkit_controls(tmp_path: Path) -> None:
    """Control (passes on the parent too): healthy tables, with and without the entropy
    tuning's rows, more steps an epoch."""
    assert faults(tmp_path, _rlkit()) == []
    assert faults(tmp_path, _rlkit(alpha=False, steps=5000)) == []


# --- rlpyt: rlpyt/utils/logging/logger.py, rlpyt/runners/minibatch_rl.py ---------------------


def _rlpyt(nan_from: int | None = None, reports: int = 20, interval: int = 1000,
           stamped: bool = True) -> list[str]:
    """astooke/rlpyt: ``MinibatchRlBase.log_diagnostics`` (``rlpyt/runners/minibatch_rl.py``)
    records ``Iteration`` first, the run's counts and speeds, the trajectories' stats, then
    each of the algorithm's ``opt_info`` fields through ``record_tabular_misc_stat``
    (``lossAverage``, ``lossStd``, ... ``gradNormAverage``); ``dump_tabular(with_prefix=
    False)`` logs each line of ``tabulate(_tabular)`` through ``log``, which puts ``"%s | %s"
    % (timestamp, out)`` before it (``'%Y-%m-%d %H:%M:%S.%f %Z'``, the zone empty on a naive
    time; ``rlpyt/utils/logging/logger.py``). The iteration counts from 0: ``interval - 1``
    is the first report's."""
    lines = []
    for report in range(reports):
        itr = (report + 1) * interval - 1
        bad = nan_from is not None and itr >= nan_from

        def shown(value: float, bad: bool = bad) -> str:
            return "nan" if bad else str(round(value, 6))

        rows = [("Iteration", str(itr)), ("CumTime (s)", f"{12.5 * (report + 1):.4f}"),
                ("CumSteps", str((itr + 1) * 256)), ("CumCompletedTrajs", str(3 * report)),
                ("CumUpdates", str(itr + 1)), ("StepsPerSecond", "2034.5"),
                ("ReplayRatio", "8.0"), ("ReturnAverage", str(-100 + report)),
                ("lossAverage", shown(1.0 / (report + 1))), ("lossStd", shown(0.1)),
                ("lossMin", shown(0.01)), ("lossMax", shown(2.0)),
                ("gradNormAverage", shown(0.5)), ("entropyAverage", shown(1.2))]
        stamp = f"2024-03-01 10:{report % 60:02d}:00.123456  | " if stamped else ""
        lines.append(f"{stamp}ppo_pong_0 Optimizing over {interval} iterations.")
        lines += [stamp + line for line in _simple_table(rows)]
    return lines


def test_rlpyt_nan_losses_at_their_iteration(tmp_path: Path) -> None:
    """Before: AMP006 at step 11, the table's rows read one by one behind rllab's timestamp
    (without it too)."""
    assert faults(tmp_path, _rlpyt(5999)) == [("AMP006", 5999)]
    assert faults(tmp_path, _rlpyt(2499, interval=500, stamped=False)) == [("AMP006", 2499)]


def test_rlpyt_controls(tmp_path: Path) -> None:
    """Control (passes on the parent too): healthy tables, with and without the timestamp,
    another logging interval."""
    assert faults(tmp_path, _rlpyt()) == []
    assert faults(tmp_path, _rlpyt(interval=500, stamped=False)) == []


# --- garage: dowel's TabularInput, garage/torch/algos/vpg.py -------------------------------


def _dowel_rows(record: dict[str, str]) -> list[tuple[str, str]]:
    """rlworkgroup/dowel ``src/dowel/tabular_input.py`` ``TabularInput.__str__``: the keys
    sorted, every other key padded with a leader of `` .`` to the widest's width (a blank
    first where its width is odd), then ``tabulate.tabulate(zip(padded_keys, values))``."""
    widest = max(len(key) for key in record)
    rows = []
    for line, (key, value) in enumerate(sorted(record.items())):
        padded, width = key, len(key)
        if line % 2 == 1:
            if width % 2 == 1 and width < widest:
                padded, width = padded + " ", width + 1
            padded += " ." * ((widest - width) // 2)
        rows.append((padded, value))
    return rows


def _garage(nan_from: int | None = None, epochs: int = 20, batch: int = 4000,
            value_function: bool = True) -> list[str]:
    """rlworkgroup/garage: VPG/PPO's ``_train_once`` (``src/garage/torch/algos/vpg.py``)
    records ``tabular.record('/LossBefore', ...)`` ... under the policy's and the value
    function's names, ``log_performance`` the ``Evaluation/`` returns, ``train`` the
    ``TotalEnvSteps``; ``Trainer.step_epochs`` (``src/garage/trainer.py``) logs under the
    prefix ``'epoch #%d | '`` behind dowel's ``StdOutput`` timestamp (``'%s | %s'``), then
    the table (``print(str(self.tabular))``)."""
    lines = []
    for epoch in range(epochs):
        bad = nan_from is not None and epoch >= nan_from

        def shown(value: float, bad: bool = bad) -> str:
            return "nan" if bad else repr(round(value, 6))

        record = {"Evaluation/Iteration": str(epoch), "Evaluation/NumEpisodes": "10",
                  "Evaluation/AverageReturn": repr(-1200.0 + epoch * 10.5),
                  "Evaluation/AverageDiscountedReturn": repr(-300.25 + epoch),
                  "Evaluation/StdReturn": "12.5", "Evaluation/TerminationRate": "0.0",
                  "TotalEnvSteps": str((epoch + 1) * batch),
                  "GaussianMLPPolicy/LossBefore": shown(0.5 / (epoch + 1)),
                  "GaussianMLPPolicy/LossAfter": shown(0.4 / (epoch + 1)),
                  "GaussianMLPPolicy/dLoss": shown(0.1 / (epoch + 1)),
                  "GaussianMLPPolicy/KLBefore": "0.0", "GaussianMLPPolicy/KL": shown(0.01),
                  "GaussianMLPPolicy/Entropy": shown(1.4)}
        if value_function:
            record |= {"GaussianMLPValueFunction/LossBefore": shown(5.0 / (epoch + 1)),
                       "GaussianMLPValueFunction/LossAfter": shown(4.0 / (epoch + 1)),
                       "GaussianMLPValueFunction/dLoss": shown(1.0 / (epoch + 1))}
        prefix = f"2024-03-01 10:{epoch % 60:02d}:00 | [ppo_pendulum] epoch #{epoch} | "
        lines += [prefix + "Obtaining samples...", prefix + "Saving snapshot...",
                  prefix + "Saved", *_simple_table(_dowel_rows(record)),
                  prefix + "Time 12.34 s", prefix + "EpochTime 12.34 s"]
    return lines


def test_garage_nan_losses_at_their_env_steps(tmp_path: Path) -> None:
    """Before: AMP006 at step 13 (a row counted for each table, none numbering it): the
    leader of dots ended the record's rows and ``TotalEnvSteps`` was no step."""
    assert faults(tmp_path, _garage(12)) == [("AMP006", 52000)]
    assert faults(tmp_path, _garage(7, batch=1000, value_function=False)) == [("AMP006", 8000)]


def test_garage_controls(tmp_path: Path) -> None:
    """Control (passes on the parent too): healthy tables, with and without the value
    function's rows, another batch."""
    assert faults(tmp_path, _garage()) == []
    assert faults(tmp_path, _garage(batch=1000, value_function=False)) == []


# --- H2O LLM Studio: llm_studio/train.py run_train -------------------------------------------

_H2O_RAISED = ("NaN caught in loss during training. Please, reduce learning rate, change dtype, "
               "or disable mixed precision. Alternatively, gradient clipping may help to "
               "stabilize training.")


def _h2o(failed: tuple[int, int] | None = None, epochs: int = 3,
         batches: int = 1000) -> list[str]:
    """h2oai/h2o-llmstudio ``llm_studio/train.py`` ``run_train``: ``logger.info(f"Training
    Epoch: {epoch + 1} / {cfg.training.epochs}")``, then a tqdm bar an epoch (``ascii=True,
    desc="train loss"``) written through ``TqdmToLogger`` (``llm_studio/src/utils/
    logging_utils.py``, format ``"%(asctime)s - %(levelname)s: %(message)s"``), its
    description ``f"train loss: {np.mean(losses[-10:]):.2f}"`` updated every 5% of the
    epoch; a non-finite loss past the epoch's 20th batch raises ``LLMTrainingException``
    (``failed``: the epoch and the batch count after which it does), logged with its
    traceback."""
    prefix = "2024-03-01 10:00:00,000 - INFO: "
    lines, every = [], max(batches // 20, 1)
    for epoch in range(epochs):
        lines += [f"{prefix}Training Epoch: {epoch + 1} / {epochs}",
                  f"{prefix}train loss:   0%|          | 0/{batches} [00:00<?, ?it/s]"]
        for done in range(every, batches + 1, every):
            if failed is not None and (epoch, done) > failed:
                return [*lines, "2024-03-01 10:00:05,000 - ERROR: Exception occurred during "
                        "H2O LLM Studio run:", "Traceback (most recent call last):",
                        '  File "/workspace/llm_studio/train.py", line 273, in run_train',
                        "    raise LLMTrainingException(",
                        f"llm_studio.src.utils.exceptions.LLMTrainingException: {_H2O_RAISED}"]
            bar = "#" * (10 * done // batches)
            lines.append(f"{prefix}train loss: {2.5 - (epoch * batches + done) / 2000:.2f}: "
                         f"{100 * done // batches:3d}%|{bar:<10}| {done}/{batches} "
                         f"[00:30<02:50,  5.00it/s]")
    return lines


def test_h2o_llmstudio_nan_loss_exception(tmp_path: Path) -> None:
    """Before: AMP010 (fp16 asked for but not active: the message's "disable mixed
    precision" read as a setting) at step 1500, no AMP006. The step: the one after the last
    the bar showed (the batch that raised is within the next 5%)."""
    assert faults(tmp_path, _h2o((1, 500))) == [("AMP006", 1501)]
    assert faults(tmp_path, _h2o((0, 100), batches=400)) == [("AMP006", 101)]


def test_h2o_llmstudio_controls(tmp_path: Path) -> None:
    """Control (passes on the parent too): healthy epochs, another epoch length."""
    assert faults(tmp_path, _h2o()) == []
    assert faults(tmp_path, _h2o(epochs=1, batches=400)) == []


# --- lingvo: lingvo/core/program.py TrainProgram.Run, base_runner.py _SetStatusMessage -------


def _lingvo(nan_from: int | None = None, skipped_from: int | None = None, every: int = 100,
            total: int = 5000) -> list[str]:
    """tensorflow/lingvo: the train program's status, ``msg = 'step:%6d' % global_step``
    then ``msg += ' %s:%.8g' % (key, val)`` for its eval metrics sorted by key
    (``lingvo/core/program.py`` ``TrainProgram.Run``, the trainer's loop likewise), logged by
    ``_SetStatusMessage`` through ``tf.logging.info`` (``lingvo/core/base_runner.py``); the
    learner adds ``grad_norm/all``, ``var_norm/all`` and ``grad_scale_all`` (0 where
    ``has_nan_or_inf``: the update is dropped; ``lingvo/core/learner.py``)."""
    lines = []
    for step in range(every, total + 1, every):
        bad = nan_from is not None and step >= nan_from
        dropped = bad or (skipped_from is not None and step >= skipped_from)
        loss = math.nan if bad else 3.5 - step / 5000
        metrics = {"fraction_of_correct_next_step_preds": 0.3 + step / 20000,
                   "grad_norm/all": math.nan if dropped else 1.2345,
                   "grad_scale_all": 0.0 if dropped else 1.0,
                   "has_nan_or_inf": 1.0 if dropped else 0.0, "learning_rate": 0.001,
                   "log_pplx": loss, "loss": loss, "num_samples_in_batch": 64,
                   "var_norm/all": 345.678}
        status = f"step:{step:6d}" + "".join(f" {key}:{value:.8g}"
                                             for key, value in sorted(metrics.items()))
        lines.append(f"I0301 10:{step // 100 % 60:02d}:00.123456 140123 base_runner.py:69] "
                     f"{status}")
    return lines


def test_lingvo_nonfinite_gradients_dropped_at_their_step(tmp_path: Path) -> None:
    """Before: nothing where the gradients alone went non-finite (``grad_norm/all`` was no
    gradient norm); the NaN loss was read right already."""
    assert faults(tmp_path, _lingvo(skipped_from=2500)) == [("AMP003", 2500)]
    assert faults(tmp_path, _lingvo(2500)) == [("AMP006", 2500)]


def test_lingvo_controls(tmp_path: Path) -> None:
    """Control (passes on the parent too): healthy status lines, another interval."""
    assert faults(tmp_path, _lingvo()) == []
    assert faults(tmp_path, _lingvo(every=10, total=1000)) == []
