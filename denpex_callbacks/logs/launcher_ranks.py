"""The prefixes launchers write before each line of a rank's output, and the rank they name.

Read on every candidate line (the events' rank) and where a table's header and value rows
stand behind one (the prefix taken off, the cells line up again).
"""

from __future__ import annotations

import re

# The launcher's own lines a head of its ranks' prefixed lines may hold without a prefix, at
# most (torchrun's OMP_NUM_THREADS warning where it starts two processes or more,
# torch/distributed/run.py: three lines and a blank one, four with torch 2.x's glog prefix),
# and how many prefixed lines each of them takes at least: a few, so that a plain log's
# excerpt under a short prefixed traceback is none.
LAUNCHER_LINES = 6
LAUNCHER_SHARE = 4

# Launcher prefixes: torchrun --tee ``[default1]:`` (``[{role}{local_rank}]:``, tail_log.py;
# ``[rank1]:`` from torch.distributed's excepthook and the usual prefix template), srun -l
# ``0: ``, Lightning's ``[rank: 1] `` (lightning_utilities' rank_prefixed_message);
# DeepSpeed's log_dist ``[Rank 0]`` can sit anywhere in the line.
# mpirun --tag-output, every form of its tag (ORTE and PRRTE iof_base_output.c, PMIx
# src/mca/iof/base: ``"[%s,%s]<%s>: "`` job and rank, ``"[%s,%s][%s:%s]<%s>: "`` with host and
# pid, ``"[%s]<%s>: "`` the rank alone, a ``[ctime]`` before any of them with --timestamp-
# output, a job named by its whole namespace ``prterun-host-123@1``) and the one SageMaker's
# smdistributed jobs print, ``[1,mpirank:0,algo-1]<stdout>:``: the rank is the number after
# the job (or ``mpirank:``), or the only one.
# What collects a launcher's output may write its own prefix before the launcher's. Most are
# taken off with the paste artefacts before the rank is read (paste._COLLECTOR: kubectl's and
# GitHub Actions' time, kubectl's ``[pod/NAME/CONTAINER]``, journald, syslog, a Ray worker's
# process); two look like too many other things to be taken off every line, and are read only
# where a launcher's rank prefix follows them: pdsh's host (DeepSpeed's multinode_runner.py
# PDSHRunner: ``worker-0:``, ``10.0.0.1:``; a name with a digit, a dot or a dash, so that a
# key, ``step: 10: ``, is none), docker compose's ``trainer-1  |`` and the log stream ``aws
# logs tail`` writes after its time (aws/aws-cli awscli/customizations/logs/tail.py
# DetailedLogEventsFormatter: ``'%s %s %s' % (time, logStreamName, message)``; a SageMaker
# job's ``NAME/algo-1-1714557600``: a name with a slash and a dash, so that a word is none).
_COLLECTED = (r"(?:(?=[\w.-]*[\d.-])[\w.-]+:|[\w.-]+ +\|"
              r"|(?=[\w.-]*/)(?=[\w./]*-)[\w./-]+(?= ))\s+")
# torchrun's prefix from a template of one's own (TORCHELASTIC_LOG_LINE_PREFIX_TEMPLATE, torch
# distributed/elastic/agent/server/local_elastic_agent.py: ``Template(...).safe_substitute(
# role_name=, rank=, local_rank=)``): the first number is read as the rank, words and numbers
# after it (``[${role_name}${rank}|${local_rank}]:`` ``[default3|1]:``, ``[rank3-1]:``); no
# ``:``, ``.`` or blank inside, so that a bracketed time is none.
# SkyPilot's multi-node run prefix (sky/skylet/executor/slurm.py, the prefix it hands to
# log_lib's run_bash_command_with_log: ``({node_name}, rank={rank}, pid={pid})``, ``, ip={ip}``
# on the workers) names the rank (the node's: ranks of one node share it).
# Determined's launchers run each worker under wrap_rank.py (determined-ai/determined
# harness/determined/launch/wrap_rank.py forward_stream: ``f"[rank={rank}] {line}"``), the
# prefix its web UI filters ranks by.
# A script's own rank prefix: torch's ``[rank{N}]:`` (torch/_logging/_internal.py) without its
# colon, ``[rank1] step 10 loss 2.31``, the form of ``logging.basicConfig(format=f"[rank{rank}]
# %(asctime)s ...")`` and of ``print(f"[rank{rank}] ...")`` in DDP scripts that log on every rank.
_PLAIN = (r"\[[A-Za-z_]*?(\d+)\]:|(?P<srun>\d{1,5}): |\[rank: (\d+)\] |\[rank=(\d+)\] "
          r"|\[rank(\d+)\] ")
_LAUNCHER_RANK = re.compile(r"^\s*(?:" + _PLAIN + ")")
# The forms that cost backtracking on every line that opens with a bracket (a timestamp), and
# the collectors before any of them, are tried only on a line that holds what they end with
# (``]:``, ``>:``, ``rank=``): most lines hold none, and cost three ``in`` each. srun's ``N: ``
# has no such mark: behind a collector it is not read.
_COLLECTED_RANK = re.compile(
    r"^\s*(?:" + _COLLECTED + r")*(?:\[[A-Za-z_]*?(\d+)\]:"
    r"|(?:\[[^\]]*\])?\[(?:[^\],\[]+,)?(?:mpirank:)?(\d+)(?:,[^\]]*)?\](?:\[[^\]]*\])?"
    r"<std(?:out|err)>:"
    r"|\[rank: (\d+)\] |\[rank=(\d+)\] |\([^()]*?\brank=(\d+), pid=\d+(?:, ip=[^()]*)?\) "
    r"|\[[A-Za-z_]*(\d{1,5})[-|_A-Za-z0-9]+\]:)")
_RANK_TAG = re.compile(r"\[Rank (\d+)\]")


def line_rank(text: str) -> int | None:
    """The rank a launcher or DeepSpeed prefix assigns to a line (its paste artefacts and
    collector's prefix taken off: :func:`~denpex_callbacks.logs.paste.strip_paste`).

    Example:
        >>> line_rank("[rank3]: Traceback"), line_rank("[1,2]<stdout>:x"), line_rank("hi")
        (3, 2, None)
        >>> line_rank("[default1]:step 3 loss nan"), line_rank("[rank: 1] Seed set to 0")
        (1, 1)
        >>> line_rank("worker-0: [default3]:loss nan")  # (pdsh's host before torchrun's)
        3
        >>> line_rank("[1,mpirank:2,algo-1]<stdout>:x"), line_rank("[1,3][gpu7:88]<stderr>: x")
        (2, 3)
        >>> line_rank("(worker1, rank=1, pid=2346, ip=10.0.0.2) iter 3: loss nan")
        1
        >>> line_rank("job/algo-2-1714557600 [1,mpirank:1,algo-2]<stdout>:loss nan")
        1
        >>> line_rank("[default3|1]:loss nan"), line_rank("[12:00:00]: loss")
        (3, None)
        >>> line_rank("[rank=2] step 3 loss nan"), line_rank("[rank=0.9 bc=1] loss")
        (2, None)
        >>> line_rank("[rank1] step 10 loss 2.31"), line_rank("[rank1]step 10 loss 2.31")
        (1, None)
    """
    return prefixed_rank(text)[0]


def prefixed_rank(text: str) -> tuple[int | None, bool]:
    """The rank of :func:`line_rank`, and whether srun's ``N: `` gave it (a number that may
    be a loop's step: see _COUNTED_PREFIX)."""
    found = _prefix(text)
    if found:
        return (int(next(g for g in found.groups() if g is not None)),
                found.re is _LAUNCHER_RANK and bool(found["srun"]))
    tag = _RANK_TAG.search(text) if "[Rank " in text else None
    return (int(tag.group(1)) if tag else None), False


def rank_prefix_end(text: str) -> int:
    """Where a launcher's rank prefix (and a collector's before it) ends on ``text``: 0 where
    there is none. DeepSpeed's ``[Rank 0]`` inside a line is no prefix.

    Example:
        >>> line = "[default0]:epoch  train_loss  valid_loss"
        >>> line[rank_prefix_end(line):], rank_prefix_end("epoch  train_loss")
        ('epoch  train_loss  valid_loss', 0)
        >>> rank_prefix_end("[1,0]<stdout>:0  nan  nan"), rank_prefix_end("3: 0  nan")
        (14, 3)
    """
    found = _prefix(text)
    return found.end() if found else 0


def _prefix(text: str) -> re.Match[str] | None:
    """A launcher's rank prefix opening ``text`` (a collector's before it, tried only on a
    line that holds what those end with)."""
    found = _LAUNCHER_RANK.match(text)
    if found is None and ("]:" in text or ">:" in text or "rank=" in text):
        found = _COLLECTED_RANK.match(text)
    return found
