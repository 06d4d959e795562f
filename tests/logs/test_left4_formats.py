"""Known misses, batch A of round four: excerpts written from each tool's own format strings
(each test names its source), a fault at a known step beside healthy controls.

- Ray Tune 2.x's status table (ray-project/ray ``python/ray/tune/experimental/output.py``
  ``TuneTerminalReporter._print_heartbeat``: ``tabulate(..., headers=["Trial name", "status",
  "loss", "iter", ...], tablefmt="simple")`` under ``Trial status: 4 RUNNING``): tabulate pads
  the header, its rule and its rows to one width, the widest lines of the paste; the header
  over its rule was read as a line hard-wrapped at that width and joined to it, so no header
  was left ("nothing to diagnose"). A rule as wide as the line above it now keeps both whole
  (``hard_wraps._rule``). The older CLIReporter (``ray/tune/progress_reporter.py``,
  ``tablefmt="psql"``) was read right already; its test is kept (the suite had none).
- MATLAB trainNetwork's verbose table, its header over two rows (``|  Epoch  |  Iteration  |
  ...  |  Mini-batch  |  Base Learning  |`` over ``|         |             | ...  |     Loss
  |      Rate      |``, MathWorks' ``trainingOptions`` ``Verbose`` documentation): the second
  row's names now go on the first's, column by column (``Mini-batch Loss``, ``Validation
  Loss``, ``Base Learning Rate``: ``metric_reader._header_below``), and a header between
  pipes is taken as one before its ``Validation`` names make it an evaluation's line.
- Caffe (BVLC/caffe ``src/caffe/solver.cpp``): ``Solver::Test`` logs ``Iteration N, Testing
  net (#0)`` over its ``    Test net output #1: loss = nan (* 1 = nan loss)`` lines; the
  evaluation's NaN was placed after the last training row read ("a step within 1401-1500"
  for the test at iteration 1500). The heading is now handed over with the output below it
  (``reader._EVAL_AT``) and numbers the evaluation lines below it (``metric_reader._headed``).
  The training NaN was exact already (``Iteration N (... iter/s, ...), loss = nan``).
- keras_lr_finder (surmenok/keras_lr_finder ``keras_lr_finder/lr_finder.py``): ``find`` runs
  its own ``model.fit(epochs=1)`` and stops it at the first NaN loss, then the real ``fit``
  prints ``Epoch 1/N`` again. Keras' bare epoch header is now handed over with the bar below
  it (``reader._step_line``); an ``Epoch 1/N`` after another header begins a new fit, whose
  first row starts a run (``MetricEvent.run_start``: the assembler restarts there, the
  excerpt judge counts the run before as ended, ``AbandonedRuns.restart(fresh=True)``), and
  the doctor's existing ``_abandoned`` says the range test's NaN at info. (No change to
  doctor.py was needed.)
- ClassyVision before 2020 (facebookresearch/ClassyVision
  ``classy_vision/hooks/loss_lr_meter_logging_hook.py``): the phase and its batches on a
  line of their own (``Rank: 0, train phase: 2, processed batches: 300``) over the loss line
  (``train loss: nan, LR rate: 0.1``); the loss lines were counted as rows. The newer hook's
  ``Approximate meters: ... train phase 2 (60.00% done), loss: nan`` without its phase's
  closing ``processed batches: N`` is left as it was (a share of a phase of unknown length
  names no batch: the rows are counted; see test_left3_formats.py).

Each fault test failed on the parent commit (00ce8bf) unless its docstring says it passes
there; the controls raise no false alarm there either (two of them fail there only because
the parent read nothing: "nothing to diagnose").
"""

from __future__ import annotations

from pathlib import Path

from excerpts import diagnose_lines, faults

# -- Ray Tune: python/ray/tune/experimental/output.py, python/ray/tune/progress_reporter.py --


def _table(header: list[str], rows: list[list[object]], fmt: str) -> list[str]:
    """tabulate's ``simple`` or ``psql`` table: numbers right-aligned (floats as ``g``),
    text left-aligned, every column as wide as its widest cell."""
    cells = [[format(c, "g") if isinstance(c, float) else str(c) for c in row] for row in rows]
    numeric = [isinstance(c, (int, float)) for c in rows[0]]
    widths = [max(len(name), *(len(row[i]) for row in cells)) for i, name in enumerate(header)]

    def line(row: list[str]) -> list[str]:
        return [c.rjust(w) if n else c.ljust(w) for c, w, n in zip(row, widths, numeric,
                                                                   strict=True)]
    if fmt == "simple":
        return ["  ".join(line(header)).rstrip(), "  ".join("-" * w for w in widths),
                *("  ".join(line(row)).rstrip() for row in cells)]
    rule = "+" + "+".join("-" * (w + 2) for w in widths) + "+"
    return [rule, "| " + " | ".join(line(header)) + " |",
            "|" + "+".join("-" * (w + 2) for w in widths) + "|",
            *("| " + " | ".join(line(row)) + " |" for row in cells), rule]


def _trial_loss(trial: int, iteration: int, nan_from: int | None) -> float:
    if nan_from is not None and trial == 2 and iteration >= nan_from:
        return float("nan")
    return round(2.3 - iteration / 20 - trial / 10, 4)


def _ray2(nan_from: int | None = None, *, lr_column: bool = True) -> list[str]:
    """Ray 2.x's heartbeat: ``Trial status: ...``, ``Current time: ... (running for ...)``,
    the resources, then the trials' table (``DEFAULT_COLUMNS``' ``loss`` and ``iter``, a
    user metric after them) and a blank line; four trials, the third NaN from ``nan_from``."""
    lines: list[str] = []
    header = ["Trial name", "status", "loss", "iter", "total time (s)"] + (
        ["lr"] if lr_column else ["accuracy"])
    for it in range(1, 21):
        lines += ["Trial status: 4 RUNNING",
                  f"Current time: 2023-02-24 12:35:{it:02d} (running for 00:00:{it:02d}.40)",
                  "Logical resource usage: 8.0/64 CPUs, 0/0 GPUs"]
        rows: list[list[object]] = [
            [f"train_fn_18ae7_0000{t}", "RUNNING", _trial_loss(t, it, nan_from), it,
             round(it * 1.2, 1), 0.001 * (t + 1) if lr_column else 0.5 + t / 10]
            for t in range(4)]
        lines += [*_table(header, rows, "simple"), ""]
    return lines


def _ray1(nan_from: int | None = None) -> list[str]:
    """The CLIReporter's ``== Status ==`` block and its ``psql`` table (``loc`` and a
    parameter column before the metrics)."""
    lines: list[str] = []
    for it in range(1, 21):
        lines += ["== Status ==",
                  f"Current time: 2021-01-01 10:00:{it:02d} (running for 00:00:{it:02d}.00)",
                  "Memory usage on this node: 10.0/62.8 GiB", "Using FIFO scheduling algorithm.",
                  "Resources requested: 4.0/16 CPUs, 0/1 GPUs, 0.0/30.0 GiB heap, 0.0/15.0 GiB "
                  "objects", "Result logdir: /home/user/ray_results/train_fn_2021-01-01_10-00-00",
                  "Number of trials: 4/4 (4 RUNNING)"]
        rows: list[list[object]] = [
            [f"train_fn_a1b2c_0000{t}", "RUNNING", f"10.0.0.1:1234{t}", 0.001 * (t + 1),
             _trial_loss(t, it, nan_from), it, round(it * 1.2, 1)] for t in range(4)]
        lines += [*_table(["Trial name", "status", "loc", "lr", "loss", "iter",
                           "total time (s)"], rows, "psql"), "", ""]
    return lines


def test_ray2_trial_status_table_nan_loss_at_its_iteration(tmp_path: Path) -> None:
    """Before: "nothing to diagnose" (the header joined to its rule as a hard-wrapped line).
    ``iter`` (``training_iteration``) is the step: each trial reports its own, the table
    prints them side by side."""
    assert faults(tmp_path, _ray2(8)) == [("AMP006", 8)]


def test_ray1_cli_reporter_psql_table(tmp_path: Path) -> None:
    """The CLIReporter's psql table (passes on the parent too: kept as the suite's only Ray
    Tune table)."""
    assert faults(tmp_path, _ray1(8)) == [("AMP006", 8)]
    assert faults(tmp_path, _ray1()) == []


def test_ray_tables_healthy_are_quiet(tmp_path: Path) -> None:
    """Controls: healthy tables, with a user metric column in place of the learning rate
    (no false alarm on the parent either, but it read nothing there: "nothing to diagnose",
    which the helper takes for an error)."""
    assert faults(tmp_path, _ray2()) == []
    assert faults(tmp_path, _ray2(lr_column=False)) == []


# -- MATLAB trainNetwork: trainingOptions('Verbose', true), the verbose table ----------------

_RULE = {False: "|" + "=" * 88 + "|", True: "|" + "=" * 118 + "|"}
_HEADER = {
    False: ["|  Epoch  |  Iteration  |  Time Elapsed  |  Mini-batch  |  Mini-batch  |  Base "
            "Learning  |",
            "|         |             |   (hh:mm:ss)   |   Accuracy   |     Loss     |      "
            "Rate       |"],
    True: ["|  Epoch  |  Iteration  |  Time Elapsed  |  Mini-batch  |  Validation  |  "
           "Mini-batch  |  Validation  |  Base Learning  |",
           "|         |             |   (hh:mm:ss)   |   Accuracy   |   Accuracy   |     "
           "Loss     |     Loss     |      Rate       |"],
}


def _matlab(nan_from: int | None = None, *, validation: bool = False,
            val_nan_from: int | None = None, frequency: int = 50) -> list[str]:
    """The table as trainNetwork prints it every ``VerboseFrequency`` iterations (iteration
    1 first), 500 iterations an epoch; with validation data its two columns are filled
    every 200 iterations and left blank between; MATLAB prints a NaN as ``NaN``."""
    lines = ["Training on single CPU.", "Initializing input data normalization.",
             _RULE[validation], *_HEADER[validation], _RULE[validation]]
    for it in [1, *range(frequency, 2001, frequency)]:
        epoch = (it - 1) // 500 + 1
        bad = nan_from is not None and it >= nan_from
        loss = "NaN" if bad else f"{2.3 - it / 1000:.4f}"
        accuracy = "10.16%" if bad else f"{min(99.0, 10 + it / 20):.2f}%"
        clock = f"00:{it // 60 // 60:02d}:{it // 60 % 60:02d}"
        if not validation:
            lines.append(f"|{epoch:>8} |{it:>12} |{clock:>15} |{accuracy:>13} |{loss:>13} |"
                         f"{0.01:>16.4f} |")
            continue
        shown = it == 1 or it % 200 == 0
        val_bad = val_nan_from is not None and it >= val_nan_from
        val_loss = ("NaN" if val_bad else f"{2.2 - it / 1000:.4f}") if shown else ""
        val_accuracy = f"{min(99.0, 10 + it / 20):.2f}%" if shown else ""
        lines.append(f"|{epoch:>8} |{it:>12} |{clock:>15} |{accuracy:>13} |{val_accuracy:>13} |"
                     f"{loss:>13} |{val_loss:>13} |{0.01:>16.4f} |")
    return [*lines, _RULE[validation], "Training finished: Max epochs completed."]


def test_matlab_two_row_header_nan_loss_at_its_iteration(tmp_path: Path) -> None:
    """Before: "nothing to diagnose" without validation data (the ``Loss`` of the second
    header row alone named no column), AMP006 at step 20 with it (the second row taken as
    the header, ``Iteration`` lost: the rows counted)."""
    assert faults(tmp_path, _matlab(1300)) == [("AMP006", 1300)]
    assert faults(tmp_path, _matlab(1300, validation=True)) == [("AMP006", 1300)]


def test_matlab_validation_nan_is_evaluation_at_its_iteration(tmp_path: Path) -> None:
    """Before: nothing found (the validation rows read as training rows of a table that
    named no step)."""
    assert faults(tmp_path, _matlab(validation=True, val_nan_from=1400)) == [("AMP013", 1400)]


def test_matlab_healthy_tables_are_quiet(tmp_path: Path) -> None:
    """Controls: with and without validation data, another VerboseFrequency (no false alarm
    on the parent either; without validation data it read nothing there, "nothing to
    diagnose", which the helper takes for an error)."""
    assert faults(tmp_path, _matlab()) == []
    assert faults(tmp_path, _matlab(validation=True)) == []
    assert faults(tmp_path, _matlab(frequency=30)) == []


# -- Caffe: src/caffe/solver.cpp Solver::Step / Solver::Test, through glog ------------------


def _caffe(train_nan: int | None = None, test_nan: int | None = None, *,
           newer: bool = True, test_interval: int = 500, display: int = 100) -> list[str]:
    """LeNet's solver: every ``display`` iterations the iteration line and the train net's
    output, every ``test_interval`` the test net's two outputs before the iteration's
    training line (``Step`` tests first); sgd_solver.cpp's learning-rate line after each.
    ``newer``: the line with the iteration rate (after 2016), else ``Iteration N, loss = X``."""
    lines = ["I1207 10:00:00.000000  1234 solver.cpp:48] Initializing solver from parameters:",
             "I1207 10:00:01.000000  1234 solver.cpp:337] Solving LeNet",
             "I1207 10:00:01.000000  1234 solver.cpp:338] Learning Rate Policy: inv"]
    for it in range(0, 2001, display):
        if it % test_interval == 0:
            value = "nan" if test_nan is not None and it >= test_nan else f"{0.1 - it / 1e5:.5g}"
            lines += [f"I1207 10:00:02.000000  1234 solver.cpp:392] Iteration {it}, Testing net "
                      "(#0)",
                      "I1207 10:00:02.500000  1234 solver.cpp:459]     Test net output #0: "
                      "accuracy = 0.9712",
                      f"I1207 10:00:02.500000  1234 solver.cpp:459]     Test net output #1: "
                      f"loss = {value} (* 1 = {value} loss)"]
        loss = "nan" if train_nan is not None and it >= train_nan else f"{2.3 - it / 1000:.6g}"
        head = (f"Iteration {it} (5.2 iter/s, 19.2s/{display} iters), loss = {loss}" if newer
                else f"Iteration {it}, loss = {loss}")
        lines += [f"I1207 10:00:03.000000  1234 solver.cpp:243] {head}",
                  f"I1207 10:00:03.000000  1234 solver.cpp:259]     Train net output #0: loss = "
                  f"{loss} (* 1 = {loss} loss)",
                  f"I1207 10:00:03.000000  1234 sgd_solver.cpp:138] Iteration {it}, lr = 0.0099"]
    return [*lines, "I1207 10:09:00.000000  1234 solver.cpp:464] Optimization Done."]


def test_caffe_test_net_nan_is_evaluation_at_its_iteration(tmp_path: Path) -> None:
    """Before: AMP013 at 1401 ("a step within 1401-1500", after the last training row read),
    for the test net run at iteration 1500."""
    assert faults(tmp_path, _caffe(test_nan=1500)) == [("AMP013", 1500)]
    assert faults(tmp_path, _caffe(test_nan=1500, newer=False)) == [("AMP013", 1500)]


def test_caffe_train_nan_at_its_iteration(tmp_path: Path) -> None:
    """The training NaN at its iteration (right on the parent too), the test net's NaN
    after it its consequence at the test's iteration (before: at 1401, with the test net's
    output printed every 50 iterations)."""
    assert faults(tmp_path, _caffe(train_nan=1300)) == [("AMP006", 1300)]
    assert faults(tmp_path, _caffe(train_nan=1300, test_nan=1500, display=50)) == [
        ("AMP006", 1300), ("AMP013", 1500)]


def test_caffe_healthy_solvers_are_quiet(tmp_path: Path) -> None:
    """Controls (pass on the parent too): both line formats, other intervals."""
    assert faults(tmp_path, _caffe()) == []
    assert faults(tmp_path, _caffe(newer=False, test_interval=1000, display=20)) == []


# -- keras_lr_finder: surmenok/keras_lr_finder keras_lr_finder/lr_finder.py ------------------


def _bar(done: int, total: int, tail: str) -> str:
    """Keras 2's Progbar line (keras ``utils/generic_utils.py`` ``Progbar.update``: the count
    padded to the total's width, a bar of 30, then `` - ETA: ...`` or, finalized, the time
    and the time per step, then `` - loss: ...``)."""
    filled = int(30 * done / total)
    bar = ("=" * (filled - 1) + (">" if done < total else "=")) if filled else ""
    return f"{done:>{len(str(total))}}/{total} [{bar}{'.' * (30 - filled)}] - {tail}"


def _lr_finder(stop_at: int | None = 212, fit_nan: int | None = None,
               epochs: int = 20) -> list[str]:
    """``LRFinder.find`` runs ``model.fit(..., epochs=1)`` and stops it at the first NaN loss
    (``self.model.stop_training = True``): the last bar is finalized at ``stop_at`` of 469
    (None: no range test); then the real ``fit``, one finalized bar an epoch (the bar's
    updates rewrote one terminal line), NaN from epoch ``fit_nan``."""
    lines: list[str] = []
    if stop_at is not None:
        lines.append("Epoch 1/1")
        lines += [_bar(batch, 469, f"ETA: 2s - loss: {2.3 - batch / 200:.4f}")
                  for batch in range(1, stop_at, 30)]
        lines.append(_bar(stop_at, 469, "3s 6ms/step - loss: nan"))
    for epoch in range(1, epochs + 1):
        loss = "nan" if fit_nan is not None and epoch >= fit_nan else f"{0.5 / epoch:.4f}"
        lines += [f"Epoch {epoch}/{epochs}",
                  _bar(469, 469, f"3s 6ms/step - loss: {loss} - accuracy: 0.{80 + epoch}00")]
    return lines


def test_keras_lr_finder_nan_then_fit_is_info(tmp_path: Path) -> None:
    """Before: AMP006 [error] at 212 (the range test's NaN, its bar's count going on into the
    real fit's bars, no restart seen). Now Keras' ``Epoch 1/N`` after another epoch header
    begins a new fit (``metric_reader._fit_header``), its first row a run's start: the range
    test's NaN ended the run the log began again, which trained on (``abandoned_runs``):
    AMP006 at info."""
    for stop_at in (212, 400):
        result = diagnose_lines(tmp_path, _lr_finder(stop_at))
        assert result.faults == [], stop_at
        assert [(d.code, d.step, d.severity.value) for d in result.diagnoses] == [
            ("AMP006", stop_at, "info")]


def test_keras_nan_in_the_fit_after_the_range_test_is_amp006(tmp_path: Path) -> None:
    """The twin: the real fit goes NaN at its epoch 15 (step 15 * 469): AMP006 there, the
    range test's NaN listed too (as for PyTorch-Ignite's finder in
    test_false_alarms6_formats.py). A fit's NaN within ``nonfinite_clear_steps`` rows of the
    range test's (one row an epoch) is one episode with it: reported at the test's step, as
    an error (not silenced). Passes on the parent too (every NaN was AMP006 there)."""
    assert faults(tmp_path, _lr_finder(fit_nan=15)) == [("AMP006", 212), ("AMP006", 15 * 469)]
    assert faults(tmp_path, _lr_finder(fit_nan=3, epochs=5)) == [("AMP006", 212)]


def test_keras_fits_without_a_range_test_are_as_before(tmp_path: Path) -> None:
    """Controls (as on the parent): one fit, healthy or NaN from its epoch 4 (AMP006 at that
    epoch's bar); two healthy fits one after the other."""
    assert faults(tmp_path, _lr_finder(None)) == []
    assert faults(tmp_path, _lr_finder(None, fit_nan=4, epochs=6)) == [("AMP006", 4 * 469)]
    assert faults(tmp_path, _lr_finder(None, epochs=3) + _lr_finder(None, epochs=3)) == []


# -- ClassyVision before 2020: classy_vision/hooks/loss_lr_meter_logging_hook.py --------------


def _classy(nan_at: tuple[int, int] | None = None, *, batches: int = 500,
            log_freq: int = 100, cut: int = 0) -> list[str]:
    """``LossLrMeterLoggingHook._log_loss_lr_meters``' ``logging.info("\\n".join(log_strs))``
    through ``classy_train.py``'s root logger: ``Rank: {}, {} phase: {}, processed batches:
    {}`` (the logger's prefix on it alone), ``{} loss: {}, LR rate: {}``, ``Meters:`` and
    each meter; every ``log_freq`` batches (``Local unsynced metric values:``) and at each
    phase's end (``End of phase metric values:``), a test phase after each train phase.
    ``nan_at``: (phase, batch) from which the running loss is NaN; ``cut`` lines left out
    at the start (an excerpt)."""
    lines = ["INFO:root:Classy Vision's default training script.",
             "INFO:root:Starting training. Task: <classy_vision.tasks.classification_task."
             "ClassificationTask object at 0x7f3a2c1e5d90>"]
    broken, loss = False, ""
    for phase in range(4):
        meters = f"accuracy_meter(top_1=0.{phase + 1}, top_5=0.{phase + 3})"
        for batch in range(log_freq, batches + 1, log_freq):
            broken = broken or (nan_at is not None and (phase, batch) >= nan_at)
            loss = "nan" if broken else f"{4.5 - phase / 2 - batch / 1e4}"
            lines += ["INFO:root:Local unsynced metric values:",
                      f"INFO:root:Rank: 0, train phase: {phase}, processed batches: {batch}",
                      f"train loss: {loss}, LR rate: 0.1", "Meters:", meters]
        test = "nan" if broken else f"{4.4 - phase / 2}"
        lines += ["INFO:root:End of phase metric values:",
                  f"INFO:root:Rank: 0, train phase: {phase}, processed batches: {batches}",
                  f"train loss: {loss}, LR rate: 0.1", "Meters:", meters,
                  "INFO:root:End of phase metric values:",
                  f"INFO:root:Rank: 0, test phase: {phase}, processed batches: 50",
                  f"test loss: {test}, LR rate: 0.1", "Meters:", meters]
    return lines[cut:]


def test_classy_phase_line_numbers_the_loss_below_it(tmp_path: Path) -> None:
    """Before: AMP006 at 15 and AMP013 at 18 (the loss lines counted as rows, the phase line
    above each holding no keyword). Now the phase line is handed over with the loss line
    below it (``reader._step_line``) and numbers it as an epoch's batch
    (``metric_reader``'s ``phase_count``, counted by ``EpochBatches``: 500 batches a phase,
    learnt as the count starts over): batch 300 of phase 2 is step 1300, the test phase's
    NaN after the train phase's end (1500) its consequence. An excerpt that starts in phase
    1 counts from there (as every epoch-and-batch layout does: the phases before it are not
    in the excerpt)."""
    assert faults(tmp_path, _classy((2, 300))) == [("AMP006", 1300), ("AMP013", 1500)]
    assert faults(tmp_path, _classy((2, 300), cut=40)) == [("AMP006", 800), ("AMP013", 1000)]


def test_classy_healthy_phases_are_quiet(tmp_path: Path) -> None:
    """Controls (pass on the parent too): another log_freq and phase length."""
    assert faults(tmp_path, _classy()) == []
    assert faults(tmp_path, _classy(batches=1251, log_freq=50)) == []
