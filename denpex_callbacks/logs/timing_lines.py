"""Timing lines: a ``loss`` key among the timed phases of a step is a duration, not a loss.

A loop that times its step's phases prints the time each one took under the phase's name, and
the loss's evaluation is one of the phases: AljazBozic/NeuralGraph ``train_graph.py``
(``"FORWARD: {0:3f}, LOSS: {1:3f}, BACKWARD: {2:3f}"``, the seconds that the forward, the
loss's evaluation and the backward took in a cycle, printed beside its real losses' rows
``Current Train Loss   TOTAL   0.91``). The same layout comes as ``fwd: 12.3 | loss: 3.1 |
bwd: 20.0``, ``time/forward=..., time/loss=...`` or ``[timing] forward 10.2ms loss 1.1ms``.

The rule (:func:`timing_line`): every key with a value on the line is the bare name of a
phase of a step (``forward``, ``backward``, ``optimizer``, ``data``, ``total`` ...; one
namespace before it is allowed: ``time/forward``), at least one of them the forward or the
backward, and one key is the bare ``loss``. A line with any other key keeps its loss: a step
counter (``step 100 | loss 2.3 | fwd 12ms``), a named loss (detectron2's ``total_loss: ...
time: ... data_time: ...``), or a loss beside its timing fields (``loss: 2.31,
forward_time: 0.12``: the phases there are named with ``_time``, the loss is not).
"""

from __future__ import annotations

import re

# The cheap test before any work: the names of the forward and the backward pass.
_GUARD = re.compile(r"(?i)ward|fwd|bwd")

# A key and the number after it (a unit may follow the number). The key's characters are
# letters, ``_``, ``/`` and ``.`` (a namespace), bounded: no backtracking beyond 40.
_KEYED = re.compile(r"(?<![\w/.])([A-Za-z][A-Za-z_/.]{0,40})[ \t]*[:=]?[ \t]*"
                    r"[-+]?(?:\d|(?i:nan|inf)\b)")

# The phases of a step that loops time, by the names they print.
_PASSES = frozenset({"forward", "fwd", "backward", "bwd"})
_PHASES = _PASSES | frozenset({
    "optimizer", "optim", "opt", "update", "data", "load", "loading", "io", "total", "comm",
    "allreduce", "sync", "eval", "zero_grad"})


def _phase(key: str) -> str:
    """The key's name after one namespace (``time/forward`` -> ``forward``), lowercased."""
    return key.rsplit("/", 1)[-1].rsplit(".", 1)[-1].lower()


def timing_line(text: str) -> bool:
    """Whether ``text`` times a step's phases, its ``loss`` key among them (see the module).

    Example:
        >>> timing_line("FORWARD: 101.442107, LOSS: 152.339870, BACKWARD: 117.336665")
        True
        >>> timing_line("loss: 2.31, forward_time: 0.12, backward_time: 0.30")
        False
        >>> timing_line("step 100 | loss 2.3 | fwd 12.3ms | bwd 20.1ms")
        False
    """
    if _GUARD.search(text) is None:
        return False
    names = [_phase(found.group(1)) for found in _KEYED.finditer(text)]
    if names.count("loss") != 1:
        return False
    phases = [name for name in names if name != "loss"]
    return bool(phases) and all(name in _PHASES for name in phases) and any(
        name in _PASSES for name in phases)
