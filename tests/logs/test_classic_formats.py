"""Classic deep-learning libraries, time series and tabular trainers, and the experiment
trackers' console output: excerpts written from each tool's own format strings (each names
its source), a fault at a known step beside healthy controls (non-default settings too).

- fastai's progress table (fastai/fastai ``fastai/callback/progress.py``
  ``ProgressCallback._write_stats`` through fastai/fastprogress ``fastprogress/fastprogress.py``
  ``ConsoleMasterBar.write``): the header's names padded to 8 and joined by two blanks, each
  row's cells padded to their column, the epoch from 0; copied from a notebook, tabs part the
  cells; the cells of a run without validation: fastai v2's ``None``, v1's ``#na#``
  (``fastai/basic_train.py`` ``Recorder.format_stats``);
- poutyne's ColorProgress (GRAAL-Research/poutyne ``poutyne/framework/callbacks/
  color_formatting.py``): ``Epoch: 3/5 Step: 40/100  40.00% |...|ETA: ... loss: ...`` a batch
  and ``Epoch: 3/5 Train steps: 100 Val steps: 20 5.32s loss: ... val_loss: ...`` an epoch;
- torchbearer's printers (pytorchbearer/torchbearer ``torchbearer/callbacks/printer.py``):
  the Tqdm bar ``2/5(t): 40%|...| 40/100 [..., running_loss=nan, ...]`` and the
  ConsolePrinter's ``2/5(t): 40/100 running_loss=nan, running_acc=0.5``; torchbearer's and
  poutyne's TerminateOnNaN messages glued to the bar they interrupted;
- Lightning's bar with the keys darts, pytorch-forecasting and NeuralForecast log
  (``ptl/val_loss``: an evaluation's key under a namespace), NeuralForecast's
  ``Loss is NaN, training stopped.``;
- AllenNLP's tqdm logger and its ``nan loss encountered``; Composer's ConsoleLogger records;
- wandb's run footer after the run's own lines.

Each fault test failed on the parent commit (f42b11f); the controls pass there too.
"""

from __future__ import annotations

from pathlib import Path

from excerpts import faults

# --- fastai -----------------------------------------------------------------------------------

_FASTAI = ("epoch", "train_loss", "valid_loss", "accuracy", "time")


def _fastai_table(names: tuple[str, ...], rows: list[list[str]]) -> list[str]:
    """fastprogress' ``ConsoleMasterBar.write(line, table=True)``: the names padded to 8 and
    joined by two blanks, then each cell followed by ``2 + len(name) - len(cell)`` blanks."""
    padded = [name + " " * (8 - len(name)) if len(name) < 8 else name for name in names]
    out = ["  ".join(padded)]
    for row in rows:
        out.append("".join(cell + " " * (2 + len(name) - len(cell))
                           for cell, name in zip(row, padded, strict=False)))
    return out


def _fastai_rows(epochs: int, nan_from: int | None, valid_nan_from: int | None,
                 metrics: int = 1) -> list[list[str]]:
    """``Recorder``'s log a row an epoch (from 0): ``f'{l:.6f}'`` for a float, the time
    ``mm:ss``."""
    rows = []
    for epoch in range(epochs):
        bad = nan_from is not None and epoch >= nan_from
        valid_bad = bad or (valid_nan_from is not None and epoch >= valid_nan_from)
        rows.append([str(epoch), "nan" if bad else f"{0.9 - epoch * 0.03:.6f}",
                     "nan" if valid_bad else f"{0.8 - epoch * 0.02:.6f}",
                     *[f"{0.7 + epoch / 100:.6f}"] * metrics, "00:05"])
    return rows


def _fastai(nan_from: int | None = None, valid_nan_from: int | None = None, *,
            names: tuple[str, ...] = _FASTAI, epochs: int = 10, tabs: bool = False) -> list[str]:
    rows = _fastai_rows(epochs, nan_from, valid_nan_from, metrics=len(names) - 4)
    if tabs:  # the notebook's HTML table copied as text
        return ["\t".join(names), *("\t".join(row) for row in rows)]
    return _fastai_table(names, rows)


def _fastprogress_bar(prefix: str, done: int, total: int, comment: str) -> str:
    """fastprogress' ``ConsoleProgressBar.on_update`` (100 columns, ``txt_len=60``): ``\\r{prefix}
    |{bar}| {pct}% [{done}/{total} {elapsed}<{remaining} {comment}]``, the comment fastai's
    smoothed loss ``f'{self.smooth_loss:.4f}'``."""
    text = f"{100 * done / total:.2f}% [{done}/{total} 00:{done % 60:02d}<00:10" + (
        f" {comment}]" if comment else "]")
    length = min(40, 100 - len(text) - len(prefix) - 4)
    filled = length * done // total
    return f"\r{prefix} |{'█' * filled + '-' * (length - filled)}| {text}"


def _fastai_console(nan_at: int | None = None, valid_nan_from: int | None = None,
                    epochs: int = 5, batches: int = 100) -> list[str]:
    """A console run: the header before the first bar, each epoch's training and validation
    bars (``Epoch {e+1}/{n} :``, redrawn after carriage returns, blanked on their end: the
    child bars do not ``leave``), then the epoch's row on the same line."""
    names = [name + " " * (8 - len(name)) if len(name) < 8 else name for name in _FASTAI]
    out = ["  ".join(names)]
    comment, bad = "", False
    for epoch in range(epochs):
        prefix = f"Epoch {epoch + 1}/{epochs} :"
        line = ""
        for done in range(batches + 1):
            bad = bad or (nan_at is not None and done > 0 and epoch * batches + done >= nan_at)
            comment = "" if done == 0 else "nan" if bad else f"{0.9 - epoch / 50:.4f}"
            line += _fastprogress_bar(prefix, done, batches, comment)
        line += "\r" + " " * 90 + "\r"
        for done in range(21):
            line += _fastprogress_bar(prefix, done, 20, comment if done else "")
        line += "\r" + " " * 90 + "\r"
        valid_bad = bad or (valid_nan_from is not None and epoch >= valid_nan_from)
        row = [str(epoch), "nan" if bad else f"{0.9 - epoch * 0.03:.6f}",
               "nan" if valid_bad else f"{0.8 - epoch * 0.02:.6f}", "0.700000", "00:05"]
        out.append(line + "".join(cell + " " * (2 + len(name) - len(cell))
                                  for cell, name in zip(row, names, strict=True)))
    return out


def test_fastai_table_is_numbered_by_its_epoch(tmp_path: Path) -> None:
    """Before: the table's rows were numbered by their place (the epoch from 1): the NaN of
    epoch 4 was reported at step 5, the NaN valid_loss (AMP013) too; an excerpt that starts
    below epoch 0 moved it further."""
    assert faults(tmp_path, _fastai(4)) == [("AMP006", 4), ("AMP013", 4)]
    assert faults(tmp_path, _fastai(4, tabs=True)) == [("AMP006", 4), ("AMP013", 4)]
    assert faults(tmp_path, _fastai(valid_nan_from=6)) == [("AMP013", 6)]
    error_rate = ("epoch", "train_loss", "valid_loss", "error_rate", "time")
    assert faults(tmp_path, _fastai(7, names=error_rate, epochs=12)) == [
        ("AMP006", 7), ("AMP013", 7)]
    # its bars on the same lines as the rows: the table's epoch all the same
    assert faults(tmp_path, _fastai_console(nan_at=240)) == [("AMP006", 2), ("AMP013", 2)]
    assert faults(tmp_path, _fastai_console(valid_nan_from=3)) == [("AMP013", 3)]


def _missing_rows(nan_from: int | None, missing: list[str]) -> list[list[str]]:
    """Rows of a run without validation: ``missing`` where the validation values go."""
    return [[str(e), "nan" if nan_from is not None and e >= nan_from else f"{0.9 - e / 50:.6f}",
             *missing, "00:05"] for e in range(8)]


def test_fastai_cells_without_a_value_fill_their_column(tmp_path: Path) -> None:
    """A run without a validation set. fastai v2: ``AvgLoss``/``AvgMetric.value`` is None
    (``self.total/self.count if self.count != 0 else None``, fastai/learner.py), printed
    ``str(None)`` in the valid_loss column and each metric's. Before: those rows held fewer
    numbers than half the columns and were no table's rows: "nothing to diagnose".
    fastai v1: ``Recorder.format_stats`` writes ``'#na#'`` for the missing validation loss
    and stops there (its zip with the names): the time falls under the first metric. Before:
    read, but numbered by place (step 4 for epoch 3)."""
    wide = ("epoch", "train_loss", "valid_loss", "accuracy", "error_rate", "time")
    assert faults(tmp_path, _fastai_table(_FASTAI, _missing_rows(3, ["None", "None"]))) == [
        ("AMP006", 3)]
    assert faults(tmp_path, _fastai_table(wide, _missing_rows(5, ["None"] * 3))) == [
        ("AMP006", 5)]
    assert faults(tmp_path, _fastai_table(_FASTAI, _missing_rows(3, ["#na#"]))) == [
        ("AMP006", 3)]


def test_fastai_controls(tmp_path: Path) -> None:
    """Healthy runs: the console table, the notebook's, more metrics, the bars, ``#na#`` and
    ``None`` cells (pass on the parent too, but for the ``None`` cells' table: unread there,
    "nothing to diagnose")."""
    wide = ("epoch", "train_loss", "valid_loss", "accuracy", "error_rate", "top_k_accuracy",
            "time")
    for lines in (_fastai(), _fastai(tabs=True), _fastai(names=wide, epochs=30),
                  _fastai_console(),
                  _fastai_table(_FASTAI, _missing_rows(None, ["#na#"])),
                  _fastai_table(_FASTAI, _missing_rows(None, ["None", "None"]))):
        assert faults(tmp_path, lines) == []


# --- poutyne ----------------------------------------------------------------------------------

_EIGHTHS = [" ", "\u258f", "\u258e", "\u258d", "\u258c", "\u258b", "\u258a", "\u2589"]
_COLORS = {"text": "\x1b[37m", "ratio": "\x1b[96m", "value": "\x1b[32m", "time": "\x1b[93m",
           "reset": "\x1b[0m"}
_PLAIN = dict.fromkeys(_COLORS, "")


def _poutyne_bar(done: int, total: int) -> str:
    """poutyne/framework/callbacks/progress_bar.py ``ProgressBar.__str__`` (20 wide)."""
    share = done / total
    full = "\u2588" * int(share * 20)
    part = _EIGHTHS[int((share * 20 - len(full)) * 8)] if share < 1.0 else ""
    return f"{share * 100:6.2f}% |{full + part + ' ' * (20 - len(full) - 1)}|"


def _poutyne_metrics(colors: dict[str, str], pairs: list[tuple[str, str]]) -> str:
    """``_get_formatted_metrics``: the ``', '``-joined ``f'{k}: {v:f}'`` split on commas, each
    name and value coloured."""
    text = ", ".join(f"{key}: {value}" for key, value in pairs)
    return "".join(colors["text"] + name + ":" + colors["value"] + value
                   for name, value in (part.split(":") for part in text.split(",")))


def _poutyne(nan_at: int | None = None, valid_nan_from: int | None = None, *,
             epochs: int = 5, steps: int = 100, every: int = 1, color: bool = True,
             bar: bool = True) -> list[str]:
    """``fit`` with ``ProgressionCallback``: each batch redraws ``\\rEpoch: E/N Step: i/M
    [bar]ETA: ... loss: ... acc: ...`` (no new line), the epoch's summary ends the line.
    ``every``: ``show_every_n_train_steps`` (0: ``'none'``)."""
    c = _COLORS if color else _PLAIN
    lines = []
    for epoch in range(1, epochs + 1):
        head = f"\r{c['text']}Epoch: {c['ratio']}{epoch:d}/{epochs:d} "
        line, bad, loss = "", False, ""
        for done in range(1, steps + 1):
            step = (epoch - 1) * steps + done
            bad = nan_at is not None and step >= nan_at
            loss = "nan" if bad else f"{0.9 - step / 1e4:f}"
            if not every or (done % every and done != steps):
                continue
            line += head + f"{c['text']}Step: {c['ratio']}{done:3d}/{steps} "
            if bar:
                line += c["text"] + _poutyne_bar(done, steps)
            line += f"{c['text']}ETA: {c['time']}{(steps - done) * 0.05:.2f}s "
            line += _poutyne_metrics(c, [("loss", loss), ("acc", f"{50 + step / 100:f}")])
            line += c["reset"]
        valid = "nan" if bad or (valid_nan_from is not None and epoch >= valid_nan_from) else (
            f"{0.8 - epoch / 100:f}")
        line += (head + f"{c['text']}Train steps: {c['ratio']}{steps} {c['text']}Val steps: "
                 f"{c['ratio']}20 {c['time']}5.32s " + _poutyne_metrics(
                     c, [("loss", loss), ("acc", "55.000000"), ("val_loss", valid),
                         ("val_acc", "52.000000")]) + c["reset"])
        lines.append(line)
    return lines


def test_poutyne_epoch_summary_counts_the_epochs_steps(tmp_path: Path) -> None:
    """Before: the epoch's ``Train steps: 100`` was read as the step: a NaN val_loss after
    epoch 3 (of 100 steps each) was reported at step 100, not 300."""
    assert faults(tmp_path, _poutyne(valid_nan_from=3)) == [("AMP013", 300)]
    assert faults(tmp_path, _poutyne(valid_nan_from=4, every=10, color=False)) == [
        ("AMP013", 400)]
    # no batch lines (``show_every_n_train_steps='none'``): the count stays put a line
    assert faults(tmp_path, _poutyne(valid_nan_from=2, every=0)) == [("AMP013", 200)]
    assert faults(tmp_path, _poutyne(nan_at=240)) == [("AMP006", 240), ("AMP013", 300)]


def test_poutyne_controls(tmp_path: Path) -> None:
    """Healthy runs, coloured or not, with or without the bar, every 10 steps (pass on the
    parent too)."""
    for lines in (_poutyne(), _poutyne(color=False, bar=False), _poutyne(every=10, epochs=8),
                  _poutyne(every=0)):
        assert faults(tmp_path, lines) == []


# --- torchbearer ------------------------------------------------------------------------------

def _tqdm(desc: str, done: int, total: int, postfix: str) -> str:
    """tqdm's default ``{desc}: {percentage:3.0f}%|{bar}| {n_fmt}/{total_fmt} [{elapsed}<
    {remaining}, {rate_fmt}{postfix}]``."""
    filled = 10 * done // total
    bar = "█" * filled + " " * (10 - filled)
    return (f"{desc}: {100 * done / total:3.0f}%|{bar}| {done}/{total} [00:0{done % 10}<00:05, "
            f"19.53it/s{', ' + postfix if postfix else ''}]")


def _torchbearer(nan_at: int | None = None, *, epochs: int = 5, steps: int = 100,
                 console: bool = False, precision: int = 4) -> list[str]:
    """``Trial(...).run(epochs, verbose=2)``: a ``Tqdm`` bar each epoch and phase, its
    description ``'{:d}/{:d}({:s})'.format(epoch, epochs, 't')`` (the epoch from 0), its
    postfix ``_format_metrics``: ``key=str(round(value, precision))`` joined by ``', '``.
    ``console``: the ``ConsolePrinter`` instead, ``\\r{e}/{n}(t): {i}/{M} {metrics}`` a batch,
    ``\\r{e}/{n}(t): {metrics}`` at the epoch's end."""
    lines = []
    for epoch in range(epochs):
        parts, running = [], ""
        for done in range(steps + 1):
            step = epoch * steps + done
            loss = ("nan" if nan_at is not None and step >= nan_at
                    else str(round(0.9 - step / 1e4, precision)))
            running = f"running_loss={loss}, running_acc={round(0.5 + step / 1e4, precision)}"
            if console and done:
                parts.append(f"\r{epoch}/{epochs}(t): {done}/{steps} {running}")
            elif not console:
                parts.append(_tqdm(f"{epoch}/{epochs}(t)", done, steps, running if done else ""))
        end = f"{running}, loss={loss}, acc={round(0.55 + epoch / 100, precision)}"
        if console:
            lines.append("".join(parts) + f"\r{epoch}/{epochs}(t): {end}")
        else:
            lines.append("\r".join([*parts, _tqdm(f"{epoch}/{epochs}(t)", steps, steps, end)]))
        valid = f"val_loss={loss if loss == 'nan' else 0.8}, val_acc=0.52"
        lines.append(f"\r{epoch}/{epochs}(v): {valid}" if console else "\r".join(
            [_tqdm(f"{epoch}/{epochs}(v)", 0, 20, ""), _tqdm(f"{epoch}/{epochs}(v)", 20, 20,
                                                           valid)]))
    return lines


def test_torchbearer_console_printer_counts_epoch_and_batch(tmp_path: Path) -> None:
    """Before: the ConsolePrinter's ``2/5(t): 40/100`` went unread, each line numbered by its
    place: the NaN of epoch 2's batch 40 was reported at step 242 (the epochs' summary
    lines counted as steps)."""
    assert faults(tmp_path, _torchbearer(240, console=True))[0] == ("AMP006", 240)
    assert faults(tmp_path, _torchbearer(330, console=True, precision=6))[0] == ("AMP006", 330)


def test_torchbearer_controls(tmp_path: Path) -> None:
    """The Tqdm bars (read before: the fault at its step) and healthy runs of both printers
    (pass on the parent too)."""
    assert faults(tmp_path, _torchbearer(240)) == [("AMP006", 240), ("AMP013", 300)]
    for lines in (_torchbearer(), _torchbearer(console=True), _torchbearer(precision=8),
                  [_torchbearer_epochs(10)]):
        assert faults(tmp_path, lines) == []


def _stopped(lines: list[str], line: int, redraws: int, message: str) -> list[str]:
    """A run that a TerminateOnNaN callback stopped: ``line``'s first ``redraws`` bar redraws
    (split at carriage returns), the callback's ``print`` glued to the last one."""
    parts = lines[line].split("\r")
    return [*lines[:line], "\r".join(parts[:redraws]) + message]


def _torchbearer_epochs(epochs: int, total: int = 10) -> str:
    """``verbose=1``: one ``Tqdm(on_epoch=True)`` bar over the epochs, no description, its
    postfix the epoch's metrics, the validation's too."""
    parts = [f"  0%|          | 0/{total} [00:00<?, ?it/s]"]
    for done in range(1, epochs + 1):
        parts.append(_tqdm("", done, total, f"running_loss={0.9 - done / 20}, running_acc=0.5, "
                                            f"loss={0.9 - done / 20}, acc=0.55, val_loss=0.7, "
                                            "val_acc=0.52")[2:])
    return "\r".join(parts)


def test_terminate_on_nan_prints_glued_to_the_bar(tmp_path: Path) -> None:
    """torchbearer's ``TerminateOnNaN`` (torchbearer/callbacks/terminate_on_nan.py ``_check``:
    ``print('Invalid ' + self._monitor + ', terminating')``) and poutyne's
    (poutyne/framework/callbacks/terminate_on_nan.py: ``print(f'Batch {batch_number:d}:
    Invalid loss, terminating training')``), each glued to the bar it interrupted. Before:
    torchbearer's message was unread, and the console printer's step was the line's place
    (step 242); the validation monitor's NaN is AMP013's."""
    # epoch 2's bar, redrawn from batch 0: the 41st redraw is batch 40
    bar = _stopped(_torchbearer(240), 4, 41, "Invalid running_loss, terminating")
    assert faults(tmp_path, bar) == [("AMP006", 240)]
    # the console printer's ``print(..., end='')``: the message right after the last value
    console = _stopped(_torchbearer(240, console=True), 4, 41,
                       "Invalid running_loss, terminating")
    assert faults(tmp_path, console) == [("AMP006", 240)]
    assert faults(tmp_path, [*_torchbearer(epochs=3), "Invalid val_loss, terminating"]) == [
        ("AMP013", 300)]
    # the epochs' bar (``verbose=1``) never shows the NaN of the epoch it stopped in (index 3)
    assert faults(tmp_path, [_torchbearer_epochs(3) + "Invalid running_loss, terminating"]) == [
        ("AMP006", 3)]
    # poutyne's batch line has no carriage return between redraws but its own: epoch 3's
    # 40th redraw is step 240
    stopped = _stopped(_poutyne(240), 2, 41, "Batch 40: Invalid loss, terminating training")
    assert faults(tmp_path, stopped) == [("AMP006", 240)]


# --- Lightning-based forecasting: darts, pytorch-forecasting, NeuralForecast ------------------

def _lightning(nan_at: int | None = None, valid_nan_from: int | None = None, *,
               step_keys: tuple[str, ...] = ("train_loss",), epoch_key: str | None = None,
               valid_keys: tuple[str, ...] = ("val_loss",), v_num: bool = True,
               epochs: int = 6, batches: int = 32) -> list[str]:
    """Lightning's TQDMProgressBar (``Epoch {e}: {pct}%|{bar}| {n}/{total} [..., {metrics}]``,
    floats ``{:.3f}``), one line an epoch, its redraws parted by carriage returns; the keys
    are what the library's module logs with ``prog_bar=True``: ``step_keys`` each batch,
    ``epoch_key`` (``on_epoch=True`` beside ``on_step``) and ``valid_keys`` from the epoch's
    end on."""
    lines, valid, epoch_value = [], None, None
    for epoch in range(epochs):
        parts, loss = [], ""
        for done in range(batches + 1):
            step = epoch * batches + done
            loss = "nan" if nan_at is not None and step >= nan_at else f"{0.9 - step / 1e3:.3f}"
            shown = ["v_num=0"] if v_num else []
            shown += [f"{key}={loss}" for key in step_keys] if done else []
            shown += [f"{key}={valid}" for key in valid_keys] if valid is not None else []
            shown += [f"{epoch_key}={epoch_value}"] if epoch_key and epoch_value else []
            filled = 10 * done // batches
            parts.append(f"Epoch {epoch}: {100 * done // batches:3d}%|{'█' * filled}"
                         f"{' ' * (10 - filled)}| {done}/{batches} [00:0{done % 10}<00:00, "
                         f"45.60it/s{''.join(', ' + item for item in shown)}]")
        bad = loss == "nan" or (valid_nan_from is not None and epoch >= valid_nan_from)
        valid, epoch_value = "nan" if bad else f"{0.8 - epoch / 100:.3f}", loss
        shown = ["v_num=0"] if v_num else []
        shown += [f"{key}={loss}" for key in step_keys]
        shown += [f"{key}={valid}" for key in valid_keys]
        shown += [f"{epoch_key}={epoch_value}"] if epoch_key else []
        parts.append(f"Epoch {epoch}: 100%|{'█' * 10}| {batches}/{batches} [00:01<00:00, "
                     f"45.60it/s, {', '.join(shown)}]")
        lines.append("\r".join(parts))
    return lines


# darts/models/forecasting/pl_forecasting_module.py: ``self.log("train_loss", ...,
# prog_bar=True)``, ``"val_loss"``, and ``f"{tag}_{metric_str}"`` for its torch_metrics
_DARTS = {"step_keys": ("train_loss",), "valid_keys": ("val_loss", "val_MeanAbsoluteError")}
# pytorch_forecasting/models/base_model.py ``step``: ``self.log(f"{self.current_stage}_loss",
# loss, on_step=self.training, on_epoch=True, prog_bar=True)``
_FORECASTING = {"step_keys": ("train_loss_step",), "epoch_key": "train_loss_epoch",
                "valid_keys": ("val_loss",)}
# neuralforecast/common/_base_model.py: ``self.log("train_loss", ..., prog_bar=True,
# on_epoch=True)``, ``self.log("valid_loss", ..., prog_bar=True, on_epoch=True)``
_NEURALFORECAST = {"step_keys": ("train_loss_step",), "epoch_key": "train_loss_epoch",
                   "valid_keys": ("valid_loss",)}


def test_a_namespaced_evaluation_key_is_the_evaluations(tmp_path: Path) -> None:
    """``ptl/val_loss`` (NeuralForecast's EarlyStopping monitor, logged in
    ``on_validation_epoch_end``; the Ray Tune Lightning examples' key) in the bar of a module
    that logs it with ``prog_bar=True``. Before: read as a term of the training loss: a NaN
    there was reported as AMP006, not AMP013."""
    keys = {**_NEURALFORECAST, "valid_keys": ("ptl/val_loss",)}
    assert faults(tmp_path, _lightning(valid_nan_from=3, **keys)) == [("AMP013", 128)]


def test_forecasting_libraries_read_as_lightning(tmp_path: Path) -> None:
    """The training NaN at batch 10 of epoch 3 (32 batches): step 106; a NaN valid_loss at
    epoch 3's end: step 128 (read before too: controls of the Lightning bar's keys)."""
    for keys in (_DARTS, _FORECASTING, _NEURALFORECAST):
        assert faults(tmp_path, _lightning(106, **keys)) == [("AMP006", 106), ("AMP013", 128)]
        assert faults(tmp_path, _lightning(valid_nan_from=3, **keys)) == [("AMP013", 128)]
        for lines in (_lightning(**keys), _lightning(v_num=False, batches=7, **keys)):
            assert faults(tmp_path, lines) == []


def test_neuralforecast_stops_on_a_nan_loss(tmp_path: Path) -> None:
    """NeuralForecast's ``training_step`` prints the model's parameters and the NaN counts,
    then ``raise Exception("Loss is NaN, training stopped.")`` before it logs the loss: the
    bar never shows it (read before too: the sentence is a NaN loss, the step after the
    bar's last)."""
    lines = [*_lightning(epochs=3, batches=1, **_NEURALFORECAST),
             'Model Parameters "activation":                  ReLU',
             '"batch_size":                  32',
             "insample_y tensor(0, device='cuda:0')",
             "outsample_y tensor(0, device='cuda:0')",
             "Traceback (most recent call last):",
             '  File "neuralforecast/common/_base_model.py", line 2057, in training_step',
             '    raise Exception("Loss is NaN, training stopped.")',
             "Exception: Loss is NaN, training stopped."]
    assert faults(tmp_path, lines) == [("AMP006", 4)]


# --- AllenNLP, Composer -----------------------------------------------------------------------

_ALLENNLP = "2026-06-01 10:00:00,000 - INFO - "


def _allennlp_bar(description: str, done: int, total: int) -> str:
    filled = 10 * done // total
    return (f"{description}: {100 * done // total:3d}%|{'#' * filled}{' ' * (10 - filled)}| "
            f"{done}/{total} [00:{done % 60:02d}<00:10,  4.50it/s]")


def _allennlp(epochs: int = 4, batches: int = 100, every: int = 25) -> list[str]:
    """AllenNLP 2.x's log file: GradientDescentTrainer's ``Epoch %d/%d`` and ``Training``,
    the tqdm bar logged to the ``tqdm`` logger every 10 s and at 100% (allennlp/common/
    tqdm.py ``TqdmToLogsWriter``), its description ``training_util.description_from_metrics``
    (``", ".join("%s: %.4f" ...) + " ||"``), then the validation's bar and the console
    callback's table (allennlp/training/callbacks/console_logger.py: ``"%s |  %8.3f  |
    %8.3f"``)."""
    trainer = _ALLENNLP + "allennlp.training.gradient_descent_trainer - "
    console = _ALLENNLP + "allennlp.training.callbacks.console_logger - "
    lines = []
    for epoch in range(epochs):
        lines += [f"{trainer}Epoch {epoch}/{epochs - 1}", f"{trainer}Training"]
        loss = 0.0
        for done in range(every, batches + 1, every):
            loss = 0.9 - (epoch * batches + done) / 1e3
            lines.append(_ALLENNLP + "tqdm - " + _allennlp_bar(
                f"accuracy: {0.5 + done / 1e3:.4f}, batch_loss: {loss:.4f}, loss: {loss:.4f} ||",
                done, batches))
        lines += [f"{trainer}Validating", _ALLENNLP + "tqdm - " + _allennlp_bar(
            "accuracy: 0.5200, batch_loss: 0.8000, loss: 0.8000 ||", 20, 20)]
        lines.append(console + f"{'Training':>21} |  {'Validation':<10}")
        lines += [console + f"{'accuracy':<8} |  {0.55:8.3f}  |  {0.52:8.3f}",
                  console + f"{'loss':<8} |  {loss:8.3f}  |  {0.8:8.3f}"]
    return lines


def test_allennlp_nan_loss_error_is_at_the_bars_step(tmp_path: Path) -> None:
    """``raise ValueError("nan loss encountered")`` (gradient_descent_trainer.py
    ``_train_epoch``) after epoch 2's bar logged 75/100: at step 275 (read before too: a
    control of the tqdm logger's lines between epochs and validations)."""
    lines = [*_allennlp(epochs=3)[:-6], "Traceback (most recent call last):",
             '  File "allennlp/training/gradient_descent_trainer.py", line 466, in _train_epoch',
             '    raise ValueError("nan loss encountered")',
             "ValueError: nan loss encountered"]
    assert faults(tmp_path, lines) == [("AMP006", 275)]
    for healthy in (_allennlp(), _allennlp(every=10, epochs=6)):
        assert faults(tmp_path, healthy) == []


def _composer(nan_at: int | None = None, *, epochs: int = 3, batches: int = 32,
              every: int = 1) -> list[str]:
    """Composer's ConsoleLogger (composer/loggers/console_logger.py ``log_to_console``):
    ``[epoch={e}][batch={b}/{n}]:`` then ``\\n\\t Train {name}: {value}`` a metric, every
    ``console_log_interval`` batches; at each evaluation's end ``[Eval batch={b}/{n}] Eval on
    eval data:`` and its metrics."""
    lines = ["*" * 30, "Config:", "num_nodes: 1", "precision: Precision.AMP_FP16", "*" * 30]
    for epoch in range(epochs):
        for done in range(1, batches + 1):
            step = epoch * batches + done
            if step % every:
                continue
            loss = "nan" if nan_at is not None and step >= nan_at else f"{2.3 - step / 100:.4f}"
            lines.append(f"[epoch={epoch + 1}][batch={done}/{batches}]:")
            lines += [f"\t Train {key}: {value}" for key, value in (
                ("time/epoch", epoch), ("time/batch", step - 1), ("time/sample", (step - 1) * 64),
                ("time/batch_in_epoch", done - 1), ("trainer/device_train_microbatch_size", 64),
                ("loss/train/total", loss), ("metrics/train/MulticlassAccuracy", "0.5000"),
                ("lr-DecoupledSGDW/group0", "0.1000"))]
        lines += ["[Eval batch=1/10] Eval on eval data", "[Eval batch=10/10] Eval on eval data:",
                  "\t Eval metrics/eval/MulticlassAccuracy: 0.5200",
                  f"\t Eval metrics/eval/CrossEntropy: {0.9 - epoch / 10:.4f}"]
    return lines


def test_composer_console_logger_every_batch(tmp_path: Path) -> None:
    """A record a batch (``console_log_interval='1ba'``): the NaN of batch 16 of epoch 2
    (32 batches) at step 48 (read before too: a control)."""
    assert faults(tmp_path, _composer(48)) == [("AMP006", 48)]
    assert faults(tmp_path, _composer()) == []
    assert faults(tmp_path, _composer(every=4, epochs=4)) == []


# --- an experiment tracker's console output beside the run --------------------------------------

def _wandb_footer(train: str, valid: str) -> list[str]:
    """wandb's run footer (wandb/sdk/wandb_run.py, as run_summaries.py reads it): the
    ``Run history:`` sparklines and the ``Run summary:`` last values, keys right-aligned."""
    return ["wandb: Waiting for W&B process to finish... (success).", "wandb: ",
            "wandb: Run history:", "wandb:      epoch ▁▂▃▄▅▆▇█",
            "wandb: train_loss █▇▆▅▄▃▂▁", "wandb: valid_loss █▇▆▅▄▃▂▁", "wandb: ",
            "wandb: Run summary:", "wandb:      epoch 9", f"wandb: train_loss {train}",
            f"wandb: valid_loss {valid}", "wandb: ",
            "wandb: 🚀 View run dainty-sun-3 at: https://wandb.ai/team/project/runs/abc123",
            "wandb: Synced 5 W&B file(s), 0 media file(s), 0 artifact file(s) and 0 other file(s)"]


def test_a_trackers_footer_keeps_the_runs_step(tmp_path: Path) -> None:
    """wandb's summary after the run's own lines repeats their last values: the fault stays
    where the run's lines put it (the fastai ones failed on the parent for the table's step,
    the poutyne one for the epoch summary's count); healthy runs stay quiet."""
    assert faults(tmp_path, [*_fastai(4), *_wandb_footer("nan", "nan")]) == [
        ("AMP006", 4), ("AMP013", 4)]
    assert faults(tmp_path, [*_fastai(valid_nan_from=8), *_wandb_footer("0.63", "nan")]) == [
        ("AMP013", 8)]
    assert faults(tmp_path, [*_poutyne(valid_nan_from=5), *_wandb_footer("0.63", "nan")]) == [
        ("AMP013", 500)]
    for lines in (_fastai(), _poutyne(), _lightning(**_NEURALFORECAST)):
        assert faults(tmp_path, [*lines, *_wandb_footer("0.63", "0.62")]) == []
