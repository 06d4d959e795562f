"""Adversarial review of the log doctor's rules merged on 2026-12-07 from samples 25-27
(ff74fba..e634b76; issue #27). Each problem found is a test holding the right answer (a strict
xfail where it is not fixed); each rule that held has a line below.

Problems held here:

- metric_reader ``_EVAL_CONTEXT``'s ``[val]`` (2f3cf55, sample26: a bar tagged ``[Val]`` is
  the held-out pass's) matched ``[Val]`` anywhere on a line: a line that tags BOTH passes,
  ``[Train] Loss: ... | [Val] Loss: ...``, became an evaluation line. A healthy run was
  "nothing to diagnose" (an error), a training NaN was AMP013 with no step instead of AMP006.
  Fixed by narrowing the tag to a bar's description (tqdm's ``{desc}: {percentage:3.0f}%|``):
  ``[Val]:  45%|``. (These fail on e634b76, the rule's merge, not on ff74fba: the rule is
  newer than the parent.)
- The same line's ``[Val]`` half: its NaN (a healthy training) is silent, on ff74fba as on
  4a3d1f7 (AMP013 at the epoch since h51-evalsplit: split_tags).
- held_out_epoch (712274e): ``Validation Loss after Epoch N: nan`` under tqdm bars that count
  the batches is placed at the bar's count of the epoch before (120) or after (480), not at
  epoch N's end (360); the validation bar's own ``loss=nan`` (``Validation Epoch 3: ...``) is
  read as the training's, a false AMP006 (ff74fba too). Right since h51-evalsplit
  (split_bars: a bar described as a held-out split's is evaluation's; a ``Training Epoch``
  bar counts epochs as its loop prints them).
- record_rows (6b5b6e6): coqui-ai/Trainer's evaluation summary (``--> EVAL PERFORMANCE`` over
  ``     | > avg_loss: nan (+0)`` rows) is read as the training's: a healthy training whose
  evaluation goes NaN is AMP006 (at 67 and 101 on ff74fba, at 775 and 1175 now: the rule moved
  the step, the kind was wrong before it). AMP013 at the last training step since
  h51-evalsplit (eval_headings).
- slash_pairs.spread (2f3cf55) is slow on lines holding `` / `` and ``: `` (its guard): the
  unanchored search tries up to eight 41-character names from every position of the line.
  3.1 MB of lines of 60 slashed names and 59 values: 41.5 s, ff74fba 8.0 s (re2); 40.2 s
  against 6.0 s without re2 (a 2 KB line: 11 ms); lines of one realistic shape (``Epoch 3 /
  100 | Iter i / 500000: loss: ... / acc: ...``) pay 18 us each. Not fixed (no false
  alarm; no timing test, the machine is shared): the values can only follow the line's LAST
  ``: `` (a number holds no colon), so checking the tail first and searching the names in
  the 360 characters before it would bound the work. (hard_wraps' timed input held slashed
  pairs too: its 13.5 s against 5.0 s is the same cost.)

Rules tried that held (the doctor's answer right before and after, or newly right):

- metric_pairs._again (3973a23): VAE rows ``Train Loss / Reconstruction Loss / KL Loss`` then
  the ``Val`` set, and with a bare ``Loss`` first; CenterNet's repeated sets, keys reordered:
  train NaN AMP006, held-out NaN AMP013, healthy silent.
- slash_pairs (2f3cf55): FootAndBall's ``train`` / ``val`` rows with a healthy ``lr / momentum:
  0.0005 / 0.95`` line beside them: healthy silent, train NaN AMP006, val NaN AMP013 (ff74fba:
  "nothing to diagnose"); 2,000 lines of 60 slashed names against 59 values: linear.
- lexicon ``objs`` (adb8caf): a detection row that also prints an object count (``loss: ... |
  objs: 37 | lr: ...``) keeps ``loss`` as its loss (healthy silent, NaN AMP006 at its step).
- step_layouts.epoch_length (5ce0ff5): a count printed at batch 1 and every 100 whose epoch
  runs past its last print (350 batches) puts epoch 2's NaN at 301 (ff74fba 400, right 351):
  the log does not say the epoch's length, so either guess can be wrong; no test.
- step_layouts EPOCH_ITER (``Epoch : [e/E] [i/n]``), lexicon ``objs``,
  hard_wraps._retagged, length_errors: no healthy excerpt built from the formats read made
  them alarm; timed inputs shaped at record_rows (16-row coqui records, no step line: 5.6
  MB 2.5 s, ff74fba 2.3 s) and at held_out_epoch / length_errors (NaN sentences, a 200-digit
  key: 3.9 MB 5.1 s, ff74fba 10.6 s) kept the parent's speed.
"""

from __future__ import annotations

from pathlib import Path

from tests.logs.excerpts import faults

NAN = float("nan")


def _bar(done: int, total: int, secs: int = 10) -> str:
    """tqdm's default bar body ``{percentage:3.0f}%|{bar}| {n}/{total} [{elapsed}<{remaining},
    {rate}it/s`` (tqdm/std.py ``format_meter``, ten cells), its postfix left to the caller."""
    cells = done * 10 // total
    return (f"{100 * done // total:3d}%|{'█' * cells}{' ' * (10 - cells)}| {done}/{total} "
            f"[00:{secs:02d}<00:00, {total / secs:.2f}it/s")


def both_tagged(bad: int | None = None, val_bad: int | None = None,
                epochs: int = 6) -> list[str]:
    """A classifier's epoch summary that tags both passes on one line, from a public training
    script the code index holds (find_string id 61969517476; the index names no repository):
    ``print(f"\\n📊 Epoch {epoch+1}/80:")``, ``print(f"   [Train] Loss: {t_loss:.4f} Acc:
    {t_acc:.4f} | [Val] Loss: {v_loss:.4f} Acc: {v_acc:.4f}")``, ``print(f"   [Performance]
    Macro-F1: {v_f1:.4f} | LR: {curr_lr:.2e}")``; ``bad`` / ``val_bad``: the (1-based) epoch
    from which the training's / the validation's loss is NaN."""
    out: list[str] = []
    for e in range(1, epochs + 1):
        t = NAN if bad is not None and e >= bad else 0.9 - e / 20
        v = NAN if val_bad is not None and e >= val_bad else 0.95 - e / 20
        out += ["", f"📊 Epoch {e}/80:",
                f"   [Train] Loss: {t:.4f} Acc: {0.61 + e / 100:.4f} | [Val] Loss: {v:.4f} "
                f"Acc: {0.58 + e / 100:.4f}",
                f"   [Performance] Macro-F1: {0.55:.4f} | LR: {3e-4 / e:.2e}"]
    return out


def test_both_passes_tagged_healthy_is_silent(tmp_path: Path) -> None:
    assert faults(tmp_path, both_tagged()) == []


def test_both_passes_tagged_training_nan(tmp_path: Path) -> None:
    assert faults(tmp_path, both_tagged(bad=3)) == [("AMP006", 3)]


def test_val_bar_still_evaluation(tmp_path: Path) -> None:
    """The narrowed tag still reads 2002jan/put-mp-2025 ``train_classification.py``'s bars
    ``tqdm(..., desc=f'Epoch {epoch+1}/{num_epochs} [Train]')`` / ``[Val]`` with
    ``set_postfix({'Loss': ...})``: a NaN in the ``[Val]`` bar alone is the evaluation's."""
    lines: list[str] = []
    for e in range(1, 5):
        va = NAN if e >= 3 else 3.3 - e / 10
        lines += [f"Epoch {e}/30 [Train]: {_bar(200, 200, 40)}, Loss={3.2 - e / 10:.4f}]",
                  f"Epoch {e}/30 [Val]: {_bar(40, 40, 5)}, Loss={va:.4f}]"]
    found = faults(tmp_path, lines)
    assert [code for code, _ in found] == ["AMP013"], found


def test_both_passes_tagged_val_nan(tmp_path: Path) -> None:
    assert faults(tmp_path, both_tagged(val_bad=4)) == [("AMP013", 4)]


def informer_bars(val_bad: int | None = None, epochs: int = 5, batches: int = 120,
                  val_batches: int = 30) -> list[str]:
    """A stock-price Informer's loop from a public script the code index holds (find_string id
    14147299243; the index names no repository): ``tqdm(train_data, desc=f"Training Epoch
    {epoch + 1}")`` with ``pbar.set_postfix(loss=loss.item())``, the same over ``val_data``
    as ``"Validation Epoch {epoch + 1}"``, then ``print(f"Validation Loss after Epoch
    {epoch + 1}: {val_loss}")`` and ``print(f"Model saved to {save_path}")`` when it
    improved; bars as pasted (their closing state). ``val_bad``: the (1-based) epoch from
    which the validation's loss is NaN (the training stays finite)."""
    out: list[str] = []
    for e in range(1, epochs + 1):
        v = NAN if val_bad is not None and e >= val_bad else 0.02 + 1 / e
        out += [f"Training Epoch {e}: {_bar(batches, batches)}, loss=0.0{e}23]",
                f"Validation Epoch {e}: {_bar(val_batches, val_batches, 3)}, loss={v}]",
                f"Validation Loss after Epoch {e}: {v}"]
        if val_bad is None or e < val_bad:
            out.append("Model saved to ./models/model_BTC.pth")
    return out


def test_informer_healthy_is_silent(tmp_path: Path) -> None:
    assert faults(tmp_path, informer_bars()) == []


def test_informer_validation_nan(tmp_path: Path) -> None:
    assert faults(tmp_path, informer_bars(val_bad=3)) == [("AMP013", 360)]


BOLD, END = "\033[1m", "\033[0m"
GLOW = ("log_mle", "loss_dur", "loss")


def coqui_glow(eval_bad: int | None = None, batches: int = 400, every: int = 25,
               epochs: int = 3) -> list[str]:
    """GlowTTS through coqui-ai/Trainer (``trainer/logging/console_logger.py``):
    ``print_epoch_start`` (``" > EPOCH: {}/{}"``), ``print_train_start``, each record from
    ``print_train_step`` (``"   --> TIME: {} -- STEP: {}/{} -- GLOBAL_STEP: {}"`` over ``"
    | > {key}: {value}  ({avg})"`` rows; GlowTTS' ``log_mle``, ``loss_dur``, ``loss`` from
    coqui-ai/TTS ``TTS/tts/layers/losses.py``), and after each training epoch
    ``print_eval_start`` (``" > EVALUATION "``) and ``print_epoch_end`` (``"  --> EVAL
    PERFORMANCE"`` over ``"{indent}{key}:{color} {value} {end}({sign}{diff})"`` rows,
    ``print_eval=False``). ``eval_bad``: the (0-based) epoch from whose evaluation the
    evaluation's losses are NaN; the training stays finite."""
    out = [f"\n{BOLD} > EPOCH: 0/1000{END}", f"\n{BOLD} > TRAINING (2024-06-01 10:00:00) {END}"]
    for g in range(0, epochs * batches, every):
        value = 1.8 - g / 3000
        block = (f"{BOLD}   --> TIME: 2024-06-01 10:00:00 -- STEP: {g % batches}/{batches} -- "
                 f"GLOBAL_STEP: {g}{END}\n") + "".join(
            f"     | > {k}: {value}  ({value})\n" for k in (*GLOW, "grad_norm")) + (
            "     | > current_lr: 0.0005 \n")
        out += ["", block]
        if g % batches + every >= batches:
            epoch = g // batches
            shown = "nan" if eval_bad is not None and epoch >= eval_bad else f"{1.9 - epoch / 10}"
            out += [f"\n{BOLD} > EVALUATION {END}\n",
                    f"\n  {BOLD}--> EVAL PERFORMANCE{END}\n" + "".join(
                        f"     | > {k}: {v} {END}(+0)\n" for k, v in (
                            ("avg_loader_time", "0.0123"), *((f"avg_{k}", shown) for k in GLOW))),
                    f"\n{BOLD} > EPOCH: {epoch + 1}/1000{END}",
                    f"\n{BOLD} > TRAINING (2024-06-01 10:00:00) {END}"]
    return "\n".join(out).split("\n")


def test_coqui_healthy_with_evaluation_is_silent(tmp_path: Path) -> None:
    assert faults(tmp_path, coqui_glow()) == []


def test_coqui_evaluation_nan(tmp_path: Path) -> None:
    assert faults(tmp_path, coqui_glow(eval_bad=1)) == [("AMP013", 775)]
