#!/usr/bin/python3
"""import-hf reads DeepSeek V4 (model_type deepseek_v4; doc/MODEL.md, "DeepSeek
V4"): compress_ratios gives each layer's kind (4 a CSA layer with its indexer,
128 an HCA layer, 0 a window only, the MTP layers' entries after the model's),
sliding_window a window in every layer; a tiny config worked by hand
(tests/unit/test_compressed.c works its parameters and bytes), and the fields
it refuses by name with exit status 2. The published Flash and Pro configs
agree with the catalogue in tests/cli/check_import.py.
Usage: t_import_dsv4.py KVPLAN. Ends with "N passed, N failed"."""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tally import check, finish  # noqa: E402

K = sys.argv[1]
ENV = dict(os.environ, XDG_CONFIG_HOME="/nonexistent")
TMP = tempfile.mkdtemp(prefix="kvplan-dsv4-")

TINY = {"model_type": "deepseek_v4", "num_hidden_layers": 2, "hidden_size": 8,
        "num_attention_heads": 2, "num_key_value_heads": 1, "head_dim": 4, "qk_rope_head_dim": 2,
        "q_lora_rank": 4, "o_groups": 1, "o_lora_rank": 4, "n_routed_experts": 2,
        "num_experts_per_tok": 1, "moe_intermediate_size": 2, "n_shared_experts": 1,
        "vocab_size": 3, "hc_mult": 1, "num_hash_layers": 1, "index_n_heads": 1,
        "index_head_dim": 2, "index_topk": 4, "sliding_window": 16,
        "max_position_embeddings": 4096, "compress_ratios": [4, 0, 0], "expert_dtype": "fp4",
        "torch_dtype": "bfloat16", "quantization_config": {"quant_method": "fp8"}}


def imp(name, cfg):
    path = os.path.join(TMP, name + ".json")
    with open(path, "w") as f:
        json.dump(cfg, f)
    r = subprocess.run([K, "import-hf", path], capture_output=True, text=True, env=ENV, timeout=30)
    return r.returncode, (json.loads(r.stdout) if r.returncode == 0 else None), r.stderr


rc, m, err = imp("tiny", TINY)
check(rc == 0, "tiny deepseek_v4 imports: %s" % err)
if m:
    check(m["params"] == 1142 and m["active_params"] == 1046,
          "params 1142, 1046 active: %s %s" % (m["params"], m["active_params"]))
    check(m["weights_bytes"] == 1987, "weights_bytes 1987: %s" % m["weights_bytes"])
    ca = m.get("compressed_attention") or {}
    check(ca.get("csa_layers") == 1 and ca.get("hca_layers") == 0 and ca.get("csa_ratio") == 4 and
          ca.get("index_head_dim") == 2 and ca.get("index_topk") == 4 and
          ca.get("qk_rope_head_dim") == 2, "one CSA layer with its indexer: %s" % ca)
    sw = m.get("sliding_window") or {}
    check(sw.get("window_tokens") == 16 and sw.get("windowed_layers") == 2,
          "a window in every layer: %s" % sw)
    check(m["attention"] == "MQA" and m["num_kv_heads"] == 1, "one KV head: %s" % m["attention"])
    check("MTP" not in err and "compressed attention: 1 CSA" in err, "the note says so: %s" % err)

# the plan counts it: 2 layers' windows, the CSA layer's rows and its compressor
plan = subprocess.run([K, "plan", "--format", "json", "--model", "deepseek-v4-flash",
                       "--context", "128k", "--gpu", "h200", "--gpus", "8"],
                      capture_output=True, text=True, env=ENV, timeout=30)
check(plan.returncode == 0 and '"kv_bytes_per_token_per_gpu": 3851' in plan.stdout.replace("\t", " "),
      "the plan's JSON: 3,851 B a token past the window")

# kvplan show names each preset's source: the published config it was read from
for mid, repo, rev in (("deepseek-v4-flash", "DeepSeek-V4-Flash", "60d8d707"),
                       ("deepseek-v4-pro", "DeepSeek-V4-Pro", "b5968e91")):
    r = subprocess.run([K, "show", "model", mid], capture_output=True, text=True, env=ENV,
                       timeout=30)
    src = json.loads(r.stdout).get("source", "") if r.returncode == 0 else ""
    check("huggingface.co/deepseek-ai/%s config.json" % repo in src and rev in src,
          "show model %s cites its config: %s" % (mid, src))

BAD = [
    ("a ratio kvplan does not count", dict(TINY, compress_ratios=[4, 2, 0]),
     "compress_ratios: entry 2 is not 0, 4 or 128"),
    ("fewer entries than layers", dict(TINY, compress_ratios=[4]),
     "compress_ratios: 1 entries for num_hidden_layers 2"),
    ("no compress_ratios", {k: v for k, v in TINY.items() if k != "compress_ratios"},
     "compress_ratios: missing"),
    ("two KV heads", dict(TINY, num_key_value_heads=2), "num_key_value_heads: DeepSeek V4 keeps"),
    ("a CSA layer without its indexer", {k: v for k, v in TINY.items() if k != "index_topk"},
     "index_topk: the CSA layers' indexer"),
    ("an expert precision kvplan does not know", dict(TINY, expert_dtype="int4"),
     "expert_dtype: 'int4' is not fp4 or fp8"),
    ("no o_groups", {k: v for k, v in TINY.items() if k != "o_groups"}, "o_groups"),
]
for what, cfg, msg in BAD:
    rc, _, err = imp(what.replace(" ", "-"), cfg)
    check(rc == 2 and msg in err, "%s: exit 2 naming %r, got %d %s" % (what, msg, rc, err))
finish()
