"""The default layout (no --tp, no --pp) leaves the cache room: Llama 3.1 70B
in bf16 on 1..16 H100s under vLLM, users never drop as a GPU is added, except
where the default makes replicas of a layout that already leaves a quarter of
the budget to the cache (12 GPUs: 3 x TP 4, 15: 5 x TP 1 x PP 3), whose copies
of the weights cost users but serve in parallel; 6 GPUs serve more than 3 users
(3 x TP 2 held 65 GiB of weights a GPU and 1 user a replica).
Usage: t_default_layout.py KVPLAN. Ends with "N passed, N failed"."""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tally import check, finish  # noqa: E402

K = sys.argv[1]


def plan(gpus):
    p = subprocess.run([K, "plan", "--model", "llama-3.1-70b", "--gpu", "h100-sxm",
                        "--gpus", str(gpus), "--engine", "vllm", "--format", "json"],
                       capture_output=True, timeout=30, text=True)
    j = json.loads(p.stdout) if p.stdout.startswith("{") else {}
    r = j.get("result", {})
    return r.get("max_users", 0), r.get("replicas", 1)


rows = {g: plan(g) for g in range(1, 17)}
check(rows[6][0] > 3, f"6 GPUs serve {rows[6][0]} users, want more than 3")
best = 0
for g in range(1, 17):
    users, replicas = rows[g]
    if replicas == 1:
        check(users >= best, f"{g} GPUs: {users} users, fewer than {best} on fewer GPUs")
        best = max(best, users)
for g in (6, 10, 14):
    check(rows[g][0] > rows[g - 1][0], f"{g} GPUs: {rows[g][0]} users, {g - 1}: {rows[g - 1][0]}")
finish()
