"""Random bytes and random mixtures of real log lines never crash the doctor or the CLI."""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from denpex_callbacks.cli import EXIT_BAD_INPUT, exit_code
from denpex_callbacks.logs.doctor import diagnose
from denpex_callbacks.logs.render import render_json, render_markdown, render_text

CORPUS = Path(__file__).parent / "corpus"
REAL_LINES = sorted({line for log in CORPUS.glob("*.log")
                     for line in log.read_text(encoding="utf-8").splitlines() if line.strip()})


def _check(path: Path) -> None:
    result = diagnose(str(path))
    code = exit_code([result])
    assert code in (0, 1, 2)
    render_text([result])
    render_markdown([result])
    render_json([result], code)
    if result.error:
        assert code == EXIT_BAD_INPUT and "\n" not in result.error


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.binary(max_size=4096))
def test_random_bytes(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "random.log"
    path.write_bytes(data)
    _check(path)


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.one_of(st.sampled_from(REAL_LINES), st.text(max_size=80)), max_size=80),
       st.sampled_from(["\n", "\r", "\r\n"]))
def test_random_mixtures_of_real_lines(tmp_path: Path, lines: list[str], end: str) -> None:
    path = tmp_path / "mixed.log"
    path.write_text(end.join(lines), encoding="utf-8", errors="surrogatepass")
    _check(path)
