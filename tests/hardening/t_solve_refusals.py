#!/usr/bin/python3
"""Options solve --request-rate, simulate and sweep refuse, on the real
binary: each names the option, exit status 2, nothing on standard output.
--goodput's objectives are more than 0; solve chooses the layout, so --gpus,
--tp and --pp are refused; :POINTS on a sweep axis that takes none says
which axes take it; another command's option says whose it is. And solve
gives no goodput share for a layout over capacity (a burst at 1e9 req/s).
Usage: t_solve_refusals.py path/to/kvplan. Ends with "N passed, N failed"."""
import json

from optionslib import check, main, refused, run

ASK = ["--request-rate", "40", "--random-input-len", "2048", "--random-output-len", "300",
       "--goodput", "ttft:1000", "tpot:50"]


def test_goodput_zero():
    for key in ("ttft:0", "tpot:0", "e2el:0"):
        refused(["simulate", "--goodput", key], "--goodput", "more than 0")
        refused(["solve", "--request-rate", "4", "--goodput", key], "--goodput", "more than 0")


def test_solve_chooses_the_layout():
    for opt in ("--gpus", "--tp", "--pp"):
        refused(["solve", *ASK, opt, "2"], opt, "solve chooses the layout", "--max-gpus")


def test_points_says_which_axes():
    refused(["sweep", "--vary", "max-concurrency=1..256:6", "--num-prompts", "10"],
            "max-concurrency=1..256:6", ":POINTS applies only to request-rate and context")
    refused(["sweep", "--vary", "gpus=1..8:3"], ":POINTS applies only to request-rate and context")


def test_another_commands_option():
    refused(["simulate", "--goodput-target", "0.9"], "--goodput-target",
            "not an option of simulate", "solve takes it")
    refused(["simulate", "--goodput-target=0.9"], "--goodput-target", "solve takes it")
    refused(["simulate", "--no-such-option"], "--no-such-option", "unknown option")


def test_no_share_over_capacity():
    status, out, err = run(["solve", *ASK[2:], "--request-rate", "1e9", "--max-gpus", "4",
                            "--format", "json"], timeout=120)
    rows = json.loads(out)["candidates"] if out else []
    over = [c for c in rows if c["verdict"] == "over capacity"]
    check("1e9 req/s: layouts over capacity", over, (status, err))
    check("no goodput share beside over capacity", all(c["goodput_share"] is None for c in over),
          over)
    status, out, err = run(["solve", *ASK[2:], "--request-rate", "1e9", "--max-gpus", "4"],
                           timeout=120)
    rows = [l for l in out.splitlines() if l.endswith("over capacity")]
    check("the text has no GOODPUT %% beside over capacity",
          rows and all("%" not in l for l in rows), out)


if __name__ == "__main__":
    main([test_goodput_zero, test_solve_chooses_the_layout, test_points_says_which_axes,
          test_another_commands_option, test_no_share_over_capacity])
