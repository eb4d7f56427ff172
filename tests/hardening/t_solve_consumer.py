"""solve on the consumer path (llama.cpp, Ollama): --max-context stops at the
model's longest context (max_context_tokens, as plan warns past it and as
Ollama lowers num_ctx to n_ctx_train: llm/server.go NewLlamaServer), says when
that and not the memory ended it, and gives the answer's llama.cpp split and
launch line, in text and in JSON (bytes and tokens as plain numbers); solve
--engine ollama without --context plans each layout at the num_ctx Ollama
picks on its GPUs (server/routes.go Serve, ollama v0.32.15: by the GPUs' total
memory), the context its launch line sets.

Usage: t_solve_consumer.py KVPLAN. Ends with "N passed, N failed"."""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from tally import check, finish  # noqa: E402

K = os.path.abspath(sys.argv[1])
T = tempfile.mkdtemp(prefix="kvplan-solve-consumer.")
ENV = dict(os.environ, XDG_CONFIG_HOME=os.path.join(T, "config"), LC_ALL="C.UTF-8")
L70 = ["--model", "llama-3.1-70b", "--weight-dtype", "q4_k_m", "--gpu", "rtx-4090", "--host-memory", "64GiB"]
L8 = ["--model", "llama-3.1-8b", "--weight-dtype", "q4_k_m", "--gpu", "rtx-4090"]


def run(*args):
    p = subprocess.run([K] + list(args), capture_output=True, text=True, env=ENV, timeout=120)
    return p.returncode, p.stdout, p.stderr


def solve_json(*args):
    rc, out, err = run("solve", "--format", "json", *args)
    try:
        return rc, json.loads(out)
    except ValueError:
        return rc, {"error": err}


def model_max(mid):
    with open(os.path.join(HERE, "..", "..", "presets", "models", mid + ".json")) as f:
        return json.load(f)["max_context_tokens"]


# --- llama.cpp: the model's longest context, the split and the launch line
top = model_max("llama-3.1-70b")
rc, j = solve_json("--engine", "llama.cpp", "--users", "1", "--max-context", *L70)
check(rc == 0 and j.get("max_context_tokens") == top and j.get("capped_at_model_max") is True and
      j.get("model_max_context_tokens") == top, "llama.cpp 70B: capped at %d: %s" % (top, j))
o = j.get("offload") or {}
check(isinstance(o.get("gpu_layers"), int) and 0 < o["gpu_layers"] < 80 and o.get("cpu_layers") == 80 - o["gpu_layers"]
      and isinstance(o.get("gpu_weights_bytes_per_gpu"), int) and isinstance(o.get("host_weights_bytes"), int)
      and isinstance(o.get("host_kv_bytes"), int), "llama.cpp 70B: the split in bytes and layers: %s" % o)
launch = j.get("launch") or ""
check(launch.startswith("llama-server -m llama-3.1-70b.gguf -c %d " % top) and ("-ngl %d" % o.get("n_gpu_layers")) in launch,
      "llama.cpp 70B: the launch line at the answer: %s" % launch)
rc, out, err = run("solve", "--engine", "llama.cpp", "--users", "1", "--max-context", *L70)
lines = out.splitlines()
check(rc == 0 and lines and lines[0].endswith(": 131,072 (128k) tokens") and
      any("the model's longest context" in x for x in lines) and any(x.startswith("  split: -ngl ") for x in lines)
      and any(x.startswith("  launch: llama-server -m ") for x in lines), "llama.cpp 70B text: %s" % out)
# the memory, not the model, ends a search with most layers held on the GPU
rc, j = solve_json("--engine", "llama.cpp", "--users", "1", "--max-context", "-ngl", "40", *L70)
check(rc == 0 and 0 < j.get("max_context_tokens", 0) < top and j.get("capped_at_model_max") is False,
      "llama.cpp 70B -ngl 40: the memory's answer below the model's: %s" % {k: j.get(k) for k in ("max_context_tokens", "capped_at_model_max")})
# a GPU whose memory holds more than the model takes: still the model's longest
rc, j = solve_json("--engine", "llama.cpp", "--users", "1", "--max-context", *L8)
check(rc == 0 and j.get("max_context_tokens") == model_max("llama-3.1-8b"), "llama.cpp 8B: %s" % j.get("max_context_tokens"))
# the generic rule: no engine split, no launch line
rc, j = solve_json("--users", "10", "--max-context", "--model", "llama-3.1-8b", "--gpu", "h100-sxm")
check(rc == 0 and j.get("offload") is None and j.get("launch") is None, "generic: %s" % j)

# --- Ollama: --max-context as OLLAMA_CONTEXT_LENGTH, never past n_ctx_train
rc, j = solve_json("--engine", "ollama", "--users", "1", "--max-context", *L8)
best = j.get("max_context_tokens")
check(rc == 0 and best == model_max("llama-3.1-8b"), "ollama 8B --max-context: %s" % best)
check(("OLLAMA_CONTEXT_LENGTH=%s OLLAMA_NUM_PARALLEL=1 ollama serve" % best) in (j.get("launch") or ""),
      "ollama 8B: the launch line sets the context found: %s" % j.get("launch"))
rc, j = solve_json("--engine", "ollama", "--users", "3", "--max-context", *L8)
check(rc == 0 and "OLLAMA_CONTEXT_LENGTH=%d OLLAMA_NUM_PARALLEL=3 " % j.get("max_context_tokens", -1) in (j.get("launch") or ""),
      "ollama 8B, 3 users: %s" % j.get("launch"))

# --- Ollama comparing GPUs without --context: each row at Ollama's own num_ctx there
rc, j = solve_json("--engine", "ollama", "--users", "2", *L8[:-2], "--gpu", "rtx-4090", "--gpu", "rtx-3090")
rows = {r["gpu"]: r for r in j.get("rows", [])}
r4090 = rows.get("rtx-4090", {})
check(rc == 0 and r4090.get("solved") and r4090.get("context_tokens") == 32768,
      "ollama on one 24 GB card: 32,768, the VRAM tier's: %s" % r4090)
for gpu, r in rows.items():
    if not r.get("solved"):
        continue
    rc, out, err = run("plan", "--format", "json", "--engine", "ollama", *L8[:-2], "--gpu", gpu,
                       "--gpus", str(r["gpus"]), "--parallel", "2")
    p = json.loads(out) if rc == 0 else {}
    check(p.get("scenario", {}).get("context_tokens") == r.get("context_tokens"),
          "ollama %s x %d: the row's context is the plan's default: %s vs %s" %
          (gpu, r["gpus"], r.get("context_tokens"), p.get("scenario", {}).get("context_tokens")))
rc, out, err = run("solve", "--engine", "ollama", "--users", "2", *L8[:-2], "--gpu", "rtx-4090")
check(rc == 0 and "Ollama's default context" in out and "CONTEXT" in out and " 32768" in out,
      "ollama text: the context column: %s" % out)
# --context given: every row at it, no column
rc, j = solve_json("--engine", "ollama", "--users", "2", "--context", "8k", *L8[:-2], "--gpu", "rtx-4090")
check(rc == 0 and all("context_tokens" not in r for r in j.get("rows", [])) and j.get("context_tokens") == 8192,
      "ollama --context 8k: %s" % j)

# --- the fit search sized for the users asked, as plan --parallel N sizes it
# (core/policy_llamacpp.c llamacpp_budget: without -np the search holds one
# slot): gpt-oss-120b, 4 users at 32k on one RTX 4090 with 96 GiB of host
# memory: plan --parallel 4 keeps the experts of 27 layers on the CPU and
# serves the 4 on one card; solve asked for 4 cards (TP 4, 17 users) when
# its search held one slot
OSS = ["--engine", "llama.cpp", "--model", "gpt-oss-120b", "--gpu", "rtx-4090",
       "--host-memory", "96GiB", "--context", "32k"]
rc, out, err = run("plan", "--format", "json", *OSS, "--parallel", "4")
p = json.loads(out) if rc == 0 else {}
pr = p.get("result", {})
check(pr.get("max_users") == 4 and pr.get("engine", {}).get("offload", {}).get("n_cpu_moe") == 27,
      "plan --parallel 4: 4 users, --n-cpu-moe 27: %s" % pr.get("max_users"))
rc, j = solve_json("--users", "4", *OSS)
row = (j.get("rows") or [{}])[0]
check(rc == 0 and row.get("gpus") == 1 and row.get("users") == 4 and row.get("parallel") == 4,
      "solve --users 4: one card, -np 4, as plan: %s" % row)
check(abs((row.get("cost_per_million_output_tokens") or 0) - pr.get("cost_per_million_output_tokens", -1)) < 1e-9,
      "solve's cost is plan --parallel 4's: %s vs %s" % (row.get("cost_per_million_output_tokens"),
                                                          pr.get("cost_per_million_output_tokens")))
rc, j = solve_json("--users", "4", "--max-context", *OSS)
check(rc == 0 and " -np 4 " in (j.get("launch") or ""), "solve --max-context: -np 4: %s" % j.get("launch"))

finish()
