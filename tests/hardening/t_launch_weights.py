#!/usr/bin/python3
"""The launch line serves the weights the plan counts. Planned in a
precision the checkpoint is not in, vLLM and SGLang quantize a 16-bit
checkpoint to fp8 as they load with --quantization fp8 (vLLM
vllm/model_executor/layers/quantization/fp8.py Fp8Config, "online dynamic
quantization" of a BF16/FP16 checkpoint, docs features/quantization/fp8.md;
SGLang python/sglang/srt/server_args.py --quantization fp8); what no
engine makes at load (int4, or any type for TensorRT-LLM, which quantizes
when a checkpoint is built with ModelOpt, and llama.cpp, whose GGUF file
holds its type) is named in a remark: the checkpoint to serve. Weights as
released add nothing. Usage: t_launch_weights.py path/to/kvplan; ends with
"N passed, N failed"."""
import os
import subprocess
import sys
import tempfile

from launchlib import check, main

KVPLAN = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build/kvplan")
TMP = tempfile.mkdtemp(prefix="kvplan-weights-")
ENV = dict(os.environ, XDG_CONFIG_HOME=os.path.join(TMP, "config"))
MODEL = ["--model", "llama-3.1-70b"]


def launch(*args):
    out = subprocess.run([KVPLAN, "plan", *MODEL, *args], capture_output=True, text=True,
                         env=ENV, timeout=30)
    assert out.returncode == 0, out.stderr
    lines = [l for l in out.stdout.splitlines() if l.startswith("  Launch ")]
    assert len(lines) == 1, out.stdout
    return lines[0].split(None, 1)[1]


def servers(*args):
    out = subprocess.run([KVPLAN, "plan", *MODEL, *args], capture_output=True, text=True,
                         env=ENV, timeout=30)
    lines = out.stdout.splitlines()
    at = [i for i, l in enumerate(lines) if l.startswith("  Per server")]
    assert at, out.stdout
    return lines[at[0]:at[0] + 2]


def test_online_fp8():
    for engine in ("vllm", "sglang"):
        line = launch("--gpus", "4", "--engine", engine, "--weight-dtype", "fp8")
        words = line.split("  #")[0].split()
        check("%s fp8 of a bf16 checkpoint: --quantization fp8" % engine,
              words[-2:] == ["--quantization", "fp8"], line)
        check("%s fp8: no remark" % engine, "#" not in line, line)


def test_each_server_quantizes():
    for l in servers("--gpus", "16", "--tp", "8", "--engine", "vllm", "--weight-dtype", "fp8"):
        check("vllm over nodes: each node's line quantizes", "--quantization fp8" in l, l)


def test_as_released():
    for engine in ("vllm", "sglang", "trtllm", "llama.cpp"):
        for dtype in ([], ["--weight-dtype", "bf16"], ["--weight-dtype", "fp16"]):
            line = launch("--gpus", "4", "--engine", engine, *dtype)
            check("%s %s: nothing added" % (engine, dtype),
                  "--quantization" not in line and "weights:" not in line, line)


def test_not_online():
    cases = [("vllm", "int4", "INT4, a pre-quantized checkpoint"),
             ("sglang", "int4", "INT4, a pre-quantized checkpoint"),
             ("trtllm", "fp8", "FP8, a checkpoint quantized before serving"),
             ("trtllm", "int4", "INT4, a checkpoint quantized before serving"),
             ("llama.cpp", "q4_k_m", "Q4_K_M, the GGUF file")]
    for engine, dtype, says in cases:
        line = launch("--gpus", "4", "--engine", engine, "--weight-dtype", dtype)
        check("%s %s: no --quantization" % (engine, dtype), "--quantization" not in line, line)
        check("%s %s: the remark names the checkpoint" % (engine, dtype),
              "# weights: meta-llama/Llama-3.1-70B in " + says in line, line)


def test_after_another_remark():
    line = launch("--gpus", "8", "--tp", "4", "--engine", "trtllm", "--weight-dtype", "fp8")
    check("trtllm replicas and weights: one remark", line.count("#") == 1 and
          "replicas, one server each; weights: " in line, line)


main([test_online_fp8, test_each_server_quantizes, test_as_released, test_not_online,
      test_after_another_remark], TMP)
