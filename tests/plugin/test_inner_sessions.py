"""Real inner pytest sessions (pytester) of a user's test files using the plugin's fixtures.

The inner sessions get the plugin the way a user does: from the installed entry point.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import torch

from denpex_callbacks import read_report

MODELS = (Path(__file__).parent / "inner_models.py").read_text()

SMOKE_TESTS = """
import pytest
from inner_models import Regressor, exploding_grad_batch, overflowing_batch, regression_batch

def test_healthy(amp_smoke):
    amp_smoke(Regressor(), regression_batch, steps=50)

def test_activation_overflow(amp_smoke):
    amp_smoke(Regressor(gain=10.0), overflowing_batch, steps=50)

def test_gradient_overflow(amp_smoke):
    amp_smoke(Regressor(), exploding_grad_batch, steps=50)

def test_growth_disabled(amp_smoke):
    amp_smoke(Regressor(), regression_batch, steps=50, growth_interval=10**9)
"""

DEVICE = "cuda" if torch.cuda.is_available() else "cpu"


@pytest.fixture
def user_suite(pytester):
    pytester.makepyfile(inner_models=MODELS, test_user=SMOKE_TESTS)
    return pytester


def run(pytester, *args):
    """An in-process inner session. Hypothesis's plugin is left out: it imports hypothesis in
    every session (pytester drops it from sys.modules between sessions), 3 s each."""
    return pytester.runpytest("-p", "no:hypothesispytest", *args)


def outcomes(result):
    """{test name: outcome} from the inner session's -rA summary lines."""
    found = {}
    for line in result.outlines:
        match = re.match(r"(PASSED|FAILED|ERROR) \S+::(\w+)", line)
        if match:
            found[match.group(2)] = match.group(1)
    return found


def failure_section(result, test):
    """The text of one test's failure block."""
    text = result.stdout.str()
    start = text.index(f"_ {test} _")
    end = text.find("\n___", start + 1)
    return text[start:] if end < 0 else text[start:end]


@pytest.mark.slow  # over 10 s on two cores: `make test-slow`
def test_default_fails_on_warnings_and_errors_with_readable_text(user_suite):
    result = run(user_suite, "-rA")
    assert outcomes(result) == {
        "test_healthy": "PASSED",
        "test_activation_overflow": "FAILED",
        "test_gradient_overflow": "FAILED",
        "test_growth_disabled": "FAILED",
    }
    result.stdout.fnmatch_lines([f"denpex: amp_smoke trains on {DEVICE}* with fp16 autocast*"])
    overflow = failure_section(result, "test_activation_overflow")
    # The primary diagnosis first, in full (where it began, evidence, fix); its consequence
    # one line naming it; each shown once (no second copy under "Captured log").
    assert overflow.index("AMP006 non-finite-loss [error]") < overflow.index("AMP003")
    assert "(step 20, rank 0)" in overflow
    assert "AMP003 loss-scale-collapse [error] step 20, rank 0: consequence of AMP006" in overflow
    assert overflow.count("evidence:") == 1 and overflow.count("fix:") == 1
    assert overflow.count("AMP006 non-finite-loss") == 1
    assert overflow.count("AMP003 loss-scale-collapse") == 1
    assert "Captured log" not in overflow
    assert f"50 steps on {DEVICE}" in overflow
    assert "Traceback" not in overflow  # pytrace=False: the message is the failure
    gradient = failure_section(result, "test_gradient_overflow")
    assert "AMP003 loss-scale-collapse [error]" in gradient and "(step 20, rank 0)" in gradient
    assert "AMP006" not in gradient
    growth = failure_section(result, "test_growth_disabled")
    assert "AMP005 loss-scale-stuck [warning]" in growth and "(step 0, rank 0)" in growth
    assert "growth_interval=1000000000" in growth


def test_fail_on_error_lets_warnings_pass_with_a_pytest_warning(user_suite):
    result = run(user_suite, "-rA", "--denpex-fail-on", "error", "-k", "growth or healthy")
    assert outcomes(result) == {"test_healthy": "PASSED", "test_growth_disabled": "PASSED"}
    result.stdout.fnmatch_lines(["*AmpSmokeWarning: denpex: 1 fp16 diagnosis(es) below "
                                 "fail-on level error*", "*AMP005 loss-scale-stuck*"])
    assert "fail on error" in result.stdout.str()


def test_ini_options_and_marker(pytester):
    pytester.makeini("[pytest]\ndenpex_fail_on = error\ndenpex_report = ci/amp\n")
    pytester.makepyfile(inner_models=MODELS, test_user="""
import pytest
from inner_models import Regressor, regression_batch

def test_ini_relaxes(amp_smoke):
    amp_smoke(Regressor(), regression_batch, steps=5, growth_interval=10**9)

@pytest.mark.denpex(fail_on="warning")
def test_marker_tightens(amp_smoke):
    amp_smoke(Regressor(), regression_batch, steps=5, growth_interval=10**9)
""")
    result = run(pytester, "-rA")
    assert outcomes(result) == {"test_ini_relaxes": "PASSED", "test_marker_tightens": "FAILED"}
    assert "AMP005" in failure_section(result, "test_marker_tightens")
    # denpex_report is relative to the rootdir (where the ini file is).
    assert sorted(p.name for p in (pytester.path / "ci" / "amp").iterdir()) == [
        "test_user.py__test_ini_relaxes", "test_user.py__test_marker_tightens",
    ]


def test_report_dir_gets_one_folder_per_test(user_suite, tmp_path):
    user_suite.makepyfile(test_params="""
import pytest
from inner_models import Regressor, regression_batch

@pytest.mark.parametrize("lr", [1e-3, 1e-2])
def test_twice(amp_smoke, lr):
    amp_smoke(Regressor(), regression_batch, steps=5, lr=lr)
    amp_smoke(Regressor(), regression_batch, steps=5, lr=lr)
""")
    reports = tmp_path / "reports"
    result = run(user_suite, "--denpex-report", str(reports), "-k",
                                  "twice or activation or healthy")
    result.assert_outcomes(passed=3, failed=1)
    names = sorted(p.name for p in reports.iterdir())
    assert names == sorted([
        "test_params.py__test_twice_0.001",
        "test_params.py__test_twice_0.001-2",
        "test_params.py__test_twice_0.01",
        "test_params.py__test_twice_0.01-2",
        "test_user.py__test_activation_overflow",
        "test_user.py__test_healthy",
    ])
    overflow = read_report(reports / "test_user.py__test_activation_overflow" / "rank0.jsonl")
    assert [(d.code, d.step) for d in overflow.diagnoses][:2] == [("AMP006", 20), ("AMP003", 20)]
    assert overflow.summary is not None and overflow.summary["steps"] == 50
    healthy = read_report(reports / "test_user.py__test_healthy" / "rank0.jsonl")
    assert healthy.diagnoses == [] and healthy.summary["steps"] == 50
    text = result.stdout.str()
    assert f"run report: {reports / 'test_user.py__test_activation_overflow'}" in text
    assert f"denpex: 6 run report(s) in {reports}" in text


def test_users_model_is_unchanged_in_the_users_session(pytester):
    pytester.makepyfile(inner_models=MODELS, test_user="""
import torch
from inner_models import Regressor, overflowing_batch

def test_model_untouched(amp_smoke):
    model = Regressor(gain=10.0)
    before = {k: v.clone() for k, v in model.state_dict().items()}
    try:
        amp_smoke(model, overflowing_batch, steps=30)
    finally:
        after = model.state_dict()
        assert all(torch.equal(before[k], after[k]) for k in before)
        assert all(p.grad is None for p in model.parameters())
        print("MODEL-UNTOUCHED")
""")
    result = run(pytester, "-s")
    result.assert_outcomes(failed=1)  # the fault is reported ...
    result.stdout.fnmatch_lines(["*MODEL-UNTOUCHED*", "*AMP006*"])  # ... the model is intact


LOOP_TESTS = """
import pytest
import torch
from inner_models import Regressor, regression_batch

def loop(amp_monitor, steps, nan_from=None):
    model = Regressor()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    scaler = torch.amp.GradScaler("cpu")
    amp_monitor.attach(scaler=scaler, optimizer=opt, model=model)
    for step in range(steps):
        with torch.autocast("cpu", dtype=torch.float16):
            loss = model(*regression_batch(step))
        if nan_from is not None and step >= nan_from:
            loss = loss * float("nan")
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        opt.zero_grad()
        amp_monitor.step(loss)

def test_healthy_loop(amp_monitor):
    loop(amp_monitor, 30)

def test_nan_loop(amp_monitor):
    loop(amp_monitor, 30, nan_from=7)
    print("BODY-DONE")

def test_nan_loop_and_failing_body(amp_monitor):
    loop(amp_monitor, 30, nan_from=7)
    assert False, "the test's own failure"

def test_missing_update(amp_monitor):
    model = Regressor()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    scaler = torch.amp.GradScaler("cpu")
    amp_monitor.attach(scaler=scaler, optimizer=opt, model=model)
    with torch.autocast("cpu", dtype=torch.float16):
        loss = model(*regression_batch(0))
    scaler.scale(loss).backward()
    scaler.step(opt)
    amp_monitor.step(loss)  # update() forgotten
"""


def test_amp_monitor_fails_at_teardown(pytester):
    pytester.makepyfile(inner_models=MODELS, test_loops=LOOP_TESTS)
    result = run(pytester, "-rA")
    assert outcomes(result) == {
        "test_healthy_loop": "PASSED",
        "test_nan_loop": "ERROR",
        "test_nan_loop_and_failing_body": "FAILED",
        "test_missing_update": "ERROR",
    }
    text = result.stdout.str()
    nan = failure_section(result, "ERROR at teardown of test_nan_loop")
    assert "AMP006 non-finite-loss [error]" in nan and "(step 7, rank 0)" in nan
    assert "amp_monitor watched the test's own loop for 30 steps" in nan
    assert "BODY-DONE" in text  # the body ran to the end: the failure came at teardown
    # A test that already failed gets the diagnoses beside its own failure, not a second one.
    body = failure_section(result, "test_nan_loop_and_failing_body")
    assert "the test's own failure" in body and "AMP006" in body
    assert "ERROR at teardown of test_nan_loop_and_failing_body" not in text
    missing = failure_section(result, "ERROR at teardown of test_missing_update")
    assert "AMP002 scaler-protocol-misuse" in missing and "(step 0, rank 0)" in missing


def test_amp_monitor_marker_disables_diagnoses(pytester):
    pytester.makepyfile(inner_models=MODELS, test_loops=LOOP_TESTS.replace(
        "def test_nan_loop(amp_monitor):",
        '@pytest.mark.denpex(disable=("AMP006", "AMP003", "AMP004"))\n'
        "def test_nan_loop(amp_monitor):",
    ))
    result = run(pytester, "-rA", "-k", "test_nan_loop and not body")
    assert outcomes(result) == {"test_nan_loop": "PASSED"}


def test_bad_options_are_usage_errors(pytester):
    pytester.makepyfile(test_x="def test_x():\n    pass\n")
    result = run(pytester, "--denpex-fail-on", "info")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--denpex-fail-on: invalid choice: 'info'*"])
    pytester.makeini("[pytest]\ndenpex_fail_on = fatal\n")
    result = run(pytester)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*denpex_fail_on must be one of warning, error, not 'fatal'*"])


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the message when CUDA is absent")
def test_device_option_asking_for_missing_cuda_says_so(user_suite):
    result = run(user_suite, "-rA", "--denpex-device", "cuda", "-k", "healthy")
    result.stdout.fnmatch_lines([
        "denpex: amp_smoke cannot train: denpex smoke: device 'cuda' asked for, but CUDA is "
        "not available*",
        "FAILED test_user.py::test_healthy - RuntimeError: denpex smoke: device 'cuda'*",
    ])


def test_help_lists_the_options(pytester):
    result = run(pytester, "--help")
    result.stdout.fnmatch_lines(["*denpex-callbacks fp16 smoke tests*", "*--denpex-fail-on*",
                                 "*--denpex-report*", "*--denpex-device*"])
    markers = run(pytester, "--markers")
    markers.stdout.fnmatch_lines(["@pytest.mark.denpex(fail_on=None, thresholds=None*"])
    switched_off = run(pytester, "-p", "no:denpex", "--help")
    assert "--denpex-fail-on" not in switched_off.stdout.str()


def test_report_records_what_ran(user_suite, tmp_path):
    reports = tmp_path / "r"
    run(user_suite, "--denpex-report", str(reports), "-k", "healthy")
    header = json.loads((reports / "test_user.py__test_healthy" / "rank0.jsonl")
                        .read_text().splitlines()[0])
    assert header["type"] == "header"
    assert header["setup"]["active_precision"] == "fp16-mixed"
    assert header["setup"]["init_scale"] == 65536.0
