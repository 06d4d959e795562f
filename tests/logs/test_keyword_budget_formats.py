"""Three formats that waited for a slot of the keyword prefilter (its budget of 40 was full),
read now with slots freed by an audit of the keywords: a fault at a known step beside
healthy controls, each excerpt written from the tool's own format strings.

- Megatron-LM's checkpoint load (NVIDIA/Megatron-LM ``megatron/training/checkpointing.py``
  ``load_checkpoint``: ``print_rank_0(f'  successfully loaded checkpoint from {load_dir} '
  f'[ t {tp}/{tp_size}, p {pp}/{pp_size} ] at iteration {iteration}')``; older releases
  ``'  successfully loaded checkpoint from {} at iteration {}'``) starts a run: a resume with
  ``--no-load-optim`` backs its fresh scaler off from ``--initial-loss-scale`` in its first
  interval, which is no fault of the run;
- pjreddie/darknet's iteration line (``examples/detector.c`` ``train_detector``:
  ``"%ld: %f, %f avg, %f rate, %lf seconds, %d images\\n"``, ``examples/classifier.c``
  ``train_classifier``: ``"%ld, %.3f: %f, %f avg, %f rate, %lf seconds, %ld images\\n"``),
  between the YOLO layers' statistics (``src/yolo_layer.c`` ``forward_yolo_layer``:
  ``"Region %d Avg IOU: %f, Class: %f, Obj: %f, No Obj: %f, .5R: %f, .75R: %f,  count:
  %d\\n"``).

The audit: every keyword was checked against the message table's rows as printed
(``tests/logs/test_messages.py`` ``printed``) and against every line the fast suite hands the
parsers. Four keywords were never the only one on a line that gives an event: paddle's
``makes no effect`` and torch's ``GradScaler is enabled`` (their lines hold ``CUDA``:
``CUDAPlace``, ``but CUDA is not available``; torch's closure message is raised, its line
holds ``RuntimeError``), fairseq's ``Nan/Inf`` and mmengine's ``AmpOptimizerWrapper`` (both
raised: ``FloatingPointError: gradients are Nan/Inf``, ``AssertionError: ``AmpOptimizer
Wrapper`` is only ...``). Their tests still pass through the prefilter.

Left wrong: descript-audio-codec's rich tables (descriptinc/descript-audio-codec
``scripts/train.py`` through audiotools' ``Tracker.done``, ``audiotools/ml/decorators.py``:
``Markdown(f"# Iteration {step}")`` over ``Table(title=label, box=box.MINIMAL)`` rows
``key │ value │ mean``). Their rows hold ``loss`` (they are read), but the table is one step
printed one key a row: each row is read as a step of its own, and the ``Iteration N`` line
that numbers them holds no keyword (a NaN at iteration 6000 is reported near step 80).

Each fault test failed on the parent commit (1e248f7); the controls that pass there say so.
"""

from __future__ import annotations

from pathlib import Path

from excerpts import faults, megatron_line

from denpex_callbacks.logs.parsers import KEYWORDS, parse_line

# -- Megatron-LM: megatron/training/checkpointing.py -------------------------------------------


def _megatron_resume(*, interval: int = 100, backoff: int = 16, old: bool = False,
                     collapse_after: int | None = None) -> list[str]:
    """A run to iteration 20000 at a grown scale, then a resume with ``--no-load-optim``:
    the loading lines, then a first interval whose ``backoff`` skips take the fresh scaler
    from ``2**32`` down; ``collapse_after``: every iteration after it is skipped (the scale
    falls to its floor of 1)."""
    lines = [megatron_line(i, scale=131072.0, loss=3.0 - i / 1e5)
             for i in range(interval, 20001, interval)]
    loaded = ("  successfully loaded checkpoint from /ckpt/gpt at iteration 20000" if old else
              "  successfully loaded checkpoint from /ckpt/gpt [ t 1/2, p 1/1 ] at iteration "
              "20000")
    lines += [" loading checkpoint from /ckpt/gpt at iteration 20000", loaded]
    scale = 2.0 ** (32 - backoff)
    lines.append(megatron_line(20000 + interval, scale=scale, skipped=backoff, loss=2.8))
    for i in range(20000 + 2 * interval, 24001, interval):
        if collapse_after is not None and i > collapse_after:
            scale = max(scale / 2 ** (interval // 2), 1.0)
            lines.append(megatron_line(i, scale=scale, skipped=interval, loss=None))
        else:
            lines.append(megatron_line(i, scale=scale, loss=2.8 - i / 1e6))
    return lines


def test_megatron_checkpoint_load_starts_a_run(tmp_path: Path) -> None:
    """Before: the load line held no keyword, the resume was read as one run with the run
    before it, and its scaler's start-up back-off as skips of a trained run: AMP008 at 20006
    beside the collapse."""
    assert faults(tmp_path, _megatron_resume(collapse_after=22000)) == [("AMP003", 22001)]


def test_megatron_resume_controls(tmp_path: Path) -> None:
    """Healthy resumes at ``--log-interval`` 100 and 10, both wordings of the load line,
    another ``--initial-loss-scale`` (before: AMP008 at 20006 at interval 100)."""
    assert faults(tmp_path, _megatron_resume()) == []
    assert faults(tmp_path, _megatron_resume(old=True)) == []
    assert faults(tmp_path, _megatron_resume(backoff=8)) == []
    assert faults(tmp_path, _megatron_resume(interval=10, backoff=8)) == []


def test_megatron_load_line_is_a_candidate() -> None:
    line = "  successfully loaded checkpoint from /ckpt [ t 1/1, p 1/1 ] at iteration 300"
    assert any(k.decode() in line for k in KEYWORDS)
    assert [e.setup for e in parse_line(line)] == [{"run_start": True}]
    # another tool's load line is no Megatron resume
    assert parse_line("Successfully loaded checkpoint from /ckpt/model.pt") == []


# -- pjreddie/darknet: examples/detector.c, examples/classifier.c, src/yolo_layer.c -----------


def _darknet_detector(nan_from: int | None = None, *, iterations: int = 300,
                      subdivisions: int = 2) -> list[str]:
    """``train_detector``'s output: ``Loaded:``, each subdivision's three YOLO layers' lines
    (``nan`` where the loss is), the iteration line (the average starts at the first loss,
    then ``avg*.9 + loss*.1``; ``-nan`` from ``nan_from``)."""
    lines = ["yolov3", "Learning Rate: 0.001, Momentum: 0.9, Decay: 0.0005", "Resizing", "416"]
    average = -1.0
    for i in range(1, iterations + 1):
        bad = nan_from is not None and i >= nan_from
        loss = 900.0 / (1 + i / 10) + 2
        average = loss if average < 0 else average * 0.9 + loss * 0.1
        lines.append("Loaded: 0.000041 seconds")
        value, none = ("nan", "nan") if bad else ("0.312000", "0.004512")
        for _ in range(subdivisions):
            lines += [f"Region {layer} Avg IOU: {value}, Class: {value}, Obj: {value}, No Obj: "
                      f"{none}, .5R: {value}, .75R: {value},  count: 7" for layer in (82, 94, 106)]
        shown = ("-nan", "-nan") if bad else (f"{loss:f}", f"{average:f}")
        lines.append(f"{i}: {shown[0]}, {shown[1]} avg, 0.001000 rate, 5.391000 seconds, "
                     f"{i * 64} images")
    return lines


def _darknet_classifier(nan_from: int | None = None, *, iterations: int = 300) -> list[str]:
    """``train_classifier``'s output: ``Loaded:``, then ``batch, epoch: loss, avg avg, ...``."""
    lines = ["darknet53", "Learning Rate: 0.1, Momentum: 0.9, Decay: 0.0005", "1000", "224 224"]
    average = -1.0
    for i in range(1, iterations + 1):
        bad = nan_from is not None and i >= nan_from
        loss = 7.0 - i / 100
        average = loss if average < 0 else average * 0.9 + loss * 0.1
        shown = ("-nan", "-nan") if bad else (f"{loss:f}", f"{average:f}")
        lines += ["Loaded: 0.000041 seconds",
                  f"{i}, {i * 128 / 1281167:.3f}: {shown[0]}, {shown[1]} avg, 0.100000 rate, "
                  f"0.391000 seconds, {i * 128} images"]
    return lines


def test_darknet_iteration_line_numbers_its_loss(tmp_path: Path) -> None:
    """Before: the finite iteration lines held no keyword and ``{v}, {v} avg`` named no loss
    (the classifier's excerpts: "nothing to diagnose"), and the YOLO layers' ``Obj:`` was
    read as an objective, each of their lines a step (the detector's: AMP006 at 895)."""
    assert faults(tmp_path, _darknet_detector(150)) == [("AMP006", 150)]
    assert faults(tmp_path, _darknet_detector(150, subdivisions=0)) == [("AMP006", 150)]
    assert faults(tmp_path, _darknet_detector(20, iterations=40, subdivisions=1)) == [
        ("AMP006", 20)]
    assert faults(tmp_path, _darknet_classifier(150)) == [("AMP006", 150)]


def test_darknet_controls(tmp_path: Path) -> None:
    """Healthy runs: warm-up losses near 900, 16 subdivisions, a short excerpt (before: the
    classifier's "nothing to diagnose"; the detector's pass on the parent too)."""
    assert faults(tmp_path, _darknet_detector()) == []
    assert faults(tmp_path, _darknet_detector(iterations=40, subdivisions=16)) == []
    assert faults(tmp_path, _darknet_classifier()) == []
    assert faults(tmp_path, _darknet_classifier(iterations=30)) == []


# -- the audit ---------------------------------------------------------------------------------


def test_freed_keywords_lines_still_reach_the_parsers() -> None:
    # each held a keyword of its own before; each holds another that always comes with it
    # (a guard of the audit: passes on the parent too)
    lines = {"FloatingPointError: gradients are Nan/Inf": "AMP006",
             "AssertionError: ``AmpOptimizerWrapper`` is only available training on gpu, npu, "
             "mlu or musa": "AMP010",
             "/x/paddle/amp/grad_scaler.py:123: UserWarning: AmpScaler can only be enabled on "
             "CUDAPlace, XPUPlace and CustomPlace, current place is Place(cpu), so it makes no "
             "effect.": "AMP010",
             "/x/torch/amp/grad_scaler.py:136: UserWarning: torch.cuda.amp.GradScaler is "
             "enabled, but CUDA is not available.  Disabling.": "AMP010"}
    for line, code in lines.items():
        assert any(k.decode() in line for k in KEYWORDS), line
        assert code in [e.code for e in parse_line(line)], line
