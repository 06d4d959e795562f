"""A line that tags both passes: the part after the held-out split's tag is that split's.

An epoch's summary may print both passes on one line, each part opened by its split's tag
in brackets: ``   [Train] Loss: 0.8000 Acc: 0.6400 | [Val] Loss: nan Acc: 0.6100`` (also
``... || [Val] ...``, ``Epoch 003 [train] - Loss: ... | [val] Loss: ...``). The keys repeat
(``Loss`` in each part), so the line's first loss is the training's; the losses after the
held-out split's tag are that split's values, the evaluation's (AMP013 where not finite).

A line is read so where a training tag (``[Train]``, ``[training]``, ``[trn]``) stands before
a held-out split's tag (``[Val]``, ``[Valid]``, ``[Validation]``, ``[Eval]``, ``[Test]``,
``[Dev]``) that a separator (``|``, ``||``, ``;``, ``,``, `` - ``) opens: a tag alone at the
start of a line (a bar's description, a logging prefix) splits nothing.
"""

from __future__ import annotations

import re

# A separator, then the held-out split's tag: where its part begins. Bounded pieces.
_HELD_OUT_TAG = re.compile(r"(?i)(?:\|{1,2}|;|,| -)[ \t]{0,4}\[(?:val|valid|validation|eval"
                           r"|evaluation|test|dev)\]")
_TRAIN_TAG = re.compile(r"(?i)\[(?:train|training|trn)\]")


def held_out_part(text: str) -> int:
    """Where the held-out split's part of a line that tags both passes begins; ``len(text)``
    where the line tags no such part (nothing of it is the held-out split's).

    Example:
        >>> line = "   [Train] Loss: 0.8000 Acc: 0.64 | [Val] Loss: nan Acc: 0.61"
        >>> line[held_out_part(line):]
        '| [Val] Loss: nan Acc: 0.61'
        >>> held_out_part("[Val] Loss: nan") == len("[Val] Loss: nan")
        True
        >>> held_out_part("loss: 0.3 | [Val] loss: nan") == len("loss: 0.3 | [Val] loss: nan")
        True
    """
    if "[" not in text:
        return len(text)
    train = _TRAIN_TAG.search(text)
    if train is None:
        return len(text)
    found = _HELD_OUT_TAG.search(text, train.end())
    return len(text) if found is None else found.start()
