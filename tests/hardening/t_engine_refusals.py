#!/usr/bin/python3
"""What the serving engines refuse to start, refused with exit 2 and the
option and the engine's rule named, where the generic rule only warns:
- a tensor-parallel size that does not split the attention heads (vLLM:
  vllm/config/model.py, ModelConfig.verify_with_parallel_config, and
  QKVParallelLinear's divide() for the KV heads; SGLang: each model's
  attention asserts it, models/llama.py LlamaAttention.__init__), on the
  command line and in a snapshot;
- DeepSeek-V3.2 under vLLM's V0 engine (its indexer is a V1 backend only),
  and gpt-oss (vllm/model_executor/models/gpt_oss.py and the MXFP4 experts
  came in 0.10.1; its attention sinks run on V1 backends only, the assertion
  of v1/attention/backends/flash_attn.py in vllm#22331).
And import-hf's reading of compressed-tensors INT4: a group without a strategy
is the group strategy (compressed-tensors QuantizationArgs), the config's
format the groups'; a quantization_config it does not read is said.
Usage: t_engine_refusals.py KVPLAN. Ends with "N passed, N failed"."""
import json
import os

from hfimport import import_hf
from optionslib import ENV, KVPLAN, ROOT, TMP, check, main, refused, run

LLAMA = ["plan", "--model", "llama-3.1-70b"]


def test_uneven_tp_refused():
    refused(LLAMA + ["--gpu", "gb300", "--gpus", "72", "--tp", "72", "--engine", "vllm"],
            "--tp", "tensor parallel 72", "64 attention heads", "verify_with_parallel_config")
    refused(LLAMA + ["--gpu", "h100-sxm", "--gpus", "3", "--tp", "3", "--engine", "vllm"],
            "--tp", "vLLM refuses it")
    refused(LLAMA + ["--gpu", "h100-sxm", "--gpus", "3", "--tp", "3", "--engine", "sglang"],
            "--tp", "SGLang refuses it", "LlamaAttention.__init__")


def test_uneven_tp_generic_warns():
    status, out, err = run(LLAMA + ["--gpu", "h100-sxm", "--gpus", "3", "--tp", "3"])
    check("the generic rule plans TP 3 and warns", status == 0 and "refuse or pad" in out,
          (status, err))
    status, out, err = run(LLAMA + ["--gpu", "h100-sxm", "--gpus", "3", "--engine", "vllm"])
    check("without --tp, 3 GPUs under vLLM take an even layout", status == 0 and
          "refuse or pad" not in out, (status, out[:300], err))


def test_uneven_tp_snapshot_refused():
    path = os.path.join(TMP, "tp3.json")
    status, out, err = run(LLAMA + ["--gpu", "h100-sxm", "--gpus", "3", "--tp", "3",
                                    "--export", path])
    check("the generic snapshot is written", status == 0, err)
    with open(path) as f:
        snap = json.load(f)
    snap["scenario"]["engine"]["name"] = "vllm"
    with open(path, "w") as f:
        json.dump(snap, f)
    refused(["plan", "--load", path], path, "--tp", "verify_with_parallel_config")


def test_v0_refuses_v32():
    base = ["plan", "--model", "deepseek-v3.2", "--gpu", "h200", "--gpus", "8"]
    refused(base + ["--engine", "vllm@0"], "--engine", "V0 engine", "sparse attention")
    status, out, err = run(base + ["--engine", "vllm@0.13"])
    check("vLLM 0.13 serves DeepSeek-V3.2", status == 0, err)


def test_v0_refuses_gpt_oss():
    for model in ("gpt-oss-120b", "gpt-oss-20b"):
        base = ["plan", "--model", model, "--gpu", "h100-sxm"]
        refused(base + ["--engine", "vllm@0"], "--engine", "V0 engine", "gpt-oss", "0.10.1")
        refused(base + ["--engine", "vllm@0.7"], "--engine", "V0 engine", "gpt-oss")
        status, out, err = run(base + ["--engine", "vllm@0.13"])
        check("vLLM 0.13 plans " + model, status == 0, err)
    status, out, err = run(["plan", "--model", "llama-3.1-8b", "--engine", "vllm@0"])
    check("V0 still plans a model it served", status == 0, err)


def kimi():
    with open(os.path.join(ROOT, "tests", "data", "hf", "kimi-k2.6.json")) as f:
        return json.load(f)


def test_int4_without_strategy():
    cfg = kimi()
    q = cfg["text_config"]["quantization_config"]
    del q["config_groups"]["group_0"]["weights"]["strategy"]
    rc, m, err = import_hf(KVPLAN, ENV, TMP, "nostrategy", cfg)
    # as with "strategy": "group": 1,014,686,023,680 x 9/16 + 11,722,208,768 x 2
    check("a group_size without a strategy is INT4 in groups",
          rc == 0 and m.get("weights_bytes") == 594205305856, (rc, err[-300:]))
    q["format"] = "naive-quantized"
    rc, m, err = import_hf(KVPLAN, ENV, TMP, "naive", cfg)
    check("an unpacked format is said, not read as packed INT4",
          rc == 0 and "weights_bytes" not in m and "quantization_config.config_groups" in err,
          (rc, err[-300:]))
    q["format"] = "float-quantized"
    q["config_groups"]["group_0"]["format"] = "pack-quantized"
    rc, m, err = import_hf(KVPLAN, ENV, TMP, "own", cfg)
    check("a group's own format comes before the config's",
          rc == 0 and m.get("weights_bytes") == 594205305856, (rc, err[-300:]))


def test_unread_quantization_said():
    cfg = kimi()
    del cfg["text_config"]["quantization_config"]["ignore"]
    rc, m, err = import_hf(KVPLAN, ENV, TMP, "noignore", cfg)
    check("INT4 of the whole model is said", rc == 0 and "weights_bytes" not in m and
          "quantization_config.ignore" in err and "planned as bf16" in err, (rc, err[-300:]))
    cfg["text_config"]["quantization_config"] = {"quant_method": "bitsandbytes",
                                                 "load_in_4bit": True}
    rc, m, err = import_hf(KVPLAN, ENV, TMP, "bnb", cfg)
    check("an unknown method is said", rc == 0 and
          "quantization_config.quant_method: bitsandbytes" in err, (rc, err[-300:]))


if __name__ == "__main__":
    main([test_uneven_tp_refused, test_uneven_tp_generic_warns, test_uneven_tp_snapshot_refused,
          test_v0_refuses_v32, test_v0_refuses_gpt_oss, test_int4_without_strategy,
          test_unread_quantization_said])
