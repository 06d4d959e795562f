"""Train a tiny LightningModule in fp16 with an injected fault and watch denpex diagnose it.

    python examples/lightning/train.py --fault nan
    python examples/lightning/train.py --fault overflow --on-fault stop

Runs on CUDA as is (``precision="16-mixed"``) and on CPU with a real fp16 GradScaler plugin
(plain ``precision="16-mixed"`` on CPU silently becomes bf16; try ``--plain-precision`` to see
denpex report it as AMP010).
"""

from __future__ import annotations

import argparse
import logging
import sys
import tempfile

import lightning.pytorch as L
import torch

from denpex_callbacks.core.report import initiating_rank, read_report_dir
from denpex_callbacks.lightning import AmpDiagnosticCallback
from denpex_callbacks.testing.tiny_lightning import FAULTS, TinyModule, fp16_plugin


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fault", choices=FAULTS, default="nan")
    parser.add_argument("--fault-step", type=int, default=10)
    parser.add_argument("--steps", type=int, default=60)
    parser.add_argument("--on-fault", choices=("warn", "stop", "raise"), default="warn")
    parser.add_argument("--report-dir", default=None, help="default: a temporary folder")
    parser.add_argument("--plain-precision", action="store_true",
                        help="pass precision='16-mixed' instead of the fp16 plugin")
    args = parser.parse_args(argv)

    logging.basicConfig(level=logging.WARNING, format="%(message)s")
    # Quiet "Seed set to 0" the way every Lightning 2.x takes (seed_everything's verbose= is 2.4+).
    logging.getLogger("lightning.fabric.utilities.seed").setLevel(logging.WARNING)
    L.seed_everything(0)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    precision: dict[str, object]
    if args.plain_precision or device == "cuda":
        precision = {"precision": "16-mixed"}
        if args.fault == "stuck":
            print("--fault stuck needs the plugin's scaler: run it without --plain-precision "
                  "on CPU", file=sys.stderr)
            return 2
    else:
        precision = {"plugins": [fp16_plugin(device, args.fault)]}
    root = args.report_dir or tempfile.mkdtemp(prefix="denpex-lightning-")
    callback = AmpDiagnosticCallback(on_fault=args.on_fault, report_dir=root)
    trainer = L.Trainer(
        accelerator=device,
        devices=1,
        max_steps=args.steps,
        callbacks=[callback],
        logger=False,
        enable_checkpointing=False,
        enable_progress_bar=False,
        enable_model_summary=False,
        default_root_dir=root,
        **precision,  # type: ignore[arg-type]
    )
    trainer.fit(TinyModule(fault=args.fault, fault_step=args.fault_step))

    reports = read_report_dir(root)
    print(f"\nreports in {root}; steps run: {trainer.global_step}")
    for report in reports:
        for diagnosis in report.diagnoses:
            print(f"  rank {diagnosis.rank}: {diagnosis.code} {diagnosis.slug} "
                  f"from step {diagnosis.step} (reported at {diagnosis.reported_step})")
    first = initiating_rank(reports)
    if first is not None:
        print(f"first non-finite loss: rank {first[0]}, step {first[1]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
