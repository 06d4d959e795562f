"""What a new user saw when adding the live callbacks to small real CPU training runs.

Each test trains a real framework on CPU (plain torch, accelerate, Lightning) with one realistic
fault and holds the answer the user needed. The ones marked xfail are wrong today: the reason
says what the package answered instead.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path
from typing import Any

import pytest

torch = pytest.importorskip("torch")
F = torch.nn.functional

from denpex_callbacks.core.diagnosis import Diagnosis  # noqa: E402
from denpex_callbacks.logs.doctor import diagnose  # noqa: E402
from denpex_callbacks.torch import AmpMonitor  # noqa: E402

BATCH = 16
BAD_STEP = 20


def _data(steps: int, nan_batch: bool = True) -> tuple[Any, Any]:
    """Standardised regression data; ``nan_batch``: one NaN feature in the batch of BAD_STEP."""
    gen = torch.Generator().manual_seed(1)
    x = torch.randn(steps * BATCH, 32, generator=gen)
    y = x[:, :4].sum(1, keepdim=True) * 0.5
    if nan_batch:
        x[BAD_STEP * BATCH + 3, 5] = float("nan")
    return x, y


def _plain_loop(
    *, dtype: Any, scaler: Any, weight_gain: float = 1.0, steps: int = 30,
    nan_batch: bool = True, lr: float = 1e-3, printed: list[str] | None = None,
    **monitor_kwargs: Any,
) -> AmpMonitor:
    """A plain autocast loop on CPU: GELU MLP, AdamW, loss in float32.

    ``printed`` collects the line a plain script prints each step (step, loss, scale).
    """
    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Linear(32, 64), torch.nn.GELU(), torch.nn.Linear(64, 1))
    with torch.no_grad():
        model[0].weight.mul_(weight_gain)
    opt = torch.optim.AdamW(model.parameters(), lr=lr)
    monitor = AmpMonitor(scaler=scaler, optimizer=opt, model=model, **monitor_kwargs)
    x_all, y_all = _data(steps, nan_batch)
    for step in range(steps):
        rows = slice(step * BATCH, (step + 1) * BATCH)
        with torch.autocast("cpu", dtype=dtype):
            loss = F.mse_loss(model(x_all[rows]).float(), y_all[rows])
        _update(loss, scaler, opt)
        monitor.step(loss)
        if printed is not None:
            printed.append(f"step {step} loss {loss.item():.4f} scale {scaler.get_scale()}")
    monitor.close()
    return monitor


def _update(loss: Any, scaler: Any, opt: Any) -> None:
    """One optimizer step, through the scaler when there is one."""
    if scaler is None:
        loss.backward()
        opt.step()
    else:
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
    opt.zero_grad()


def _first(monitor: AmpMonitor, code: str) -> Diagnosis:
    return next(d for d in monitor.diagnoses if d.code == code)


def test_fp16_overflow_at_step_0_from_huge_initial_weights_is_not_blamed_on_the_lr() -> None:
    """A module whose initial weights are scaled up (1e5) overflows fp16 in its first forward."""
    monitor = _plain_loop(dtype=torch.float16, scaler=torch.amp.GradScaler("cpu"),
                          weight_gain=1e5, nan_batch=False, steps=20, report_dir=None)
    first = _first(monitor, "AMP006")
    assert first.step == 0
    assert "<model>.0" in (first.located or "")  # the locator finds the right module
    assert "grown" not in (first.located or "")
    assert "learning rate" not in first.fix.lower()


def test_bf16_nan_batch_that_poisons_the_weights_names_the_batch() -> None:
    """bf16 autocast, no GradScaler: the NaN sample of step 20 is applied to the weights."""
    monitor = _plain_loop(dtype=torch.bfloat16, scaler=None, report_dir=None)
    first = _first(monitor, "AMP006")
    assert first.step == BAD_STEP
    assert "scaler.step" not in first.fix
    assert "sample" in first.fix or "batch" in first.fix


def test_fp16_nan_batch_is_located_in_the_data(tmp_path: Path) -> None:
    """Control for the two above: fp16 with a scaler, the same NaN batch, non-default scaler."""
    scaler = torch.amp.GradScaler("cpu", init_scale=256.0, growth_interval=7)
    monitor = _plain_loop(dtype=torch.float16, scaler=scaler, report_dir=str(tmp_path))
    assert [(d.code, d.step) for d in monitor.diagnoses] == [("AMP006", BAD_STEP)]
    assert "bad samples" in monitor.diagnoses[0].fix


def test_healthy_fp16_loop_is_silent() -> None:
    """Non-default scaler settings, no fault: no diagnosis at all."""
    scaler = torch.amp.GradScaler("cpu", init_scale=128.0, growth_interval=5)
    monitor = _plain_loop(dtype=torch.float16, scaler=scaler, nan_batch=False, report_dir=None)
    assert monitor.diagnoses == []


def test_doctor_on_the_runs_own_console_log_keeps_the_located_fix(tmp_path: Path) -> None:
    """The user runs `denpex diagnose train.log` on the log the monitored run wrote."""
    log = tmp_path / "train.log"
    handler = logging.FileHandler(log)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.addHandler(handler)
    try:
        scaler = torch.amp.GradScaler("cpu", init_scale=1024.0, growth_interval=9)
        _plain_loop(dtype=torch.float16, scaler=scaler, report_dir=str(tmp_path / "reports"))
    finally:
        root.removeHandler(handler)
        handler.close()
    assert "Fix now: Find and drop or repair the bad samples" in log.read_text()
    result = diagnose(str(log))
    found = [d for d in result.diagnoses if d.code == "AMP006"]
    assert [d.step for d in found] == [BAD_STEP]
    assert "bad samples" in found[0].fix


def test_doctor_on_the_printed_log_agrees_with_the_live_monitor(tmp_path: Path) -> None:
    """The script prints one line per step; the user diagnoses that log after the run."""
    printed: list[str] = []
    monitor = _plain_loop(dtype=torch.float16, scaler=torch.amp.GradScaler("cpu"), lr=1.0,
                          nan_batch=False, steps=40, printed=printed, report_dir=None)
    live = [(d.code, d.step) for d in monitor.diagnoses]
    assert live == [("AMP003", 1)]
    log = tmp_path / "train.log"
    log.write_text("\n".join(printed) + "\n")
    result = diagnose(str(log))
    assert [(d.code, d.step) for d in result.diagnoses] == live


def test_doctor_on_the_printed_start_up_back_off_is_silent(tmp_path: Path) -> None:
    """Control: a high initial scale (2**24) backs off for 9 steps from step 0 with a sound
    learning rate; the printed losses stay the initial weights' (no step applied), so the
    streak after the first row is the start-up back-off: live and doctor both silent."""
    printed: list[str] = []
    scaler = torch.amp.GradScaler("cpu", init_scale=2.0**24, growth_interval=7)
    monitor = _plain_loop(dtype=torch.float16, scaler=scaler, lr=0.1, nan_batch=False,
                          steps=40, printed=printed, report_dir=None)
    assert monitor.diagnoses == []
    assert float(printed[0].split()[-1]) > float(printed[1].split()[-1])  # it backs off
    log = tmp_path / "train.log"
    log.write_text("\n".join(printed) + "\n")
    assert diagnose(str(log)).diagnoses == []


def test_accelerate_bf16_on_cpu_is_read_as_bf16(fresh_accelerate: Any) -> None:
    """`Accelerator(mixed_precision="bf16", cpu=True)`: the prepared model's forward is bf16."""
    accelerate = fresh_accelerate
    accelerator = accelerate.Accelerator(mixed_precision="bf16", cpu=True)
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.Linear(16, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    model, opt = accelerator.prepare(model, opt)
    seen: list[Any] = []
    model[0].register_forward_hook(lambda mod, inp, out: seen.append(out.dtype))
    monitor = AmpMonitor(optimizer=opt, model=model, report_dir=None)
    for _ in range(3):
        loss = model(torch.randn(4, 8)).float().pow(2).mean()
        accelerator.backward(loss)
        opt.step()
        opt.zero_grad()
        monitor.step(loss)
    monitor.close()
    assert seen[0] == torch.bfloat16  # what accelerate really runs
    assert monitor.monitor.setup.active_precision == "bf16-mixed"


def _lightning_fit(root: Path, *, warmup_divisor: bool, steps: int,
                   csv_every: int | None = None, nan_batch: bool = True) -> list[Diagnosis]:
    """A real Lightning fit on CPU in fp16 through the documented MixedPrecision plugin.

    ``warmup_divisor``: the loss divides by ``min(1, global_step / 10)``, 0 at step 0, so the
    loss of step 0 alone is inf. Otherwise the batch of ``BAD_STEP`` holds a NaN sample.
    ``csv_every``: a CSVLogger writing a row (with ``train_loss``) every that many steps.
    ``nan_batch``: False leaves that batch finite (a healthy run).
    """
    lightning = pytest.importorskip("lightning")
    from lightning.pytorch.plugins import MixedPrecision

    from denpex_callbacks.lightning import AmpDiagnosticCallback

    class Regression(lightning.pytorch.LightningModule):
        def __init__(self) -> None:
            super().__init__()
            self.net = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.GELU(),
                                           torch.nn.Linear(64, 1))

        def training_step(self, batch: Any, index: int) -> Any:
            x, y = batch
            loss = F.mse_loss(self.net(x).float(), y)
            if warmup_divisor:
                loss = loss / min(1.0, self.global_step / 10)
            self.log("train_loss", loss)
            return loss

        def configure_optimizers(self) -> Any:
            return torch.optim.AdamW(self.parameters(), lr=1e-3)

    torch.manual_seed(0)
    x_all, y_all = _data(steps, nan_batch=nan_batch and not warmup_divisor)
    loader = torch.utils.data.DataLoader(
        torch.utils.data.TensorDataset(x_all, y_all), batch_size=BATCH)
    callback = AmpDiagnosticCallback(report_dir=str(root / "reports"))
    logger: Any = False
    if csv_every is not None:
        logger = lightning.pytorch.loggers.CSVLogger(str(root), name="csv", version=0)
    trainer = lightning.pytorch.Trainer(
        accelerator="cpu", devices=1, max_steps=steps, logger=logger,
        log_every_n_steps=csv_every or 50, enable_checkpointing=False,
        enable_progress_bar=False, enable_model_summary=False, default_root_dir=str(root),
        callbacks=[callback],
        plugins=[MixedPrecision("16-mixed", "cpu", scaler=torch.amp.GradScaler(
            "cpu", init_scale=512.0, growth_interval=25))])
    trainer.fit(Regression(), loader)
    assert callback.monitor is not None
    return list(callback.monitor.diagnoses)


def test_lightning_loss_that_depends_on_global_step_does_not_blame_the_node(
        tmp_path: Path) -> None:
    """The re-run restores inputs, parameters and RNG, not the trainer's step counter."""
    found = _lightning_fit(tmp_path, warmup_divisor=True, steps=12)
    first = found[0]
    assert (first.code, first.step) == ("AMP006", 0)
    assert first.evidence.get("rerun") != "not-reproduced"
    assert "node" not in first.fix and "exclude host" not in first.fix


def test_webhook_alert_rounds_its_numbers_as_the_console_does(
        receiver: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """DENPEX_ALERT_WEBHOOK from the job script, warning level, a NaN batch at step 20."""
    monkeypatch.setenv("DENPEX_ALERT_WEBHOOK", receiver.url)
    monkeypatch.setenv("DENPEX_ALERT_LEVEL", "warning")
    scaler = torch.amp.GradScaler("cpu", init_scale=2048.0, growth_interval=11)
    monitor = _plain_loop(dtype=torch.float16, scaler=scaler, report_dir=None)
    assert [(d.code, d.step) for d in monitor.diagnoses] == [("AMP006", BAD_STEP)]
    (payload,) = receiver.payloads
    assert payload["id"] == "AMP006"
    assert re.search(r"\d\.\d{6,}|\d\.0\b", payload["text"]) is None, payload["text"]


def test_doctor_reads_the_fault_columns_the_callback_wrote_into_metrics_csv(
        tmp_path: Path) -> None:
    """Only the CSV logger's file is left of the run; the user diagnoses it."""
    live = _lightning_fit(tmp_path, warmup_divisor=False, steps=30, csv_every=8)
    assert [(d.code, d.step) for d in live] == [("AMP006", BAD_STEP)]
    metrics = tmp_path / "csv" / "version_0" / "metrics.csv"
    assert "amp/fault/AMP006" in metrics.read_text().splitlines()[0]
    found = [(d.code, d.step) for d in diagnose(str(metrics)).diagnoses]
    # The rows are 8 steps apart: the first row showing the fault is the earliest step known.
    assert [code for code, _ in found] == ["AMP006"]
    assert found[0][1] is not None and BAD_STEP - 8 < found[0][1] <= BAD_STEP + 8


def test_doctor_on_a_healthy_runs_metrics_csv_is_silent(tmp_path: Path) -> None:
    """Control: the same fit without the NaN batch writes amp/diagnoses = 0 and no fault key."""
    assert _lightning_fit(tmp_path, warmup_divisor=False, steps=30, csv_every=8,
                          nan_batch=False) == []
    metrics = tmp_path / "csv" / "version_0" / "metrics.csv"
    assert "amp/diagnoses" in metrics.read_text().splitlines()[0]
    assert diagnose(str(metrics)).diagnoses == []


@pytest.mark.parametrize("nan_batch", [True, False], ids=["nan-batch", "healthy"])
def test_doctor_reads_the_fault_tags_the_monitor_wrote_to_tensorboard(
        tmp_path: Path, nan_batch: bool) -> None:
    """AmpMonitor(metrics=SummaryWriter): the event file holds amp/fault/AMP006 from the NaN
    batch's step; the healthy run (non-default scaler) writes none and the doctor is silent."""
    tensorboard = pytest.importorskip("torch.utils.tensorboard")
    writer = tensorboard.SummaryWriter(str(tmp_path))
    scaler = torch.amp.GradScaler("cpu", init_scale=512.0, growth_interval=13)
    monitor = _plain_loop(dtype=torch.float16, scaler=scaler, nan_batch=nan_batch,
                          report_dir=None, metrics=writer)
    writer.close()
    live = [(d.code, d.step) for d in monitor.diagnoses]
    assert live == ([("AMP006", BAD_STEP)] if nan_batch else [])
    (events,) = tmp_path.glob("events.out.tfevents.*")
    assert [(d.code, d.step) for d in diagnose(str(events)).diagnoses] == live
