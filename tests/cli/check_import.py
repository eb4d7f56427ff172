#!/usr/bin/python3
"""import-hf agrees with the catalogue: every config in tests/data/hf, imported,
gives the preset's parameters, heads, head_dim, MLA ranks, windows, precision
and context. Usage: check_import.py KVPLAN. Ends with "N passed, N failed"."""
import glob
import json
import os
import subprocess
import sys

KVPLAN = sys.argv[1]
HERE = os.path.dirname(os.path.abspath(__file__))
FIELDS = ["num_layers", "num_attention_heads", "num_kv_heads", "head_dim", "attention", "mla",
          "sliding_window", "params", "active_params", "weight_dtype", "weights_bytes",
          "max_context_tokens", "vocab_size", "moe", "num_nextn_predict_layers", "mtp_params",
          "state", "image_tokens_per_image", "global_attention", "compressed_attention"]
env = dict(os.environ, XDG_CONFIG_HOME="/nonexistent")
passed = failed = 0
for path in sorted(glob.glob(os.path.join(HERE, "..", "data", "hf", "*.json"))):
    mid = os.path.basename(path)[:-5]
    got = subprocess.run([KVPLAN, "import-hf", path, "--id", mid], capture_output=True, text=True,
                         env=env)
    want = subprocess.run([KVPLAN, "show", "model", mid, "--format", "json"], capture_output=True,
                          text=True, env=env)
    if got.returncode != 0 or want.returncode != 0:
        failed += 1
        print("FAIL %s: %s%s" % (mid, got.stderr, want.stderr))
        continue
    a, b = json.loads(got.stdout), json.loads(want.stdout)
    diffs = [f for f in FIELDS
             if f != "sliding_window" and a.get(f) != b.get(f)]
    sa, sb = a.get("sliding_window"), b.get("sliding_window")
    if (sa is None) != (sb is None) or (sa and (sa["window_tokens"], sa["windowed_layers"]) !=
                                        (sb["window_tokens"], sb["windowed_layers"])):
        diffs.append("sliding_window")
    if diffs:
        failed += 1
        print("FAIL %s: %s" % (mid, ", ".join("%s %r != %r" % (f, a.get(f), b.get(f)) for f in diffs)))
    else:
        passed += 1
print("import-hf: %d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
