#!/usr/bin/python3
"""import-hf reads Kimi-Linear (model_type kimi_linear; doc/MODEL.md "Kimi-Linear"):
the published 48B-A3B config gives the catalogue's preset (its KDA layers as state
layers of kind kda, the recurrent state fp32, the MLA layers, model_max_length as
the context); the layer lists are checked, naming the field; what Kimi K3 adds
(latent experts, attention residuals, the gated MLA) and a query low rank are
refused by name. Usage: t_import_kimi.py KVPLAN. Ends with "N passed, N failed"."""
import copy
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hfimport import import_hf  # noqa: E402
from tally import check, finish  # noqa: E402

K = sys.argv[1]
HERE = os.path.dirname(os.path.abspath(__file__))
ENV = dict(os.environ, XDG_CONFIG_HOME="/nonexistent")
TMP = tempfile.mkdtemp(prefix="kvplan-kimi-")
with open(os.path.join(HERE, "..", "data", "hf", "kimi-linear-48b-a3b.json")) as f:
    BASE = json.load(f)


def imp(name, cfg):
    return import_hf(K, ENV, TMP, name, cfg)


def changed(**fields):
    cfg = copy.deepcopy(BASE)
    cfg.update(fields)
    return cfg


def lac(**fields):
    cfg = copy.deepcopy(BASE)
    cfg["linear_attn_config"].update(fields)
    return cfg


rc, m, err = imp("published", BASE)
check(rc == 0 and m["state"] == {"kind": "kda", "layers": 20, "conv_kernel": 4, "heads": 32,
                                  "head_dim": 128, "groups": 32, "d_state": 128,
                                  "ssm_dtype": "fp32"}, "the KDA layers: %s %s" % (rc, err))
check(rc == 0 and m["attention"] == "MLA" and m["max_context_tokens"] == 1048576 and
      m["moe"]["first_dense"] == 1, "MLA, model_max_length, first dense")
check(rc == 0 and m["params"] == 49122681728 and m["active_params"] == 3484459904,
      "parameters 49,122,681,728 (3,484,459,904 active)")

rc, _, err = imp("twice", lac(full_attn_layers=[3, 8, 12, 16, 20, 24, 27]))
check(rc == 2 and "linear_attn_config.full_attn_layers: layer 3 is named twice" in err,
      "a layer in both lists: %s" % err)
rc, _, err = imp("short", lac(full_attn_layers=[4, 8, 12, 16, 20, 24]))
check(rc == 2 and "full_attn_layers: 6 and 20 kda_layers for num_hidden_layers 27" in err,
      "a layer in neither: %s" % err)
rc, _, err = imp("range", lac(kda_layers=[0] + BASE["linear_attn_config"]["kda_layers"][1:]))
check(rc == 2 and "kda_layers: entry 0 is not a layer of 1 to 27" in err, "0-based: %s" % err)
rc, _, err = imp("nolist", changed(linear_attn_config=None))
check(rc == 2 and "linear_attn_config: missing" in err, "no linear_attn_config: %s" % err)
for field, value in (("routed_expert_hidden_size", 3584), ("attn_res_block_size", 12),
                     ("mla_use_output_gate", True), ("q_lora_rank", 1536)):
    rc, _, err = imp(field, changed(**{field: value}))
    check(rc == 2 and ("%s:" % field) in err, "%s refused: %s %s" % (field, rc, err))
r = subprocess.run([K, "show", "model", "kimi-linear-48b-a3b"], capture_output=True, text=True,
                   env=ENV, timeout=30)
check(r.returncode == 0 and "huggingface.co/moonshotai/Kimi-Linear-48B-A3B-Instruct config.json"
      in r.stdout and '"kind":\t"kda"' in r.stdout, "show cites the preset's source: %s" % r.stdout[-300:])
finish()
