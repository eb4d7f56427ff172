#!/usr/bin/python3
"""import-hf reads the families of late 2026 (doc/MODEL.md, "Qwen3.5 and
Qwen3.6"): qwen3_5 and qwen3_5_moe, their language model under text_config,
dense or MoE, the recurrent state's mamba_ssm_dtype, the MTP layer named in
text_config and the vision tower, each worked by hand on a tiny config.
Usage: t_import_late2026.py KVPLAN. Ends with "N passed, N failed"."""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tally import check, finish  # noqa: E402

K = sys.argv[1]
ENV = dict(os.environ, XDG_CONFIG_HOME="/nonexistent")
TMP = tempfile.mkdtemp(prefix="kvplan-late2026-")


def imp(name, cfg):
    path = os.path.join(TMP, name + ".json")
    with open(path, "w") as f:
        json.dump(cfg, f, indent=1)
    r = subprocess.run([K, "import-hf", path], capture_output=True, text=True, env=ENV, timeout=30)
    return r.returncode, (json.loads(r.stdout) if r.returncode == 0 else None), r.stderr


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
finish()
