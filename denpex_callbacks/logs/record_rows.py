"""A record's rows between its step line and its first row holding a keyword.

A multi-line record prints its step on a line of its own and one metric on each line below
it; the reader hands the step line over with the record's first candidate when it is the
line just before it (``reader._step_line``). coqui-ai/Trainer prints ``--> TIME: ... --
STEP: 100/400 -- GLOBAL_STEP: 500`` over one ``     | > {key}: {value}  ({average})`` row a
loss (trainer/logging/console_logger.py ``print_train_step``); GlowTTS' first loss is
``log_mle`` (coqui-ai/TTS ``TTS/tts/layers/losses.py`` ``GlowTTSLoss``), which holds none of
the prefilter's keywords, so the line just before the first candidate (``loss_dur``) was that
row, not the step line: the step line was not handed over, every record was read without its
step, and a NaN at global step 500 was placed at 100 (MinjiNotMinji/tts-tutorial
``train_tts.py``).

Rule: where the line before the first candidate is a row that opens with a marker (``|``,
``>``, ``*``, ``-``, ``:`` after an indent of two blanks or more) that the candidate opens with
too, the lines above it that open with the same marker are the record's rows, and the line
above the last of them (within :data:`ROW_REACH` lines) is the record's step line if it is
one. A row of another shape, or a line with no such marker, ends the search: plain indented
lines (tracebacks, pretty-printed configs) are not walked.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from denpex_callbacks.logs.eval_headings import evaluation_heading

# The marker a record's row opens with after its indent: ``     | > `` (coqui), ``  - ``,
# ``  * ``; then the key's first word character. Bounded pieces: linear on any line.
_LEAD = re.compile(rb"[ \t]{2,16}[|>*:-]{1,4}(?:[ \t]{1,4}[|>*:-]{1,4}){0,2}(?=[ \t]{1,4}\w)")
ROW_REACH = 16  # rows of one record above its first candidate (coqui prints up to ~12)


def step_above_rows(buffer: bytes, resume: int, start: int, begin: int, line: bytes,
                    is_step_line: Callable[[bytes], bool]) -> tuple[bytes, int] | None:
    """The step line above the record rows that end at ``line`` (which starts at ``begin``,
    just before the candidate at ``start``), with how many lines lie between; else None.

    Example:
        >>> from denpex_callbacks.logs.reader import _is_step_line
        >>> b = (b"--> STEP: 10/40 -- GLOBAL_STEP: 50\\n     | > log_mle: 1.2  (1.3)\\n"
        ...      b"     | > loss_dur: nan  (nan)\\n")
        >>> start = b.index(b"     | > loss_dur")
        >>> begin = b.index(b"     | > log_mle")
        >>> step_above_rows(b, 0, start, begin, b[begin:start - 1], _is_step_line)
        (b'--> STEP: 10/40 -- GLOBAL_STEP: 50', 1)
        >>> step_above_rows(b, 0, start, begin, b"    File x.py", _is_step_line) is None
        True
    """
    lead = _LEAD.match(line)
    if lead is None:
        return None
    marker = lead.group(0)  # (the indent and the marker, without the blank after it)
    if not buffer.startswith(marker, start):
        return None  # the candidate is a row of another shape
    back = 0
    while back < ROW_REACH and begin > resume:
        start_above = max(buffer.rfind(b"\n", resume, begin - 1) + 1, resume)
        above, begin = buffer[start_above:begin - 1], start_above
        back += 1
        if is_step_line(above) or evaluation_heading(above):
            # (an evaluation's heading in the step line's place: see eval_headings)
            return above, back
        if not above.startswith(marker):
            return None
    return None
