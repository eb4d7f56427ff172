#!/usr/bin/python3
"""A snapshot saved before GPU presets had their SM count loads with the
built-in preset's, for the same GPU (id and name): vLLM's sampler buffer
(core/policy_vllm_profile.c, apply_top_k_top_p_triton's programs) then
follows the GPU, not the 132-SM fallback; a GPU of another name keeps the
fallback, said in the explain row.
Usage: t_snapshot_sm_count.py KVPLAN. Ends with "N passed, N failed"."""
import json
import os
import subprocess
import sys
import tempfile
from tally import check  # noqa: E402
import tally  # noqa: E402

K = sys.argv[1]
ENV = {"XDG_CONFIG_HOME": "/nonexistent", "PATH": "/usr/bin:/bin"}


def run(*args):
    p = subprocess.run([K, *args], capture_output=True, text=True, timeout=60, env=ENV)
    return p.returncode, p.stdout, p.stderr


with tempfile.TemporaryDirectory() as d:
    snap = os.path.join(d, "b200.json")
    rc, out, err = run("plan", "--gpu", "b200", "--model", "llama-3.1-8b", "--engine", "vllm", "--export", snap)
    check(rc == 0, "export: %s" % err)
    rc, fresh, err = run("plan", "--load", snap)
    s = json.load(open(snap))
    gpu = s["scenario"]["gpu"] if "scenario" in s else s["gpu"]
    check(gpu.get("sm_count") == 148, "B200's preset has 148 SMs: %s" % gpu.get("sm_count"))
    for k in ("sm_count", "sm_count_basis"):
        gpu.pop(k, None)
    old = os.path.join(d, "old.json")
    json.dump(s, open(old, "w"), indent=2)
    rc, text, err = run("plan", "--load", old)
    check(rc == 0 and "148 SMs" in text and "SM count unknown" not in text,
          "an old snapshot of a B200 takes the preset's 148 SMs: %d %s" % (rc, err))
    check(text == fresh, "the same plan as the snapshot saved with them")
    gpu["name"] = "My own B200 build"
    json.dump(s, open(old, "w"), indent=2)
    rc, text, err = run("plan", "--load", old)
    check(rc == 0 and "SM count unknown: assumed 132" in text, "another GPU's name keeps the fallback, said")
tally.finish()
