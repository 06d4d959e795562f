"""The stable diagnosis ids: what each condition means, why it happens and how to fix it.

Ids are public and never renumbered; a new condition gets a new id. AMP001/AMP002 mirror the
seed entry "Missing GradScaler Update in AMP Loop"; AMP003/004/005/007 mirror "Mixed Precision
Loss Scale".
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from denpex_callbacks.core.severity import Severity

TORCH_AMP_DOCS = "https://pytorch.org/docs/stable/amp.html#gradient-scaling"
TORCH_AMP_EXAMPLES = "https://pytorch.org/docs/stable/notes/amp_examples.html"
HF_TRAINING_ARGS = "https://huggingface.co/docs/transformers/main_classes/trainer#transformers.TrainingArguments"
LIGHTNING_PRECISION = "https://lightning.ai/docs/pytorch/stable/common/precision_basic.html"
DEEPSPEED_FP16 = "https://www.deepspeed.ai/docs/config-json/#fp16-training-options"
CPU_RECIPE = "docs/frameworks/lightning.md, docs/frameworks/hf.md: 'fp16 on CPU'"


@dataclass(frozen=True)
class CatalogEntry:
    """Everything known about one diagnosis id, independent of any run.

    Attributes:
        code: The stable id, e.g. ``"AMP003"``.
        slug: Short kebab-case name, e.g. ``"loss-scale-collapse"``.
        title: One-line title.
        severity: Default severity when the condition fires.
        root_cause: Why it usually happens.
        fix: The exact change to make.
        confirm: Short checklist to confirm the diagnosis by hand.
        prevent: How to keep it from coming back.
        references: Documentation links.
        fix_by_framework: Framework-specific fixes (keys: torch, hf, lightning, deepspeed).
    """

    code: str
    slug: str
    title: str
    severity: Severity
    root_cause: str
    fix: str
    confirm: tuple[str, ...]
    prevent: str
    references: tuple[str, ...]
    fix_by_framework: Mapping[str, str] = field(default_factory=dict)

    def fix_for(self, framework: str | None) -> str:
        """The fix phrased for ``framework`` when the catalog has one, else the generic fix."""
        if framework and framework in self.fix_by_framework:
            return self.fix_by_framework[framework]
        return self.fix


_SCALER_LOOP = (
    "with torch.autocast('cuda', dtype=torch.float16): loss = model(x); "
    "scaler.scale(loss).backward(); scaler.unscale_(opt) (only before clipping); "
    "scaler.step(opt); scaler.update(); opt.zero_grad() -- every iteration, in this order"
)

_ENTRIES = (
    CatalogEntry(
        "AMP001", "missing-grad-scaler", "fp16 training without an active loss scaler",
        Severity.ERROR,
        "The forward pass runs in float16 (autocast or .half() parameters) but no dynamic loss "
        "scaler is active: small gradients underflow to zero in fp16 and large ones overflow to "
        "inf with nothing to skip the step.",
        "Create a dynamic scaler and route the loss through it: "
        "scaler = torch.amp.GradScaler('cuda'); " + _SCALER_LOOP + ". Or train in bfloat16, "
        "which needs no scaler.",
        ("Check that a GradScaler exists and scaler.is_enabled() is True.",
         "Print next(model.parameters()).dtype: torch.float16 means pure fp16 training."),
        "Use the framework's mixed-precision switch (HF fp16=True on GPU, Lightning "
        "precision='16-mixed', DeepSpeed fp16.enabled) instead of casting the model by hand.",
        (TORCH_AMP_DOCS, TORCH_AMP_EXAMPLES),
        {"lightning": "Use precision='16-mixed' (autocast + GradScaler) instead of '16-true', "
                      "or 'bf16-mixed'.",
         "hf": "Use TrainingArguments(fp16=True) on a CUDA device (the Trainer builds the scaler) "
               "instead of model.half(); or bf16=True."},
    ),
    CatalogEntry(
        "AMP002", "scaler-protocol-misuse", "GradScaler used out of order", Severity.ERROR,
        "The GradScaler protocol was broken: update() was not called after step(), step() or "
        "unscale_() ran twice in one iteration, or optimizer.step() ran directly on scaled "
        "gradients. Without update() the scale never adapts; stepping on scaled gradients "
        "multiplies every update by the scale.",
        "Call the scaler exactly once per iteration, in order: " + _SCALER_LOOP + ".",
        ("Read the loop: each iteration must reach scaler.update() once.",
         "Search for opt.step( outside scaler.step(opt).",
         "print(scaler.get_scale()) each step: it never moves when update() is missing."),
        "Keep the scaler calls in one helper used by every training loop; add the denpex "
        "amp_smoke pytest fixture to CI.",
        (TORCH_AMP_DOCS, TORCH_AMP_EXAMPLES),
    ),
    CatalogEntry(
        "AMP003", "loss-scale-collapse", "Loss scale collapsing under persistent overflow",
        Severity.ERROR,
        "Gradients are non-finite on many consecutive steps, so the scaler keeps skipping the "
        "update and halving the scale. The overflow is real (a NaN/inf in the forward or "
        "backward pass, usually an exploding loss, too high a learning rate, or an fp16 "
        "activation overflow), not a scaling artefact.",
        "Find the overflow source (see the evidence and the first non-finite module if located): "
        "lower the learning rate or add warm-up, clip gradients (scaler.unscale_(opt); "
        "clip_grad_norm_), keep the overflowing module in fp32, or train in bfloat16.",
        ("print(scaler.get_scale()) each step: does it fall toward 0?",
         "Check the loss of the steps just before the first skip for a spike or NaN.",
         "Run one batch with torch.autograd.set_detect_anomaly(True)."),
        "Warm up the learning rate, clip gradients, and keep fp16-sensitive layers in fp32.",
        (TORCH_AMP_DOCS, DEEPSPEED_FP16),
        {"deepspeed": "Find the overflow source: lower the LR or add warm-up, set "
                      "\"gradient_clipping\": 1.0, or switch \"fp16\" to \"bf16\": "
                      "{\"enabled\": true}. Raising \"min_loss_scale\" only hides it."},
    ),
    CatalogEntry(
        "AMP004", "loss-scale-underflow", "Loss scale below 1 or at 0", Severity.WARNING,
        "The dynamic scale has been halved so often that it is below 1 (gradients shrink "
        "instead of being protected) or exactly 0.0 (every gradient is zero; the run trains "
        "nothing while the loss may look fine). torch's GradScaler has no floor.",
        "Fix the overflow that drove the scale down (the skipped steps and the losses before "
        "the scale fell show where it began), then restart from a checkpoint taken before the "
        "collapse; if the model really needs small scales, train in bfloat16.",
        ("print(scaler.get_scale()): below 1.0 or 0.0?",
         "Check that parameters still change between steps."),
        "Alert on scale < 1 (denpex does) and prefer bf16 on hardware that has it.",
        (TORCH_AMP_DOCS,),
        {"deepspeed": "Fix the overflow source; keep \"min_loss_scale\": 1 (the default) so "
                      "DeepSpeed stops instead of training with a useless scale."},
    ),
    CatalogEntry(
        "AMP005", "loss-scale-stuck", "Loss scale never changes although it should",
        Severity.WARNING,
        "The scale does not move: every step is skipped at a constant scale (a static scale "
        "that overflows, or update() not applied), or it never grows after many clean steps "
        "(growth disabled by a huge growth_interval or growth_factor 1). A growth tracker that "
        "never advances because update() is not called is AMP002.",
        "Use a dynamic loss scale with the default growth: torch.amp.GradScaler() "
        "(growth_interval=2000, growth_factor=2.0) and call scaler.update() every iteration.",
        ("print(scaler.get_scale(), scaler._growth_tracker) each step: "
         "neither should stay constant for thousands of clean steps.",
         "Check the scaler's growth_interval and growth_factor."),
        "Do not hand-tune a static scale; keep dynamic scaling on.",
        (TORCH_AMP_DOCS, DEEPSPEED_FP16),
        {"deepspeed": "Use dynamic loss scaling: set \"fp16\": {\"loss_scale\": 0} "
                      "(with \"initial_scale_power\": 16) instead of a static \"loss_scale\"."},
    ),
    CatalogEntry(
        "AMP006", "non-finite-loss", "Loss is NaN or inf", Severity.ERROR,
        "The loss itself is non-finite. Loss scaling cannot cause this; the value was already "
        "NaN/inf in the forward pass: bad input data, a diverging model (learning rate too "
        "high), log/div of zero, or an fp16 activation overflow (values above 65504).",
        "Check the batch for NaN/inf, lower the learning rate, guard log/div with an epsilon, "
        "or keep overflowing modules in fp32 (or use bf16): the evidence says which.",
        ("Assert torch.isfinite(batch).all() on the failing step's inputs.",
         "Re-run the failing batch with torch.autograd.set_detect_anomaly(True)."),
        "Validate inputs, warm up the learning rate, and run the denpex amp_smoke test in CI.",
        (TORCH_AMP_DOCS,),
    ),
    CatalogEntry(
        "AMP007", "loss-stuck-at-zero", "Loss exactly 0 for many steps", Severity.WARNING,
        "The loss is exactly 0.0 step after step. Usually the scale underflowed or every step "
        "is skipped, the loss underflows in fp16, or a framework's logging filter replaced "
        "non-finite losses with 0.",
        "Check the loss scale and skip evidence; compute the loss in float32 (outside autocast); "
        "turn off NaN filtering while diagnosing.",
        ("Print the raw loss tensor and its dtype.",
         "Check whether the optimizer steps are applied (scale, skipped steps)."),
        "Keep loss computation in fp32 and alert on a constant loss.",
        (TORCH_AMP_DOCS,),
    ),
    CatalogEntry(
        "AMP008", "high-skip-rate", "Many steps skipped by overflow", Severity.WARNING,
        "A large share of steps overflow and are skipped although the scale does not collapse: "
        "compute is wasted and the learning-rate schedule advances on steps that changed "
        "nothing.",
        "Lower the initial scale, raise growth_interval so the scale grows less often, or find "
        "the intermittent overflow (often a too-high learning rate).",
        ("Count skipped steps over the last few hundred steps.",
         "Compare the scale's sawtooth period with growth_interval."),
        "Tune init_scale/growth_interval once and keep them in config.",
        (TORCH_AMP_DOCS, DEEPSPEED_FP16),
    ),
    CatalogEntry(
        "AMP009", "non-finite-hidden-by-logging", "NaN/inf losses hidden by the logger",
        Severity.WARNING,
        "Hugging Face Trainer's logging_nan_inf_filter (on by default) keeps non-finite "
        "losses out of its logs: a NaN/inf training loss is replaced by the mean of the "
        "finite losses of the logging window (0 when there are none, as with logging_steps=1), "
        "and in transformers 5.24 NaN/inf evaluation batches are left out of eval_loss (a NaN "
        "eval_loss then means every evaluation batch was non-finite). grad_norm and the "
        "metrics of compute_metrics are not filtered. Other loggers drop the value: "
        "neptune-client skips a NaN/inf appended to a float series (or assigned to a float "
        "field) with a warning that names neither the field nor the step.",
        "Log the raw values while diagnosing: TrainingArguments(logging_nan_inf_filter=False) "
        "for the HF Trainer; beside a logger that drops NaN/inf (Neptune), print the metrics "
        "with their step to the console too, so the first non-finite one shows by its name.",
        ("Compare the logged loss with grad_norm (not filtered): nan grad_norm with a finite "
         "loss means the filter hid it.",
         "Evaluate once with logging_nan_inf_filter=False: a NaN eval_loss there, finite "
         "with the filter on, means some evaluation batches were non-finite (AMP013).",
         "Neptune: a series whose points stop or skip steps where the warning was printed is "
         "the one that went non-finite."),
        "Keep logging_nan_inf_filter=False in runs you want to debug from logs.",
        (HF_TRAINING_ARGS,),
        {"hf": "TrainingArguments(logging_nan_inf_filter=False) while diagnosing."},
    ),
    CatalogEntry(
        "AMP010", "fp16-requested-not-active", "fp16 was requested but is not active",
        Severity.WARNING,
        "The configuration asks for fp16 mixed precision, but the run has no fp16 autocast or "
        "loss scaler: HF Trainer ignores fp16=True on CPU, Lightning silently swaps '16-mixed' "
        "to bf16 on CPU. The run's numerics and speed are not what was asked for.",
        "Run on a device with fp16 support, or ask for what runs (bf16 / fp32) explicitly.",
        ("Check the effective precision in the run header.",),
        "Log the effective precision at start-up (denpex does).",
        (HF_TRAINING_ARGS, LIGHTNING_PRECISION, CPU_RECIPE),
        {"lightning": "Ask for precision='bf16-mixed' (what '16-mixed' runs as on CPU) or "
                      "run on a CUDA device; for real fp16 with a loss scaler on CPU pass "
                      "plugins=[MixedPrecision('16-mixed', 'cpu', "
                      "scaler=torch.amp.GradScaler('cpu'))] and no precision= (the "
                      "docs' 'fp16 on CPU' recipe, frameworks/lightning).",
         "hf": "The Trainer ignores fp16=True on CPU: run on a CUDA device, or ask for what runs "
               "(bf16=True, or fp32). For fp16 with a loss scaler on CPU (tests), give the "
               "Trainer a torch.amp.GradScaler('cpu') yourself (the docs' 'fp16 on CPU' "
               "recipe, frameworks/hf)."},
    ),
    CatalogEntry(
        "AMP011", "bf16-checkpoint-in-fp16", "bf16-pretrained model trained in fp16",
        Severity.WARNING,
        "The model was pretrained in bfloat16 (config torch_dtype / dtype) and is trained in "
        "fp16. Its activations can exceed the fp16 range (65504), the classic T5/Gemma "
        "overflow, and the loss scale then collapses.",
        "Train in bf16 (bf16=True) where the hardware supports it, or keep the overflowing "
        "modules in fp32 (e.g. _keep_in_fp32_modules).",
        ("Read model.config.torch_dtype / model.config.dtype.",),
        "Match the training precision to the checkpoint's.",
        (HF_TRAINING_ARGS,),
    ),
    CatalogEntry(
        "AMP012", "fp16-master-weights", "GradScaler given fp16 parameters", Severity.ERROR,
        "The optimizer holds float16 parameters (model.half()). GradScaler refuses to unscale "
        "fp16 gradients ('Attempting to unscale FP16 gradients.') and fp16 master weights lose "
        "small updates.",
        "Keep parameters in float32 and use torch.autocast for fp16 compute: remove "
        "model.half(); create the optimizer on the fp32 model.",
        ("print({p.dtype for p in model.parameters()})",),
        "Never call .half() on a model you train with GradScaler.",
        (TORCH_AMP_DOCS, TORCH_AMP_EXAMPLES),
    ),
    CatalogEntry(
        "AMP013", "non-finite-eval-loss", "Evaluation loss or metric is NaN/inf",
        Severity.WARNING,
        "A value computed during evaluation (the eval or validation loss, perplexity, a "
        "metric) is NaN or inf, not the training loss. Common causes: the evaluation forward "
        "overflows in fp16 with no loss scaler to skip it (evaluation runs under autocast but "
        "never through the scaler, and a model whose training loss is fine can still produce "
        "inf activations on longer or unusual eval inputs); a NaN or inf sample, or an empty "
        "target (a batch with every label ignored), in the evaluation set; a metric that "
        "divides by zero or takes log(0); perplexity computed as exp(loss) overflowing. "
        "If the training loss went non-finite first, this is its consequence (AMP006).",
        "Check the evaluation data with torch.isfinite on inputs and labels, and count the "
        "labels left after ignore_index per batch; run evaluation in bf16 or fp32 (HF: "
        "keep fp16_full_eval=False, the default, or use bf16_full_eval=True; elsewhere "
        "compute the evaluation loss in float32, outside autocast); guard metric "
        "denominators and compute perplexity from a clipped loss.",
        ("Re-run evaluation on the first failing batch in fp32: finite there means an fp16 "
         "overflow, NaN there means the data or the metric.",
         "Assert torch.isfinite(loss) per evaluation batch and print the batch index of the "
         "first failure.",
         "transformers 5.24: with logging_nan_inf_filter on (the default) the eval loss "
         "averages only the finite batches, so a NaN eval_loss there means every evaluation "
         "batch was non-finite; 4.x averaged every batch (one NaN batch makes it NaN). The "
         "filter never touches compute_metrics' own metrics."),
        "Validate the evaluation set once before training, and keep the evaluation loss "
        "computation in float32.",
        (TORCH_AMP_DOCS, HF_TRAINING_ARGS),
        {"hf": "Check the eval dataset (torch.isfinite on inputs, labels not all -100 per "
               "batch); keep fp16_full_eval=False (evaluation under autocast, fp32 weights) "
               "or evaluate with bf16_full_eval=True; in compute_metrics guard divisions and "
               "np.exp of the loss.",
         "lightning": "Check the validation data (torch.isfinite on each batch) and compute "
                      "the validation loss in float32 (loss.float(), or outside autocast); "
                      "guard divisions in the metrics you log with self.log."},
    ),
    CatalogEntry(
        "AMP014", "fp16-dtype-error", "fp16 dtype error: an op refused a float16 tensor",
        Severity.ERROR,
        "torch raised one of its float16 dtype errors and the run stopped. Three kinds, told "
        "apart by the message: an op with no float16 kernel on the device (\"addmm_impl_cpu_\" "
        "not implemented for 'Half'), almost always fp16 on the CPU (model.half() on CPU, or "
        "torch.autocast('cpu', dtype=torch.float16) in an older torch); float16 and float32 "
        "tensors mixed outside autocast (expected scalar type Half but found Float; mat1 "
        "and mat2 must have the same dtype), typically a model cast with .half() fed float32 "
        "inputs, or a custom op or loss run outside autocast; a constant beyond the float16 "
        "range of 65504 written into a float16 tensor (value cannot be converted to type "
        "at::Half without overflow), classically masked_fill(mask, -1e9) on fp16 attention "
        "scores.",
        "Keep the parameters in float32 and let autocast choose the float16 ops: remove "
        "model.half(); scaler = torch.amp.GradScaler('cuda'); " + _SCALER_LOOP + ". On CPU "
        "use bfloat16 (torch.autocast('cpu', dtype=torch.bfloat16)) instead of float16. For a "
        "constant, "
        "use torch.finfo(scores.dtype).min (-65504 in float16) instead of -1e9 or -1e4 * ...",
        ("Read the last line of the traceback: the kernel name, the two dtypes or the "
         "constant it names.",
         "print({p.dtype for p in model.parameters()}) and the input's dtype and device "
         "before the forward."),
        "Never call .half() on a model you train; let the framework's mixed-precision switch "
        "cast per op, and write masks and fills with torch.finfo(dtype).min.",
        (TORCH_AMP_DOCS, TORCH_AMP_EXAMPLES),
    ),
    CatalogEntry(
        "SYS001", "out-of-memory", "Out of memory (not an AMP fault)", Severity.ERROR,
        "The device ran out of memory. This is not a loss-scale problem; a NaN or skipped step "
        "printed nearby is a consequence, not the cause.",
        "Reduce the batch size or sequence length, use gradient accumulation or activation "
        "checkpointing.",
        ("Look for 'CUDA out of memory' / torch.OutOfMemoryError in the log.",),
        "Profile peak memory on the largest batch before long runs.",
        ("https://pytorch.org/docs/stable/notes/cuda.html#memory-management",),
    ),
    CatalogEntry(
        "SYS002", "collective-timeout", "Collective operation timed out (not an AMP fault)",
        Severity.ERROR,
        "A collective (all-reduce, barrier) timed out: a rank hung or died. Loss-scale lines "
        "printed before it are not the cause.",
        "Find the rank that stopped first (its own log), fix its failure; raise the timeout only "
        "for known slow steps.",
        ("Compare the last step printed by each rank.",),
        "Keep every rank on the same code path; never enter a collective on one rank alone.",
        ("https://pytorch.org/docs/stable/distributed.html",),
    ),
)

CATALOG: Mapping[str, CatalogEntry] = {entry.code: entry for entry in _ENTRIES}

# Which conditions are usually consequences of which: a later diagnosis in this set is
# reported as collateral of the earlier one, so the user fixes the cause first.
CONSEQUENCES: Mapping[str, frozenset[str]] = {
    "AMP001": frozenset({"AMP006", "AMP007"}),
    "AMP002": frozenset({"AMP003", "AMP004", "AMP005", "AMP006", "AMP007", "AMP008"}),
    "AMP006": frozenset({"AMP003", "AMP004", "AMP005", "AMP007", "AMP008", "AMP013"}),
    "AMP003": frozenset({"AMP004", "AMP007", "AMP008", "AMP006"}),
    "AMP004": frozenset({"AMP007"}),
    "AMP005": frozenset({"AMP007", "AMP008"}),
    "AMP011": frozenset({"AMP003", "AMP004", "AMP006", "AMP007", "AMP008"}),
    "AMP012": frozenset({"AMP006"}),
    # AMP014 has none: torch raises it, so the run stops there.
    "SYS001": frozenset({"AMP006", "AMP003"}),
}


def entry(code: str) -> CatalogEntry:
    """Look up a catalog entry by id.

    Example:
        >>> entry("AMP003").slug
        'loss-scale-collapse'
    """
    try:
        return CATALOG[code]
    except KeyError:
        raise KeyError(f"unknown diagnosis id {code!r}; known: {', '.join(CATALOG)}") from None
