"""The prefilter's two scanners (RE2 with the ``fast`` extra, ``bytes.find`` without) find
the same candidate lines on any bytes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from denpex_callbacks.logs.doctor import EVERY_LINE
from denpex_callbacks.logs.keyword_scan import HAS_RE2, find_line_starts, line_starts
from denpex_callbacks.logs.parsers import KEYWORDS

# Pieces that make keywords, near-misses, line ends and bytes that are not UTF-8.
PIECES = st.sampled_from([b"loss", b"los", b"nan", b"na", b"NaN", b"INFO", b"inf", b"\n",
                          b"\r", b"\r\n", b" ", b"x", b"\xff\xfe", b"\xc3", b"\x00",
                          b"OVERFLOW!", b"scale", b"sca", b"denpex: ", b"Error"])


@pytest.mark.skipif(not HAS_RE2, reason="the fast extra (google-re2) is not "
                    "installed: only the bytes.find scanner exists")
# the prefilter's keywords, and the doctor's second pass: every line a candidate (the newline
# and the digits as keywords)
@pytest.mark.parametrize("keywords", [KEYWORDS, EVERY_LINE], ids=["prefilter", "every-line"])
@settings(max_examples=300, deadline=None)
@given(pieces=st.lists(PIECES, max_size=40), cut=st.integers(0, 400))
def test_re2_and_find_agree(keywords: tuple[bytes, ...], pieces: list[bytes], cut: int) -> None:
    buffer = b"".join(pieces)
    stop = min(cut, len(buffer))
    assert line_starts(buffer, stop, keywords) == find_line_starts(buffer, stop, keywords)


def test_lines_holding_a_keyword_are_found_once_each() -> None:
    buffer = b"[INFO] step 1\nloss nan \xff\nno\nOVERFLOW! loss\nlos\n"
    assert line_starts(buffer, len(buffer), KEYWORDS) == [14, 28]
    # a keyword that ends past ``stop`` does not count, as with bytes.find's end
    assert line_starts(buffer, 17, KEYWORDS) == []


def test_the_every_line_pass_ends_without_re2(tmp_path: Path) -> None:
    # Without the fast extra the bytes.find scanner takes the every-line pass: the newline as a
    # keyword was found at the same place again, for ever (the minimum-versions job hung on
    # "nothing to diagnose"). Run apart, with a time limit, so that a loop fails the test.
    log = tmp_path / "train.log"
    log.write_text("epoch 1 done\nall good\n")
    script = ("import sys; from denpex_callbacks.logs import keyword_scan as k; k._re2 = None; "
              "k._scanner.cache_clear(); k._lazy_scanner.cache_clear(); "
              "from denpex_callbacks.logs.doctor import diagnose; "
              "print(diagnose(sys.argv[1]).error)")
    done = subprocess.run([sys.executable, "-c", script, str(log)], capture_output=True,
                          text=True, timeout=60, check=True)
    assert "nothing to diagnose" in done.stdout
    assert find_line_starts(b"a\nb 1\nc 2", 10, EVERY_LINE) == [0, 2, 6]
