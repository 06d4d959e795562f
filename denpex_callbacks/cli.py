"""``denpex``: the log doctor on the command line.

``denpex diagnose PATH...`` reads training logs (``-`` for stdin, ``.gz`` transparently), the
files a run leaves (``trainer_state.json``, ``metrics.csv``, TensorBoard event files), folders
of per-rank JSONL run reports and whole run output folders, and prints diagnoses.
``denpex explain ID`` prints a catalog entry. Exit codes, like a linter: 0 no fault, 1 a
warning or error diagnosis, 2 unusable input or usage error (other inputs of the same call are
still diagnosed).

Imports neither torch nor any framework.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

from denpex_callbacks import __version__
from denpex_callbacks.core.catalog import CATALOG, entry
from denpex_callbacks.core.report import REPORT_GLOB
from denpex_callbacks.core.timeline import PlotUnavailable, plot_timeline
from denpex_callbacks.logs.doctor import Result, diagnose
from denpex_callbacks.logs.render import FORMATS, render_json, render_markdown, render_text
from denpex_callbacks.logs.run_folder import REPORTS, discover

EXIT_OK, EXIT_FAULTS, EXIT_BAD_INPUT = 0, 1, 2
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as a shell reports a Ctrl-C
PROGRESS_MIN_BYTES = 64 * 1024 * 1024


class _Parser(argparse.ArgumentParser):
    """argparse, with usage errors on one line (exit 2) instead of the usage block."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_BAD_INPUT, f"{self.prog}: {message} (see '{self.prog} --help')\n")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser (exposed for the docs and the tests)."""
    parser = _Parser(
        prog="denpex", description="Diagnose fp16 mixed-precision failures in training logs.")
    parser.add_argument("--version", action="version", version=f"denpex {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    run = commands.add_parser(
        "diagnose", help="diagnose logs or run-report folders",
        description="Exit codes: 0 no fault, 1 faults found, 2 unusable input.")
    run.add_argument("paths", nargs="+", metavar="PATH",
                     help="log file, .gz, '-' for stdin, a run file (trainer_state.json, "
                          "metrics.csv, events.out.tfevents.*), a folder of rank*.jsonl "
                          "reports, or a run's output folder")
    run.add_argument("--format", choices=FORMATS, default="text", help="output format")
    run.add_argument("--plot", metavar="FILE.png",
                     help="draw the scale timeline of the first input (needs matplotlib)")
    run.add_argument("--workers", type=_count, metavar="N",
                     help="processes that scan a log file of 64 MiB or more while this one parses "
                          "(default: one with the fast extra's RE2 scan, else one per CPU; "
                          "0: scan here; at most 8)")
    run.add_argument("--no-progress", action="store_true",
                     help="no progress bar (it only shows for big files on a terminal)")
    explain = commands.add_parser("explain", help="print a catalog entry")
    explain.add_argument("id", help="diagnosis id, e.g. AMP003 (or 'all')")
    return parser


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 0, got {text!r}")
    return value


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``denpex`` script. Returns the exit code.

    Example:
        >>> main(["explain", "AMP004"])  # doctest: +ELLIPSIS
        AMP004 loss-scale-underflow [warning] Loss scale below 1 or at 0
        ...
        0
    """
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as done:  # argparse's usage errors exit 2; --help/--version exit 0
        return int(done.code or 0)
    if args.command == "explain":
        return _explain(args.id)
    try:
        return _diagnose(args.paths, args.format, args.plot, show_progress=not args.no_progress,
                         workers=args.workers)
    except KeyboardInterrupt:  # Ctrl-C on a big log: one line, the shell's usual status
        print("\ndenpex: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


def _explain(code: str) -> int:
    codes = list(CATALOG) if code.lower() == "all" else [code.upper()]
    for name in codes:
        try:
            info = entry(name)
        except KeyError as err:
            print(f"denpex: {err.args[0]}", file=sys.stderr)
            return EXIT_BAD_INPUT
        print(f"{info.code} {info.slug} [{info.severity.value}] {info.title}")
        print(f"  root cause: {info.root_cause}")
        print(f"  fix:        {info.fix}")
        for framework, fix in info.fix_by_framework.items():
            print(f"  fix ({framework}): {fix}")
        for step in info.confirm:
            print(f"  confirm:    {step}")
        print(f"  prevent:    {info.prevent}")
        print(f"  references: {', '.join(info.references)}")
    return EXIT_OK


def _diagnose(paths: list[str], fmt: str, plot: str | None, *, show_progress: bool,
              workers: int | None = None) -> int:
    results: list[Result] = []
    for path in expand_report_dirs(paths):
        bar = _ProgressBar(path) if show_progress else None
        result = diagnose(path, progress=bar, workers=workers)
        if bar is not None:
            bar.clear()
        if result.error:
            print(f"denpex: {result.error}", file=sys.stderr)
        for problem in result.problems:
            print(f"denpex: {problem}", file=sys.stderr)
        results.append(result)
    code = exit_code(results)
    if fmt == "json":
        sys.stdout.write(render_json(results, code))
    elif fmt == "markdown":
        sys.stdout.write(render_markdown(results))
    else:
        sys.stdout.write(render_text(results))
    if plot:
        readable = [r for r in results if not r.error]
        if not readable:
            print("denpex: --plot: no readable input to draw", file=sys.stderr)
            return EXIT_BAD_INPUT
        try:
            plot_timeline(readable[0].timeline, plot, title=readable[0].path)
        except PlotUnavailable as err:
            print(f"denpex: {err}", file=sys.stderr)
            return EXIT_BAD_INPUT
        except OSError as err:
            print(f"denpex: --plot {plot}: {err.strerror or err}", file=sys.stderr)
            return EXIT_BAD_INPUT
    return code


def expand_report_dirs(paths: list[str]) -> list[str]:
    """Each folder without reports of its own stands for the report folders below it.

    ``denpex_reports/`` of several runs (one folder each, or the first run's reports beside
    ``run-<n>/`` folders of the later ones), or ``--denpex-report`` of a test session (one
    folder per test), is diagnosed run by run. A folder that holds other files a run leaves
    (logs, ``trainer_state.json``, ``metrics.csv``, event files) is one run folder.
    """
    out: list[str] = []
    for path in paths:
        if path == "-" or not os.path.isdir(path):
            out.append(path)
            continue
        if any(Path(path).glob(REPORT_GLOB)):
            # Later runs into the same folder wrote run-<n>/ beside the first run's reports.
            later = sorted(Path(path).glob("run-*/" + REPORT_GLOB))
            out += [path, *sorted({str(p.parent) for p in later})]
            continue
        runs = sorted({str(p.parent) for p in Path(path).rglob(REPORT_GLOB)})
        # A run's output folder with its report folder inside: one verdict from all its files.
        run_files = [f for f in discover(path) if f.kind != REPORTS]
        out.extend(runs if runs and not run_files else [path])
    return out


def exit_code(results: list[Result]) -> int:
    """2 when any input was unusable, else 1 when any fault was found, else 0."""
    if any(r.unusable for r in results):
        return EXIT_BAD_INPUT
    return EXIT_FAULTS if any(r.faults for r in results) else EXIT_OK


class _ProgressBar:
    """A one-line bar on stderr, drawn only for big files and only on a terminal."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.drawn = False

    def __call__(self, done: int, total: int | None) -> None:
        if total is None or total < PROGRESS_MIN_BYTES or not sys.stderr.isatty():
            return
        share = min(done / total, 1.0)
        bar = "#" * int(share * 30)
        sys.stderr.write(f"\rdenpex: {self.path} [{bar:<30}] {share:4.0%} "
                         f"({done >> 20}/{total >> 20} MiB)")
        sys.stderr.flush()
        self.drawn = True

    def clear(self) -> None:
        """Erase the bar so that messages and results start on a clean line."""
        if self.drawn:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
