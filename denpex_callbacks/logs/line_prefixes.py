"""A prefix that changes from line to line, put before every line of a paste, taken off
every line where the head shows it on each: a collector's clock or process.

A log read through ``kubectl logs --timestamps``, ``docker logs -t``, a GitHub Actions raw
log, moreutils' ``ts``, journald or a Ray worker's output has a time (or a process) before
each line, a different one on each: no margin (paste_margins.py) takes it off. Each line read
is cleaned of it (paste.strip_paste), but the lines looked at around a line in the input's
bytes (a banner over its rows, a record's header, a table's header over its rows) are not,
nor is a row's count of its lines. Where every line of the head that holds text opens with
one (``MARGIN_LINES`` at least, or every line of a shorter input), each line of the input is
read without it, as paste.as_printed cuts it (a Kubeflow replica's rank kept).
"""

from __future__ import annotations

from denpex_callbacks.logs.paste import as_printed, may_be_collected
from denpex_callbacks.logs.paste_margins import MARGIN_LINES


def collected(head: bytes, whole: bool) -> bool:
    """Whether every line of ``head`` that holds text opens with a collector's prefix, over
    ``MARGIN_LINES`` lines at least (``whole``: the head is the whole input, and every line
    of a shorter one does).

    Example:
        >>> clock = b"".join(b"2024-06-01T10:00:%02d.5Z step %d\\n" % (s, s) for s in range(4))
        >>> collected(clock, False), collected(clock[:30], True)
        (True, True)
        >>> collected(b"step 1\\n2024-06-01T10:00:00Z step 2\\n", True)
        False
    """
    lines = head.split(b"\n")
    if not whole:
        lines = lines[:-1]  # (the last one may be cut off)
    held = 0
    for line in lines:
        if not line.strip():
            continue
        text = line.decode("utf-8", "replace")
        if not (may_be_collected(text.lstrip()[:5]) and as_printed(text) is not None):
            return False
        held += 1
    return held >= MARGIN_LINES or (whole and held > 0)


def uncollected(data: bytes) -> bytes:
    """``data`` with a collector's prefix taken off each line that opens with one.

    Example:
        >>> uncollected(b"Jun 01 10:00:00 step 1\\nJun 01 10:00:01 host python[9]: step 2\\n")
        b'step 1\\nstep 2\\n'
    """
    out = []
    for line in data.split(b"\n"):
        text = line.decode("utf-8", "surrogateescape")
        printed = as_printed(text) if may_be_collected(text.lstrip()[:5]) else None
        out.append(line if printed is None else printed.encode("utf-8", "surrogateescape"))
    return b"\n".join(out)
