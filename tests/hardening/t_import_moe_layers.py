#!/usr/bin/python3
"""import-hf reads which layers hold the experts (core/spec.h's MoE pattern,
doc/MODEL.md "Which layers are MoE"): DeepSeek's first_k_dense_replace, Jamba's
expert_layer_period and _offset, Llama 4's interleave_moe_layer_step; it refuses,
naming the field, a pattern its parameter count does not follow (moe_layer_freq
past 1, Qwen's decoder_sparse_step past 1 or a non-empty mlp_only_layers); a
preset's pattern out of range is refused with the file, line and field.
Usage: t_import_moe_layers.py KVPLAN. Ends with "N passed, N failed"."""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tally import check, finish  # noqa: E402

K = sys.argv[1]
HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "data", "hf")
ENV = dict(os.environ, XDG_CONFIG_HOME="/nonexistent")
TMP = tempfile.mkdtemp(prefix="kvplan-moe-layers-")


def config(name, **change):
    with open(os.path.join(DATA, name + ".json")) as f:
        cfg = json.load(f)
    cfg.update(change)
    path = os.path.join(TMP, name + ".json")
    with open(path, "w") as f:
        json.dump(cfg, f, indent=1)
    return path


def imp(path):
    r = subprocess.run([K, "import-hf", path], capture_output=True, text=True, env=ENV, timeout=30)
    return r.returncode, (json.loads(r.stdout) if r.returncode == 0 else None), r.stderr


rc, m, _ = imp(config("deepseek-v3"))
check(rc == 0 and m["moe"].get("first_dense") == 3 and "layer_period" not in m["moe"],
      "deepseek-v3: the first 3 layers dense: %s" % (m and m["moe"]))
rc, m, _ = imp(config("jamba-1.5-mini"))
check(rc == 0 and (m["moe"].get("layer_period"), m["moe"].get("layer_offset")) == (2, 1),
      "jamba: MoE where i %% 2 == 1: %s" % (m and m["moe"]))
rc, m, _ = imp(config("llama-4-maverick"))
check(rc == 0 and (m["moe"].get("layer_period"), m["moe"].get("layer_offset")) == (2, 1),
      "llama 4 maverick: interleave_moe_layer_step 2 is the odd layers: %s" % (m and m["moe"]))
rc, m, _ = imp(config("qwen3-30b-a3b"))
check(rc == 0 and "first_dense" not in m["moe"] and "layer_period" not in m["moe"],
      "qwen3 moe: every layer")

rc, _, err = imp(config("deepseek-v3", moe_layer_freq=2))
check(rc == 2 and "moe_layer_freq: 2; kvplan counts deepseek_v3 with every layer" in err,
      "moe_layer_freq 2 refused: %s %s" % (rc, err))
rc, _, err = imp(config("qwen3-30b-a3b", decoder_sparse_step=2))
check(rc == 2 and "decoder_sparse_step: kvplan counts qwen3_moe with every layer MoE" in err,
      "decoder_sparse_step 2 refused: %s %s" % (rc, err))
rc, _, err = imp(config("qwen3-30b-a3b", mlp_only_layers=[0]))
check(rc == 2 and "mlp_only_layers: kvplan counts qwen3_moe" in err,
      "mlp_only_layers [0] refused: %s %s" % (rc, err))

# a preset whose pattern cannot be: the file, the line and the field
r = subprocess.run([K, "show", "model", "jamba-1.5-mini", "--format", "json"],
                   capture_output=True, text=True, env=ENV, timeout=30)
preset = json.loads(r.stdout)
preset["id"] = "jamba-bad"
preset["moe"]["layer_offset"] = 2
os.makedirs(os.path.join(TMP, "p"), exist_ok=True)
path = os.path.join(TMP, "p", "jamba-bad.json")
with open(path, "w") as f:
    json.dump(preset, f, indent=1)
r = subprocess.run([K, "show", "model", "jamba-bad", "--presets", os.path.join(TMP, "p")],
                   capture_output=True, text=True, env=ENV, timeout=30)
check(r.returncode == 2 and "jamba-bad.json" in r.stderr and "moe.layer_offset: 2 is not less"
      in r.stderr, "bad layer_offset refused: %s %s" % (r.returncode, r.stderr))
finish()
