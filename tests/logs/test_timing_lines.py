"""Timing lines (denpex_callbacks/logs/timing_lines.py): a ``loss`` key among the timed
phases of a step is the time the loss's evaluation took, not a loss.

AljazBozic/NeuralGraph ``train_graph.py`` prints ``"FORWARD: {0:3f}, LOSS: {1:3f}, BACKWARD:
{2:3f}"`` (seconds a cycle spent in each phase) under its real losses' rows. At 8226626 the
doctor read ``LOSS: 152.339870`` as the training loss: the NaN at ``Iteration number 400`` was
found, but with ``last finite loss: 152.3`` (the duration; the real one was 0.71), a loss
that seemed to have grown 200-fold before the NaN: a diverging model for its cause. The same
for the ``fwd: | loss: | bwd:`` layout. The ``time/forward=`` and ``[timing] forward 10.2ms``
variants were never read as losses (no key before ``time/loss``'s number that the lexicon
knows; a unit glued to each value): held here so that they stay so.

Controls that must keep their loss: a loss beside its timing fields (``loss: 2.31,
forward_time: 0.12``), a step counter on the line (``step 100 | loss 2.3 | fwd 12.3ms``) and
detectron2's ``CommonMetricPrinter`` (``total_loss: ... time: ... data_time: ...``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path

import pytest
from excerpts import diagnose_lines, faults, nan_from
from test_sample38_formats import neural_graph


def last_finite(tmp_path: Path, lines: list[str]) -> float:
    """The last finite loss the first fault's evidence names."""
    value = diagnose_lines(tmp_path, lines).faults[0].evidence["last_finite_loss"]
    assert isinstance(value, float)
    return value


def phase_timed(bad: int | None = None, every: int = 50, iterations: int = 1500,
                layout: str = "piped") -> list[str]:
    """A loop (the layouts of this rule, not one repository's) that prints its loss rows
    ``step {n} | train loss {loss:.4f} | lr 3.0e-04`` and, under each, the milliseconds its
    phases took in one of three layouts: ``piped`` ``fwd: {:.1f} | loss: {:.1f} | bwd:
    {:.1f}``, ``namespaced`` ``time/forward={:.2f}, time/loss={:.2f}, time/backward={:.2f}``
    or ``tagged`` ``[timing] forward {:.1f}ms loss {:.1f}ms backward {:.1f}ms``. The loss's
    time grows (a slower loss's evaluation as the run goes) while the loss falls."""
    out = []
    for n in range(0, iterations, every):
        loss = nan_from(bad, n, 2.5 * 0.999 ** n)
        fwd, took, bwd = 12.3 + n % 7, 3.1 + n / 10, 20.0 + n % 5
        out.append(f"step {n} | train loss {loss:.4f} | lr 3.0e-04")
        out.append({
            "piped": f"fwd: {fwd:.1f} | loss: {took:.1f} | bwd: {bwd:.1f}",
            "namespaced": f"time/forward={fwd:.2f}, time/loss={took:.2f}, "
                          f"time/backward={bwd:.2f}",
            "tagged": f"[timing] forward {fwd:.1f}ms loss {took:.1f}ms backward {bwd:.1f}ms",
        }[layout])
    return out


def timed_fields(bad: int | None = None, every: int = 25, iterations: int = 900) -> list[str]:
    """A loss beside its phases' timing fields, each field named with ``_time`` (the control:
    the loss is the loss): ``loss: {:.4f}, forward_time: {:.2f}, backward_time: {:.2f},
    step: {n}``."""
    return [f"loss: {nan_from(bad, n, 2.31 * 0.998 ** n):.4f}, forward_time: "
            f"{0.12 + n % 3 / 100:.2f}, backward_time: {0.3 + n % 4 / 100:.2f}, step: {n}"
            for n in range(0, iterations, every)]


def counted_timing(bad: int | None = None, every: int = 100,
                   iterations: int = 3000) -> list[str]:
    """A step counter, the loss and the phases' times on one line (the control):
    ``step {n} | loss {:.4f} | fwd {:.1f}ms | bwd {:.1f}ms``."""
    return [f"step {n} | loss {nan_from(bad, n, 2.3 * 0.999 ** n):.4f} | fwd "
            f"{12.3 + n % 7:.1f}ms | bwd {20.1 + n % 3:.1f}ms"
            for n in range(0, iterations, every)]


def detectron2(bad: int | None = None, period: int = 20, iterations: int = 1000) -> list[str]:
    """facebookresearch/detectron2 ``detectron2/utils/events.py`` ``CommonMetricPrinter.
    write``: ``" {eta}iter: {iter}  {losses}  {non_losses}  {avg_time}{last_time}
    {avg_data_time}{last_data_time} lr: {lr}  {memory}"`` with ``eta: {eta_string}  ``,
    losses as ``"{}: {:.4g}"`` joined by two spaces (``total_loss`` first), ``time: {:.4f}
    last_time: {:.4f}  data_time: {:.4f}  last_data_time: {:.4f}`` and ``max_mem: {:.0f}M``,
    under the logger's ``[12/07 10:00:00 d2.utils.events]:`` prefix; every ``period``
    iterations from ``period - 1``."""
    out = []
    for it in range(period - 1, iterations, period):
        cls = nan_from(bad, it, 0.6 * 0.998 ** it)
        box = nan_from(bad, it, 0.4 * 0.998 ** it)
        out.append(f"[12/07 10:{it // 60 % 60:02d}:{it % 60:02d} d2.utils.events]:  eta: "
                   f"0:{(iterations - it) // 60:02d}:00  iter: {it}  total_loss: "
                   f"{cls + box:.4g}  loss_cls: {cls:.4g}  loss_box_reg: {box:.4g}  time: "
                   f"0.3412  last_time: 0.3350  data_time: 0.0123  last_data_time: 0.0100   "
                   f"lr: 0.00039962  max_mem: 2345M")
    return out


@pytest.mark.parametrize(("build", "right", "finite"), [
    # NaN from iteration 333, evaluated every 200: ``Iteration number 400``; the last finite
    # loss one of the terms at 200, all of them between 0.3 and 0.9 (at 8226626: 152.34,
    # the loss's evaluation time).
    pytest.param(lambda: neural_graph(333), [("AMP006", 400)], (0.3, 0.9),
                 id="neural_graph"),
    # NaN from 555: 600, the last finite loss a term at 400 (at 8226626: 152.34).
    pytest.param(lambda: neural_graph(555)[40:], [("AMP006", 600)], (0.3, 0.9),
                 id="neural_graph_from_the_middle"),
    # The piped layout, NaN from step 1000: the last finite loss the row at 950's (at
    # 8226626: 98.1, the timing line's under it).
    pytest.param(lambda: phase_timed(1000), [("AMP006", 1000)],
                 (2.5 * 0.999 ** 950 - 1e-4, 2.5 * 0.999 ** 950 + 1e-4), id="piped"),
])
def test_timing_loss_is_no_loss(tmp_path: Path, build: Callable[[], list[str]],
                                right: list[tuple[str, int]],
                                finite: tuple[float, float]) -> None:
    """The fault and its step, and the last finite loss is the loss's, not a duration."""
    lines = build()
    assert faults(tmp_path, lines) == right
    low, high = finite
    assert low <= last_finite(tmp_path, lines) <= high


@pytest.mark.parametrize("layout", ["namespaced", "tagged"])
def test_timing_variants_stay_unread(tmp_path: Path, layout: str) -> None:
    """The variants read right already at 8226626 (kept so): the loss row's NaN, the last
    finite loss the row's."""
    lines = phase_timed(700, layout=layout)
    assert faults(tmp_path, lines) == [("AMP006", 700)]
    assert math.isclose(last_finite(tmp_path, lines), 2.5 * 0.999 ** 650, rel_tol=1e-3)


@pytest.mark.parametrize(("build", "right"), [
    pytest.param(lambda: timed_fields(400), [("AMP006", 400)], id="timed_fields"),
    pytest.param(lambda: counted_timing(1700), [("AMP006", 1700)], id="counted_timing"),
    pytest.param(lambda: detectron2(619), [("AMP006", 619)], id="detectron2"),
])
def test_controls_keep_their_loss(tmp_path: Path, build: Callable[[], list[str]],
                                  right: list[tuple[str, int]]) -> None:
    """A loss beside timing fields, beside a step counter, or detectron2's: still a loss."""
    assert faults(tmp_path, build()) == right


@pytest.mark.parametrize("build", [
    pytest.param(lambda: neural_graph(iterations=900, every=150), id="neural_graph"),
    pytest.param(lambda: phase_timed(every=40, iterations=2400), id="piped"),
    pytest.param(lambda: phase_timed(every=30, layout="tagged"), id="tagged"),
    pytest.param(lambda: timed_fields(every=10), id="timed_fields"),
    pytest.param(lambda: counted_timing(every=50), id="counted_timing"),
    pytest.param(lambda: detectron2(period=50, iterations=3000), id="detectron2"),
])
def test_healthy_silent(tmp_path: Path, build: Callable[[], list[str]]) -> None:
    """Healthy runs, settings other than the builders' defaults: no fault."""
    assert faults(tmp_path, build()) == []


@pytest.mark.parametrize(("text", "timing"), [
    ("FORWARD: 101.442107, LOSS: 152.339870, BACKWARD: 117.336665", True),
    ("fwd: 12.3 | loss: 3.1 | bwd: 20.0", True),
    ("time/forward=10.2, time/loss=1.1, time/backward=30.5, time/optimizer=2.0", True),
    ("[timing] forward 10.2ms loss 1.1ms backward 30.5ms", True),
    ("loss: 2.31, forward_time: 0.12", False),
    ("step 100 | loss 2.3 | fwd 12.3ms | bwd 20.1ms", False),
    ("FORWARD: 1.2, LOSS: 0.3, SEG_LOSS: 0.2, BACKWARD: 2.2", False),  # another loss on it
    ("data: 0.1, loss: 2.3, total: 4.0", False),  # no forward nor backward timed
    ("FORWARD: 1.2", False),
    ("", False),
])
def test_rule(text: str, timing: bool) -> None:
    """The rule on single lines, its edges."""
    # imported here: the excerpts' tests above run on a doctor without the module too
    from denpex_callbacks.logs.timing_lines import timing_line

    assert timing_line(text) is timing
