#!/usr/bin/python3
"""A service level no count of users keeps, and the basis of the costs.

- With a target that not even one user alone keeps (500 tok/s on one H100 for
  Llama 3.1 8B: one user's step reads the 15 GiB of weights, about 10 ms), the
  plan says 0 users at the service level, shows the speed of one user (marked
  as missing the target) and warns, in text and JSON; it never reports the
  speed and throughput of every user that fits.
- With --concurrency N, the cost per user-hour and the cost per 1M output
  tokens are of the same N users: price / N, and price over N x the speed per
  user; the text says "at N concurrent users".
Usage: t_service_missed.py KVPLAN. Ends with "N passed, N failed"."""
import json
import subprocess
import sys
from tally import check  # noqa: E402
import tally  # noqa: E402

K = sys.argv[1]
ENV = {"XDG_CONFIG_HOME": "/nonexistent", "PATH": "/usr/bin:/bin"}
MISSED = "no number of users keeps the service level, not even one alone"


def plan(*args, fmt="json"):
    p = subprocess.run([K, "plan", *args, "--format", fmt], capture_output=True, text=True,
                       timeout=30, env=ENV)
    return p.returncode, p.stdout


# 1. nobody keeps the target: 0 at the service level, the speed of 1 user, a warning
for args in (["--model", "llama-3.1-8b", "--min-tok-s", "500"],
             ["--model", "llama-3.1-8b", "--min-tok-s", "500", "--engine", "vllm"],
             ["--model", "llama-3.1-8b", "--min-tok-s", "50", "--max-ttft", "0.01"]):
    rc, out = plan(*args)
    check(rc == 0, "%s: exit %d" % (args, rc))
    if rc != 0:
        continue
    r = json.loads(out)["result"]
    check(r["max_users"] > 1, "%s: users fit (%s)" % (args, r["max_users"]))
    check(r["users_at_service_level"] == 0, "%s: %s users at the service level"
          % (args, r["users_at_service_level"]))
    # no user is served at the service level: concurrency 0 as users_at_service_level,
    # the speed one user's alone (speed_alone), no throughput
    check(r["concurrency"] == 0 and r["speed_alone"] is True,
          "%s: concurrency %s, speed_alone %s (all that fit: %s)"
          % (args, r["concurrency"], r.get("speed_alone"), r["max_users"]))
    check(r["tokens_per_s_total"] is None and r["tokens_per_s_total_low"] is None and
          r["tokens_per_s_per_user"] > 0, "%s: a throughput served at no one's service level: %s"
          % (args, r["tokens_per_s_total"]))
    check(r["cost_per_million_input_tokens"] is not None,
          "%s: a prompt's cost does not depend on the decode target" % args)
    check(any(w.startswith(MISSED) for w in r["warnings"]), "%s: no warning in JSON: %s"
          % (args, r["warnings"]))
    check(r.get("service_level_missed") is True, "%s: service_level_missed %s"
          % (args, r.get("service_level_missed")))
    check(r["cost_per_user_hour"] is None and r["cost_per_million_output_tokens"] is None,
          "%s: a cost for a service level nobody keeps" % args)
    rc, text = plan(*args, fmt="text")
    check("! " + MISSED in text, "%s: no warning in the text" % args)
    check("1 user decoding at once (one alone: no count keeps the service level)" in text,
          "%s: the text's concurrency line" % args)
    first = "--max-ttft" in args  # the speed keeps 50 tok/s alone: the first token misses
    check(("one alone: its first token misses the target" if first else "misses the service level")
          in text, "%s: the speed row does not say what misses" % args)
    check("no user keeps the service level: the speed above is one user's alone" in text,
          "%s: the throughput row" % args)

# a target that some users keep raises no such warning
rc, out = plan("--model", "llama-3.1-8b", "--min-tok-s", "50")
r = json.loads(out)["result"]
check(r["users_at_service_level"] > 0 and not any(w.startswith(MISSED) for w in r["warnings"]),
      "a kept target warns: %s" % r["warnings"])
check(r.get("service_level_missed") is False, "a kept target: service_level_missed false")
rc, out = plan("--model", "llama-3.1-8b")
check("service_level_missed" not in json.loads(out)["result"], "no target: no service_level_missed")

# 2. --concurrency with a target: both costs of the same N users
for extra in ([], ["--min-tok-s", "50"], ["--min-tok-s", "50", "--max-ttft", "0.5"]):
    args = ["--model", "llama-3.1-8b", "--concurrency", "30", *extra]
    rc, out = plan(*args)
    check(rc == 0, "%s: exit %d" % (args, rc))
    if rc != 0:
        continue
    r = json.loads(out)["result"]
    price, n = r["price_usd_per_hour"], r["concurrency"]
    check(n == 30, "%s: concurrency %s" % (args, n))
    check(abs(r["cost_per_user_hour"] - price / n) < 1e-9 * price,
          "%s: cost per user-hour %.5f is not price / %d users = %.5f (users at the service "
          "level: %s)" % (args, r["cost_per_user_hour"], n, price / n, r["users_at_service_level"]))
    per_m = price / (n * r["tokens_per_s_per_user"] * 3600) * 1e6
    check(abs(r["cost_per_million_output_tokens"] - per_m) < 1e-9 * per_m,
          "%s: cost per 1M output is not at the same %d users" % (args, n))
    rc, text = plan(*args, fmt="text")
    check("/ 30 concurrent users" in text and "at 30 concurrent users (--concurrency)" in text,
          "%s: the text does not state the costs' basis" % args)

# 3. --concurrency with a target those users miss: said, in text and JSON, with the
# count that keeps it; a forced count that keeps it raises nothing
rc, out = plan("--model", "llama-3.1-8b", "--min-tok-s", "50")
keep = json.loads(out)["result"]["users_at_service_level"]
for n in (40, keep + 1):
    args = ["--model", "llama-3.1-8b", "--min-tok-s", "50", "--concurrency", str(n)]
    rc, out = plan(*args)
    r = json.loads(out)["result"]
    check(r["tokens_per_s_per_user"] < 50, "%s: %s tok/s keeps the target" % (args, r["tokens_per_s_per_user"]))
    check(r.get("service_level_missed") is True, "%s: service_level_missed %s"
          % (args, r.get("service_level_missed")))
    check(r["users_at_service_level"] == keep, "%s: %s users at the service level, not %d"
          % (args, r["users_at_service_level"], keep))
    words = "at %d users (--concurrency) %.1f tok/s misses --min-tok-s 50; %d keep it" % (
        n, r["tokens_per_s_per_user"], keep)
    check(words in r["warnings"], "%s: no warning %r in %s" % (args, words, r["warnings"]))
    rc, text = plan(*args, fmt="text")
    check("! " + words in text, "%s: no warning in the text" % args)
args = ["--model", "llama-3.1-8b", "--min-tok-s", "50", "--concurrency", str(keep)]
r = json.loads(plan(*args)[1])["result"]
check(r.get("service_level_missed") is False and r["warnings"] == [],
      "%s: a forced count that keeps the target warns: %s" % (args, r["warnings"]))
tally.finish()
