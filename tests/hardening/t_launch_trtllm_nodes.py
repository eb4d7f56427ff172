#!/usr/bin/python3
"""TensorRT-LLM over several nodes (8 GPUs each): a replica wider than a node
runs under MPI, one process a GPU (TP x PP of them), each wrapped in
trtllm-llmapi-launch, which starts the LLM API's workers on MPI's ranks and
the server on rank 0. TensorRT-LLM 1.x, docs/source/commands/trtllm-serve/
trtllm-serve.rst, "Multi-node Serving with Slurm" (srun --ntasks 16
--ntasks-per-node=8 --mpi=pmix ... trtllm-llmapi-launch trtllm-serve ...
--tp_size 16) and examples/llm-api/llm_mgmn_trtllm_serve.sh ("the number of
MPI processes should be the same as the model world size"). So the launch
line is `mpirun -np N trtllm-llmapi-launch trtllm-serve ...`, and with several
such replicas each is a command of its own naming its nodes in -H
("$NODE_1":8,"$NODE_2":8); replicas within a node over several nodes are a
server each on its node's GPUs and --port; one node needs no MPI.

Usage: t_launch_trtllm_nodes.py KVPLAN. Ends with "N passed, N failed"."""
import json
import os
import shlex
import subprocess
import sys
import tempfile

from tally import check, finish

K = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build/kvplan")
ENV = dict(os.environ, XDG_CONFIG_HOME=tempfile.mkdtemp(prefix="kvplan-trtllm."))
NODES = {"NODE_%d" % i: "10.0.0.%d" % i for i in range(1, 9)}


def engine(args):
    p = subprocess.run([K, "plan", "--format", "json", "--engine", "trtllm", "--context", "8k"]
                       + args, capture_output=True, text=True, env=ENV, timeout=60)
    check(p.returncode == 0, "%s: exit %d %s" % (args, p.returncode, p.stderr))
    return json.loads(p.stdout)["result"]["engine"] if p.returncode == 0 else {}


def words(line):
    """The words /bin/sh reads from the line, the NODE_i set as a user sets them."""
    script = "".join("%s=%s\n" % kv for kv in NODES.items()) + \
        "set -- %s\nprintf '%%s\\0' \"$@\"\n" % line
    out = subprocess.run(["/bin/sh", "-c", script], capture_output=True,
                         env={"PATH": "/nonexistent"}, timeout=10)
    return out.stdout.decode().split("\0")[:-1]


def value(w, flag):
    return w[w.index(flag) + 1] if flag in w else None


def under_mpi(w, np, tp, pp):
    """mpirun [-H ...] -np N trtllm-llmapi-launch trtllm-serve MODEL ... --tp_size --pp_size"""
    at = w.index("trtllm-llmapi-launch") if "trtllm-llmapi-launch" in w else -1
    return (w[:1] == ["mpirun"] and value(w, "-np") == str(np) and at > 0
            and w[at + 1] == "trtllm-serve" and value(w, "--tp_size") == str(tp)
            and value(w, "--pp_size") == (str(pp) if pp > 1 else None))


# one replica over two nodes, TP 8 x PP 2: one command, under MPI
e = engine(["--model", "llama-3.1-405b", "--gpus", "16", "--tp", "8", "--pp", "2"])
launch = words(e.get("launch", ""))
check(under_mpi(launch, 16, 8, 2), "TP 8 x PP 2: mpirun -np 16 trtllm-llmapi-launch: %s" % launch)
check("launch_servers" not in e, "one replica: one command, the launch line")

# two such replicas: a command each, its own nodes in -H
e = engine(["--model", "llama-3.1-405b", "--gpus", "32", "--tp", "8", "--pp", "2",
            "--kv-dtype", "fp8"])
lines = e.get("launch_servers", [])
check(len(lines) == 2, "2 x (TP 8 x PP 2): a command a replica: %s" % lines)
for k, line in enumerate(lines):
    w = words(line)
    check(w == shlex.split(line.replace("$NODE_", "10.0.0."), comments=True),
          "replica %d: one command, sh and shlex agree" % (k + 1))
    check(under_mpi(w, 16, 8, 2), "replica %d under MPI: %s" % (k + 1, w))
    check(value(w, "-H") == "10.0.0.%d:8,10.0.0.%d:8" % (2 * k + 1, 2 * k + 2),
          "replica %d: its two nodes, 8 slots each: %s" % (k + 1, value(w, "-H")))
    check("dtype: fp8" in line, "replica %d: the options file's remark kept" % (k + 1))

# TP 12: 8 ranks on the first node, 4 on the second (GLM-4.5's 96 query heads
# divide by 12, which TensorRT-LLM asserts; Llama 3.1 405B's 128 do not)
e = engine(["--model", "glm-4.5", "--gpus", "24", "--tp", "12"])
lines = e.get("launch_servers", [])
check(len(lines) == 2 and all(under_mpi(words(l), 12, 12, 1) for l in lines),
      "2 x TP 12: a command each under MPI")
check(lines and value(words(lines[0]), "-H") == "10.0.0.1:8,10.0.0.2:4",
      "TP 12: 8 + 4 slots")

# replicas within a node, over two nodes: a server each, no MPI
e = engine(["--model", "llama-3.1-70b", "--gpus", "16", "--tp", "4"])
lines = [words(l) for l in e.get("launch_servers", [])]
check(len(lines) == 4, "4 x TP 4 over two nodes: a server each")
check(all(w[0].startswith("CUDA_VISIBLE_DEVICES=") and w[1] == "trtllm-serve" for w in lines),
      "each its GPUs, then trtllm-serve")
check([w[0] for w in lines[:2]] == ["CUDA_VISIBLE_DEVICES=0,1,2,3", "CUDA_VISIBLE_DEVICES=4,5,6,7"],
      "node 0: disjoint GPUs")
check([value(w, "--port") for w in lines[:2]] == ["8000", "8001"], "node 0: a port each")

# one node: trtllm-serve starts its own workers
e = engine(["--model", "llama-3.1-70b", "--gpus", "8", "--tp", "4"])
check(words(e.get("launch", ""))[:1] == ["trtllm-serve"] and "launch_servers" not in e,
      "one node: trtllm-serve alone")

finish()
