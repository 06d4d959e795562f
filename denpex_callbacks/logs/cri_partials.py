"""A Kubernetes container log (the CRI format) whose long lines were cut into partial lines,
joined again.

The container runtime (containerd, CRI-O) writes each line a container prints as ``<time>
<stream> <tag> <content>`` (kubernetes ``pkg/kubelet/kuberuntime/logs/logs.go``
``parseCRILog``: ``2016-10-06T00:17:09.669794202Z stdout P log content 1``); a line longer
than its buffer (containerd's ``max_container_log_line_size``, 16 KiB by default) is cut
into pieces tagged ``P`` (partial, no newline after it) and a last one tagged ``F`` (full),
each piece behind a prefix of its own. A training script's long lines are the ones its
progress bar draws: tqdm redraws the bar after a carriage return, no newline, so the metric
row written after thousands of redraws (the HF Trainer's ``{'loss': nan, ...}``) lands 16 KiB
into a line and may be cut anywhere, its loss key in one piece and its value in the next.

The pieces of a stream are joined to the ``F`` line that ends them, behind the first piece's
prefix (tagged ``F``): what ``kubectl logs`` shows, each line whole, the prefixes kept as the
log's other lines have them. Lines of the other stream between them stay where they are.
Tags after a colon (``P:x``, kept for the format's forward compatibility) are read by the
first.
"""

from __future__ import annotations

import re

CRI_JOINED = "a container log's partial lines (CRI ``P``), joined to the lines that end them"
CRI_BYTES = 32 << 20  # a larger input is read as it is (held in memory to be joined)
# ``<RFC 3339 time> <stream> <tag> `` opening a line (the time as the runtime writes it)
_PREFIX = re.compile(rb"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d) "
                     rb"(stdout|stderr) )([PF])((?::\S*)? )")


def may_be_cri(head: bytes) -> bool:
    """Whether the input's first line opens as a CRI container log's line does.

    Example:
        >>> may_be_cri(b"2026-12-07T10:00:00.123456789Z stdout F {'loss': 2.3}\\n")
        True
        >>> may_be_cri(b"step 1 loss 2.3\\n")
        False
    """
    return _PREFIX.match(head.lstrip()) is not None


def joined_log(data: bytes) -> bytes | None:
    """The log with each stream's partial lines joined to the line that ends them, or None
    where it holds none.

    Example:
        >>> log = (b"2026-12-07T10:00:00Z stderr P {'loss': n\\n"
        ...        b"2026-12-07T10:00:01Z stdout F epoch 1\\n"
        ...        b"2026-12-07T10:00:02Z stderr F an, 'epoch': 0.2}\\n")
        >>> print(joined_log(log).decode(), end="")
        2026-12-07T10:00:01Z stdout F epoch 1
        2026-12-07T10:00:00Z stderr F {'loss': nan, 'epoch': 0.2}
        >>> joined_log(b"2026-12-07T10:00:00Z stdout F step 1 loss 2.3\\n") is None
        True
    """
    if b" P " not in data and b" P:" not in data:
        return None
    out: list[bytes] = []
    pending: dict[bytes, list[bytes]] = {}  # a stream's pieces so far, its first prefix first
    joined = False
    for line in data.split(b"\n"):
        found = _PREFIX.match(line)
        if found is None:
            out.append(line)
            continue
        head, stream, tag = found.group(1), found.group(2), found.group(3)
        content = line[found.end():]
        pieces = pending.get(stream)
        if tag == b"P":
            if pieces is None:
                pending[stream] = [head + b"F" + found.group(4), content]
            else:
                pieces.append(content)
            continue
        if pieces is None:
            out.append(line)
            continue
        joined = True
        pieces.append(content)
        out.append(b"".join(pieces))
        del pending[stream]
    # pieces without their end (an excerpt cut there): as far as they go
    at = len(out) - 1 if out and not out[-1] else len(out)  # (before a final newline's end)
    out[at:at] = [b"".join(pieces) for pieces in pending.values()]
    return b"\n".join(out) if joined or pending else None
