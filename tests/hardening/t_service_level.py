"""With a speed target and no --concurrency, the speed, throughput and cost
kvplan reports are those of the users that keep the target: tokens per
second per user at least the target, concurrency = users_at_service_level,
in JSON and in text, for the generic rule and each engine."""
import json
import subprocess
import sys
from tally import check  # noqa: E402
import tally  # noqa: E402

K = sys.argv[1]


def plan(*args, fmt="json"):
    out = subprocess.run([K, "plan", *args, "--format", fmt], capture_output=True, text=True,
                         timeout=30, env={"XDG_CONFIG_HOME": "/nonexistent", "PATH": "/usr/bin:/bin"})
    return out.returncode, out.stdout


CASES = [
    ["--model", "llama-3.1-8b", "--min-tok-s", "50"],
    ["--model", "llama-3.1-8b", "--min-tok-s", "50", "--max-ttft", "0.5"],
    ["--model", "llama-3.1-70b", "--gpus", "4", "--min-tok-s", "30", "--engine", "vllm"],
    ["--model", "llama-3.1-8b", "--min-tok-s", "40", "--engine", "sglang"],
    ["--model", "llama-3.1-8b", "--min-tok-s", "40", "--engine", "trtllm"],
    ["--model", "llama-3.1-8b", "--min-tok-s", "40", "--engine", "llama.cpp", "--parallel", "16"],
    ["--model", "qwen3-30b-a3b", "--min-tok-s", "40", "--engine", "vllm"],
]
for args in CASES:
    rc, out = plan(*args)
    check(rc == 0, "%s: exit %d" % (args, rc))
    if rc != 0:
        continue
    r = json.loads(out)["result"]
    target = float(args[args.index("--min-tok-s") + 1])
    n = r["users_at_service_level"]
    check(n is not None and n > 0, "%s: %s users at the service level" % (args, n))
    check(r["concurrency"] == n, "%s: concurrency %s != users_at_service_level %s"
          % (args, r["concurrency"], n))
    check(r["tokens_per_s_per_user"] >= target, "%s: %.2f tok/s < %g"
          % (args, r["tokens_per_s_per_user"], target))
    check(abs(r["tokens_per_s_total"] - n * r["tokens_per_s_per_user"]) < 1e-6 * r["tokens_per_s_total"],
          "%s: throughput is not the kept users'" % args)
    rc, text = plan(*args, fmt="text")
    check("%d users decoding at once (those that keep the service level)" % n in text
          or n == r["max_users"], "%s: the text's concurrency line" % args)
# an explicit --concurrency is the user's: it stays
rc, out = plan("--model", "llama-3.1-8b", "--min-tok-s", "50", "--concurrency", "40")
r = json.loads(out)["result"]
check(r["concurrency"] == 40, "--concurrency 40 kept: %s" % r["concurrency"])
tally.finish()
