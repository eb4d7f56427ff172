#!/usr/bin/python3
"""kvplan calibrate on a benchmark's own output (tests/data/bench, one file of
each format kvplan reads): the format is found from the content, the MBU, MFU
and step overhead are fitted so that plan --calibration gives back the
measured TPOT and TTFT, the plan says it is calibrated in every format, the
options given on top win (--mbu, --mfu, --step-overhead and, for a memory
calibration, --gpu-memory-utilization), and a calibration used on another
GPU, model or engine warns by name.
Usage: t_calibrate_speed.py path/to/kvplan. Ends with "N passed, N failed"."""
import json
import os
import shutil

from optionslib import ROOT, TMP, check, main, run

BENCH = os.path.join(ROOT, "tests", "data", "bench")
LOGS = os.path.join(ROOT, "tests", "data", "logs")
GENAI_CSV = os.path.join(BENCH, "genai-perf", "meta-llama_Llama-3.1-8B-Instruct-openai-chat-concurrency8",
                         "profile_export_genai_perf.csv")
H100 = ["--model", "llama-3.1-8b", "--gpu", "h100-sxm"]
RTX = ["--model", "llama-3.1-8b", "--gpu", "rtx-4090", "--engine", "llama.cpp", "--weight-dtype", "q4_0"]
# each sample, the scenario it ran and the tool and output calibrate must name
SAMPLES = [
    ("vllm-serve.txt", H100 + ["--engine", "vllm"], "vllm bench serve, printed summary"),
    ("vllm-serve.json", H100 + ["--engine", "vllm"], "vllm bench serve, --save-result JSON"),
    ("sglang-bench-serving.txt", H100 + ["--engine", "sglang"], "sglang.bench_serving, printed summary"),
    ("sglang-bench-serving.jsonl", H100 + ["--engine", "sglang"], "sglang.bench_serving, JSONL"),
    ("llama-bench.md", RTX, "llama-bench, Markdown table"),
    ("llama-bench.json", RTX, "llama-bench, -o json"),
    (GENAI_CSV, H100 + ["--engine", "vllm"], "genai-perf, CSV export"),
    ("genai-perf-profile_export_genai_perf.json", H100 + ["--engine", "vllm"], "genai-perf, JSON export"),
]


def path_of(name):
    return name if os.path.isabs(name) else os.path.join(BENCH, name)


def saved(name, scenario, extra=()):
    """calibrate NAME --save: (status, output, the calibration's path and JSON)."""
    out_path = os.path.join(TMP, os.path.basename(name) + "".join(extra) + ".cal.json")
    status, out, err = run(["calibrate", path_of(name), *scenario, *extra, "--save", out_path])
    doc = None
    if status == 0 and os.path.exists(out_path):
        with open(out_path) as f:
            doc = json.load(f)
    return status, out + err, out_path, doc


def plan_json(args):
    status, out, err = run(["plan", *args, "--format", "json"])
    return status, (json.loads(out) if status == 0 else None), err


def point_args(scenario, p):
    """plan's options for the step of one measured figure."""
    ctx = p.get("depth", 0) + p["input_tokens"] + p["output_tokens"]
    avg = p.get("depth", 0) + p["input_tokens"] + p["output_tokens"] // 2
    return [*scenario, "--concurrency", str(p["concurrency"]), "--context", str(ctx),
            "--avg-context", str(max(avg, 1)), "--prompt", str(p["input_tokens"])]


def test_each_format_calibrates_and_plan_gives_the_benchmark_back():
    for name, scenario, names in SAMPLES:
        status, out, cal, doc = saved(name, scenario)
        short = os.path.basename(name)
        check("calibrate %s: read as %s" % (short, names), status == 0 and names in out, out[-800:])
        if doc is None:
            continue
        sp = doc["speed"]
        check("%s: the calibration names the GPU, model, engine and date" % short,
              doc["format_version"] == 2 and doc["gpu"] == scenario[3] and doc["model"] == "llama-3.1-8b"
              and doc["engine"] == scenario[5] and len(sp["date"]) == 10, json.dumps(doc)[:400])
        check("%s: each fitted value says where it comes from" % short,
              all(sp[k] for k in ("mbu_from", "mfu_from", "step_overhead_from")), json.dumps(sp)[:400])
        # plan --calibration at each figure's own step gives the benchmark's time back
        for p in sp["points"]:
            if p["kind"] != "decode":
                continue
            st, j, err = plan_json(point_args(scenario, p) + ["--calibration", cal])
            got = j["result"]["decode_step_seconds"] if j else None
            check("%s: plan --calibration gives the TPOT at %d users back (%s s)" % (
                short, p["concurrency"], p["measured_seconds"]),
                got is not None and abs(got - p["measured_seconds"]) / p["measured_seconds"] < 0.01,
                "plan: %r %s" % (got, err))
        first = [p for p in sp["points"] if p["kind"] == "prefill"]
        fewest = min(first, key=lambda p: p["concurrency"]) if first else None
        if fewest and sp["mfu"] is not None:
            st, j, err = plan_json(point_args(scenario, fewest) + ["--calibration", cal])
            got = j["result"]["ttft_seconds"] if j else None
            check("%s: plan --calibration gives the TTFT back" % short,
                  got is not None and abs(got - fewest["measured_seconds"]) / fewest["measured_seconds"] < 0.01,
                  "plan: %r %s" % (got, err))


def test_the_fit_finds_the_figures_the_samples_were_made_at():
    """sglang's JSONL (1, 8, 32 users) was made at MBU 0.66, MFU 0.45 and a 1.1 ms
    overhead; llama-bench's rows (tg128 at two depths, pp512) at 0.78, 0.55, 0.2 ms."""
    for name, scenario, want in [("sglang-bench-serving.jsonl", SAMPLES[3][1], (0.66, 0.45, 0.0011)),
                                 ("llama-bench.json", RTX, (0.78, 0.55, 0.0002))]:
        status, out, _, doc = saved(name, scenario)
        sp = doc["speed"] if doc else {}
        check("%s: MBU %.2f, MFU %.2f, overhead %.1f ms found again" % (name, want[0], want[1], want[2] * 1e3),
              doc is not None and abs(sp["mbu"] - want[0]) < 0.02 and abs(sp["mfu"] - want[1]) < 0.02
              and abs(sp["step_overhead_seconds"] - want[2]) < 0.0001, json.dumps(sp)[:300])
    status, out, _, doc = saved("vllm-serve.txt", SAMPLES[0][1])
    check("one concurrency: the overhead is kept, and the output says why",
          doc is not None and doc["speed"]["step_overhead_seconds"] == 0.0009
          and "one concurrency cannot part it from MBU" in out, out[-600:])


def test_the_format_comes_from_the_content():
    renamed = os.path.join(TMP, "results.log")
    shutil.copy(os.path.join(BENCH, "vllm-serve.json"), renamed)
    status, out, err = run(["calibrate", renamed, *H100])
    check("a vllm --save-result JSON named .log is read as one", status == 0
          and "vllm bench serve, --save-result JSON" in out, out + err)
    status, out, err = run(["calibrate", GENAI_CSV, *H100])
    check("genai-perf's CSV takes its concurrency from the artifact folder",
          status == 0 and "8 users" in out, out + err)
    status, out, err = run(["calibrate", os.path.join(BENCH, "vllm-serve.txt"), *H100, "--concurrency", "3"])
    check("a benchmark's own concurrency wins over --concurrency",
          status == 0 and "16 users" in out and "3 users" not in out, out + err)


def test_plan_says_calibrated():
    _, _, cal, _ = saved("sglang-bench-serving.jsonl", SAMPLES[3][1])
    status, out, err = run(["plan", "--model", "llama-3.1-8b", "--calibration", cal])
    check("text: MBU, MFU and the step overhead are calibrated, and from what",
          status == 0 and "(calibrated)" in out and "Step overhead" in out
          and "sglang.bench_serving on NVIDIA H100 SXM5 80GB" in out and not err, out[:1500] + err)
    status, out, err = run(["plan", "--model", "llama-3.1-8b", "--calibration", cal, "--format", "markdown"])
    check("markdown: the inputs say calibrated", status == 0 and "| MBU |" in out
          and "(calibrated) |" in out and "| Calibration |" in out, out[:1500] + err)
    # at the fit's own users and prompts (1 to 32 decoding, the first token at 1 with 1,024 tokens)
    st, j, err = plan_json(["--model", "llama-3.1-8b", "--calibration", cal, "--concurrency", "1",
                            "--prompt", "1024"])
    check("json: speed_basis and ttft_basis are calibrated, with the fit's own band (no public one)",
          j is not None and j["result"]["speed_basis"] == "calibrated"
          and j["result"]["ttft_basis"] == "calibrated" and j["result"]["tokens_per_s_per_user_low"] is not None
          and j["result"]["speed_band"]["group"] == "the calibration's own fit"
          and j["scenario"]["speed_calibration"]["mbu"] is True, err)
    st, j, err = plan_json(["--model", "llama-3.1-8b"])
    check("json without a calibration: the speed is not calibrated",
          j is not None and j["result"]["speed_basis"] == "fitted", err)
    snap = os.path.join(TMP, "calibrated-snapshot.json")
    run(["plan", "--model", "llama-3.1-8b", "--calibration", cal, "--export", snap])
    st, a, _ = plan_json(["--model", "llama-3.1-8b", "--calibration", cal])
    st, b, err = plan_json(["--load", snap])
    check("a snapshot keeps the calibration: the same speed, still calibrated",
          a and b and a["result"]["decode_step_seconds"] == b["result"]["decode_step_seconds"]
          and b["result"].get("speed_basis") == "calibrated", err)


def test_options_on_top_win():
    _, _, cal, doc = saved("sglang-bench-serving.jsonl", SAMPLES[3][1])
    base = ["--model", "llama-3.1-8b", "--calibration", cal]
    st, j, err = plan_json(base + ["--mbu", "0.5"])
    check("--mbu on top of a calibration is used",
          j is not None and j["result"]["mbu"] == 0.5 and j["scenario"]["speed_calibration"]["mbu"] is False
          and j["result"]["mfu"] == round(doc["speed"]["mfu"], 17), err)
    status, out, err = run(["plan", *base, "--mfu", "0.3"])
    check("--mfu on top: the text says --mfu", status == 0 and "0.30 of peak compute (--mfu)" in out, out[:1200])
    st, j, err = plan_json(base + ["--step-overhead", "0.004"])
    check("--step-overhead on top is used", j is not None and j["scenario"]["step_overhead_seconds"] == 0.004
          and j["result"]["step_overhead_seconds"] == 0.004, err)
    st, j, err = plan_json(base + ["--mbu", "0.5", "--mfu", "0.3", "--step-overhead", "0.004"])
    check("every figure given on top: nothing calibrated is left",
          j is not None and j["result"]["speed_basis"] != "calibrated"
          and j["result"]["ttft_basis"] != "calibrated" and "speed_calibration" not in j["scenario"], err)
    status, out, err = run(["calibrate", os.path.join(BENCH, "sglang-bench-serving.jsonl"), *SAMPLES[3][1],
                            "--mbu", "0.6"])
    check("calibrate --mbu holds MBU and fits the rest", status == 0 and "0.600 (was 0.600): held as given (--mbu)" in out,
          out[-900:] + err)


def test_memory_calibration_takes_the_fraction_given():
    cal = os.path.join(TMP, "v1-memory.json")
    status, out, err = run(["calibrate", os.path.join(LOGS, "vllm-v1-startup.log"), "--model", "llama-3.1-8b",
                            "--save", cal])
    check("a vLLM V1 log is saved", status == 0, out + err)
    tokens = {}
    for u in (None, "0.95", "0.8"):
        args = ["--model", "llama-3.1-8b", "--context", "32k", "--calibration", cal]
        st, j, err = plan_json(args + (["--gpu-memory-utilization", u] if u else []))
        tokens[u] = j["result"]["kv_tokens"] if j else None
    check("--gpu-memory-utilization on top of a memory calibration moves the KV cache",
          None not in tokens.values() and tokens["0.95"] > tokens[None] > tokens["0.8"], repr(tokens))
    status, out, err = run(["plan", "--model", "llama-3.1-8b", "--context", "32k", "--calibration", cal,
                            "--gpu-memory-utilization", "0.95"])
    check("and says by how much", status == 0 and "--gpu-memory-utilization: the calibration's KV cache" in err, err)


def test_another_gpu_model_or_engine_warns_by_name():
    _, _, cal, _ = saved("sglang-bench-serving.jsonl", SAMPLES[3][1])
    status, out, err = run(["plan", "--model", "llama-3.1-8b", "--gpu", "h200", "--calibration", cal])
    check("another GPU: warned by both names", status == 0 and
          "calibration from NVIDIA H100 SXM5 80GB used on NVIDIA H200 SXM 141GB" in err, err)
    status, out, err = run(["plan", "--model", "llama-3.1-70b", "--gpus", "2", "--calibration", cal])
    check("another model: warned by both names", status == 0 and
          "calibration of llama-3.1-8b used on llama-3.1-70b" in err, err)
    status, out, err = run(["plan", "--model", "llama-3.1-8b", "--engine", "vllm", "--calibration", cal])
    check("another engine: warned by both names", status == 0 and
          "calibration with SGLang used on vLLM" in err, err)
    status, out, err = run(["plan", "--model", "llama-3.1-8b", "--calibration", cal])
    check("its own GPU, model and engine: no warning", status == 0 and err == "", err)
    mem = os.path.join(TMP, "a100-memory.json")
    run(["calibrate", os.path.join(LOGS, "vllm-03.log"), "--model", "llama-3-8b", "--gpu", "a100-40gb",
         "--save", mem])
    status, out, err = run(["plan", "--model", "llama-3-8b", "--gpu", "h100-sxm", "--calibration", mem])
    check("a memory calibration on another GPU: warned by name", status == 0 and
          "calibration from NVIDIA A100 SXM4 40GB used on NVIDIA H100 SXM5 80GB" in err, err)


def test_bad_input_is_refused_by_name():
    status, out, err = run(["plan", "--step-overhead", "2"])
    check("--step-overhead 2 is refused naming it", status == 2 and "--step-overhead" in err, err)
    _, _, cal, doc = saved("vllm-serve.json", SAMPLES[1][1])
    doc["speed"]["mbu"] = 1.5
    bad = os.path.join(TMP, "bad-mbu.json")
    with open(bad, "w") as f:
        json.dump(doc, f, indent=1)
    status, out, err = run(["plan", "--model", "llama-3.1-8b", "--calibration", bad])
    check("a calibration's MBU past 1 is refused naming the file and field",
          status == 2 and "bad-mbu.json:" in err and "speed.mbu" in err, err)
    with open(os.path.join(BENCH, "vllm-serve.json")) as f:
        run_doc = json.load(f)
    run_doc["completed"] = 0
    empty = os.path.join(TMP, "no-requests.json")
    with open(empty, "w") as f:
        json.dump(run_doc, f)
    status, out, err = run(["calibrate", empty, *H100])
    check("a benchmark of no completed request is refused naming the file", status == 2
          and "no-requests.json:1:" in err, err)
    run_doc = json.load(open(os.path.join(BENCH, "vllm-serve.json")))
    run_doc["model_id"] = "acme/no-such-model"
    unnamed = os.path.join(TMP, "no-preset-model.json")
    with open(unnamed, "w") as f:
        json.dump(run_doc, f)
    status, out, err = run(["calibrate", unnamed])
    check("a benchmark of a model no preset is, without --model, is refused", status == 2
          and "--model" in err, err)
    status, out, err = run(["calibrate", os.path.join(LOGS, "vllm-03.log"), "--context", "8k"])
    check("a startup log refuses a benchmark's scenario option", status == 2 and "--context" in err, err)


if __name__ == "__main__":
    main([test_each_format_calibrates_and_plan_gives_the_benchmark_back,
          test_the_fit_finds_the_figures_the_samples_were_made_at, test_the_format_comes_from_the_content,
          test_plan_says_calibrated, test_options_on_top_win, test_memory_calibration_takes_the_fraction_given,
          test_another_gpu_model_or_engine_warns_by_name, test_bad_input_is_refused_by_name])
