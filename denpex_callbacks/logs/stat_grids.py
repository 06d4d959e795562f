"""A record printed as a header of counters over a grid of ``key: value`` cells.

PyMARL's and EPyMARL's logger (oxwhirl/pymarl ``src/utils/logging.py`` ``print_recent_stats``)
prints each record as one message of several lines: a header that holds the record's counters
alone (``Recent Stats | t_env:      10037 | Episode:      180``), then the stats sorted by
key, four ``{:<25}{:>8}`` cells a row, tab-parted (``epsilon:      0.0500\\tgrad_norm:
2.3000\\tloss:     nan\\t...``). The header holds no keyword the prefilter looks for, so it is
handed over with the grid's first row that does (``reader._step_line`` looks past up to
:data:`GRID_ROWS` rows of the same record to it), and the header's step key (``t_env``) is the
row's step.
"""

from __future__ import annotations

import re

# A grid row: ``key: value`` cells that tabs part (one cell alone, or a trailing tab, at the
# grid's end). Each repetition opens with its tab: no two ways to split a row (linear time).
_CELL_ROW = re.compile(rb"[A-Za-z_][\w./-]*:[ ]+\S+(?:\t[ ]*[A-Za-z_][\w./-]*:[ ]+\S+)*\t?")
# A header of counters: a title, then only ``| key: integer`` cells (at least one).
_COUNTERS_HEADER = re.compile(rb"[^|\n]*(?:\|[ ]*[A-Za-z_][\w]*:[ ]+\d+[ ]*)+")
GRID_ROWS = 8  # the most grid rows looked past between a header and a candidate


def grid_row(line: bytes) -> bool:
    """Whether ``line`` is a row of a grid of tab-parted ``key: value`` cells.

    Example:
        >>> grid_row(b"epsilon:     0.0500\\tgrad_norm:    2.3000\\tloss:     nan")
        True
        >>> grid_row(b"test_return_std:     0.3000\\t"), grid_row(b"loss: nan lr: 0.1")
        (True, False)
    """
    return b"\t" in line and _CELL_ROW.fullmatch(line.rstrip(b"\r")) is not None


def counters_header(line: bytes) -> bool:
    """Whether ``line`` is a record's header that holds its counters alone.

    Example:
        >>> counters_header(b"[INFO 10:01:00] my_main Recent Stats | t_env:      10037 | "
        ...                 b"Episode:      180")
        True
        >>> counters_header(b"| epoch 1 | loss 2.5 |"), counters_header(b"Recent Stats")
        (False, False)
    """
    return b"|" in line and _COUNTERS_HEADER.fullmatch(line.rstrip()) is not None

