"""An excerpt that is one JSON object whose values nest: a tracker's summary file, read as one line.

Experiment trackers keep a run's latest values in a JSON file that people paste whole:
DVCLive's ``dvclive/metrics.json`` (iterative/dvclive ``live.py`` ``make_summary``:
``dump_json(self.summary, ..., indent=4)``, the metric ``train/loss`` nested as ``"train":
{"loss": ...}`` by ``set_in``, a non-finite value written as the string ``"nan"``, and
``"step"`` at the top level, after the metrics it numbers), a W&B ``wandb-summary.json``
pretty-printed (its ``"_wandb": {"runtime": ...}``). Read line by line, the nested object's
rows end at its own closing brace, apart from the step above or below them: the loss is read
without its step.

The rule: an input that is all one JSON object (it fits in the head the doctor peeks at, it
opens with ``{`` and closes with ``}``, and Python's ``json`` reads it, ``NaN`` included)
whose values are scalars or objects of scalars, at least one an object, is read as the one
line ``json.dumps`` makes of it with the nested keys joined by ``/`` (``"train/loss": "nan",
..., "step": 400``): the line a tracker's flat summary prints, which the generic reader reads.
A list anywhere (HF's ``trainer_state.json`` and its ``log_history``, a configuration's
lists) leaves the input as it is: that is a history or a configuration, read as before.
"""

from __future__ import annotations

import json

# (a summary nests a level or two: the tracker's split, a namespace; deeper is no summary)
MAX_DEPTH = 4


def flattened_document(document: dict[str, object]) -> bytes | None:
    """The one line that a JSON object (:func:`parsed_object`'s) with nested objects is read
    as, or None where it is no such object (a list in it, nothing nested).

    Example:
        >>> flattened_document({"train": {"loss": "nan"}, "step": 400})
        b'{"train/loss": "nan", "step": 400}\\n'
        >>> flattened_document({"loss": 1.0, "step": 4}) is None
        True
    """
    if not any(isinstance(value, dict) for value in document.values()):
        return None  # nothing nested: the rows read right as they are
    flat: dict[str, object] = {}
    if not _flatten(document, "", flat, 0):
        return None  # a list in it, or too deep: a history or a configuration
    return json.dumps(flat).encode() + b"\n"


def parsed_object(data: bytes) -> dict[str, object] | None:
    """The JSON object ``data`` is (``NaN`` and ``Infinity`` read as Python reads them), or
    None where it is no JSON or no object.

    Example:
        >>> parsed_object(b'{"loss": NaN}'), parsed_object(b"[1]"), parsed_object(b"{")
        ({'loss': nan}, None, None)
    """
    if data.rstrip()[-1:] != b"}":  # (cheap: no parse of a log that only opens with "{")
        return None
    try:
        document = json.loads(data)
    except (ValueError, RecursionError):  # (UnicodeDecodeError is a ValueError)
        return None
    return document if isinstance(document, dict) else None


def _flatten(mapping: dict[str, object], prefix: str, into: dict[str, object],
             depth: int) -> bool:
    """Put ``mapping``'s scalars into ``into`` under their joined keys; False where a list
    or a nesting deeper than ``MAX_DEPTH`` makes it no summary."""
    if depth > MAX_DEPTH:
        return False
    for key, value in mapping.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            if not _flatten(value, f"{name}/", into, depth + 1):
                return False
        elif isinstance(value, list):
            return False
        else:
            into[name] = value
    return True
