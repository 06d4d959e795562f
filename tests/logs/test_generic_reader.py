"""The generic metric reader on its own: leave-one-family-out over the corpus, and property
tests (generated key synonyms, notations, separators, number spellings, noise)."""

from __future__ import annotations

import math
from collections import Counter
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from denpex_callbacks.logs import lexicon
from denpex_callbacks.logs.events import METRICS, PROGRESS, LogEvent
from denpex_callbacks.logs.metric_reader import MetricReader, read_pairs, to_value
from denpex_callbacks.logs.parsers import FAMILIES, LineParser

CORPUS = Path(__file__).parent / "corpus"
FIELDS = ("loss", "scale_after", "step")


def _same(a: float | None, b: float | None) -> bool:
    if a is None or b is None:
        return a is b
    return a == b or (math.isnan(a) and math.isnan(b)) or math.isclose(a, b, rel_tol=1e-6)


def _facts(events: list[LogEvent]) -> dict[str, float]:
    out: dict[str, float] = {}
    for event in events:
        if event.kind not in (METRICS, PROGRESS):
            continue
        for name in FIELDS:
            value = getattr(event, name)
            if value is not None and name not in out:
                out[name] = float(value)
    return out


def test_leave_one_family_out() -> None:
    """Every metric line a family parser reads in the corpus (its loss, scale and step), read
    again with every family parser off: the generic reader alone must recover the same
    values on at least 90% of each family's lines."""
    families_only = LineParser(generic=False)
    generic_only = LineParser(families=())
    lines: Counter[str] = Counter()
    recovered: Counter[str] = Counter()
    for log in sorted(CORPUS.glob("*.log")):
        for number, text in enumerate(log.read_text(encoding="utf-8").splitlines(), 1):
            events = families_only.parse(text, number)
            expected = _facts(events)
            if not expected:
                continue
            family = events[0].family
            lines[family] += 1
            got = _facts(generic_only.parse(text, number))
            if all(_same(got.get(name), value) for name, value in expected.items()):
                recovered[family] += 1
    assert set(lines) >= {"deepspeed", "hf", "lightning", "fairseq", "megatron"}, lines
    for family, count in lines.items():
        assert recovered[family] >= 0.9 * count, (family, recovered[family], count)


def test_every_family_is_still_consulted_first() -> None:
    assert len(FAMILIES) >= 11
    event = LineParser().parse("[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss "
                               "scale: 1024, reducing to 512", 1)[0]
    assert event.family == "deepspeed"


# --- property tests --------------------------------------------------------------------------
LOSS_KEYS = ("loss", "train_loss", "Train Loss", "train/loss", "avg_loss", "avr_loss",
             "loss_step", "train_loss_step", "lm loss", "Loss", "LOSS", "trainLoss",
             "training_loss", "average_loss", "total_loss", "running_loss")
SCALE_KEYS = ("loss_scale", "loss scale", "Loss Scale", "lossScale", "grad_scale",
              "Fp16 Grad Scale", "cur_scale", "scaler/scale", "dynamic_scale")
STEP_KEYS = ("step", "global_step", "Step", "iter", "Iteration", "it", "num_updates",
             "trainer/global_step")
NOTATIONS = ("{k}={v}", "{k}: {v}", "{k} : {v}", "{k} {v}", "'{k}': {v}", '"{k}": {v}',
             "{k} = {v}", "| {k} {v} |", "- {k}: {v}", "{k}:{v}")
JOINS = (", ", "  ", "\t", " | ", " - ", "; ")
NOISE = ("", "2026-11-30 10:00:00,000 - __main__ - INFO - ", "INFO:root:", "> ", "[rank0]: ",
         "Epoch 3 ", "train: ", "| ")
TAILS = ("", " time 35.2ms", ", mfu 12.3%", " it/s", " [00:01<00:02]", " (ok)")


def _spell(value: float, style: int) -> str:
    if math.isnan(value):
        return ("nan", "NaN", "NAN", "-nan", "nan.0")[style % 5]
    if math.isinf(value):
        sign = "-" if value < 0 else ""
        return sign + ("inf", "Infinity", "INF", "1.#INF", "Inf")[style % 5]
    return (repr(value), f"{value:.16e}", f"{value:.16E}", f"{value:.17g}")[style % 4]


_finite = st.floats(min_value=1e-6, max_value=1e6, allow_nan=False)
_loss_values = st.one_of(_finite, st.just(math.nan), st.just(math.inf), st.just(-math.inf))


@settings(max_examples=300, deadline=None)
@given(loss_key=st.sampled_from(LOSS_KEYS), scale_key=st.sampled_from(SCALE_KEYS),
       step_key=st.sampled_from(STEP_KEYS), notation=st.sampled_from(NOTATIONS),
       join=st.sampled_from(JOINS), noise=st.sampled_from(NOISE), tail=st.sampled_from(TAILS),
       loss=_loss_values, scale=st.sampled_from([2.0 ** p for p in range(-8, 25)]),
       step=st.integers(min_value=0, max_value=10 ** 7), style=st.integers(0, 19),
       order=st.permutations([0, 1, 2]))
def test_values_read_equal_values_written(
    loss_key: str, scale_key: str, step_key: str, notation: str, join: str, noise: str,
    tail: str, loss: float, scale: float, step: int, style: int, order: list[int],
) -> None:
    pairs = [notation.format(k=loss_key, v=_spell(loss, style)),
             notation.format(k=scale_key, v=_spell(scale, style)),
             notation.format(k=step_key, v=str(step))]
    line = noise + join.join(pairs[i] for i in order) + tail
    events = MetricReader().read(line, 1)
    assert events, line
    event = events[0]
    assert _same(event.loss, loss), (line, event)
    assert _same(event.scale_after, scale), (line, event)
    assert event.step == step, (line, event)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200))
def test_the_reader_never_raises(text: str) -> None:
    reader = MetricReader()
    reader.read(text, 1)
    reader.read(text, 2)
    LineParser().parse(text, 3)


@settings(max_examples=200, deadline=None)
@given(key=st.sampled_from(LOSS_KEYS), prefix=st.sampled_from(("val", "eval", "test",
                                                               "validation", "valid")),
       value=_finite)
def test_evaluation_losses_are_not_training_losses(key: str, prefix: str, value: float) -> None:
    assert lexicon.role(f"{prefix}_{key}") is None
    assert "loss" not in read_pairs(f"{prefix}_{key}={value}").values


@settings(max_examples=200, deadline=None)
@given(component=st.sampled_from(("loss_cls", "loss_bbox", "d_loss", "g_loss", "box_loss",
                                  "kl_loss", "loss_rpn_cls", "aux_loss")),
       zero=st.sampled_from(("0.0", "0.0000", "0")), total=_finite)
def test_a_component_is_not_the_total(component: str, zero: str, total: float) -> None:
    events = MetricReader().read(f"{component}: {zero}, loss: {total!r}", 1)
    assert _same(events[0].loss, total)


@given(st.sampled_from(["nan", "-nan", "NaN", "NAN", "nan.0", "inf", "-inf", "Infinity",
                        "1.#INF", "-1.#INF", "1.#QNAN"]))
def test_every_non_finite_spelling(text: str) -> None:
    assert not math.isfinite(to_value(text))
    assert not math.isfinite(MetricReader().read(f"loss {text}", 1)[0].loss or 0.0)
