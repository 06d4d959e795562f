"""The plugin never imports torch unless a test uses its fixtures, so installing
denpex-callbacks without torch never breaks a pytest run (fresh subprocesses)."""

from __future__ import annotations

import os

import pytest

PLAIN_TESTS = """
import sys

def test_plain():
    assert "torch" not in sys.modules, "something imported torch"
"""

FIXTURE_TESTS = """
def test_smoke(amp_smoke):
    amp_smoke(object(), lambda step: None)

def test_loop(amp_monitor):
    pass
"""


@pytest.fixture
def torch_missing(pytester, monkeypatch):
    """Subprocesses where ``import torch`` fails as if torch were not installed."""
    fake = pytester.mkdir("no_torch_here") / "torch"
    fake.mkdir()
    fake.joinpath("__init__.py").write_text(
        'raise ModuleNotFoundError("No module named \'torch\'", name="torch")\n'
    )
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(
        filter(None, [str(fake.parent), os.environ.get("PYTHONPATH")])
    ))
    return pytester


def test_plain_session_does_not_import_torch(pytester):
    pytester.makepyfile(test_plain=PLAIN_TESTS)
    result = pytester.runpytest_subprocess("--denpex-fail-on", "error")  # the plugin is there
    result.assert_outcomes(passed=1)
    assert "denpex:" not in result.stdout.str()  # no header line: no fixture is used


def test_without_torch_plain_tests_pass_and_fixtures_fail_clearly(torch_missing):
    torch_missing.makepyfile(test_plain=PLAIN_TESTS, test_fixtures=FIXTURE_TESTS)
    result = torch_missing.runpytest_subprocess("-rA", "--denpex-report", "reports")
    result.assert_outcomes(passed=1, failed=1, errors=1)
    result.stdout.fnmatch_lines(["collected 3 items",
                                 "denpex: torch is not installed: amp_smoke/amp_monitor tests "
                                 "will fail"])
    for line in ("FAILED test_fixtures.py::test_smoke - Failed: denpex fixtures need torch*",
                 "ERROR test_fixtures.py::test_loop - Failed: denpex fixtures need torch*"):
        result.stdout.fnmatch_lines([line])
    assert "pip install denpex-callbacks[torch]" in result.stdout.str()
    assert "During handling" not in result.stdout.str()


@pytest.mark.slow  # over 10 s on two cores: `make test-slow`
def test_header_names_the_device_once_a_test_uses_a_fixture(pytester):
    # The test file imports torch only at collection, after the session header: the device
    # line then follows the collection line.
    pytester.makepyfile(test_uses="import torch\n\ndef test_x(amp_smoke):\n    pass\n")
    result = pytester.runpytest_subprocess("-p", "no:hypothesispytest")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["collected 1 item",
                                 "denpex: amp_smoke trains on * with fp16 autocast*"])
