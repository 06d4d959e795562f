"""torch's own error messages that name an AMP fault.

Verbatim sources (torch 2.x): anomaly mode ``Function '{name}' returned nan values in its
{i}th output.``; GradScaler: ``step() has already been called since the last update().``,
``unscale_() has already been called on this optimizer since the last update().``,
``unscale_() is being called after step().``, ``No inf checks were recorded for this
optimizer.``, ``Attempting to unscale FP16 gradients.``

torch's float16 dtype errors (AMP014), every wording read in torch's source:

- an op without a float16 kernel: ``"{kernel}" not implemented for 'Half'``
  (``aten/src/ATen/Dispatch.h``, the AT_DISPATCH default case: ``AT_ERROR(#NAME, " not
  implemented for '", toString(TYPE), "'")`` in 1.x, ``TORCH_CHECK(false, '"',
  at_dispatch_name, "\" not implemented for '", toString(_st), "'")`` later, a
  NotImplementedError since ``TORCH_CHECK_NOT_IMPLEMENTED``; torch 2.13 on CPU still raises
  it for cdist, pdist, ctc_loss, cholesky...);
- float16 and float32 mixed in one op: ``expected scalar type {a} but found {b}``
  (``aten/src/ATen/templates/TensorMethods.cpp`` ``data_ptr<T>()``, bmm/baddbmm), ``mat1 and
  mat2 must have the same dtype`` and, later, ``..., but got {a} and {b}`` (``self and
  mat2 ...`` beside it; ``aten/src/ATen/native/LinearAlgebra.cpp`` ADDMM_META), ``expected m1
  and m2 to have the same dtype, but got: {a} != {b}`` (``addmm_impl_cpu_``, e.g.
  ``c10::Half != float``; XPU's ``expected mat1 and mat2 ...``), ``Input type ({a}) and weight
  type ({b}) should be the same`` (and ``bias type``; ``aten/src/ATen/native/Convolution.cpp``,
  ``torch.cuda.HalfTensor`` in the older type names, ``c10::Half`` in 2.13); and, each
  raised by torch 2.13 on CPU: ``Index put requires the source and destination dtypes match,
  got {a} for the destination and {b} for the source.`` (``TensorAdvancedIndexing.cpp``,
  ``x[idx] = v``), ``dot : expected both vectors to have same dtype, but found {a} and {b}``
  (``Blas.cpp``, dot and vdot), lerp's ``expected dtype {a} for `end` but got dtype {b}``
  (and `weight`; ``Lerp.cpp``), ``Found dtype {a} but expected {b}``
  (``TensorIterator.cpp`` ``compute_types``: a loss fed an fp16 target), ``RNN input dtype
  ({a}) does not match weight dtype ({b})`` (``torch/nn/modules/rnn.py``, ``torch.float16``:
  no 'Half' on the line), ``index_add_(): self ({a}) and source ({b}) must have the same
  scalar type``, ``index_copy_(): ... but got (self) {a} and (source) {b}``,
  ``masked_scatter: expected self and source to have same dtypes but got{a} and {b}``,
  ``Expected tensor for argument #1 'input' to have the same type as tensor for argument #2
  'weight'; but type {a} does not equal {b}`` (``TensorUtils.cpp`` ``checkSameType``: 1.x's
  cuDNN convolution, 2.13's embedding_bag), ``addmv input tensors must have the same dtype,
  but got {a}, {b}, and {c}`` (``Blas.cpp``, torch.mv), ``Expected out tensor to have
  dtype {a}, but got {b} instead`` (an ``out=`` of the other dtype) and ``Expected query, key,
  and value to have the same dtype, but got query.dtype: {a} key.dtype: {b} and value.dtype:
  {c} instead.`` (``native/transformers/attention.cpp``, scaled_dot_product_attention since
  2.0: a float32 query beside float16 keys, RoPE's float32 tables promoting q and k).
  scatter's ``Expected self.dtype to be equal to src.dtype`` names no dtype: float64 against
  float32 reads the same, so it is left alone;
- a constant beyond float16's range: ``value cannot be converted to type at::Half without
  overflow: {value}`` (``aten/src/ATen/Half.h``, ``c10/Half.h``, ``c10/util/TypeCast.h``
  ``checked_convert``), ``value cannot be converted to type c10::Half without overflow``
  without the value since ``c10/util/TypeCast.cpp`` ``report_overflow`` (the type name is
  the stringified C++ type of ``c10/core/ScalarType.h``: ``at::Half``, then ``c10::Half``).
"""

from __future__ import annotations

import re
from typing import Any

from denpex_callbacks.core import fixes
from denpex_callbacks.logs.events import FLAG, LogEvent

FAMILY = "torch"
# Each message is raised as an exception: its line always holds "...Error: "; a float16
# dtype error logged without its exception's name still names 'Half' (but the untyped
# "mat1 and mat2 must have the same dtype" of older torch, which comes as a RuntimeError).
# "alf" finds "Half" and the table's "half precision" in one keyword.
KEYWORDS = (b"Error", b"alf")

_ANOMALY = re.compile(r"Function '(\w+)' returned (nan|inf) values in its (\d+)\w* output")
_PROTOCOL = (
    "step() has already been called since the last update()",
    "unscale_() has already been called on this optimizer since the last update()",
    "unscale_() is being called after step()",
    "No inf checks were recorded for this optimizer",
)


_NO_KERNEL = re.compile(r"\"([^\"\s]+)\" not implemented for 'Half'")
_MISMATCHES = (
    re.compile(r"expected scalar type (\w+) but found (\w+)"),
    re.compile(r"\b(?:mat1|self) and mat2 must have the same dtype(?:, but got (\w+) and (\w+))?"),
    re.compile(r"expected (?:m1 and m2|mat1 and mat2) to have the same dtype, but got: "
               r"(\S+) != (\S+)"),
    re.compile(r"Input type \(([^()]+)\) and (?:weight|bias) type \(([^()]+)\) should be the "
               r"same"),
    re.compile(r"Index put requires the source and destination dtypes match, got (\w+) for the "
               r"destination and (\w+) for the source"),
    re.compile(r"dot : expected both vectors to have same dtype, but found (\w+) and (\w+)"),
    re.compile(r"expected dtype (\S+) for `(?:end|weight)` but got dtype (\S+)"),
    re.compile(r"Found dtype (\w+) but expected (\w+)"),
    re.compile(r"RNN input dtype \((torch\.\w+)\) does not match weight dtype \((torch\.\w+)\)"),
    re.compile(r"index_add_?\(\): self \((\w+)\) and source \((\w+)\) must have the same "
               r"scalar type"),
    re.compile(r"index_copy_?\(\): self and source expected to have the same dtype, but got "
               r"\(self\) (\w+) and \(source\) (\w+)"),
    re.compile(r"masked_scatter_?: expected self and source to have same dtypes but got ?(\w+) "
               r"and (\w+)"),
    re.compile(r"Expected tensor for argument #\d+ '\w+' to have the same type as tensor for "
               r"argument #\d+ '\w+'; but type (\S+) does not equal (\S+)"),
    re.compile(r"addmv input tensors must have the same dtype, but got (\w+), (\w+),? and "
               r"(\w+)"),
    re.compile(r"Expected out tensor to have dtype (\S+), but got (\S+) instead"),
    re.compile(r"Expected query, key, and value to have the same dtype, but got query\.dtype: "
               r"([\w.:]+),? key\.dtype: ([\w.:]+),? and value\.dtype: ([\w.:]+) instead"),
)
_OVERFLOW = re.compile(r"value cannot be converted to type (?:at|c10)::Half without overflow"
                       r"(?:: ([-+]?[\d.]+(?:e[-+]?\d+)?|[-+]?inf|nan))?")


def _dtype_error(text: str) -> list[LogEvent]:
    """The AMP014 event of one of torch's float16 dtype errors on this line (empty: none).

    Example:
        >>> [e.evidence for e in _dtype_error(
        ...     "RuntimeError: value cannot be converted to type at::Half without overflow: "
        ...     "-1e+09")]
        [{'dtype_error': 'fp16-constant-overflow', 'value': '-1e+09'}]
        >>> _dtype_error("RuntimeError: mat1 and mat2 must have the same dtype, but got Double "
        ...              "and Float")
        []
    """
    if "not implemented for 'Half'" in text and (found := _NO_KERNEL.search(text)):
        kernel = found.group(1)
        return [_event({"dtype_error": "fp16-no-kernel", "kernel": kernel},
                       f'"{kernel}" not implemented for \'Half\': an op ran in float16 where it '
                       "has no float16 kernel (fp16 on the CPU, usually)")]
    if "without overflow" in text and (found := _OVERFLOW.search(text)):
        value = found.group(1)
        evidence = {"dtype_error": "fp16-constant-overflow"}
        if value:
            evidence["value"] = value
        return [_event(evidence, "a constant "
                       + (f"({value}) " if value else "")
                       + "beyond float16's range (65504) was written into a float16 tensor")]
    for pattern in _MISMATCHES:
        found = pattern.search(text)
        if found is None:
            continue
        named = [name for name in found.groups() if name is not None]
        if not named:  # older torch's "mat1 and mat2 must have the same dtype"
            return [_event({"dtype_error": "fp16-dtype-mismatch"},
                           "two dtypes met in one matrix multiply (the message of older torch "
                           "does not name them; float16 against float32 under mixed precision)")]
        # addmv names three dtypes (input, mat, vec): each dtype once, in the message's order
        dtypes = list(dict.fromkeys(named))
        words = list(dict.fromkeys(fixes.dtype_word(name) for name in dtypes))
        if "float16" not in words or len(words) < 2:
            return []  # float64 against float32, or a device mismatch: not fp16's
        return [_event({"dtype_error": "fp16-dtype-mismatch", "dtypes": dtypes},
                       f"{' and '.join(words)} tensors met in one op outside autocast")]
    return []


def _event(evidence: dict[str, Any], summary: str) -> LogEvent:
    return LogEvent(FLAG, FAMILY, code="AMP014", summary=f"torch: {summary}", evidence=evidence)


def parse(text: str) -> list[LogEvent]:
    """Events on one line of a torch traceback.

    Example:
        >>> parse("RuntimeError: Attempting to unscale FP16 gradients.")[0].code
        'AMP012'
        >>> line = 'NotImplementedError: "cdist" not implemented for ' + "'Half'"
        >>> parse(line)[0].evidence
        {'dtype_error': 'fp16-no-kernel', 'kernel': 'cdist'}
    """
    if "values in its" in text and (found := _ANOMALY.search(text)):
        name, value, index = found.groups()
        return [LogEvent(FLAG, FAMILY, code="AMP006", loss=float(value),
                         evidence={"anomaly_op": name, "anomaly_output": int(index)},
                         summary=f"anomaly mode: {name} returned {value} values in its output "
                                 f"{index}; the first non-finite value comes from this "
                                 "operation's backward")]
    if "Attempting to unscale FP16 gradients" in text:
        return [LogEvent(FLAG, FAMILY, code="AMP012",
                         summary="GradScaler refused fp16 gradients: the optimizer holds "
                                 "float16 parameters")]
    for message in _PROTOCOL:
        if message in text:
            return [LogEvent(FLAG, FAMILY, code="AMP002",
                             summary=f"GradScaler protocol error: {message}")]
    # 'float16': the RNN check names torch.float16, not Half
    if "Half" in text or "same dtype" in text or "float16" in text:
        return _dtype_error(text)
    return []
