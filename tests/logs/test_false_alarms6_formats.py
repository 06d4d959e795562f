"""False alarms, round six: healthy runs in which something diverges, fails or restarts by
design, each excerpt written from the tool's own format string (each test names it), beside
the fault twin its rule must still catch.

- Learning-rate range tests that print their losses: PyTorch-Ignite's ``FastaiLRFinder``
  (``ignite/handlers/lr_finder.py``) runs the user's own trainer, whose handlers print every
  loss of the test, until the loss is ``diverge_th`` times the best (``Stopping early, the
  loss has diverged``), then restores the trainer's state: the real run prints from
  iteration 1 again. Hyper-parameter searches: an Optuna trial whose objective went NaN
  (``optuna/study/_optimize.py``: ``Trial {} failed because of the following error: ...``)
  before the next trial trains. Before: AMP006 at the test's (the trial's) NaN. Now a NaN
  that ended its run, after which the log began afresh (the step counter back to the start)
  and trained on with finite losses, is no fault of the log
  (``abandoned_runs.AbandonedRuns``, read by ``excerpt.ExcerptJudge``); a resume from a
  checkpoint after a NaN stays AMP006, and so does a NaN in the run after.
- Controls (pass on the parent 1e248f7 too): Lightning's ``Tuner.lr_find`` and
  ``BatchSizeFinder`` (its messages, the finder's bar; the losses are not printed),
  torch-lr-finder's ``range_test`` output, and a torchrun elastic restart resumed from a
  checkpoint. Megatron-core's rerun state machine on a spiky loss is covered by
  ``test_trainers_formats.py``.
- A documented miss: keras_lr_finder (surmenok, ``keras_lr_finder/lr_finder.py``) stops its
  ``model.fit`` on the first NaN mid-epoch; pasted from a terminal, its last bar (``212/469
  [====>....] - ETA: 2s - loss: nan``) is followed by the real fit's ``Epoch 1/5`` and
  ``469/469 [...] - loss: 0.5000``: the bar counts on (212, then 469) and the bare ``Epoch
  1/5`` line is no line the reader is handed, so no restart is seen and the NaN stays AMP006
  (a one-off, "bad data"). Telling it needs the reader to take Keras' bare ``Epoch e/N``
  header (``reader._EPOCH_END`` leaves it out on purpose) and a repeated ``Epoch 1/...`` to
  begin a run.

The first two tests failed on the parent commit (1e248f7); the others (the twin, the
resume guard and the controls) pass there too.
"""

from __future__ import annotations

from pathlib import Path

from excerpts import diagnose_lines, faults
from test_lightning_bars_formats import _bar

BATCHES = 469  # MNIST at a batch size of 128, as ignite's examples/mnist/mnist.py runs it
_IGNITE_STOP = ("2026-01-01 10:00:03,120 ignite.handlers.lr_finder.FastaiLRFinder INFO: "
                "Stopping early, the loss has diverged")
_IGNITE_TERMINATE = ("2026-01-01 10:00:03,121 ignite.engine.engine.Engine INFO: Terminate "
                     "signaled. Engine will stop after current iteration is finished.")


def _ignite(epoch: int, iteration: int, loss: float) -> str:
    """ignite's examples/mnist/mnist.py ``log_training_loss``: ``f"Epoch[{e}] Iteration[{i}/
    {len(train_loader)}] Loss: {engine.state.output:.2f}"`` every ``log_interval`` (10)."""
    return f"Epoch[{epoch}] Iteration[{iteration}/{BATCHES}] Loss: {loss:.2f}"


def _range_test(end: float) -> list[str]:
    """The range test's lines (the user's handler prints them too): the loss falls, then
    climbs as the learning rate grows, its last ``end``, then the finder's messages."""
    rising = [_ignite(1, i, 2.3 - i / 100 if i < 60 else 1.7 + (i - 60) ** 2 / 10)
              for i in range(10, 100, 10)]
    return [*rising, _ignite(1, 100, end), _IGNITE_STOP, _IGNITE_TERMINATE]


def _ignite_run(epochs: int = 3, nan_from: int | None = None) -> list[str]:
    """The real run after it: iteration 1 again (the finder restored the trainer's state)."""
    return [_ignite(e, i, float("nan") if nan_from and (e - 1) * BATCHES + i >= nan_from
                    else 1.0 / e + 0.3 * (1 - i / BATCHES))
            for e in range(1, epochs + 1) for i in range(10, BATCHES, 10)]


def test_ignite_lr_finder_gone_nan_then_training_is_quiet(tmp_path: Path) -> None:
    """The range test's last loss is inf (or NaN) where the learning rate reached what no
    model trains at; the real run then trains from iteration 1. Before: AMP006 at the test's
    step 100."""
    for end in (float("inf"), float("nan")):
        assert faults(tmp_path, [*_range_test(end), *_ignite_run()]) == [], end
    # said at info, as what it may be (a run restarted after its NaN may meet it again)
    [said] = diagnose_lines(tmp_path, [*_range_test(float("nan")), *_ignite_run()]).diagnoses
    assert (said.code, said.step, said.severity.value) == ("AMP006", 100, "info")
    assert said.evidence["abandoned_run"] and "begun afresh and trained on" in said.summary


def test_optuna_trial_gone_nan_then_next_trial_is_quiet(tmp_path: Path) -> None:
    """An Optuna study whose objective prints each trial's epochs; trial 1's learning rate
    made its loss NaN, Optuna failed the trial (``The value nan is not acceptable.``) and
    trial 2 trained. A trial that diverged is a finding about that setting, which the
    search already discarded, not about the run the user keeps (the catalog's AMP006 is a
    run's loss gone non-finite): no fault. Before: AMP006 at trial 1's step 600."""
    assert faults(tmp_path, _study(last_nan=None)) == []


def test_a_nan_in_the_run_after_the_search_is_still_amp006(tmp_path: Path) -> None:
    """The twin: the run after the range test (the trial after the failed one) goes NaN
    itself: AMP006 there. The finder's (the trial's) NaN is listed too: the doctor's
    diagnoses are superseded per id, not per step; a test that stopped on a finite loss
    (95.0, over 5 times the best) leaves the run's NaN alone."""
    lines = [*_range_test(float("nan")), *_ignite_run(nan_from=BATCHES + 200)]
    assert faults(tmp_path, lines) == [("AMP006", 100), ("AMP006", BATCHES + 200)]
    lines = [*_range_test(95.0), *_ignite_run(nan_from=BATCHES + 200)]
    assert faults(tmp_path, lines) == [("AMP006", BATCHES + 200)]
    assert faults(tmp_path, _study(last_nan=2)) == [("AMP006", 600), ("AMP006", 1100)]


def _trial(epochs: int, nan_epoch: int | None = None, base: float = 1.0) -> list[str]:
    """An objective's own ``print(f"epoch {epoch} batch {b}/500 train_loss {loss:.4f}")``."""
    return [f"epoch {e} batch {b}/500 train_loss "
            f"{'nan' if nan_epoch is not None and e >= nan_epoch else f'{base / (1 + e):.4f}'}"
            for e in range(epochs) for b in range(100, 501, 100)]


def _optuna(level: str, minute: int, message: str) -> str:
    """Optuna's logger: ``[%(levelname_initial)s %(asctime)s] %(message)s``
    (``optuna/logging.py``)."""
    return f"[{level} 2026-01-01 10:{minute:02d}:05,123] {message}"


def _study(last_nan: int | None) -> list[str]:
    """Trials 0-2 (trial 1 failed on NaN), then trial 3, NaN from its epoch ``last_nan``
    (None: healthy, and finished)."""
    return [_optuna("I", 0, "A new study created in memory with name: no-name-1c4e"),
            *_trial(3),
            _optuna("I", 1, "Trial 0 finished with value: 0.4123 and parameters: {'lr': "
                            "0.001}. Best is trial 0 with value: 0.4123."),
            *_trial(2, nan_epoch=1),
            _optuna("W", 2, "Trial 1 failed because of the following error: The value nan is "
                            "not acceptable."),
            *_trial(3, base=0.9),
            _optuna("I", 3, "Trial 2 finished with value: 0.3512 and parameters: {'lr': "
                            "0.002}. Best is trial 2 with value: 0.3512."),
            _optuna("I", 4, "Trial 3 pruned. "),
            *_trial(3, nan_epoch=last_nan, base=0.8)]


def _step_row(step: int, loss: float, lr: str = "3.0e-04") -> str:
    return f"step {step} | loss {loss:.4f} | lr {lr} | grad_norm 0.91"


def test_resume_from_a_checkpoint_after_nan_stays_amp006(tmp_path: Path) -> None:
    """A run that went NaN at step 1150 and was resumed from its checkpoint at step 1000
    (a lower learning rate): the counter goes back into the run that failed, not to its
    start: the NaN is the run's, AMP006 (passes on the parent too)."""
    first = [_step_row(s, float("nan") if s >= 1150 else 2.5 - s / 1e4) for s in
             range(10, 1210, 10)]
    resumed = [_step_row(s, 2.5 - s / 1e4, "1.0e-04") for s in range(1010, 1600, 10)]
    assert faults(tmp_path, [*first, "Resuming from checkpoint checkpoints/step_1000",
                             *resumed]) == [("AMP006", 1150)]


def test_a_run_requeued_after_its_nan_that_has_not_passed_it_stays_amp006(
        tmp_path: Path) -> None:
    """A job that went NaN at step 300, requeued from scratch (no checkpoint), whose new run
    has trained to step 120 only: it has not shown that the setting trains past the fault, so
    the NaN stays a fault (a review of the first version read it as abandoned: no fault)."""
    first = [_step_row(s, float("nan") if s >= 300 else 2.5 - s / 1e4) for s in
             range(10, 330, 10)]
    requeued = [_step_row(s, 2.5 - s / 1e4) for s in range(10, 130, 10)]
    assert faults(tmp_path, [*first, *requeued]) == [("AMP006", 300)]


def _lightning_fit(epochs: int = 3, batches: int = 200) -> list[str]:
    """A 2.x fit's main bar (``train_loss`` logged ``prog_bar=True``) and its validation."""
    lines = []
    for epoch in range(epochs):
        lines += [_bar(f"Epoch {epoch}", b, batches,
                       f"v_num=3, train_loss={2.0 - (epoch * batches + b) / 1e4:.3f}")
                  for b in range(20, batches + 1, 20)]
        lines.append(_bar(f"Epoch {epoch}", batches, batches,
                          "v_num=3, train_loss=1.900, val_loss=1.500"))
    return lines


def test_lightning_lr_find_and_batch_size_finder_then_training_are_quiet(
        tmp_path: Path) -> None:
    """Lightning 2.x ``src/lightning/pytorch/tuner/lr_finder.py`` (``_LRCallback``'s
    ``tqdm(desc="Finding best initial lr")``, ``LR finder stopped early after {n} steps due
    to diverging loss.``, ``Learning rate set to {lr}``), ``tuner/batch_size_scaling.py``
    (``Batch size {n} {succeeded|failed}, trying batch size {m}``, binsearch's ``Applying
    margin of 5.0%...``, ``Finished batch size finder, will continue with full run using
    batch size {n}``) and ``trainer/connectors/checkpoint_connector.py`` (``Restoring states
    from the checkpoint path at .lr_find_{uuid}.ckpt``); the finders print no loss, and the
    fit's bar was disabled during them. Passes on the parent too."""
    ckpt = "/home/u/run/.lr_find_3f2a9c1e-77b0-4c1d-9e2b-0a8d5f6c4b11.ckpt"
    lr_find = [*(_bar("Finding best initial lr", n, 100) for n in range(10, 60, 10)),
               "LR finder stopped early after 57 steps due to diverging loss.",
               f"Restoring states from the checkpoint path at {ckpt}",
               f"Restored all states from the checkpoint at {ckpt}",
               "Learning rate set to 0.0013182567385564075"]
    sizes = [(2, "succeeded", 4), (4, "succeeded", 8), (8, "succeeded", 16),
             (16, "succeeded", 32), (32, "failed", 24), (24, "succeeded", 28),
             (28, "failed", 26), (26, "failed", 25)]
    ckpt = "/home/u/run/.scale_batch_size_5d1e0c22-1f3a-4b2c-8d7e-6a9b0c1d2e3f.ckpt"
    scale = [*(f"Batch size {n} {how}, trying batch size {m}" for n, how, m in sizes),
             "Applying margin of 5.0%, reducing batch size from 25 to 23",
             "Finished batch size finder, will continue with full run using batch size 23",
             f"Restoring states from the checkpoint path at {ckpt}",
             f"Restored all states from the checkpoint at {ckpt}"]
    assert faults(tmp_path, [*scale, *lr_find, *_lightning_fit()]) == []


def test_torch_lr_finder_then_training_is_quiet(tmp_path: Path) -> None:
    """torch-lr-finder (davidtvs, ``torch_lr_finder/lr_finder.py`` ``range_test``: a tqdm
    bar, ``Stopping early, the loss has diverged``, ``Learning rate search finished. See the
    graph with {finder_name}.plot()`` as it prints it, unformatted; ``plot``'s ``LR
    suggestion: steepest gradient`` and ``Suggested LR: {:.2E}``), then a loop's own rows.
    Passes on the parent too."""
    bar = [f" {p:3d}%|{'█' * (p // 10)}{' ' * (10 - p // 10)}| {p}/100 [00:0{p // 20}<00:04, "
           f"21.3it/s]" for p in (12, 37, 64)]
    lines = [*bar, "Stopping early, the loss has diverged",
             "Learning rate search finished. See the graph with {finder_name}.plot()",
             "LR suggestion: steepest gradient", "Suggested LR: 2.31E-03",
             *(f"epoch {s // 20} step {s} loss {3 - s / 50:.4f} lr 0.00231"
               for s in range(1, 61))]
    assert faults(tmp_path, lines) == []


def test_torchrun_elastic_restart_and_resume_are_quiet(tmp_path: Path) -> None:
    """torch ``distributed/elastic/agent/server/api.py`` (``[default] Worker group FAILED.
    {n}/{m} attempts left; will restart worker group``, ``Stopping worker group``,
    ``Rendezvous'ing worker group``) and ``multiprocessing/api.py`` (``failed (exitcode: -9)
    local_rank: ...``) after a worker was killed; the restarted workers resume from the
    checkpoint at step 1000, the counter back 200 steps. Passes on the parent too."""
    glog = "I1201 10:00:05.000000 123 torch/distributed/elastic/"
    restart = [
        "E1201 10:00:00.000000 123 torch/distributed/elastic/multiprocessing/api.py:869] "
        "failed (exitcode: -9) local_rank: 1 (pid: 4568) of binary: /usr/bin/python3",
        f"{glog}agent/server/api.py:700] [default] Worker group FAILED. 2/3 attempts left; "
        "will restart worker group",
        f"{glog}agent/server/api.py:880] [default] Stopping worker group",
        f"{glog}agent/server/api.py:860] [default] Rendezvous'ing worker group",
        "Resuming from checkpoint checkpoints/step_1000"]
    lines = [*(_step_row(s, 2.5 - s / 1e4) for s in range(10, 1210, 10)), *restart,
             *(_step_row(s, 2.5 - s / 1e4) for s in range(1010, 1600, 10))]
    assert faults(tmp_path, lines) == []
