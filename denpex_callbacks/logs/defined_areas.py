"""Areas under the ROC curve that an excerpt showed finite: a NaN of one later is a fault.

An area under the ROC curve is NaN by definition on an evaluation set of one class
(scikit-learn's ``roc_auc_score`` raises "Only one class present in y_true", which scripts
catch as ``float("nan")``; see ``lexicon.undefined_area``): the doctor excuses such a NaN
beside a finite loss, or where training went well. But a run evaluates the same set each
time: where the same area on the same line was finite before, the set holds both classes,
and a NaN later is the predictions' (an fp16 evaluation that overflowed: ``roc_auc_score``
of NaN scores caught as NaN, torchmetrics' ``AUROC``), not the set's. The reader notes the
areas it read finite, each by its name and the line's head (the letters before the line's
first digit, ``:`` or ``=``: ``Custom unseen eval`` is another set than ``Eval run1 test``),
and marks a later NaN of one (``DEFINED_AREA`` in the event's evidence). Lightning's bars
(one line shape) are noted by name alone.
"""

from __future__ import annotations

from denpex_callbacks.logs import lexicon

DEFINED_AREA = "defined_area"  # an eval event's evidence key: its area was finite before
_NAMES = 64  # areas kept (bounded memory: a log of many metric names)
_HEAD = 40  # how far into a line its head is read


def _head(text: str) -> str:
    """The letters of ``text`` before its first digit, ``:`` or ``=`` (within ``_HEAD``
    characters: before any value, so a value that went NaN leaves it as it was).

    Example:
        >>> _head("Epoch 5/10 | val_auc: nan"), _head("Custom unseen eval: acc=0.5 auc=nan")
        ('Epoch', 'Customunseeneval')
    """
    head = text[:_HEAD]
    for at, char in enumerate(head):
        if char.isdigit() or char in ":=":
            head = head[:at]
            break
    return "".join(char for char in head if char.isalpha())


class DefinedAreas:
    """The areas under the ROC curve read finite so far, by the line's head and name.

    Example:
        >>> areas = DefinedAreas()
        >>> areas.defined("val_auc: 0.91", [("val_auc", 0.91), ("val_acc", 0.8)])
        frozenset()
        >>> sorted(areas.defined("val_auc: nan", [("val_auc", float("nan"))]))
        ['val_auc']
        >>> areas.defined("test: auc=nan", [("auc", float("nan"))])
        frozenset()
    """

    def __init__(self) -> None:
        self.names: set[tuple[str, str]] = set()

    def defined(self, text: str, values: list[tuple[str, float]]) -> frozenset[str]:
        """Note the areas among the ``(name, value)`` pairs of an evaluation on ``text``
        read finite; the names of those on it read finite before (cheap first: a name
        without ``uc``/``UC`` is no area's)."""
        head: str | None = None
        before: set[str] = set()
        for key, value in values:
            if not ("uc" in key or "UC" in key):
                continue
            if head is None:
                head = _head(text)
            if (head, key) in self.names:
                before.add(key)
            elif (value - value == 0 and len(self.names) < _NAMES
                  and lexicon.undefined_area(key)):
                self.names.add((head, key))  # (value - value: 0 unless NaN or infinite)
        return frozenset(before)
