"""The tests whose assertions hold only from a framework release above the floor (`make test-min`
loads this plugin with ``-p min_versions_plugin``).

Each entry names one test, the release it needs and why; the test is skipped with that reason
only where the installed release is older, so the same test runs, and must pass, wherever the
release is new enough (the full suite never skips it). An entry whose test no longer exists
fails the job: the list cannot go stale.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import metadata

import pytest
from packaging.version import Version


@dataclass(frozen=True)
class NeedsRelease:
    """One test that needs ``distribution >= release``, and why.

    Attributes:
        test: The test's node id (without parameters: every parametrization).
        distribution: The framework's distribution name on PyPI.
        release: The oldest release the test's assertion holds on.
        why: What changes at that release (the framework's behaviour, not denpex's).
    """

    test: str
    distribution: str
    release: str
    why: str

    def unmet(self) -> bool:
        """True when the installed release is older than :attr:`release` (or not installed)."""
        try:
            installed = metadata.version(self.distribution)
        except metadata.PackageNotFoundError:
            return False  # the test's own importorskip says so
        return Version(installed) < Version(self.release)


NEEDS_RELEASE = (
    NeedsRelease(
        "tests/hf/test_manners.py::test_the_stdout_of_a_healthy_run_exits_0_and_its_rows_are_read",
        "transformers", "5.0",
        "the test matches the printed row's text; PrinterCallback prints floats as f'{v:.4g}' "
        "strings from transformers 5.0 ('1024'), the numbers themselves before (1024.0)",
    ),
    NeedsRelease(
        "tests/deepspeed/test_engine_monitor.py::"
        "test_torch_autocast_skips_are_seen_although_deepspeed_counts_none",
        "deepspeed", "0.18.0",
        "DeepSpeed has no torch_autocast mode before 0.17.2 (deepspeed/runtime/torch_autocast.py) "
        "and gives it a GradScaler (engine.torch_autocast_z0_gradscaler) from 0.18.0",
    ),
)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Skip each listed test where its release is unmet; fail on an entry that matches none."""
    rootdir = config.rootpath
    by_test: dict[str, list[pytest.Item]] = {}
    for item in items:
        path = item.path.relative_to(rootdir).as_posix()
        by_test.setdefault(f"{path}::{item.originalname}", []).append(item)
    collected_dirs = {test.split("::")[0].rpartition("/")[0] for test in by_test}
    for entry in NEEDS_RELEASE:
        found = by_test.get(entry.test)
        if not found:
            if entry.test.split("::")[0].rpartition("/")[0] in collected_dirs:
                raise pytest.UsageError(f"min_versions_plugin: no test {entry.test}; "
                                        "update NEEDS_RELEASE")
            continue  # its folder is not in this run
        if entry.unmet():
            reason = f"needs {entry.distribution} >= {entry.release}: {entry.why}"
            for item in found:
                item.add_marker(pytest.mark.skip(reason=reason))
