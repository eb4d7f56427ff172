#!/usr/bin/python3
"""A plan over several nodes (8 GPUs each) or several servers gives the
commands one runs, one a node or server, in the text report ("Per server"
rows), in Markdown and in JSON (engine.launch_servers), the same in all
three; each is one shell command (sh and shlex agree).

vLLM (docs/serving/data_parallel_deployment.md, "Internal Load Balancing";
docs/serving/parallelism_scaling.md, "Running vLLM with MultiProcessing";
vllm/config/parallel.py ParallelConfig.nnodes, node_rank, master_addr):
data parallel over nodes puts the API server on node 0 and --headless
engines on the others, every node naming the whole --data-parallel-size,
its own --data-parallel-size-local and, past node 0,
--data-parallel-start-rank, with node 0's --data-parallel-address and
--data-parallel-rpc-port; a replica wider than a node runs --nnodes N
--node-rank K --master-addr, --headless past node 0, each replica a server
of its own. llama.cpp (and vLLM V0) run a server a replica, each on its own
CUDA_VISIBLE_DEVICES (counted from 0 on each node) and --port. One node and
one server: no such commands, and the launch line alone.

Usage: t_launch_servers.py KVPLAN. Ends with "N passed, N failed"."""
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile

from tally import check, finish

K = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build/kvplan")
ENV = dict(os.environ, XDG_CONFIG_HOME=tempfile.mkdtemp(prefix="kvplan-servers."))
MODEL = ["--model", "llama-3.1-70b", "--context", "8k"]


def sh_words(line, head="10.0.0.1"):
    """The words /bin/sh reads from the line, HEAD_IP set as a user sets it."""
    script = "HEAD_IP=%s HEAD_IP_1=%s HEAD_IP_2=10.0.0.2\nset -- %s\nprintf '%%s\\0' \"$@\"\n" % (
        head, head, line)
    out = subprocess.run(["/bin/sh", "-c", script], capture_output=True,
                         env={"PATH": "/nonexistent"}, timeout=10)
    return out.stdout.decode().split("\0")[:-1]


def plan(args, fmt):
    p = subprocess.run([K, "plan", "--format", fmt] + MODEL + args, capture_output=True,
                       text=True, env=ENV, timeout=60)
    check(p.returncode == 0, "%s: exit %d %s" % (args, p.returncode, p.stderr))
    return p.stdout


def servers(args):
    """The commands of the JSON result, checked against the text and Markdown reports."""
    engine = json.loads(plan(args, "json"))["result"]["engine"]
    lines = engine.get("launch_servers")
    text = plan(args, "text")
    m = re.search(r"^  Per server {10}(\S.*\n(?: {22}\S.*\n)*)", text, re.M)
    rows = [r[22:] if i else r for i, r in enumerate(m.group(1).splitlines())] if m else []
    md = re.findall(r"^- `+ ?(.*?) ?`+$", plan(args, "markdown"), re.M)
    if lines is None:
        check("Per server" not in text, "%s: no Per server row without commands" % args)
        return None, engine["launch"]
    check(rows == lines, "%s: the text report's rows are the JSON's\n%s\n%s" % (args, rows, lines))
    check(md == lines, "%s: Markdown's list is the JSON's\n%s\n%s" % (args, md, lines))
    for line in lines:
        words = sh_words(line)
        check(words == shlex.split(line.replace('"$HEAD_IP"', "10.0.0.1"), comments=True)
              or "HEAD_IP_" in line, "%s: one command: %s" % (args, line))
    return [sh_words(l) for l in lines], engine["launch"]


def value(words, flag):
    return words[words.index(flag) + 1] if flag in words else None


# vLLM, data parallel over nodes: 8 replicas of TP 4 on 4 nodes, 2 a node
nodes, launch = servers(["--engine", "vllm", "--gpus", "32", "--tp", "4"])
check(nodes is not None and len(nodes) == 4, "32 GPUs as 8 x TP 4: a command a node")
if nodes:
    head = sh_words(launch)
    for k, w in enumerate(nodes):
        check(w[:len(head)] == head, "node %d: the launch line's words first" % k)
        check(value(w, "--data-parallel-size") == "8", "node %d: the whole DP size" % k)
        check(value(w, "--data-parallel-size-local") == "2", "node %d: 2 ranks here" % k)
        check(value(w, "--data-parallel-address") == "10.0.0.1", "node %d: node 0's address" % k)
        check(value(w, "--data-parallel-rpc-port") == "13345", "node %d: one RPC port" % k)
        check(("--headless" in w) == (k > 0), "node %d: headless past node 0" % k)
        check(value(w, "--data-parallel-start-rank") == (str(2 * k) if k else None),
              "node %d: its first rank" % k)
# 3 replicas of TP 4: 2 on node 0, 1 on node 1
nodes, _ = servers(["--engine", "vllm", "--gpus", "12", "--tp", "4"])
check(nodes and [value(w, "--data-parallel-size-local") for w in nodes] == ["2", "1"],
      "3 x TP 4: 2 ranks on node 0, the last on node 1")

# a replica over two nodes: TP 8 x PP 2
nodes, _ = servers(["--engine", "vllm", "--gpus", "16", "--tp", "8", "--pp", "2"])
check(nodes is not None and len(nodes) == 2, "TP 8 x PP 2: a command a node")
if nodes:
    for k, w in enumerate(nodes):
        check(value(w, "--nnodes") == "2" and value(w, "--node-rank") == str(k),
              "node %d: --nnodes 2 --node-rank %d" % (k, k))
        check(value(w, "--master-addr") == "10.0.0.1", "node %d: node 0's address" % k)
        check(("--headless" in w) == (k > 0), "node %d: headless past node 0" % k)
        check(value(w, "-tp") == "8" and value(w, "-pp") == "2", "node %d: the split" % k)
# two replicas of TP 16: each a server of its own over two nodes, no data parallel
nodes, _ = servers(["--engine", "vllm", "--gpus", "32", "--tp", "16"])
check(nodes is not None and len(nodes) == 4, "2 x TP 16: two nodes each")
if nodes:
    check(all("--data-parallel-size" not in w for w in nodes), "no data parallel between them")
    check([value(w, "--master-addr") for w in nodes] == ["10.0.0.1"] * 2 + ["10.0.0.2"] * 2,
          "each replica its own head")

# one node: the launch line alone
nodes, launch = servers(["--engine", "vllm", "--gpus", "8", "--tp", "4"])
check(nodes is None and "--data-parallel-size 2" in launch, "one node: the launch line alone")
nodes, _ = servers(["--engine", "vllm", "--gpus", "8"])
check(nodes is None, "one replica on one node: the launch line alone")

# llama.cpp: a server a replica, its own GPUs and port
for gpus, tp in ((4, 2), (24, 2), (6, 3)):
    nodes, launch = servers(["--engine", "llama.cpp", "--gpus", str(gpus), "--tp", str(tp)])
    reps = gpus // tp
    check(nodes is not None and len(nodes) == reps, "llama.cpp %d x %d: a server each" % (reps, tp))
    if not nodes:
        continue
    per_node = 8 // tp
    for n in range(0, reps, per_node):
        group = nodes[n:n + per_node]
        devs = [w[0].split("=", 1)[1].split(",") for w in group]
        flat = [d for ds in devs for d in ds]
        check(all(len(d) == tp for d in devs) and len(set(flat)) == len(flat)
              and all(0 <= int(d) < 8 for d in flat), "node %d: disjoint GPUs %s" % (n // per_node, devs))
        ports = [value(w, "--port") for w in group]
        check(len(set(ports)) == len(ports), "node %d: a port each %s" % (n // per_node, ports))
        check(all(w[0].startswith("CUDA_VISIBLE_DEVICES=") and w[1] == "llama-server"
                  for w in group), "each starts with its GPUs, then llama-server")
nodes, _ = servers(["--engine", "llama.cpp", "--gpus", "2"])
check(nodes is None, "llama.cpp, one server: the launch line alone")
# vLLM V0 had no data parallel: a server a replica too
nodes, _ = servers(["--engine", "vllm@0", "--gpus", "4", "--tp", "2"])
check(nodes is not None and [value(w, "--port") for w in nodes] == ["8000", "8001"]
      and nodes[1][0] == "CUDA_VISIBLE_DEVICES=2,3", "vllm@0: a server a replica")
finish()
