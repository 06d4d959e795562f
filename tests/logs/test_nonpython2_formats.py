"""Training outside Python's mainstream and legacy frameworks: excerpts written from each
tool's own format strings (each names its source), a fault beside healthy controls.

- Deeplearning4j's ``ScoreIterationListener`` (``Score at iteration 520 is NaN``);
- Julia's Logging ``ConsoleLogger`` rendering a Flux/Lux loop's ``@info "Epoch $epoch" loss``
  record (``┌ Info: Epoch 7`` / ``│   loss = NaN32``: Float32 shown with its width);
- libtorch's C++ MNIST loop (pytorch/examples ``cpp/mnist``), which aborts on its own
  ``AT_ASSERT(!std::isnan(loss...))`` before printing a NaN loss;
- MATLAB's ``trainnet`` verbose table (its layout from MathWorks' documentation: the
  toolbox's source is closed), a NaN row at a validation iteration;
- already right, layouts the suite held none of: TensorFlow.js' ``ProgbarLogger``
  (``Epoch 7 / 20`` over ``2114ms 35us/step - acc=0.91 loss=NaN ...``) and Lasagne's MNIST
  example (``  training loss:\\t\\tnan``).

Each fault test failed on the parent commit (1e248f7) except where its docstring says it
passes there too; the controls pass there too, except the Julia Float32 one (unread there).
"""

from __future__ import annotations

from pathlib import Path

from excerpts import faults

from denpex_callbacks.logs.doctor import diagnose


def _dl4j(nan_from: int | None = None, every: int = 10, epoch: bool = False) -> list[str]:
    """Deeplearning4j's ScoreIterationListener (deeplearning4j/deeplearning4j
    ``deeplearning4j-nn/src/main/java/org/deeplearning4j/optimize/listeners/
    ScoreIterationListener.java``: ``log.info("Score at iteration {} is {}", iteration,
    score)``, every ``printIterations`` iterations; Java prints a non-finite double ``NaN``),
    behind logback's ``%d{HH:mm:ss.SSS} [%thread] %-5level %logger{36} - %msg`` prefix.
    ``epoch``: the copies that put the epoch first (``"[{}] Score at iteration {} is {}"``)."""
    lines = ["10:00:00.000 [main] INFO  org.nd4j.linalg.factory.Nd4jBackend - Loaded [CpuBackend]",
             "10:00:00.500 [main] INFO  o.d.nn.multilayer.MultiLayerNetwork - Starting "
             "MultiLayerNetwork with WorkspaceModes set to [training: ENABLED; inference: "
             "ENABLED], cacheMode set to [NONE]"]
    for iteration in range(0, 1000, every):
        score = "NaN" if nan_from is not None and iteration >= nan_from else (
            repr(2.302585 - iteration / 1e4))
        head = f"[{iteration // 469}] " if epoch else ""
        lines.append(f"10:00:{iteration % 60:02d}.123 [main] INFO  "
                     f"o.d.o.l.ScoreIterationListener - {head}Score at iteration {iteration} "
                     f"is {score}")
    return lines


def test_dl4j_score_is_the_loss(tmp_path: Path) -> None:
    """Before: no line held a key the reader knows (``Score at iteration 520 is NaN``):
    nothing to diagnose."""
    assert faults(tmp_path, _dl4j(520)) == [("AMP006", 520)]
    assert faults(tmp_path, _dl4j(300, every=1, epoch=True)) == [("AMP006", 300)]


def test_dl4j_controls(tmp_path: Path) -> None:
    """Healthy runs, every iteration printed or every tenth: no finite score is read (the
    prefilter drops its lines), nothing to diagnose and no fault (pass on the parent too)."""
    path = tmp_path / "dl4j.log"
    for lines in (_dl4j(), _dl4j(every=1, epoch=True)):
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        result = diagnose(str(path))
        assert result.faults == []
        assert result.error is not None and "nothing to diagnose" in result.error


def _julia(nan_from: int | None = None, float64: bool = False) -> list[str]:
    """A Flux/Lux loop's ``@info "Epoch $epoch" loss acc`` rendered by Julia's Logging
    ``ConsoleLogger`` (JuliaLang/julia ``base/logging/ConsoleLogger.jl``
    ``handle_message``: ``┌ Info: `` before the message, ``│   key = value`` a line each
    (``showvalue``: the value's ``show``), ``└ @ Main file:line``). Flux's losses are
    Float32, which Base shows as ``2.3012f0`` and ``NaN32`` (``base/ryu/Ryu.jl``)."""
    lines = []
    for epoch in range(1, 21):
        bad = nan_from is not None and epoch >= nan_from
        loss = 2.3 - epoch * 0.05
        shown = ("NaN" if float64 else "NaN32") if bad else (
            f"{loss:.4f}" if float64 else f"{loss:.7g}f0")
        lines += [f"┌ Info: Epoch {epoch}", f"│   loss = {shown}",
                  f"│   acc = {0.8 + epoch / 200:.4f}", "└ @ Main ~/src/train.jl:42"]
    return lines


def test_julia_float32_loss(tmp_path: Path) -> None:
    """Before: ``2.2500000f0`` and ``NaN32`` were no numbers to the reader: nothing to
    diagnose. (Float64's ``NaN`` passes on the parent too.)"""
    assert faults(tmp_path, _julia(7)) == [("AMP006", 7)]
    assert faults(tmp_path, _julia(7, float64=True)) == [("AMP006", 7)]


def test_julia_controls(tmp_path: Path) -> None:
    """Healthy runs, Float32 and Float64 losses (on the parent the Float32 one was nothing to
    diagnose, an error to this helper; the Float64 one passes there too)."""
    assert faults(tmp_path, _julia()) == []
    assert faults(tmp_path, _julia(float64=True)) == []


def _libtorch_epoch(epoch: int, batches: range, losses: list[float]) -> str:
    """One epoch of pytorch/examples ``cpp/mnist/mnist.cpp`` ``train``: ``std::printf(
    "\\rTrain Epoch: %ld [%5ld/%5ld] Loss: %.4f", epoch, batch_idx * batch.data.size(0),
    dataset_size, loss)`` every ``kLogInterval`` (10) batches, one line rewritten in place."""
    return "".join(f"\rTrain Epoch: {epoch} [{(b + 1) * 64:5d}/60000] Loss: {loss:.4f}"
                   for b, loss in zip(batches, losses, strict=True))


def _libtorch(aborted: bool = False) -> list[str]:
    """Two epochs and each one's ``test``: ``"\\nTest set: Average loss: %.4f | Accuracy:
    %.3f\\n"``; ``aborted``: the third epoch stops on the loop's own ``AT_ASSERT(!std::isnan(
    loss.template item<float>()))`` after 30 printed rows, as c10 reports a failed internal
    assert (c10/util/Exception.h ``TORCH_INTERNAL_ASSERT``) through std::terminate."""
    batches = range(0, 938, 10)
    lines = []
    for epoch in (1, 2):
        losses = [2.3 - b / 1000 for b in batches]
        lines += [_libtorch_epoch(epoch, batches, losses), "",
                  f"Test set: Average loss: {0.3 / epoch:.4f} | Accuracy: 0.9{epoch}0"]
    if aborted:
        lines += [_libtorch_epoch(3, range(0, 300, 10), [1.2] * 30),
                  "terminate called after throwing an instance of 'c10::Error'",
                  "  what():  !std::isnan(loss.template item<float>()) INTERNAL ASSERT FAILED "
                  "at \"/home/user/examples/cpp/mnist/mnist.cpp\":62, please report a bug to "
                  "PyTorch. ",
                  "Exception raised from train<torch::data::StatelessDataLoader<...> > at "
                  "/home/user/examples/cpp/mnist/mnist.cpp:62 (most recent call first):",
                  "frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x6b "
                  "(0x7f1c2a4b8b2b in /opt/libtorch/lib/libc10.so)",
                  "Aborted (core dumped)"]
    return lines


def test_libtorch_nan_assert(tmp_path: Path) -> None:
    """Before: the loop never prints its NaN loss, it aborts on the failed ``isnan`` check:
    no fault found. The step is the one after the last row printed (94 rows an epoch)."""
    assert faults(tmp_path, _libtorch(aborted=True)) == [("AMP006", 2 * 94 + 30 + 1)]


def test_libtorch_controls(tmp_path: Path) -> None:
    """A healthy run (passes on the parent too), and the assert's source quoted (no
    failure)."""
    assert faults(tmp_path, _libtorch()) == []
    quoted = [*_libtorch(), "    AT_ASSERT(!std::isnan(loss.template item<float>()));"]
    assert faults(tmp_path, quoted) == []


def _tfjs(nan_from: int | None = None, epochs: int = 20) -> list[str]:
    """tfjs-node's ``ProgbarLogger`` (tensorflow/tfjs ``tfjs-node/src/callbacks.ts``):
    ``Epoch ${epoch + 1} / ${epochs}``, the bar ``eta=:eta :bar``, then
    ``${ms}ms ${us}us/step - `` and ``${key}=${getSuccinctNumberDisplay(value)} `` per key,
    sorted (``NaN.toFixed(2)`` is ``NaN``)."""
    lines = []
    for epoch in range(1, epochs + 1):
        bad = nan_from is not None and epoch >= nan_from
        loss = "NaN" if bad else f"{0.9 - epoch * 0.02:.2f}"
        lines += [f"Epoch {epoch} / {epochs}", "eta=0.0 " + "=" * 60 + ">",
                  f"2114ms 35us/step - acc=0.91 loss={loss} val_acc=0.92 val_loss={loss} "]
    return lines


def _lasagne(nan_from: int | None = None) -> list[str]:
    """Lasagne's MNIST example (Lasagne/Lasagne ``examples/mnist.py`` ``main``): ``Epoch {}
    of {} took {:.3f}s`` over ``  training loss:\\t\\t{:.6f}``, ``  validation loss:\\t\\t{:.6f}``,
    ``  validation accuracy:\\t\\t{:.2f} %``."""
    lines = []
    for epoch in range(1, 21):
        bad = nan_from is not None and epoch >= nan_from
        loss = "nan" if bad else f"{2.3 - epoch * 0.05:.6f}"
        lines += [f"Epoch {epoch} of 20 took 12.345s", f"  training loss:\t\t{loss}",
                  f"  validation loss:\t\t{1.9 - epoch * 0.04:.6f}",
                  f"  validation accuracy:\t\t{80 + epoch * 0.5:.2f} %"]
    return lines


def test_already_right_layouts(tmp_path: Path) -> None:
    """TensorFlow.js' and Lasagne's epoch lines (pass on the parent too: kept for their
    layouts, which the suite held none of)."""
    assert faults(tmp_path, _tfjs(7)) == [("AMP006", 7), ("AMP013", 7)]
    assert faults(tmp_path, _lasagne(7)) == [("AMP006", 7)]
    assert faults(tmp_path, _tfjs()) == []
    assert faults(tmp_path, _tfjs(epochs=3)) == []
    assert faults(tmp_path, _lasagne()) == []


def _trainnet(nan_from: int | None = None, every: int = 150, validation: bool = True) -> list[str]:
    """MATLAB Deep Learning Toolbox ``trainnet``'s verbose table (closed source: its layout
    as MathWorks' ``trainingOptions`` documentation shows it, ``Verbose``/``VerboseFrequency``
    50): the column names over a rule, a row every 50 iterations, the validation cells filled
    every ``every`` iterations (``ValidationFrequency``) and blank between, the run's closing
    ``Training stopped: ...`` reason. A network gone NaN keeps finite accuracies (the argmax
    of NaN outputs is a class)."""
    names = ["Iteration", "Epoch", "TimeElapsed", "LearnRate", "TrainingLoss"]
    names += ["ValidationLoss", "TrainingAccuracy", "ValidationAccuracy"] if validation else [
        "TrainingAccuracy"]
    lines = ["    " + "    ".join(names), "    " + "    ".join("_" * len(n) for n in names), ""]
    for it in range(0, 1000, 50):
        bad = nan_from is not None and it >= nan_from
        loss = "NaN" if bad else f"{2.4 - it / 1000:.4f}"
        cells = [str(it), str(it // 100 + 1), f"00:00:{it % 60:02d}", "0.01", loss]
        if validation:
            shown = it % every == 0
            cells += [("NaN" if bad else f"{2.45 - it / 1000:.4f}") if shown else "",
                      "9.375" if bad else f"{70 + it / 100:g}",
                      ("10" if bad else f"{70 + it / 100:g}") if shown else ""]
        else:
            cells.append("9.375" if bad else f"{70 + it / 100:g}")
        lines.append("    " + "    ".join(c.rjust(len(n)) for c, n in zip(cells, names,
                                                                            strict=True)))
        if bad:
            break
    lines.append("Training stopped: Training loss is NaN" if nan_from is not None
                 else "Training stopped: Max epochs completed")
    return lines


def test_trainnet_nan_beside_finite_accuracy(tmp_path: Path) -> None:
    """Before: on a validation row the NaN training loss beside a finite accuracy was taken
    for a pandas frame's empty cell and dropped; only the closing sentence said it, at step
    401 (the row after the last finite one). A row without validation passes on the parent
    too."""
    assert faults(tmp_path, _trainnet(450)) == [("AMP006", 450), ("AMP013", 450)]
    assert faults(tmp_path, _trainnet(500)) == [("AMP006", 500)]
    assert faults(tmp_path, _trainnet(300, validation=False)) == [("AMP006", 300)]


def test_trainnet_controls(tmp_path: Path) -> None:
    """Healthy runs: validation every 150 or every 50 iterations, or none (pass on the
    parent too)."""
    for lines in (_trainnet(), _trainnet(every=50), _trainnet(validation=False)):
        assert faults(tmp_path, lines) == []
