#!/usr/bin/python3
"""kvplan's decode and prefill speed with llama.cpp layers, experts or the cache
in host memory against the public measurements of tests/data/offload-bench.json:
prints each case's predicted and measured tokens/s and the error, and checks
that every gated case is within the file's tolerance.
Usage: t_offload_bench.py path/to/kvplan. Ends with "N passed, N failed"."""
import json
import os

from optionslib import ROOT, check, main, run


def test_cases():
    with open(os.path.join(ROOT, "tests", "data", "offload-bench.json")) as f:
        data = json.load(f)
    tol = data["tolerance"]
    for case in data["cases"]:
        args = [a.replace("tests/data/", os.path.join(ROOT, "tests", "data") + "/")
                for a in case["args"]]
        status, out, err = run(["plan", "--format", "json", *args])
        check("%s: plans" % case["id"], status == 0, err)
        if status != 0:
            continue
        r = json.loads(out)["result"]
        check("%s: host memory in use" % case["id"],
              r["engine"].get("offload", {}).get("host_bytes", 0) > 0, r["engine"])
        # generation, and prompt processing (the prompt over its first token)
        for field, key, what in (("tokens_per_s_per_user", "measured_tok_s", "tg"),
                                 ("prefill_tokens_per_s", "measured_pp_tok_s", "pp")):
            if key not in case:
                continue
            got, want = r.get(field) or 0, case[key]
            error = got / want - 1
            print("%-36s %s predicted %7.1f tok/s, measured %7.1f: %+.0f%%%s" %
                  (case["id"], what, got, want, error * 100, "" if case["gate"] else " (not gated)"))
            if case["gate"]:
                check("%s %s: within %.0f%%" % (case["id"], what, tol * 100), abs(error) <= tol,
                      (got, want))


if __name__ == "__main__":
    main([test_cases])
