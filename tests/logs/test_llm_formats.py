"""LLM pre-training and fine-tuning stacks, on excerpts written from their own format strings
(each case names the source it follows): the fault's id at the step the log prints, and
silence on the healthy controls.

The steps here are the hard part: these tools print a step in places the generic reader did
not look (a line of its own above a multi-line record, a bracket before the metrics, a
tqdm_loggable count, a ``current_steps`` key), or print a per-interval runtime that read as
a run's closing summary.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from excerpts import diagnose_lines, faults

NAN = float("nan")


def _falling(n: int, start: float = 3.0) -> list[float]:
    return [start - 0.01 * i for i in range(n)]


# --- OLMo: olmo/train.py Trainer.log_metrics_to_console -----------------------------------------
# log.info(f"{prefix}\n" + "\n".join(f"    {name}={format_float(value)}" ...)) with the prefix
# f"[step={self.global_step}/{self.max_steps}]", every console_log_interval steps.
def _olmo_float(value: float) -> str:
    # format_float: str() below 1e-4, else by size; a NaN falls through to f"{value:.4f}"
    if math.isnan(value):
        return f"{value:.4f}"
    if value < 0.0001:
        return str(value)
    if value > 1000:
        return f"{int(value):,d}"
    if value > 100:
        return f"{value:.1f}"
    return f"{value:.3f}" if value > 1 else f"{value:.4f}"


def _olmo(losses: list[float], first: int, every: int) -> list[str]:
    lines = []
    for i, loss in enumerate(losses):
        step = first + i * every
        lines.append(f"2024-02-01 10:{i:02d}:00.000\tjupiter-cs-aus-1:0\tolmo.train:INFO\t"
                     f"[step={step}/739328]")
        perplexity = math.exp(loss) if not math.isnan(loss) else NAN
        for name, value in (("train/CrossEntropyLoss", loss), ("train/Perplexity", perplexity),
                            ("throughput/total_tokens", step * 4194304.0),
                            ("throughput/device/tokens_per_second", 2345.6),
                            ("throughput/device/batches_per_second", 0.5),
                            ("System/Peak GPU Memory (MB)", 41234.0)):
            lines.append(f"    {name}={_olmo_float(value)}")
    return lines


# --- fms-fsdp: fms_fsdp/utils/train_utils.py train() --------------------------------------------
# print("step:", batch_idx); print("loss:", current_loss); print("LR:", current_lr); ...
def _fms(losses: list[float], first: int, every: int) -> list[str]:
    lines = []
    for i, loss in enumerate(losses):
        step = first + i * every
        lines += [f"step: {step}", f"loss: {loss}", "LR: 0.0003",
                  f"tokens seen: {step * 1048576}", "gradient norm: 0.45",
                  "reserved memory: 71234567168", "allocated memory: 60123456789",
                  "current step time: 1.234", "overall step time: 1.25",
                  "current token per gpu per sec: 3456", "overall token per gpu per sec: 3400",
                  "overall token per day: 1234567890"]
    return lines


# --- CLU LoggingWriter.write_scalars (t5x and other JAX loops) ----------------------------------
# logging.info("[%d]%s %s", step, self._collection_str, ", ".join(f"{k}={v:.6g}" ...)), sorted
def _clu(losses: list[float], first: int, every: int) -> list[str]:
    return [f"I0601 10:00:00.000000 139 logging_writer.py:48] [{first + i * every}] "
            f"collection=train accuracy=0.512, cross_ent_loss={loss:.6g}, "
            f"learning_rate=0.001, loss={loss:.6g}, timing/seconds=12.3"
            for i, loss in enumerate(losses)]


# --- big_vision: big_vision/utils.py BigVisionMetricWriter.measure ------------------------------
# logging.info(f"\u001b[35m[{self.step}]\u001b[0m {name} = {value}"), one metric a line
def _big_vision(losses: list[float], first: int, every: int) -> list[str]:
    lines = []
    for i, loss in enumerate(losses):
        step = first + i * every
        for name, value in (("training_loss", loss), ("l2_grads", 1.23), ("lr", 0.001)):
            lines.append(f"I0601 10:00:00.000000 139 utils.py:1000] \x1b[35m[{step}]\x1b[0m "
                         f"{name} = {value}")
    return lines


# --- levanter: callbacks pbar_logger through tqdm_loggable's tqdm_logging.display -------------
# logger.log(level, "Progress on:%s %s/%s rate:%s remaining:%s elapsed:%s postfix:%s", name,
# format_sizeof(n, unit, 1000), format_sizeof(total, ...), ...), postfix "loss=..."
def _sizeof(num: float) -> str:
    # tqdm's format_sizeof(num, suffix="it", divisor=1000)
    for prefix in ("", "k", "M"):
        if abs(num) < 999.5:
            if abs(num) < 99.95:
                if abs(num) < 9.995:
                    return f"{num:1.2f}{prefix}it"
                return f"{num:2.1f}{prefix}it"
            return f"{num:3.0f}{prefix}it"
        num /= 1000
    return f"{num:3.1f}Git"


def _levanter(losses: list[float], first: int, every: int) -> list[str]:
    return [f"2024-01-01T10:00:00 - 0 - levanter.callbacks._metrics - INFO :: Progress on:train "
            f"{_sizeof(first + i * every)}/{_sizeof(10000)} rate:1.2it/s remaining:1:00:00 "
            f"elapsed:0:10:00 postfix:loss={loss}" for i, loss in enumerate(losses)]


# --- LLaMA-Factory: extras/callbacks.py LogCallback.on_log, trainer_log.jsonl -------------------
# logs = dict(current_steps=..., total_steps=..., loss=..., lr=..., epoch=..., percentage=...,
# elapsed_time=..., remaining_time=...); the None values dropped; json.dumps per line
def _llama_factory(losses: list[float], first: int, every: int) -> list[str]:
    return [json.dumps({"current_steps": first + i * every, "total_steps": 3000, "loss": loss,
                        "lr": 5e-05, "epoch": round(0.01 * i, 2), "percentage": 1.0,
                        "elapsed_time": "0:01:00", "remaining_time": "0:10:00"})
            for i, loss in enumerate(losses)]


# --- PaddleNLP Trainer: trainer/trainer.py _maybe_log_save_evaluate -> logger.info ---------------
# ", ".join(f"{k}: {v}") of loss, learning_rate, global_step, interval_runtime,
# interval_samples_per_second, interval_steps_per_second, epoch
def _paddlenlp(losses: list[float], first: int, every: int) -> list[str]:
    return [f"[2022-08-31 16:19:16,008] [    INFO] - loss: {loss:.8f}, learning_rate: 3e-05, "
            f"global_step: {first + i * every}, interval_runtime: 2.2591, "
            f"interval_samples_per_second: 3.541, interval_steps_per_second: 4.427, "
            f"epoch: {0.01 * i:.4f}" for i, loss in enumerate(losses)]


MAKERS = {"OLMo": _olmo, "fms-fsdp": _fms, "CLU": _clu, "big_vision": _big_vision,
          "levanter": _levanter, "LLaMA-Factory": _llama_factory, "PaddleNLP": _paddlenlp}


@pytest.mark.parametrize("tool", MAKERS)
def test_a_nan_loss_is_amp006_at_the_printed_step(tmp_path: Path, tool: str) -> None:
    # eight finite records, then NaN: the ninth record's step, as the tool printed it
    lines = MAKERS[tool]([*_falling(8), NAN, NAN, NAN, NAN], 100, 50)
    assert faults(tmp_path, lines)[:1] == [("AMP006", 500)], tool


@pytest.mark.parametrize("tool", MAKERS)
def test_a_healthy_run_is_silent(tmp_path: Path, tool: str) -> None:
    result = diagnose_lines(tmp_path, MAKERS[tool](_falling(20), 1000, 10))
    assert result.faults == [], tool
    assert result.timeline.steps >= 1190, tool  # the printed steps, not one per record


def test_levanter_counts_above_a_thousand_are_read_to_three_digits(tmp_path: Path) -> None:
    # "1.20kit" is what tqdm prints for 1195 to 1204: the nearest step it can mean
    lines = _levanter([*_falling(4), NAN, NAN], 1000, 50)
    assert faults(tmp_path, lines)[:1] == [("AMP006", 1200)]


def test_a_step_line_far_above_is_not_a_records_step(tmp_path: Path) -> None:
    # "Saving checkpoint at step: 500", then dozens of lines, then a loss line without a step:
    # the loss line is not that step's record
    lines = ["Saving checkpoint at step: 500", *(f"note {i}" for i in range(40)),
             *(f"loss: {v}" for v in [*_falling(5), NAN])]
    assert faults(tmp_path, lines)[:1] == [("AMP006", 6)]


def test_a_launcher_rank_in_brackets_is_not_a_step(tmp_path: Path) -> None:
    # horovodrun's "[1]<stdout>:" tag: a rank, not a step
    lines = [f"[0]<stdout>:loss={v}" for v in [*_falling(5), NAN]]
    assert faults(tmp_path, lines)[:1] == [("AMP006", 6)]


# --- GPT-NeoX: megatron/logging.py training_log -------------------------------------------------
# " iteration {:8d}/{:8d} |" ... " {}: {:.6E} |".format(key, avg) with avg = the interval's
# summed loss / max(1, log_interval - skipped), " loss scale: {:.1f} |" (fp16),
# " number of skipped iterations: {:3d} |", " number of nan iterations: {:3d} |"
def _neox(rows: list[tuple[float, float, int]], first: int, every: int) -> list[str]:
    return [f" samples/sec: 102.345 | iteration {first + i * every:8d}/  320000 | elapsed time "
            f"per iteration (ms): 1234.5 | learning rate: 6.000E-04 | approx flops per GPU: "
            f"120.3TFLOPS | lm_loss: {loss:.6E} | loss scale: {scale:.1f} | number of skipped "
            f"iterations: {skipped:3d} | number of nan iterations:   0 |"
            for i, (loss, scale, skipped) in enumerate(rows)]


def test_neox_interval_with_every_iteration_skipped_is_no_zero_loss(tmp_path: Path) -> None:
    # fp16 gradients overflow on every iteration from 1041: the scale collapses, and each
    # all-skipped interval prints its empty average as lm_loss 0 (no loss of 0: not AMP007)
    rows = [(2.3, 65536.0, 0)] * 5 + [(0.0, max(65536.0 / 2 ** (10 * k), 1.0), 10)
                                      for k in range(1, 12)]
    assert faults(tmp_path, _neox(rows, 1000, 10)) == [("AMP003", 1041)]


def test_neox_healthy_sawtooth_and_one_skip_are_silent(tmp_path: Path) -> None:
    # one skipped iteration in an interval of 100: the average is over the 99 others
    rows = [(2.3 - 0.01 * i, 32768.0 if i % 12 < 10 else 65536.0, int(i % 12 == 0))
            for i in range(40)]
    assert faults(tmp_path, _neox(rows, 1000, 100)) == []


# --- OLMo-core: train/callbacks/console_logger.py ConsoleLoggerCallback.log_metrics --------------
# log.info(f"{prefix}\n" + "\n".join(f"    {name}={format_float(value)}" ...)) with the prefix
# f"[step={step}/{max_steps or '???'},epoch={epoch},eta={eta_str}]"
def _olmo_core(losses: list[float], first: int, every: int) -> list[str]:
    lines = []
    for i, loss in enumerate(losses):
        step = first + i * every
        lines.append("2025-01-01 10:00:00.000\tnode-0:0\tolmo_core.train.callbacks.console_logger"
                     f":INFO\t[step={step}/100000,epoch=0,eta=1d2h3m]")
        for name, value in (("train/CE loss", loss), ("train/Z loss", 0.0001),
                            ("optim/total grad norm", 0.3), ("optim/LR (group 0)", 0.0003),
                            ("throughput/total tokens", step * 4e6)):
            lines.append(f"    {name}={_olmo_float(value)}")
    return lines


def test_olmo_core_nan_at_the_printed_step(tmp_path: Path) -> None:
    assert faults(tmp_path, _olmo_core([*_falling(8), NAN, NAN], 100, 50))[:1] == [
        ("AMP006", 500)]


def test_olmo_core_healthy_is_silent(tmp_path: Path) -> None:
    assert faults(tmp_path, _olmo_core(_falling(20), 1000, 10)) == []


# --- InternLM / InternEvo: train.py record_current_batch_training_metrics, and the optimizer ------
# line += f"{key}={value} " for tflops, step, loss, tgs, lr, loss_scale, grad_norm, ...;
# hybrid_zero_optim.py: logger.warning("Overflow occurs, please check it.") before the metrics
_INTERN_OVERFLOW = ("2023-07-07 12:29:01,600\tWARNING hybrid_zero_optim.py:618 in step -- "
                    "Overflow occurs, please check it.")


def _intern(steps: range, overflows: set[int], scale: float = 65536.0) -> list[str]:
    lines = []
    for step in steps:
        if step in overflows:
            lines.append(_INTERN_OVERFLOW)
            scale /= 2
        lines.append("2023-07-07 12:29:01,636\tINFO train.py:323 in "
                     f"record_current_batch_training_metrics -- tflops=189.8 step={step} "
                     f"loss=2.1 tgs (tokens/gpu/second)=4274.45 lr=6e-07 loss_scale={scale} "
                     "grad_norm={'0_default': 0.65} micro_num=4 inf_nan_skip_batches=0 "
                     "adam_beta2=0.95 fwd_bwd_time=3.67")
    return lines


def test_internlm_overflow_on_every_step_is_a_collapse(tmp_path: Path) -> None:
    found = faults(tmp_path, _intern(range(100, 130), set(range(110, 130))))
    assert found[:1] == [("AMP003", 110)]


def test_internlm_start_up_back_off_is_silent(tmp_path: Path) -> None:
    assert faults(tmp_path, _intern(range(0, 40), {0, 1, 2})) == []


# --- MindFormers: core/callback/callback.py MFLossMonitor.print_output_info ---------------------
# logger.info("{ Epoch:[%3d/%3d], step:[%5d/%5d], loss: %5.3f, per_step_time: %dms, lr: %s, "
#             "overflow cond: %s, loss_scale: %s, global_norm: %s%s", ...): the overflow flag
# of MindSpore's TrainOneStepWithLossScaleCell (the optimizer skipped the step)
def _mindformers(rows: list[tuple[float, bool, float]], first: int) -> list[str]:
    return ["2024-05-01 10:00:00,000 - mindformers[mindformers/core/callback/callback.py:330] "
            f"- INFO - {{ Epoch:[  1/  2], step:[{first + i:5d}/ 2000], loss: {loss:5.3f}, "
            f"per_step_time: 512ms, lr: 1e-05, overflow cond: {overflow}, loss_scale: {scale}, "
            "global_norm: [0.54], train_throughput_per_npu: 120.3T"
            for i, (loss, overflow, scale) in enumerate(rows)]


def test_mindformers_overflow_on_every_step_at_a_static_scale(tmp_path: Path) -> None:
    # a fixed loss scale (FixedLossScaleUpdateCell): the scale never moves, every step from
    # 110 is skipped; only the flag says so
    rows = [(2.0, i >= 10, 1024.0) for i in range(30)]
    assert faults(tmp_path, _mindformers(rows, 100))[:1] == [("AMP003", 110)]


def test_mindformers_one_overflow_and_a_start_up_back_off_are_silent(tmp_path: Path) -> None:
    one = [(2.0 - 0.01 * i, i == 10, 65536.0 if i < 10 else 32768.0) for i in range(30)]
    start = [(10.0 - 0.1 * i, i < 4, 2.0 ** (32 - min(i, 4))) for i in range(25)]
    assert faults(tmp_path, _mindformers(one, 100)) == []
    assert faults(tmp_path, _mindformers(start, 1)) == []


def test_an_overflow_setting_is_no_skipped_step(tmp_path: Path) -> None:
    # a setting that holds the word, on a line with a step, is no overflow of that step
    lines = [f"step={i}, loss={2.0 - 0.01 * i}, check_grad_overflow=True, skip_overflow=True, "
             f"loss_scale=1024.0" for i in range(30)]
    assert faults(tmp_path, lines) == []


def test_a_stray_step_line_numbers_one_record_not_the_batches_after_it(tmp_path: Path) -> None:
    # a loop that prints "training loss: x" every batch (x-transformers' train scripts) and
    # once "step: 100": the line below it is step 100's, the batches after it count on from
    # there one a row (not all at step 100: a record prints each metric once)
    lines = [f"training loss: {v}" for v in _falling(5)]
    lines += ["step: 100", *(f"training loss: {v}" for v in [*_falling(3), NAN, NAN])]
    assert faults(tmp_path, lines)[:1] == [("AMP006", 103)]


def test_ranks_in_brackets_are_not_steps(tmp_path: Path) -> None:
    # two ranks printing "[0] loss: x" and "[1] loss: x": the bracket goes back, so it numbers
    # something else than steps; the NaN is not put at "step 0"
    lines = [f"[{rank}] loss: {v}" for v in [*_falling(8), NAN, NAN] for rank in (0, 1)]
    found = faults(tmp_path, lines)
    assert found[0][0] == "AMP006" and found[0][1] not in (0, 1), found


def test_clu_train_and_eval_lines_of_one_step(tmp_path: Path) -> None:
    # CLU writes each collection at the step: the same bracket twice is no step going back
    lines = []
    for i, v in enumerate([*_falling(8), NAN, NAN]):
        step = 1000 + 100 * i
        lines.append(f"I0601 10:00:00.000000 139 logging_writer.py:48] [{step}] collection=train "
                     f"accuracy=0.5, loss={v:.6g}")
        lines.append(f"I0601 10:00:00.000000 139 logging_writer.py:48] [{step}] collection=eval "
                     "accuracy=0.5, loss=2.5")
    assert faults(tmp_path, lines)[:1] == [("AMP006", 1800)]


@pytest.mark.parametrize("tool", ["InternLM", "MindFormers"])
def test_an_overflow_and_its_steps_metrics_line_are_one_step(tmp_path: Path, tool: str) -> None:
    # InternLM's "Overflow occurs" before the step's metrics line; MindFormers' line flagging
    # its own overflow: steps 100 to 129 are 30 steps, 20 of them skipped, not 50
    if tool == "InternLM":
        lines = _intern(range(100, 130), set(range(110, 130)))
    else:
        lines = _mindformers([(2.0, i >= 10, 65536.0 / 2 ** max(0, i - 9)) for i in range(30)],
                             100)
    result = diagnose_lines(tmp_path, lines)
    assert (result.timeline.steps, result.timeline.skipped) == (129, 20)
    assert [(d.code, d.step) for d in result.faults][:1] == [("AMP003", 110)]
