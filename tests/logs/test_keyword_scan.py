"""The prefilter's two scanners (RE2 with the ``fast`` extra, ``bytes.find`` without) find
the same candidate lines on any bytes."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from denpex_callbacks.logs.keyword_scan import HAS_RE2, find_line_starts, line_starts
from denpex_callbacks.logs.parsers import KEYWORDS

# Pieces that make keywords, near-misses, line ends and bytes that are not UTF-8.
PIECES = st.sampled_from([b"loss", b"los", b"nan", b"na", b"NaN", b"INFO", b"inf", b"\n",
                          b"\r", b"\r\n", b" ", b"x", b"\xff\xfe", b"\xc3", b"\x00",
                          b"OVERFLOW!", b"scale", b"sca", b"denpex: ", b"Error"])


@pytest.mark.skipif(not HAS_RE2, reason="the fast extra (google-re2) is not "
                    "installed: only the bytes.find scanner exists")
@settings(max_examples=300, deadline=None)
@given(st.lists(PIECES, max_size=40), st.integers(0, 400))
def test_re2_and_find_agree(pieces: list[bytes], cut: int) -> None:
    buffer = b"".join(pieces)
    stop = min(cut, len(buffer))
    assert line_starts(buffer, stop, KEYWORDS) == find_line_starts(buffer, stop, KEYWORDS)


def test_lines_holding_a_keyword_are_found_once_each() -> None:
    buffer = b"[INFO] step 1\nloss nan \xff\nno\nOVERFLOW! loss\nlos\n"
    assert line_starts(buffer, len(buffer), KEYWORDS) == [14, 28]
    # a keyword that ends past ``stop`` does not count, as with bytes.find's end
    assert line_starts(buffer, 17, KEYWORDS) == []
