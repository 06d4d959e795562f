"""Logs of frameworks that cannot run here (fairseq, apex, Megatron-LM need CUDA; NCCL needs
GPUs; old DeepSpeed releases need old torch), made from the VERBATIM format strings of their
sources (release and file named next to each string). The numbers follow the frameworks' own
scaler rules (halve on overflow, double after a clean window).
"""

from __future__ import annotations

from collections.abc import Callable

STAMP = "2026-01-01 00:00:{:02d}"


def _fairseq(name: str, line: str, second: int = 0) -> str:
    # fairseq_cli/train.py: format="%(asctime)s | %(levelname)s | %(name)s | %(message)s"
    return f"{STAMP.format(second % 60)} | INFO | {name} | {line}"


def _fairseq_train(update: int, loss: str, scale: float, json_format: bool = False) -> str:
    stats = {"loss": loss, "nll_loss": loss, "ppl": "1.5", "wps": "1.2e+04", "ups": "3.1",
             "wpb": "4096", "bsz": "128", "num_updates": str(update), "lr": "0.0005",
             "gnorm": "0.8" if loss != "nan" else "nan", "loss_scale": f"{scale:g}",
             "train_wall": "3", "gb_free": "10.2", "wall": str(update // 3)}
    if json_format:  # JsonProgressBar.log: json.dumps(OrderedDict(epoch, update, stats...))
        body = ", ".join(f'"{k}": "{v}"' for k, v in stats.items())
        return _fairseq("train_inner", f'{{"epoch": 1, "update": {update / 1000:.3f}, {body}}}')
    # SimpleProgressBar.log: "{}:  {:5d} / {:d} {}".format(prefix, i + 1, size, postfix)
    postfix = ", ".join(f"{k}={v}" for k, v in stats.items())
    return _fairseq("train_inner", f"epoch 001:  {update:5d} / {1000:d} {postfix}")


def fairseq_simple_collapse() -> str:
    """fairseq 0.12 fp16 (DynamicLossScaler, init 128): healthy, then persistent overflow
    until FloatingPointError at the minimum loss scale (trainer.py, dynamic_loss_scaler.py)."""
    out, scale = [], 128.0
    for update in range(10, 110, 10):
        out.append(_fairseq_train(update, f"{9.0 - update / 100:.3f}", scale))
    while scale / 2 >= 0.0001:
        scale /= 2
        out.append(_fairseq("fairseq.trainer",
                            f"NOTE: gradient overflow detected, ignoring gradient, "
                            f"setting loss scale to: {scale}"))
    out.append("Traceback (most recent call last):")
    out.append('  File "fairseq/trainer.py", line 932, in train_step')
    out.append("FloatingPointError: Minimum loss scale reached (0.0001). Your loss is probably "
               "exploding. Try lowering the learning rate, using gradient clipping or increasing "
               "the batch size.")
    return "\n".join(out) + "\n"


def fairseq_json_healthy() -> str:
    """fairseq 0.12 --log-format json, --amp (AMPOptimizer): one overflow per growth window."""
    out, scale = [], 128.0
    for update in range(100, 3100, 100):
        if update % 1000 == 0:
            scale *= 2
        if update % 1000 == 500:
            scale /= 2
            # amp_optimizer.py: "AMP: overflow detected, setting scale to " f"to {new_loss_scale}"
            out.append(_fairseq("fairseq.optim.amp_optimizer",
                                f"AMP: overflow detected, setting scale to to {scale}"))
        out.append(_fairseq_train(update, f"{5.0 - update / 1000:.3f}", scale, json_format=True))
    return "\n".join(out) + "\n"


def apex_amp_underflow() -> str:
    """apex amp O1 (apex/amp/handle.py, dynamic scale 2**16, no floor): start-up back-off,
    healthy steps printed by the user's loop, then overflow on every step."""
    out = ["Selected optimization level O1:  Insert automatic casts around Pytorch functions "
           "and Tensor methods.", "loss_scale             : dynamic"]
    scale = 65536.0
    for _ in range(3):  # start-up back-off
        scale /= 2
        out.append("Gradient overflow.  Skipping step, loss scaler 0 reducing loss scale to "
                   f"{scale}")
    for step in range(4, 40):
        out.append(f"step {step} lr 0.0001")
    for _ in range(20):
        scale /= 2
        out.append("Gradient overflow.  Skipping step, loss scaler 0 reducing loss scale to "
                   f"{scale}")
    return "\n".join(out) + "\n"


def apex_fp16_utils_sawtooth() -> str:
    """apex fp16_utils FP16_Optimizer (fp16_optimizer.py: "OVERFLOW! Skipping step. Attempted
    loss scale: {}, reducing to {}"): one overflow per window, the scale growing back between."""
    out, scale = [], 1024.0
    for _ in range(12):
        out.append(f"OVERFLOW! Skipping step. Attempted loss scale: {scale}, reducing to "
                   f"{scale / 2}")
    return "\n".join(out) + "\n"


def _megatron(iteration: int, loss: float | None, scale: float, skipped: int, nan: int) -> str:
    # megatron/training/training.py training_log()
    line = f" [2026-01-01 00:00:00] iteration {iteration:8d}/{500:8d} |"
    line += f" consumed samples: {iteration * 32:12d} |"
    line += f" elapsed time per iteration (ms): {812.3:.1f} |"
    line += f" learning rate: {1.5e-4:.6E} |"
    line += f" global batch size: {32:5d} |"
    if loss is not None:
        line += " {}: {:.6E} |".format("lm loss", loss)
    line += f" loss scale: {scale:.1f} |"
    line += f" grad norm: {1.234:.3f} |"
    line += f" number of skipped iterations: {skipped:3d} |"
    line += f" number of nan iterations: {nan:3d} |"
    return line


def megatron_startup_healthy() -> str:
    """Megatron-LM fp16 (initial scale 2**32): the start-up back-off over the first log
    intervals, then a sawtooth; one log line per 10 iterations."""
    out, scale = [], 2.0 ** 32
    skipped_per_interval = [10, 7, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0]
    for index, skipped in enumerate(skipped_per_interval):
        scale /= 2 ** skipped
        loss = None if skipped == 10 else 10.0 - index * 0.2
        out.append(_megatron((index + 1) * 10, loss, scale, skipped, 0))
    return "\n".join(out) + "\n"


def megatron_collapse() -> str:
    """Megatron-LM fp16: healthy intervals at scale 2**16, then every iteration skipped, the
    scale halving down to 1 (training.py training_log)."""
    out, scale = [], 2.0 ** 16
    for index in range(4):
        out.append(_megatron((index + 1) * 10, 6.0 - index * 0.1, scale, 0, 0))
    for index in range(4, 6):
        scale /= 2 ** 8
        out.append(_megatron((index + 1) * 10, None, scale, 10, 10))
    return "\n".join(out) + "\n"


def megatron_nan_rank3() -> str:
    """Megatron-LM with --check-for-nan-in-loss-and-grad: rank 3's local loss goes NaN at
    iteration 40 (rerun_state_machine.py: "Rank {r}, node {n}, device {d}, iteration {i}:
    Unexpected result {v} (message='{m}')"), after healthy intervals."""
    out, scale = [], 2.0 ** 16
    for index in range(3):
        out.append(_megatron((index + 1) * 10, 8.0 - index * 0.1, scale, 0, 0))
    out.append("[rank3]: RuntimeError: Rank 3, node node-0, device 3, iteration 40: Unexpected "
               "result nan (message='found NaN in local forward loss calculation')")
    return "\n".join(out) + "\n"


def deepspeed_legacy_two_ranks() -> str:
    """Two ranks of an old DeepSpeed (0.3.16 zero/stage2.py: "[deepspeed] fp16 dynamic loss
    scale overflow! Rank {} Skipping step. Attempted loss scale: {}, reducing to {}", printed
    by every rank; stage3.py "[deepscale] OVERFLOW! Rank {} ..."; engine.py log_dist
    "[Rank {}] step={step}, skipped={n}, lr={lr}, mom={mom}"): the start-up back-off printed
    once per rank, then healthy steps. Healthy."""
    out, scale = [], 4294967296.0
    prefix = "[2026-01-01 00:00:00,000] [INFO] "
    for step in range(1, 7):
        for rank in (0, 1):
            family = "deepspeed] fp16 dynamic loss scale overflow!" if step % 2 else \
                "deepscale] OVERFLOW!"
            out.append(f"{prefix}[stage2.py:1408:step] [{family} Rank {rank} Skipping step. "
                       f"Attempted loss scale: {scale}, reducing to {scale / 2}")
        scale /= 2
    for step in range(10, 60, 10):
        out.append(f"{prefix}[logging.py:60:log_dist] [Rank 0] step={step}, skipped=6, "
                   "lr=[0.0001], mom=[[0.9, 0.999]]")
    return "\n".join(out) + "\n"


def nccl_timeout_after_overflow() -> str:
    """A NCCL watchdog timeout (ProcessGroupNCCL.cpp: logPrefix() + "Watchdog caught collective
    operation timeout: " + work + " ran for {ms} milliseconds before timing out.") after a
    normal DeepSpeed 0.19 overflow line (loss_scaler.py): SYS002, not an AMP fault."""
    out = ["[2026-01-01 00:00:00,000] [INFO] [loss_scaler.py:266:update_scale] [deepspeed] "
           "OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 65536, reducing to 32768"]
    for rank in (1, 2):
        out.append(f"[rank{rank}]:[E101 00:10:00.000000000 ProcessGroupNCCL.cpp:683] "
                   f"[Rank {rank}] Watchdog caught collective operation timeout: "
                   "WorkNCCL(SeqNum=412, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, "
                   "Timeout(ms)=600000) ran for 600031 milliseconds before timing out.")
    return "\n".join(out) + "\n"


def not_amp_overflow_words() -> str:
    """A bf16 run whose log says "overflow" in ways that have nothing to do with loss scaling
    (tokenizer overflowing tokens, a Python OverflowError in a data worker): healthy."""
    return "\n".join([
        "Using bfloat16 Automatic Mixed Precision (AMP)",
        "Truncation was not explicitly activated; return_overflowing_tokens=True keeps the "
        "overflow tokens in a separate field",
        "OverflowError: math range error (sample 1288 skipped by the data worker)",
        "Epoch 0: 100%|##########| 10/10 [00:01<00:00, 9.1it/s, v_num=0, train_loss=0.412]",
    ]) + "\n"


SYNTHETIC: dict[str, Callable[[], str]] = {
    "fairseq_simple_collapse": fairseq_simple_collapse,
    "fairseq_json_healthy": fairseq_json_healthy,
    "apex_amp_underflow": apex_amp_underflow,
    "apex_fp16_utils_sawtooth": apex_fp16_utils_sawtooth,
    "megatron_startup_healthy": megatron_startup_healthy,
    "megatron_collapse": megatron_collapse,
    "megatron_nan_rank3": megatron_nan_rank3,
    "deepspeed_legacy_two_ranks": deepspeed_legacy_two_ranks,
    "nccl_timeout_after_overflow": nccl_timeout_after_overflow,
    "not_amp_overflow_words": not_amp_overflow_words,
}
