"""torch's float16 dtype errors at the end of a log are AMP014 at the last step the log shows,
with the cause the message names: an op without a float16 kernel, float16 and float32 mixed
in one op, or a constant beyond float16's range.

The lines are torch's own: each error is raised here by running torch (2.13, CPU) inside a
short training loop that prints its steps, and the traceback is written as Python prints it.
The wordings 2.13 no longer prints (torch 1.x's ``at::Half`` with the value, the CUDA tensor
type names, the untyped ``mat1 and mat2 ...``, a CPU kernel that has float16 now) are written
from torch's format strings (denpex_callbacks/logs/torch_errors.py names each source).
"""

from __future__ import annotations

import traceback
from collections.abc import Callable
from pathlib import Path

import pytest
import torch
from excerpts import diagnose_lines, faults

from denpex_callbacks.cli import main
from denpex_callbacks.core.diagnosis import Diagnosis
from denpex_callbacks.logs.parsers import parse_line

HALF = torch.float16


def _masked_scores() -> None:
    # an attention block's classic mask: -1e9 into fp16 scores
    scores = torch.randn(2, 4, 4).to(HALF)
    mask = torch.ones(4, 4, dtype=torch.bool).triu(1)
    scores.masked_fill_(mask, -1e9)


def _linear_fed_half() -> None:
    torch.nn.Linear(8, 4)(torch.randn(2, 8).to(HALF))  # an fp32 layer, an fp16 batch


def _half_linear_fed_float() -> None:
    torch.nn.Linear(8, 4).half()(torch.randn(2, 8))  # model.half(), float32 inputs


def _mm() -> None:
    torch.randn(2, 8).to(HALF) @ torch.randn(8, 4)


def _bmm() -> None:
    torch.bmm(torch.randn(1, 2, 8).to(HALF), torch.randn(1, 8, 4))


def _conv_fed_half() -> None:
    torch.nn.Conv2d(1, 2, 3)(torch.randn(1, 1, 6, 6).to(HALF))


def _cdist() -> None:
    x = torch.randn(4, 8).to(HALF)
    torch.cdist(x, x)


def _ctc_loss() -> None:
    logits = torch.randn(6, 1, 5).to(HALF).log_softmax(2)
    torch.nn.functional.ctc_loss(logits, torch.tensor([[1, 2]]), [6], [2])


FLOAT = torch.float32


def _index_put(src: torch.dtype = HALF) -> None:
    torch.zeros(4).index_put_((torch.tensor([0]),), torch.ones(1, dtype=src))


def _setitem(src: torch.dtype = HALF) -> None:
    scores = torch.zeros(4)
    scores[torch.tensor([1])] = torch.ones(1, dtype=src)  # a float16 value into fp32 by index


def _dot(other: torch.dtype = HALF) -> None:
    torch.dot(torch.ones(3), torch.ones(3, dtype=other))


def _vdot(other: torch.dtype = HALF) -> None:
    torch.vdot(torch.ones(3), torch.ones(3, dtype=other))


def _lerp_end(other: torch.dtype = HALF) -> None:
    # an EMA of fp32 weights towards float16 ones
    torch.ones(3).lerp_(torch.ones(3, dtype=other), 0.1)


def _lerp_weight(other: torch.dtype = HALF) -> None:
    torch.lerp(torch.ones(3), torch.ones(3), torch.ones(3, dtype=other))


def _bce_fp16_target(other: torch.dtype = HALF) -> None:
    torch.nn.functional.binary_cross_entropy(torch.full((3,), 0.5), torch.ones(3, dtype=other))


def _lstm_fed_half(other: torch.dtype = HALF) -> None:
    torch.nn.LSTM(4, 4)(torch.randn(2, 1, 4).to(other))


def _index_add(other: torch.dtype = HALF) -> None:
    torch.zeros(3).index_add_(0, torch.tensor([0]), torch.ones(1, dtype=other))


def _index_copy(other: torch.dtype = HALF) -> None:
    torch.zeros(3).index_copy_(0, torch.tensor([0]), torch.ones(1, dtype=other))


def _sdpa(other: torch.dtype = HALF) -> None:
    # a float32 query beside a float16 cache (or RoPE's float32 tables promoting q)
    cache = torch.ones(1, 1, 4, 8, dtype=other)
    torch.nn.functional.scaled_dot_product_attention(torch.ones(1, 1, 4, 8), cache, cache)


def _masked_scatter(other: torch.dtype = HALF) -> None:
    torch.zeros(3).masked_scatter_(torch.ones(3, dtype=torch.bool), torch.ones(3, dtype=other))


def _embedding_bag(other: torch.dtype = HALF) -> None:
    torch.nn.functional.embedding_bag(torch.tensor([[0]]), torch.ones(2, 2), mode="sum",
                                      per_sample_weights=torch.ones(1, 1, dtype=other))


def _mv(other: torch.dtype = HALF) -> None:
    torch.mv(torch.ones(2, 2, dtype=other), torch.ones(2))


def _out_of_another_dtype(other: torch.dtype = HALF) -> None:
    torch.gather(torch.ones(3), 0, torch.tensor([0]), out=torch.ones(1, dtype=other))


# each: the line torch 2.13 prints, and the dtypes named in it
MORE: dict[str, tuple[Callable[..., None], str, list[str]]] = {
    "index_put": (_index_put, "RuntimeError: Index put requires the source and destination "
                  "dtypes match, got Float for the destination and Half for the source.",
                  ["Float", "Half"]),
    "setitem": (_setitem, "RuntimeError: Index put requires the source and destination dtypes "
                "match, got Float for the destination and Half for the source.",
                ["Float", "Half"]),
    "dot": (_dot, "RuntimeError: dot : expected both vectors to have same dtype, but found "
            "Float and Half", ["Float", "Half"]),
    "vdot": (_vdot, "RuntimeError: dot : expected both vectors to have same dtype, but found "
             "Float and Half", ["Float", "Half"]),
    "lerp end": (_lerp_end, "RuntimeError: expected dtype float for `end` but got dtype "
                 "c10::Half", ["float", "c10::Half"]),
    "lerp weight": (_lerp_weight, "RuntimeError: expected dtype float for `weight` but got "
                    "dtype c10::Half", ["float", "c10::Half"]),
    "bce": (_bce_fp16_target, "RuntimeError: Found dtype Half but expected Float",
            ["Half", "Float"]),
    "lstm": (_lstm_fed_half, "ValueError: RNN input dtype (torch.float16) does not match "
             "weight dtype (torch.float32). Convert input: input.to(torch.float32), or convert "
             "model: model.to(torch.float16)", ["torch.float16", "torch.float32"]),
    "index_add": (_index_add, "RuntimeError: index_add_(): self (Float) and source (Half) must "
                  "have the same scalar type", ["Float", "Half"]),
    "index_copy": (_index_copy, "RuntimeError: index_copy_(): self and source expected to "
                   "have the same dtype, but got (self) Float and (source) Half",
                   ["Float", "Half"]),
    "masked_scatter": (_masked_scatter, "RuntimeError: masked_scatter: expected self and "
                       "source to have same dtypes but gotFloat and Half", ["Float", "Half"]),
    "embedding_bag": (_embedding_bag, "RuntimeError: Expected tensor for argument #1 'weight' "
                      "to have the same type as tensor for argument #1 'per_sample_weights'; "
                      "but type torch.FloatTensor does not equal torch.HalfTensor (while "
                      "checking arguments for embedding_bag)",
                      ["torch.FloatTensor", "torch.HalfTensor"]),
    "mv": (_mv, "RuntimeError: addmv input tensors must have the same dtype, but got Float, "
           "Half, and Float", ["Float", "Half"]),
    "out=": (_out_of_another_dtype, "RuntimeError: Expected out tensor to have dtype float, "
             "but got c10::Half instead", ["float", "c10::Half"]),
    "sdpa": (_sdpa, "RuntimeError: Expected query, key, and value to have the same dtype, but "
             "got query.dtype: float key.dtype: c10::Half and value.dtype: c10::Half instead.",
             ["float", "c10::Half"]),
}


def raised(failing: Callable[[], None]) -> list[str]:
    """A loop of three logged steps, then ``failing`` raises: the traceback as printed."""
    model = torch.nn.Linear(8, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    lines = []
    for step in (10, 20, 30):
        loss = model(torch.randn(4, 8)).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        lines.append(f"step {step} | loss {loss.item():.4f} | lr 0.01")
    try:
        failing()
    except (RuntimeError, NotImplementedError, ValueError):
        lines += traceback.format_exc().rstrip("\n").splitlines()
    else:
        pytest.fail(f"{failing.__name__} did not raise")
    return lines


def the_one(tmp_path: Path, lines: list[str]) -> Diagnosis:
    result = diagnose_lines(tmp_path, lines)
    assert [(d.code, d.step) for d in result.faults] == [("AMP014", 30)], lines[-1]
    return result.faults[0]


# --- raised by torch 2.13 here -----------------------------------------------------------------


def test_a_constant_beyond_fp16_range_is_the_mask_fill(tmp_path: Path) -> None:
    lines = raised(_masked_scores)
    assert lines[-1] == ("RuntimeError: value cannot be converted to type c10::Half without "
                         "overflow")
    found = the_one(tmp_path, lines)
    assert found.evidence["cause"] == "fp16-constant-overflow"
    assert "masked_fill(mask, -1e9)" in found.root_cause
    assert "torch.finfo(scores.dtype).min" in found.fix and "-65504" in found.fix
    assert found.quotes == (lines[-1],)


@pytest.mark.parametrize(("failing", "dtypes"), [
    (_linear_fed_half, ["Half", "Float"]),
    (_half_linear_fed_float, ["Float", "Half"]),
    (_mm, ["c10::Half", "float"]),
    (_bmm, ["Half", "Float"]),
    (_conv_fed_half, ["c10::Half", "float"]),
], ids=["linear fed half", "half linear fed float", "mm", "bmm", "conv fed half"])
def test_fp16_and_fp32_mixed_in_one_op(tmp_path: Path, failing: Callable[[], None],
                                       dtypes: list[str]) -> None:
    lines = raised(failing)
    found = the_one(tmp_path, lines)
    assert found.evidence["cause"] == "fp16-dtype-mismatch"
    assert found.evidence["dtypes"] == dtypes, lines[-1]
    assert "outside autocast" in found.root_cause and ".half()" in found.root_cause
    assert "torch.autocast('cuda', dtype=torch.float16)" in found.fix
    assert "GradScaler" in found.fix


@pytest.mark.parametrize(("failing", "kernel"), [(_cdist, "cdist"), (_ctc_loss, "ctc_loss_cpu")],
                         ids=["cdist", "ctc_loss"])
def test_an_op_without_an_fp16_kernel_is_fp16_on_the_cpu(tmp_path: Path,
                                                        failing: Callable[[], None],
                                                        kernel: str) -> None:
    lines = raised(failing)
    assert lines[-1] == f"NotImplementedError: \"{kernel}\" not implemented for 'Half'"
    found = the_one(tmp_path, lines)
    assert (found.evidence["cause"], found.evidence["kernel"]) == ("fp16-no-kernel", kernel)
    assert "torch.autocast('cpu', dtype=torch.bfloat16)" in found.fix
    assert "model.half()" in found.fix and "GPU" in found.fix
    assert ("a CPU kernel" in found.root_cause) == kernel.endswith("_cpu")


def test_a_float64_batch_is_not_an_fp16_fault(tmp_path: Path) -> None:
    # NumPy's float64 into a float32 model: the same message, no float16 in it
    lines = raised(lambda: torch.nn.Linear(8, 4)(torch.randn(2, 8, dtype=torch.float64)))
    assert "Double" in lines[-1]
    assert faults(tmp_path, lines) == []


def test_the_step_is_the_last_one_printed_before_the_error(tmp_path: Path) -> None:
    lines = raised(_masked_scores)
    cut = next(i for i, line in enumerate(lines) if line.startswith("Traceback"))
    lines[cut:cut] = ["step 40 | loss 0.3000 | lr 0.01"]
    assert faults(tmp_path, lines) == [("AMP014", 40)]


def test_a_launcher_prefix_keeps_the_rank(tmp_path: Path) -> None:
    # torchrun's excepthook prefix, [rank{n}]: (torch.distributed.elastic)
    lines = [f"[rank1]:{line}" for line in raised(_linear_fed_half)]
    [found] = diagnose_lines(tmp_path, lines).faults
    assert (found.code, found.rank, found.evidence["cause"]) == ("AMP014", 1,
                                                                  "fp16-dtype-mismatch")


def test_the_cli_reports_a_fault_not_nothing_to_diagnose(tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str],
                                                         ) -> None:
    log = tmp_path / "train.log"
    log.write_text("\n".join(raised(_cdist)) + "\n", encoding="utf-8")
    assert main(["diagnose", str(log)]) == 1
    out = capsys.readouterr().out
    assert "AMP014 fp16-dtype-error [error]" in out and "(step 30" in out


@pytest.mark.parametrize("name", list(MORE))
def test_more_fp16_and_fp32_mixes(tmp_path: Path, name: str) -> None:
    failing, line, dtypes = MORE[name]
    lines = raised(failing)
    assert lines[-1] == line
    found = the_one(tmp_path, lines)
    assert found.evidence["cause"] == "fp16-dtype-mismatch"
    assert found.evidence["dtypes"] == dtypes
    assert "outside autocast" in found.root_cause
    assert "GradScaler" in found.fix


@pytest.mark.parametrize("name", list(MORE))
def test_the_same_messages_with_float_and_double_stay_silent(tmp_path: Path, name: str) -> None:
    failing = MORE[name][0]
    lines = raised(lambda: failing(torch.float64))
    assert "Double" in lines[-1] or "double" in lines[-1] or "float64" in lines[-1], lines[-1]
    assert not [e for e in parse_line(lines[-1]) if e.code == "AMP014"]
    assert faults(tmp_path, lines) == []


# --- older wordings, from torch's format strings -------------------------------------------


OLDER = {
    # aten/src/ATen/Dispatch.h (AT_ERROR(#NAME, " not implemented for '", ...)), torch 1.x on
    # CPU: addmm had no Half kernel there
    "RuntimeError: \"addmm_impl_cpu_\" not implemented for 'Half'":
        ("fp16-no-kernel", "kernel", "addmm_impl_cpu_"),
    "RuntimeError: \"LayerNormKernelImpl\" not implemented for 'Half'":
        ("fp16-no-kernel", "kernel", "LayerNormKernelImpl"),
    "RuntimeError: \"slow_conv2d_cpu\" not implemented for 'Half'":
        ("fp16-no-kernel", "kernel", "slow_conv2d_cpu"),
    # c10/util/TypeCast.h checked_convert (oss << ... << " without overflow: " << f)
    "RuntimeError: value cannot be converted to type at::Half without overflow: -1e+09":
        ("fp16-constant-overflow", "value", "-1e+09"),
    # aten/src/ATen/native/Convolution.cpp, the legacy tensor type names
    "RuntimeError: Input type (torch.cuda.HalfTensor) and weight type (torch.cuda.FloatTensor) "
    "should be the same": ("fp16-dtype-mismatch", "dtypes",
                           ["torch.cuda.HalfTensor", "torch.cuda.FloatTensor"]),
    # aten/src/ATen/TensorUtils.cpp checkSameType, the cuDNN convolution of torch 1.x
    "RuntimeError: Expected tensor for argument #1 'input' to have the same type as tensor for "
    "argument #2 'weight'; but type torch.cuda.HalfTensor does not equal torch.cuda.FloatTensor "
    "(while checking arguments for cudnn_convolution)":
        ("fp16-dtype-mismatch", "dtypes", ["torch.cuda.HalfTensor", "torch.cuda.FloatTensor"]),
    # aten/src/ATen/templates/TensorMethods.cpp (data_ptr<T>)
    "RuntimeError: expected scalar type Float but found Half":
        ("fp16-dtype-mismatch", "dtypes", ["Float", "Half"]),
    # aten/src/ATen/native/LinearAlgebra.cpp ADDMM_META, before it named the dtypes
    "RuntimeError: mat1 and mat2 must have the same dtype": ("fp16-dtype-mismatch", None, None),
}


@pytest.mark.parametrize("last", list(OLDER), ids=[k.split(": ", 1)[1][:40] for k in OLDER])
def test_older_wordings(tmp_path: Path, last: str) -> None:
    kind, key, value = OLDER[last]
    lines = [f"step {step} | loss 1.5 | lr 0.01" for step in (10, 20, 30)]
    lines += ["Traceback (most recent call last):", '  File "train.py", line 88, in <module>',
              "    out = model(batch)", last]
    found = the_one(tmp_path, lines)
    assert found.evidence["cause"] == kind
    if key is not None:
        assert found.evidence[key] == value
    else:
        assert "does not name the dtypes" in found.root_cause


def test_a_device_mismatch_is_not_a_dtype_error() -> None:
    # both float16, one on the CPU: Convolution.cpp's message, a device fault, not fp16's
    line = ("RuntimeError: Input type (torch.cuda.HalfTensor) and weight type (torch.HalfTensor) "
            "should be the same")
    assert not [e for e in parse_line(line) if e.code == "AMP014"]


# --- the control: 'Half' and fp16 in a healthy run's configuration ---------------------------


def test_a_healthy_run_that_names_half_in_its_config_stays_silent(tmp_path: Path) -> None:
    config = [
        "TrainingArguments(",
        "fp16=True,",
        "fp16_backend=auto,",
        "half_precision_backend=auto,",
        "bf16=False,",
        ")",
        "model:",
        "  dtype: torch.float16",
        "  half_precision_backend: auto",
        "  torch_dtype: float16",
        "  param_dtype: Half",
        "  default tensor type: torch.cuda.HalfTensor",
        "  mask_fill_value: -65504 (torch.finfo(torch.half).min)",
    ]
    healthy = [f"step {step} | loss {2.0 - step / 100:.4f} | lr 0.01" for step in range(10, 90, 10)]
    assert faults(tmp_path, config + healthy) == []
