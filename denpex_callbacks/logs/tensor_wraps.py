"""A Paddle tensor printed in a log line, its value on the line below, joined again.

Paddle prints a tensor (``str(tensor)``, ``print(loss)``, ``f"loss:{loss}"``) as its header
and, after a line break, its value indented under the header's parenthesis (Paddle 2.x
``python/paddle/tensor/to_string.py`` ``_format_dense_tensor``: ``'Tensor(shape={shape},
dtype={dtype}, place={place}, stop_gradient={stop_gradient},\\n{indent}{data})'``). A line that
logs a loss that way ends with ``stop_gradient=False,``; its value opens the next line, which
may go on with the next tensor's header (crwsr124/AEGAN ``train_paddle.py``: ``f"recon_loss:
{recon_loss}, adv_loss1:{adv_loss1}, adv_loss2:{adv_loss2}"``). Read line by line, no loss has
a value. The header ends a line only there, so such a line is joined with the lines below it,
and each scalar tensor (shape ``[]``, or ``[1]`` before Paddle 2.5) is written as torch's
``tensor(value)``, which the metric reader reads.
"""

from __future__ import annotations

import re

# What ends a line whose tensor's value is on the next (the header's last field and comma)
_HEADER_ENDS = (b"stop_gradient=False,", b"stop_gradient=True,")
_JOINS = 8  # lines joined at most (a line of eight tensors)
# A scalar tensor's header and its value (a 1-element tensor's value in brackets), the
# break and indentation between them already one blank; no nesting, no backtracking
_SCALAR = re.compile(r"Tensor\(shape=\[1?\], dtype=\w+, place=[^,()]*(?:\([^()]*\))?, "
                     r"stop_gradient=(?:True|False), \[?([^\s\[\](),]+)\]?\)")
_BREAK = re.compile(r"\r?\n[ \t]*")


def wrapped_tensor(buffer: bytes, start: int, end: int) -> bool:
    """Whether the line ``buffer[start:end]`` ends with a Paddle tensor's header, its value on
    the next line (a cheap test of the line's end).

    Example:
        >>> wrapped_tensor(b"loss:Tensor(shape=[], stop_gradient=False,", 0, 42)
        True
        >>> wrapped_tensor(b"loss: 0.5,", 0, 10)
        False
    """
    if buffer[end - 1:end] == b"\r":
        end -= 1
    return buffer.endswith(_HEADER_ENDS, start, end)


def joined_end(buffer: bytes, start: int, end: int, stop: int) -> int:
    """The end of the last line that the line ``buffer[start:end]`` continues on: the lines
    after it, while each before ends with a tensor's header (at most ``_JOINS``); ``end``
    where the next line is not within ``stop`` (a chunk's last line: left as it is).

    Example:
        >>> text = (b"a:Tensor(stop_gradient=False,\\n  1.5), b:Tensor(stop_gradient=True,"
        ...         b"\\n  2)\\nx")
        >>> text[:joined_end(text, 0, 29, len(text))].decode().splitlines()[-1]
        '  2)'
    """
    begin = start
    for _ in range(_JOINS):
        if not wrapped_tensor(buffer, begin, end) or end + 1 >= stop:
            break
        following = buffer.find(b"\n", end + 1, stop)
        if following < 0:
            break
        begin, end = end + 1, following
    return end


def unwrapped(text: str) -> str:
    """``text`` (lines joined by :func:`joined_end`) as one line, each scalar Paddle tensor
    written as torch's ``tensor(value)``.

    Example:
        >>> unwrapped("loss:Tensor(shape=[], dtype=float32, place=Place(gpu:0), "
        ...           "stop_gradient=False,\\n       nan), lr:0.1")
        'loss:tensor(nan), lr:0.1'
        >>> unwrapped("loss: Tensor(shape=[1], dtype=float32, place=CUDAPlace(0), "
        ...           "stop_gradient=False,\\n       [0.69314718])")
        'loss: tensor(0.69314718)'
    """
    return _SCALAR.sub(r"tensor(\1)", _BREAK.sub(" ", text))
