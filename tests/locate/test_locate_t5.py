"""The classic case on a real transformers T5 (random tiny config), in a plain AMP loop."""

from __future__ import annotations

import pytest
import torch

from denpex_callbacks.torch import AmpMonitor

transformers = pytest.importorskip("transformers")

FAULT_STEP = 3
WO = "encoder.block.1.layer.1.DenseReluDense.wo"


def test_t5_dense_relu_dense_wo_overflow_is_located():
    torch.manual_seed(0)
    config = transformers.T5Config(
        vocab_size=32, d_model=16, d_kv=8, d_ff=32, num_layers=2, num_decoder_layers=1,
        num_heads=2, decoder_start_token_id=0, pad_token_id=0,
    )
    model = transformers.T5ForConditionalGeneration(config)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    scaler = torch.amp.GradScaler("cpu", init_scale=2.0**10)
    monitor = AmpMonitor(scaler=scaler, optimizer=opt, model=model, report_dir=None)
    gen = torch.Generator().manual_seed(0)
    for step in range(FAULT_STEP + 2):
        ids = torch.randint(1, 32, (4, 8), generator=gen)
        if step == FAULT_STEP:  # the second encoder block's feed-forward outgrows fp16
            ff = model.encoder.block[1].layer[1].DenseReluDense
            with torch.no_grad():
                ff.wi.weight.mul_(100.0)
                ff.wo.weight.mul_(1000.0)
        with torch.autocast("cpu", dtype=torch.float16):
            loss = model(input_ids=ids, labels=ids).loss
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        opt.zero_grad()
        monitor.step(loss)
    monitor.close()
    (nan_loss,) = [d for d in monitor.diagnoses if d.code == "AMP006"]
    assert nan_loss.step == FAULT_STEP
    origin = nan_loss.evidence["origin"]
    assert (origin["verdict"], origin["module"], origin["module_type"]) == (
        "activation-overflow", WO, "Linear")
    assert origin["inputs_absmax"] is None  # token ids only: no float input to blame
    assert nan_loss.root_cause.startswith(f"activation overflow in {WO} (Linear)")
