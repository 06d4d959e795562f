"""Adversarial review of the log doctor's rules merged on 2026-12-07 with h50-sample24
(d45669e..44b0b7b, issue #27): ``raised_nonfinite`` (an exception's message saying a NaN was
detected or found) and ``lone_perplexity`` (a NaN perplexity alone under its step). Excerpts
are built from real tools' own format strings where a new rule should not fire, or fires
wrongly. Each problem found is a strict xfail holding the right answer.

Problems held here (strict xfails), all three fixed by h50-fix50d (marks removed): the
environment's arrays SB3 names (observations, rewards, dones) are excluded like an
evaluation split; the exception is matched where ``launcher_ranks.rank_prefix_end`` says a
prefix ends; ``[final]`` stands for the step (none). The finding stays at 201, the row after
the last printed, where torch's own errors go on the last row (200): the loop's own stops
said before their row (DINOv2's ``NaN detected``, the message table's ``in_step`` rows, a C++
``isnan`` check) all take the step after the last read; torch_errors' flags are the odd ones,
left as they are (a wider change).


- raised_nonfinite, stable-baselines3's ``VecCheckNan(raise_exception=True)``: its
  ``ValueError: found nan in observations.`` names the array the ENVIRONMENT handed over
  (``Originated from the environment observation (at reset)``, or ``environment, Last given
  value was: action=...``): input data, no training value. 44b0b7b says AMP006 (at step 1 on
  a paste holding only the traceback; at the row after SB3's last table otherwise); d45669e
  said nothing (a read paste, no finding). The rule reads only the message's first line;
  the origin SB3 names is on the next.
- raised_nonfinite behind torchrun ``--tee 2`` (pytorch ``tail_log.py``: stderr alone tailed
  under ``[{role}{local_rank}]:``, ``[default0]:`` or, with ``--role rank`` as torchchat's
  ``run_dist.sh`` sets, ``[rank0]:``; stdout bare): the training rows print bare and the
  traceback's ``[default0]:ValueError: Nan values detected in similarity_scores.`` is missed
  (``_RAISED`` is anchored at the line's start): silent where it should be AMP006 201 (as
  bare, and as with every line prefixed). Torch's own errors in that layout are read (the
  clip_grad_norm_ control: AMP006 200). Not a regression (d45669e: silent too).

- lone_perplexity on its own tool's other line (0x0shephard/assignment ``train_sft.py``):
  ``[final] response-token PPL: nan  (41.2 min)`` (the evaluation after the loop, its NaN
  first there when it turns after the last ``--eval_every``) is unread: "nothing to
  diagnose" (d45669e alike), where it is the evaluation's AMP013. The rule needs a step.

Rules tried that held (quiet where healthy, the fault at its step as before or better):

- raised_nonfinite on SB3's own NaN from the MODEL (``Originated from the RL model``): AMP006
  (a training fault: right). Tracebacks with a rank prefix (Determined's ``wrap_rank.py``
  ``[rank=N] ``, Slurm's ``srun -l`` ``N: ``, torchrun ``--tee 3``'s ``[default0]:``) are
  read like bare ones; the same traceback repeated by two ranks gives one AMP006. Torch's
  anomaly-detection RuntimeError (``Function 'MulBackward0' returned nan values in its 0th
  output``) is not matched by the rule (no finding verb), so the existing reading (AMP006 at
  the last row) stands unchanged, as do ``clip_grad_norm_(error_if_nonfinite=True)``'s and
  Lightning's ``detect_nan_parameters`` errors. sklearn's ``Input contains NaN`` and scipy's
  ``array must not contain infs or NaNs`` have no finding verb: silent. Speed: 20,000 lines
  (3.4 MB) of ``ValueError: Error: Nan nan nan ...`` and 10,000 lines (5.8 MB) of
  ``RuntimeError: NaN<60 spaces>values ...`` x8 (both reach ``_FINDING.search``): 14.5 s and
  8.0 s on 44b0b7b against 12.5 s and 9.8 s on d45669e; without re2 10.8 s and 15.4 s against
  20.2 s and 12.3 s (2 shared cores: noise, no trend, no backtracking blow-up).
- lone_perplexity: needs ``[step N]``/``step N:`` and nothing but one perplexity key; a
  fairseq/Megatron perplexity column sits beside its loss and is not this rule's. No real
  tool found that prints a TRAINING perplexity alone under ``[step N]`` (``running ppl``,
  ``batch ppl`` would be read as evaluation's AMP013: a risk, not shown from a real source).
  20,000 lines of ``[step N] a b c pl pl ... ppl: nan x`` (2.4 MB; ``"pl"`` passes its
  prefilter on most lines, the anchored match fails fast): 6.9 s against 9.2 s on d45669e.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from excerpts import faults

from denpex_callbacks.logs.doctor import diagnose


def _all_faults(tmp_path: Path, lines: list[str]) -> list[tuple[str, int | None]]:
    """(id, step) of each diagnosis above info, where the doctor may also find nothing to
    read (SB3's tables are no metric lines it reads: "nothing to diagnose" is silence)."""
    path = tmp_path / "excerpt.log"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return [(d.code, d.step) for d in diagnose(str(path)).faults]


def sb3_table(values: dict[str, dict[str, str]]) -> list[str]:
    """stable-baselines3's ``HumanOutputFormat.write`` table (DLR-RM/stable-baselines3
    ``stable_baselines3/common/logger.py``): a dashed line, ``| {section}/ |`` headers and
    ``|    {key} | {value} |`` rows padded to the widest key and value, a dashed line."""
    keys = [f"{s}/" for s in values] + [f"    {k}" for v in values.values() for k in v]
    vals = [v for sec in values.values() for v in sec.values()]
    kw, vw = max(map(len, keys)), max(map(len, vals))
    out = ["-" * (kw + vw + 7)]
    for section, rows in values.items():
        out.append(f"| {section + '/':<{kw}} | {'':<{vw}} |")
        out += [f"| {'    ' + k:<{kw}} | {v:<{vw}} |" for k, v in rows.items()]
    return [*out, "-" * (kw + vw + 7)]


def sb3_check_nan(event: str, found: list[tuple[str, str]]) -> list[str]:
    """The traceback of stable-baselines3's ``VecCheckNan(raise_exception=True)``
    (DLR-RM/stable-baselines3 ``stable_baselines3/common/vec_env/vec_check_nan.py``,
    ``_check_val``): ``msg += f"found {type_val} in {name}"`` joined by ``", "``, then
    ``".\\r\\nOriginated from the "`` and, by event, ``"environment observation (at reset)"``,
    ``f"environment, Last given value was: \\r\\n\\taction={self._actions}"`` or ``f"RL
    model, Last given value was: \\r\\n\\tobservations={self._observations}"``; ``raise
    ValueError(msg)``."""
    msg = ", ".join(f"found {kind} in {name}" for name, kind in found)
    msg += ".\r\nOriginated from the "
    if event == "reset":
        msg += "environment observation (at reset)"
    elif event == "step_wait":
        msg += "environment, Last given value was: \r\n\taction=[[ 0.31 -0.72]]"
    else:
        msg += "RL model, Last given value was: \r\n\tobservations=[[ 0.02  0.11 -0.04]]"
    frames = ["Traceback (most recent call last):",
              '  File "train_ppo.py", line 41, in <module>',
              "    model.learn(total_timesteps=200_000)",
              '  File ".../stable_baselines3/common/vec_env/vec_check_nan.py", line 86, in '
              "_check_val", "    raise ValueError(msg)"]
    return frames + ("ValueError: " + msg).replace("\r\n", "\n").split("\n")


def sb3_rollout(iteration: int) -> list[str]:
    """One PPO iteration's table (``rollout/``, ``time/``, ``train/``) at n_steps=1024."""
    return sb3_table({
        "rollout": {"ep_len_mean": "200", "ep_rew_mean": f"{-1200 + 40 * iteration:.3g}"},
        "time": {"fps": "812", "iterations": str(iteration), "time_elapsed": str(iteration),
                 "total_timesteps": str(1024 * iteration)},
        "train": {"approx_kl": "0.0061", "entropy_loss": "-2.81", "learning_rate": "0.0001",
                  "loss": f"{0.9 - 0.05 * iteration:.3g}", "value_loss": "3.2"},
    })


def test_sb3_env_nan_at_reset_is_no_training_fault(tmp_path: Path) -> None:
    lines = ["Using cuda device", *sb3_check_nan("reset", [("observations", "nan")])]
    assert _all_faults(tmp_path, lines) == []


def test_sb3_env_nan_reward_midrun_is_no_training_fault(tmp_path: Path) -> None:
    lines = ["Using cuda device", *sb3_rollout(1), *sb3_rollout(2)]
    lines += sb3_check_nan("step_wait", [("rewards", "nan")])
    assert _all_faults(tmp_path, lines) == []


def test_sb3_env_inf_in_dict_space_member_is_no_training_fault(tmp_path: Path) -> None:
    """SB3's other wordings from the environment: ``inf`` (``check_inf``) listed before
    ``nan``, a dict space's ``observations.{key}``, the dones beside them (step_wait)."""
    found = [("observations.image", "inf"), ("observations.image", "nan"), ("dones", "nan")]
    lines = ["Using cuda device", *sb3_rollout(1), *sb3_check_nan("step_wait", found)]
    assert _all_faults(tmp_path, lines) == []


def test_sb3_healthy_run_stays_silent(tmp_path: Path) -> None:
    """Control: SB3's tables alone (non-default n_steps, three iterations)."""
    lines = ["Using cuda device", *sb3_rollout(1), *sb3_rollout(2), *sb3_rollout(3)]
    assert _all_faults(tmp_path, lines) == []


def test_sb3_model_nan_is_training_fault(tmp_path: Path) -> None:
    """Guard (held): the RL MODEL's NaN action is a training fault."""
    lines = ["Using cuda device", *sb3_check_nan("step_async", [("actions", "nan")])]
    assert [code for code, _ in _all_faults(tmp_path, lines)] == ["AMP006"]


def dual_encoder(prefix: str, rows: int = 2, *, err_prefix: str | None = None) -> list[str]:
    """00VALAK00/Dual-Encoder ``scripts/train.py``'s ``raise ValueError("Nan values detected
    in similarity_scores.")`` (its traceback, on stderr) after ``rows`` rows of a plain
    ``print(f"step {step} | loss {loss:.2f}")`` loop (stdout), each line under a launcher's
    rank ``prefix`` (Determined ``harness/determined/launch/wrap_rank.py``: ``f"[rank={rank}]
    "``; Slurm ``srun -l``: ``"0: "``; torchrun ``--tee``: pytorch/pytorch
    ``torch/distributed/elastic/multiprocessing/tail_log.py``'s ``header=f"[{self._name}
    {local_rank}]:"`` written as ``f"{header}{line}"``, the name torchrun's ``--role``,
    ``default`` unless set). ``err_prefix`` prefixes the stderr lines alone (``--tee 2``: only
    stderr is tailed; stdout is the worker's own, bare)."""
    out = [f"step {100 * (i + 1)} | loss {2.31 - 0.1 * i:.2f}" for i in range(rows)]
    err = ["Traceback (most recent call last):", '  File "scripts/train.py", line 120, in '
           "<module>", "    raise ValueError(\"Nan values detected in similarity_scores.\")",
           "ValueError: Nan values detected in similarity_scores."]
    err_prefix = prefix if err_prefix is None else err_prefix
    return [prefix + line for line in out] + [err_prefix + line for line in err]


@pytest.mark.parametrize("prefix", ["", "[rank=0] ", "0: ", "[default0]:", "[rank0]:"])
def test_rank_prefixed_traceback_read_as_bare(tmp_path: Path, prefix: str) -> None:
    """Guard (held): a launcher's rank prefix changes nothing."""
    assert faults(tmp_path, dual_encoder(prefix)) == [("AMP006", 201)]


def test_traceback_repeated_by_two_ranks_is_one_finding(tmp_path: Path) -> None:
    """Guard (held): rank 1's copy of the traceback adds no second finding."""
    lines = dual_encoder("[rank=0] ") + dual_encoder("[rank=1] ", rows=0)
    assert faults(tmp_path, lines) == [("AMP006", 201)]


@pytest.mark.parametrize("role", ["default", "rank"])
def test_torchrun_stderr_only_prefix_still_read(tmp_path: Path, role: str) -> None:
    assert faults(tmp_path, dual_encoder("", err_prefix=f"[{role}0]:")) == [("AMP006", 201)]


def test_torchrun_stderr_only_prefix_evaluation_check_silent(tmp_path: Path) -> None:
    """Control: past the prefix the rule's exclusions still hold (``--role rank``: an
    evaluation's check, a split named, raised behind ``[rank0]:`` on stderr alone)."""
    lines = dual_encoder("", rows=3, err_prefix="[rank0]:")[:-1]
    lines.append("[rank0]:ValueError: NaN found in val predictions at epoch 2")
    assert _all_faults(tmp_path, lines) == []


def test_torchrun_stderr_only_prefix_torch_error_read(tmp_path: Path) -> None:
    """Control (held before and now): the same layout with torch's clip_grad_norm_ error
    (``error_if_nonfinite=True``: torch ``nn/utils/clip_grad.py``) is read at the last row."""
    error = ("[default0]:RuntimeError: The total norm of order 2.0 for gradients from "
             "`parameters` is non-finite, so it cannot be clipped. To disable this error and "
             "scale the gradients by the non-finite norm anyway, set `error_if_nonfinite=False`")
    lines = [*dual_encoder("", err_prefix="[default0]:")[:3], error]
    assert faults(tmp_path, lines) == [("AMP006", 200)]


def shephard_sft(eval_every: int, ppls: list[float], final: float) -> list[str]:
    """0x0shephard/assignment ``train_sft.py``'s own prints around its tqdm bar: ``f"[init]
    response-token PPL (partial): {ppl_init:.2f}"``, every ``--eval_every`` optimizer steps
    ``f"  [step {step}] response-token PPL (partial): {ppl:.2f}"``, then ``f"[final]
    response-token PPL: {ppl_final:.2f}  ({dt/60:.1f} min)"`` (after ``print(f"Device:
    {device}")`` and ``print(f"train={len(train_triples)}  eval={len(eval_triples)}")``)."""
    lines = ["Device: cuda", "Loading HH-RLHF triples...", "train=160800  eval=64",
             "[init] response-token PPL (partial): 7.31"]
    lines += [f"  [step {eval_every * (i + 1)}] response-token PPL (partial): {ppl:.2f}"
              for i, ppl in enumerate(ppls)]
    return [*lines, f"[final] response-token PPL: {final:.2f}  (41.2 min)"]


def test_shephard_final_nan_perplexity_is_evaluations(tmp_path: Path) -> None:
    lines = shephard_sft(50, [6.02, 5.87, 5.71], math.nan)
    assert [code for code, _ in _all_faults(tmp_path, lines)] == ["AMP013"]


def test_shephard_nan_under_step_held(tmp_path: Path) -> None:
    """Guard (held): the rule's own case at ``--eval_every 50``: AMP013 at its step."""
    lines = shephard_sft(50, [6.02, 5.87, math.nan], math.nan)
    assert faults(tmp_path, lines) == [("AMP013", 150)]


def test_shephard_healthy_silent(tmp_path: Path) -> None:
    """Control: a healthy run at ``--eval_every 50``."""
    assert _all_faults(tmp_path, shephard_sft(50, [6.02, 5.87, 5.71], 5.69)) == []
