#!/usr/bin/python3
"""Layouts a stranger meets in the planner and on the command line, on the
real binary: the split a GPU count gets by default is one the engine takes,
Y copies every node's command, T proposes what engines run over nodes, and
llama.cpp's layer split is sized by its fullest GPU.
Usage: t_planner_layouts.py path/to/kvplan. Ends with "N passed, N failed"."""
import json
import math
import os
import re
import subprocess
import sys
import tempfile

from launchlib import check, main

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e2e"))
from ptyterm import PtyTerm  # noqa: E402

K = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build/kvplan")
T = tempfile.mkdtemp(prefix="kvplan-layouts.")
ENV = dict(os.environ, XDG_CONFIG_HOME=os.path.join(T, "config"), LC_ALL="C.UTF-8")
ENV.pop("NO_COLOR", None)
L70 = ["--model", "llama-3.1-70b"]


def run(*args):
    p = subprocess.run([K, *args], capture_output=True, text=True, env=ENV, cwd=T, timeout=60)
    assert p.returncode == 0, "kvplan %s: %d %s" % (" ".join(args), p.returncode, p.stderr)
    return p.stdout


def plan(*args):
    return json.loads(run("plan", "--format", "json", *args))["result"]


def screen(keys, *args, size="120x40"):
    return run(*args, "--size", size, "--dump-screen", "-", "--keys", keys)


def tp_value(text):
    m = re.search(r"^ TP\s+[━─●]+ (.+?)\s{2,}", text, re.M)
    return m.group(1) if m else None


def heads_split(heads, kv, tp):
    # vLLM: ModelConfig.verify_with_parallel_config (vllm/config/model.py) wants
    # num_attention_heads % tensor_parallel_size == 0; QKVParallelLinear
    # (vllm/model_executor/layers/linear.py) divide()s the KV heads by TP, or TP
    # by them (each KV head replicated)
    return heads % tp == 0 and (kv % tp == 0 if tp <= kv else tp % kv == 0)


def test_default_split_is_one_vllm_takes():
    # 12 GPUs of Llama 3.1 70B (64 heads, 8 KV heads) under vLLM: of the
    # layouts vLLM runs (the heads split evenly; a replica over nodes spread
    # evenly, vllm/config/parallel.py ParallelConfig.__post_init__ asserts
    # world_size % nnodes == 0, whole TP groups on a node) the default is the
    # one that serves the most (core/scenario_layout.c): TP 2 x PP 6, 6 a node
    r = plan("--engine", "vllm", *L70, "--gpus", "12")
    check("12 GPUs default to TP 2 x PP 6", (r["tp"], r["pp"], r["replicas"]) == (2, 6, 1), r["tp"])
    for tp in (1, 2, 4):  # each split of the heads as replicas serves fewer
        other = plan("--engine", "vllm", *L70, "--gpus", "12", "--tp", str(tp))
        check("3 x TP 4, 6 x TP 2, 12 x TP 1 serve fewer than the default (TP %d)" % tp,
              other["users_at_service_level"] < r["users_at_service_level"],
              (other["users_at_service_level"], r["users_at_service_level"]))
    text = run("plan", "--engine", "vllm", *L70, "--gpus", "12")
    check("no uneven-split warning by default", "does not divide the model's heads" not in text,
          text[-600:])
    check("--tp 12 as asked still warns under the generic rule (vLLM refuses it)",
          "does not divide the model's heads" in run("plan", "--engine", "generic", *L70,
                                                     "--gpus", "12", "--tp", "12"))
    # the planner opens on the same layout, in the TP value's one form
    args = ["--engine", "vllm", *L70, "--gpus", "12"]
    up = "<Up>" * 3  # Context -> Model -> Stages -> TP
    seen = tp_value(screen(up, *args))
    check("the planner's TP: 2 pp6 x1 repl", seen == "2 pp6 x1 repl", seen)
    # the sweep over GPUs gives each count its engine's split, with no "!"
    out = run("sweep", "--engine", "vllm", "--vary", "gpus=1..8")
    gpus = {r.split()[0]: r.split()[1] for r in out.splitlines()[2:10]}
    check("the sweep's 3 GPUs of 8B (32 heads) are TP 1 x PP 3 (187 users; 3 x TP 1 hold 162)",
          gpus.get("3") == "3=1pp3", out)
    check("the sweep marks no default split", "!" not in "".join(gpus.values()), out)


def osc52(args, key):
    t = PtyTerm([K, *args], cols=120, rows=40, env=ENV)
    try:
        t.wait_for(r"q quit")
        before = len(t.raw)
        t.press(key)
        t.wait_for(r"Copied to the clipboard")
        return t.osc52(before)
    finally:
        t.kill()


def test_y_copies_every_nodes_command():
    for what, args in (("vLLM DP over nodes", ["--engine", "vllm", *L70, "--gpus", "12"]),
                       ("llama.cpp replicas", ["--engine", "llama.cpp", *L70, "--gpus", "16",
                                               "--tp", "4"]),
                       ("SGLang TP 16", ["--engine", "sglang", "--model", "llama-3.1-405b",
                                         "--gpus", "16", "--tp", "16"])):
        servers = plan(*args)["engine"]["launch_servers"]
        try:
            got = osc52(args, "Y")
        except AssertionError as e:
            check("Y on a terminal: " + what, False, str(e)[-400:])
            continue
        check("Y copies the %d commands of %s" % (len(servers), what),
              len(servers) > 1 and got == "\n".join(servers), got)
    text = screen("Y", "--engine", "vllm", *L70, "--gpus", "12")
    check("the Copied box shows node 0's and node 1's",
          "node 0 of 2" in text and "node 1 of 2" in text, text)
    one = plan("--engine", "vllm", *L70, "--gpus", "8")["engine"]
    check("one node: Y's launch line alone", "launch_servers" not in one, one.get("launch"))


def test_sglang_over_nodes():
    # sglang/srt/server_args.py: --nnodes, --node-rank, --dist-init-addr host:port
    wide = plan("--engine", "sglang", "--model", "llama-3.1-405b", "--gpus", "32", "--tp", "8",
                "--pp", "2")["engine"]["launch_servers"]
    check("2 replicas of 2 nodes: 4 commands", len(wide) == 4, wide)
    check("each with --nnodes 2 and its --node-rank",
          all("--nnodes 2" in c and ("--node-rank %d" % (i % 2)) in c and "--dist-init-addr" in c
              for i, c in enumerate(wide)), wide)
    check("no --dp between replicas that are servers of their own",
          not any(" --dp " in c for c in wide), wide)
    dp = plan("--engine", "sglang", *L70, "--gpus", "16", "--tp", "4")["engine"]["launch_servers"]
    check("TP 4 x 4 over 2 nodes: a server a node, --dp-size 2 each",
          len(dp) == 2 and all("--dp-size 2" in c and " --dp 4" not in c for c in dp), dp)


def test_llamacpp_over_nodes():
    args = ["--engine", "llama.cpp", *L70, "--gpus", "16"]
    servers = plan(*args)["engine"]["launch_servers"]
    check("a layer split over 2 nodes: node 0's llama-server names node 1 in --rpc",
          len(servers) == 2 and "llama-server" in servers[0] and "--rpc" in servers[0], servers)
    node1 = servers[1].split("#")[0] if len(servers) > 1 else ""
    check("node 1 runs rpc-server", "rpc-server" in node1 and "llama-server" not in node1, servers)
    text = run("plan", *args)
    check("no tensor-parallel warning for a layer split", "tensor parallel across" not in text,
          text[-800:])
    out = run("solve", "--users", "1000", "--engine", "llama.cpp", *L70, "--gpu", "h100-sxm")
    check("solve: no TP note for a layer split wider than a node", "spans nodes" not in out, out)


def options(keys, *args):
    return [l for l in screen(keys, *args).splitlines() if re.search(r"│ \d  ", l)]


def test_t_proposes_what_engines_run():
    opts = options("T100<Enter>", "--engine", "vllm", "--model", "llama-3.1-405b")
    gpus = [o for o in opts if "GPUs (" in o]
    check("405B: more GPUs as TP 8 and pipeline stages", gpus and "TP8 PP" in gpus[0], opts)
    check("405B: no TP wider than a node", not any(re.search(r"TP ?16", o) for o in opts), opts)
    opts = options("T20<Enter>", "--engine", "llama.cpp", *L70)
    gpus = [o for o in opts if "GPUs (" in o]
    check("llama.cpp: a layer split, not TP", gpus and "layers/" in gpus[0]
          and "TP" not in gpus[0], opts)


def fullest(layers, gpus):
    # llama.cpp's llama_model::load_tensors (src/llama-model.cpp), split mode
    # layer, -ngl 999: layers + 1 slots (the output layer last), slot il on
    # device upper_bound(splits, il / act) with splits the running shares of
    # alike GPUs; the most repeating layers any device gets
    act = layers + 1
    splits = [(d + 1) / gpus for d in range(gpus)]
    count = [0] * gpus
    for il in range(layers):
        count[next(d for d, s in enumerate(splits) if s > il / act)] += 1
    return max(count)


def test_llamacpp_layer_split_sized_by_fullest_gpu():
    r = plan("--engine", "llama.cpp", *L70, "--gpus", "12")
    most = fullest(80, 12)
    check("80 layers over 12 GPUs: the fullest holds 7", most == 7, most)
    want = math.ceil(r["weights_bytes"] * most / 80)
    check("weights per GPU are the fullest GPU's",
          abs(r["weights_bytes_per_gpu"] - want) <= 1, (r["weights_bytes_per_gpu"], want))
    one = plan("--engine", "llama.cpp", *L70, "--gpus", "1", "--context", "1k")
    cache = r["engine"]["kv_cache_bytes_per_gpu"]
    slots = r["engine"]["slots"]
    per_slot = one["engine"]["kv_cache_bytes_per_gpu"] / one["engine"]["slots"] * 8
    check("the cache per GPU is the fullest GPU's 7 of 80 layers",
          abs(cache - per_slot * slots * most / 80) <= per_slot, (cache, per_slot * slots * 7 / 80))
    text = run("plan", "--engine", "llama.cpp", *L70, "--gpus", "12")
    check("the explain row says the fullest GPU's layers",
          "x 7 layers on the fullest GPU / 80 layers" in text, text[:1500])


main([test_default_split_is_one_vllm_takes, test_y_copies_every_nodes_command,
      test_sglang_over_nodes, test_llamacpp_over_nodes, test_t_proposes_what_engines_run,
      test_llamacpp_layer_split_sized_by_fullest_gpu], T)
