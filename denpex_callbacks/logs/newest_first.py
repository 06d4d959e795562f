"""A log listed newest line first, put back in the order it was printed.

Some of the commands that hand a job's log on list it newest first: ``gcloud logging read``
and ``gcloud run jobs logs read`` (``--order``, default ``desc``: "returned in order of
decreasing timestamps, most-recent entries first"), ``journalctl -r``. Read as listed, a
run that went NaN at step 20 and stayed NaN to step 40 shows its NaN first at step 40, a
collapse reads as a recovery and a recovery as a collapse.

A listing is taken as newest first where the times it prints run backwards: of the moves
between consecutive distinct ISO 8601 times (``2024-05-01T10:00:00.123Z``, ``2024-05-01
10:00:00``), at least ``NEWEST_DOWN`` go back, at least ``NEWEST_SHARE`` times as many as go
forward, and its last time is earlier than its first. A record's own times in the order its
fields are printed (gcloud's ``receiveTimestamp`` before its ``timestamp``, a second or so
later) go back once in each record of an oldest-first listing too: then as many moves go
forward as back, and the listing is read as it is. Its lines are then read last to first.
A listing without times (``--format="value(textPayload)"``) is told by the steps its rows
print (:func:`runs_backwards`, which the doctor asks of a first reading's steps).
"""

from __future__ import annotations

import itertools
import re

NEWEST_BYTES = 4 << 20  # a larger input is a log file, written oldest first
NEWEST_DOWN = 8  # moves back in time, at least (a handful of entries out of order is not it)
NEWEST_SHARE = 3  # times as many moves back as forward, at least
_TIME = re.compile(rb"(?<![\d.])(\d{4})-(\d\d)-(\d\d)[T ](\d\d):(\d\d):(\d\d)(?:[.,](\d{1,9}))?")


def _times(data: bytes) -> list[bytes]:
    """The times ``data`` prints, in order, each as digits that sort as the times do."""
    return [b"".join(parts[:6]) + b"." + parts[6].ljust(9, b"0")
            for parts in (found.groups(b"") for found in _TIME.finditer(data))]


def runs_backwards(back: int, forward: int) -> bool:
    """Whether ``back`` moves back and ``forward`` moves forward (in time, or in the steps a
    log's rows print) are a listing's, newest first.

    Example:
        >>> runs_backwards(39, 0), runs_backwards(20, 19), runs_backwards(3, 0)
        (True, False, False)
    """
    return back >= NEWEST_DOWN and back >= NEWEST_SHARE * forward


def _moves(times: list[bytes]) -> tuple[int, int]:
    """How many moves between consecutive distinct times go back, and how many forward."""
    back = forward = 0
    for before, after in itertools.pairwise(times):
        if after < before:
            back += 1
        elif after > before:
            forward += 1
    return back, forward


def may_be_newest_first(head: bytes) -> bool:
    """Whether the head of an input may list its lines newest first (its times run back more
    often than forward, and its last is earlier than its first): then the whole input is
    looked at.

    Example:
        >>> may_be_newest_first(b"2024-05-01T10:00:03Z a\\n2024-05-01T10:00:02Z b\\n"
        ...                     b"2024-05-01T10:00:01Z c\\n")
        True
        >>> may_be_newest_first(b"2024-05-01 10:00:01 step 1\\n2024-05-01 10:00:02 step 2\\n")
        False
    """
    times = _times(head)
    if len(times) < 3 or times[-1] >= times[0]:
        return False
    back, forward = _moves(times)
    return back >= NEWEST_SHARE * forward


def oldest_first(data: bytes) -> bytes | None:
    """``data``'s lines last to first where ``data`` lists them newest first, else None.

    Example:
        >>> listing = b"".join(b"2024-05-01T10:00:%02dZ step %d loss 1.0\\n" % (s, s)
        ...                    for s in range(12, 0, -1))
        >>> oldest_first(listing).splitlines()[0]
        b'2024-05-01T10:00:01Z step 1 loss 1.0'
        >>> oldest_first(oldest_first(listing)) is None
        True
    """
    times = _times(data)
    if len(times) < 2 or times[-1] >= times[0]:
        return None
    if not runs_backwards(*_moves(times)):
        return None
    return reversed_lines(data)


def reversed_lines(data: bytes) -> bytes:
    """``data``'s lines last to first.

    Example:
        >>> reversed_lines(b"step 2\\nstep 1\\n")
        b'step 1\\nstep 2\\n'
    """
    lines = data.split(b"\n")
    if lines[-1] == b"":  # (the newline that ends the last line ends the new last one)
        lines.pop()
    return b"\n".join(reversed(lines)) + b"\n"
