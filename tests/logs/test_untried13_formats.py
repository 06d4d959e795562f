"""Untried accelerator back-ends and trainers outside CPython's mainstream: excerpts written from
each tool's own format strings (each names its source), a fault beside healthy controls with
non-default settings.

Tried and already right before any change here (no test kept: the suite covers their layouts):
llama.cpp's ``train-text-from-scratch`` / ``finetune`` line ``%s: iter=%6d sample=%zu/%zu
sched=%f loss=%f`` then `` dt=`` / `` eta=`` and its improvement bar `` |--->``
(ggerganov/llama.cpp ``common/train.cpp`` ``train_opt_callback``; a NaN as glibc prints it,
``nan`` or ``-nan``); torch_xla's ``print_training_update`` since 2021 (``| Training
Device=xla:0/1 Epoch=2 Step=120 Loss=nan Rate=... GlobalRate=... Time=...``, pytorch/xla
``test/test_utils.py``) and its examples' ``print(f'epoch: {epoch}, step: {step}, loss: {loss},
rate: {tracker.rate()}')`` from a step closure on every process
(``examples/train_resnet_base.py``: ``loss: tensor(nan, device='xla:0')``, the step counted
within the epoch, under ``xm.master_print``'s ``Epoch 2 train begin ...``); candle's ``{epoch:4}
train loss: {:8.5} test acc: {:5.2}%`` (huggingface/candle
``candle-examples/examples/mnist-training/main.rs``, Rust's ``NaN``) and tch-rs' ``epoch: {:4}
train loss: {:8.5} test acc: {:5.2}%`` (LaurentMazare/tch-rs ``examples/mnist``); AWS Neuron's
``LOG {time} - ({epoch}, {step}) step_loss : {:.4f} learning_rate : {:.2e} throughput : {:.2f}
grad-norm : {}`` (aws-neuron/neuronx-distributed
``examples/training/llama/tp_zero1_llama_hf_pretrain/logger.py``, the step run-wide beside the
epoch); optimum-habana's GaudiTrainer rows, HF's ``log()`` dicts with its ``'memory_allocated
(GB)'`` keys (huggingface/optimum-habana ``optimum/habana/utils.py`` ``get_hpu_memory_stats``),
numbered by rows; Swift for TensorFlow's ProgressPrinter (tensorflow/swift-models
``TrainingLoop/Callbacks/ProgressPrinter.swift``: ``Epoch 5/12`` over ``468/468 [====] - loss:
nan - accuracy: 0.0987``, the batch's step); ggml's ``ggml_opt_epoch_callback_progress_bar`` and
``ggml_opt_fit`` (ggml-org/ggml ``src/ggml-opt.cpp``: ``train: [████████] data=0054000/0054000
loss=nan±nan acc=...`` under ``ggml_opt_fit: epoch 0006/0010:``; its ``val:   [`` row the
evaluation's, AMP013), as redrawn with ``\\r`` (the batch) or pasted as the screen shows it (the
epoch). Not tried further: tracel-ai/burn's plain-text fallback
(``crates/burn-train/src/renderer/cli.rs``) prints ``{item:?}`` of its progress, which holds no
loss.

Left as they are: candle's llama2-c trainer prints ``println!("{batch_index} {loss}")``, bare
``100 5.545177459716797`` rows of the validation loss (huggingface/candle
``candle-examples/examples/llama2-c/training.rs``); Rust writes ``NaN``, which the bare-column
reader leaves unread on purpose (pandas prints a missing value ``0    NaN``): "nothing to
diagnose", silence, not a false alarm.

Missed before:
- torch_xla's ``print_training_update`` before 2021 and the TPU scripts copied from it
  (``'[{}]({}) Loss={:.5f} Rate={:.2f} GlobalRate={:.2f} Time={}'``: ``[xla:1/0](120)
  Loss=nan ...``): the step in parentheses after the device's tag was not read, so the NaN
  was placed at its row (61 for 1200 printed every 20; 480 with eight cores printing each
  step). Now parentheses right after a bracketed tag number the line (``BRACKET_STEP``); the
  same step coming back under another device's tag, or one device's line flushed after
  another's of the next step, is no reason to stop reading them: only a device's own count
  going back is (``MetricReader._tagged_step``).
- Julia's ``@show`` of a call, as Flux's model zoo prints its callback's loss (``evalcb = () ->
  @show(loss_all(train_data, m))`` under ``@epochs``: ``loss_all(train_data, m) = NaN32``),
  and Python's ``f"{loss_all(batch, model)=}"``: the key was a call with arguments, read as
  no key, so the excerpt was "nothing to diagnose". Now an echoed call's function name is
  the key (``metric_pairs._ARGUMENT_CALL``), an evaluation's where an argument names held-out
  data (``loss_all(test_data, m)``).

Each fault test failed on the parent commit (20e3164); the controls pass there too.
"""

from __future__ import annotations

from pathlib import Path

from excerpts import diagnose_lines, faults

from denpex_callbacks.logs.doctor import diagnose


def _silent(tmp_path: Path, lines: list[str]) -> bool:
    """Whether the doctor finds no fault on ``lines``, read or not (a control: silence is the
    same on the parent commit, which may read nothing of them)."""
    path = tmp_path / "control.log"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return diagnose(str(path)).faults == []


def _xla_update(device: str, step: int, loss: float, second: int) -> str:
    """torch_xla's ``print_training_update`` before 2021 (pytorch/xla ``test/test_utils.py``:
    ``print('[{}]({}) Loss={:.5f} Rate={:.2f} GlobalRate={:.2f} Time={}'.format(
    _get_device_spec(device), step_num, loss, rate, global_rate, time.asctime()))``, the
    device spec ``'{}/{}'.format(device, ordinal)``)."""
    return (f"[{device}]({step}) Loss={loss:.5f} Rate={412.37 + second % 7:.2f} "
            f"GlobalRate={398.12:.2f} Time=Mon Dec  7 07:{10 + second // 60:02d}:"
            f"{second % 60:02d} 2026")


def _xla_run(steps: int, *, log_steps: int = 20, cores: int = 1,
             nan_from: int | None = None, late: int = 0) -> list[str]:
    """test_train_mp_mnist.py's loop (``if x % FLAGS.log_steps == 0``, from batch 0) on
    ``cores`` devices, each printing its own line of each logged step (``xm.add_step_closure``
    on every ordinal), then the test accuracy; the loss NaN from step ``nan_from``. With
    ``late``, every ``late``-th line is flushed after the line below it (the processes
    write to one terminal in no set order: a device's line of a step after another's of the
    next step)."""
    lines = []
    for index, step in enumerate(range(0, steps, log_steps)):
        for core in range(cores):
            bad = nan_from is not None and step >= nan_from
            loss = float("nan") if bad else 2.3 - step / 1000 + core * 0.001
            lines.append(_xla_update(f"xla:{core}/{core}", step, loss, index))
    for at in range(late - 1, len(lines) - 1, late) if late else ():
        lines[at], lines[at + 1] = lines[at + 1], lines[at]
    return [*lines, *(f"[xla:{core}/{core}] Accuracy=97.31%" for core in range(cores))]


def test_torch_xla_step_after_the_device_tag(tmp_path: Path) -> None:
    """Before: AMP006 at 61 (the row) and at 480 with eight cores. Now the printed step."""
    assert faults(tmp_path, _xla_run(3000, nan_from=1200)) == [("AMP006", 1200)]
    assert faults(tmp_path, _xla_run(3000, log_steps=50, cores=8, nan_from=750)) == [
        ("AMP006", 750)]


def test_torch_xla_cores_flushed_out_of_order(tmp_path: Path) -> None:
    """Eight cores whose lines come a step late now and then. Before: AMP006 at its row (541
    for 1200); a first version of the rule here stopped reading the steps at the first line
    that went back."""
    assert faults(tmp_path, _xla_run(3000, cores=8, nan_from=1200, late=13)) == [
        ("AMP006", 1200)]
    assert faults(tmp_path, _xla_run(2000, log_steps=40, cores=4, nan_from=1520, late=5)) == [
        ("AMP006", 1520)]


def test_torch_xla_healthy_cores_stay_silent(tmp_path: Path) -> None:
    """Control: eight cores every 50 steps (some lines late), then a single core every 10."""
    assert _silent(tmp_path, _xla_run(3000, log_steps=50, cores=8))
    assert _silent(tmp_path, _xla_run(3000, log_steps=50, cores=8, late=7))
    assert _silent(tmp_path, _xla_run(2000, log_steps=10))


def test_torch_xla_steps_are_the_printed_ones(tmp_path: Path) -> None:
    """A healthy run every 10 steps spans steps 0 to 1990. Before: 200 (its rows)."""
    result = diagnose_lines(tmp_path, _xla_run(2000, log_steps=10))
    assert result.faults == [] and result.timeline.steps == 1991


def _julia_float32(value: float) -> str:
    """A Float32 as Julia's ``show`` writes it (``2.2841f0``, ``NaN32``), from the few
    decimals used here."""
    return "NaN32" if value != value else f"{value:.4f}".rstrip("0").rstrip(".") + "f0"


def _flux_epochs(epochs: int, *, batches: int = 59, nan_from: int | None = None,
                 data: str = "train_data") -> list[str]:
    """FluxML/model-zoo ``vision/mlp_mnist/mlp_mnist.jl``: ``@epochs args.epochs
    Flux.train!(loss, params(m), train_data, opt, cb = evalcb)``, ``@epochs`` logging ``@info
    "Epoch $i"`` (``[ Info: Epoch 3``) and the callback, called after each batch, printing
    ``@show(loss_all(train_data, m))``; then ``@show accuracy(test_data, m)``. The loss NaN
    from the callback's call ``nan_from`` on."""
    lines, call = [], 0
    for epoch in range(1, epochs + 1):
        lines.append(f"[ Info: Epoch {epoch}")
        for _ in range(batches):
            call += 1
            bad = nan_from is not None and call >= nan_from
            value = float("nan") if bad else 2.3 * 0.99 ** call + 0.05
            lines.append(f"loss_all({data}, m) = {_julia_float32(value)}")
    return [*lines, "accuracy(train_data, m) = 0.9612", "accuracy(test_data, m) = 0.9587"]


def test_flux_show_of_a_call_is_the_loss(tmp_path: Path) -> None:
    """Before: nothing to diagnose. Now AMP006 at the callback's call (its row)."""
    assert faults(tmp_path, _flux_epochs(3, nan_from=100)) == [("AMP006", 100)]
    assert faults(tmp_path, _flux_epochs(4, batches=30, nan_from=75)) == [("AMP006", 75)]


def test_python_self_documenting_call_is_the_loss(tmp_path: Path) -> None:
    """``print(f"{step=} {loss_all(batch, model)=:.4f}")``: before, nothing to diagnose."""
    lines = [f"step={step} loss_all(batch, model)="
             f"{float('nan') if step >= 400 else 2.1 - step / 1000:.4f}"
             for step in range(10, 610, 10)]
    assert faults(tmp_path, lines) == [("AMP006", 400)]


def test_flux_show_on_held_out_data_is_evaluation(tmp_path: Path) -> None:
    """``@show(loss_all(test_data, m))``: an evaluation's NaN (AMP013), not the training
    loss's. Before: nothing to diagnose."""
    result = diagnose_lines(tmp_path, _flux_epochs(2, batches=20, nan_from=30, data="test_data"))
    assert [d.code for d in result.diagnoses] == ["AMP013"]


def test_flux_healthy_show_stays_silent(tmp_path: Path) -> None:
    """Control: ten epochs of 12 batches, a falling loss."""
    assert _silent(tmp_path, _flux_epochs(10, batches=12))


def test_flux_healthy_show_is_read(tmp_path: Path) -> None:
    """The same run's 120 losses are read. Before: nothing to diagnose."""
    result = diagnose_lines(tmp_path, _flux_epochs(10, batches=12))
    assert result.faults == [] and result.timeline.steps == 120


def test_an_aside_naming_held_out_data_is_evaluation(tmp_path: Path) -> None:
    """``loss(val) = nan``: the parentheses name the split, so the NaN is an evaluation's
    (AMP013), never the training loss's. Before: nothing to diagnose."""
    lines = [f"epoch {epoch} loss(val) = {'nan' if epoch > 6 else f'{1.5 - epoch / 20:.4f}'}"
             for epoch in range(1, 12)]
    assert [d.code for d in diagnose_lines(tmp_path, lines).diagnoses] == ["AMP013"]
