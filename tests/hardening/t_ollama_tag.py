#!/usr/bin/python3
"""Ollama's launch line runs the model by the Ollama library's name, a
catalogue model's "ollama" field ("llama3.1:8b"), never kvplan's preset id,
which no library holds; a model the library lacks is made from its GGUF by
a Modelfile (ollama create). The default tag holds Q4_K_M weights (a model
released quantized, gpt-oss's MXFP4, holds its release), so a plan in other
weights says to take that precision's tag. A preset's "ollama" is checked:
exit 2 naming the file and the field.
Usage: t_ollama_tag.py path/to/kvplan. Ends with "N passed, N failed"."""
import json
import os

from optionslib import TMP, check, main, refused, run


def launch(*args):
    status, out, err = run(["plan", "--engine", "ollama", "--gpu", "rtx-4090", *args,
                            "--format", "json"])
    if status != 0:
        return "exit %d: %s" % (status, err)
    return json.loads(out)["result"]["engine"]["launch"]


def test_library_names():
    line = launch("--model", "llama-3.1-8b", "--weight-dtype", "q4_k_m")
    check("llama-3.1-8b runs as llama3.1:8b", "ollama run llama3.1:8b" in line, line)
    check("no preset id in the run", "ollama run llama-3.1-8b" not in line, line)
    check("Q4_K_M: the default tag, no remark", "default tag" not in line, line)
    line = launch("--model", "llama-3.1-8b")
    check("bf16 weights: take that tag", "its tag of bf16 weights" in line, line)
    line = launch("--model", "gpt-oss-120b", "-ngl", "20")
    check("gpt-oss-120b runs as gpt-oss:120b", "ollama run gpt-oss:120b" in line, line)
    check("released MXFP4: the default tag, no remark", "its tag of" not in line, line)
    check("num_gpu named with the library model", "PARAMETER num_gpu 20" in line, line)


def test_no_library_name():
    line = launch("--model", "qwen3-next-80b-a3b", "--gpu", "h100-sxm")
    check("no library name: made from its GGUF",
          "ollama create qwen3-next-80b-a3b from a Modelfile of FROM ./qwen3-next-80b-a3b.gguf"
          in line, line)


def test_bad_tag_refused():
    d = os.path.join(TMP, "tagpresets", "models")
    os.makedirs(d, exist_ok=True)
    _, out, _ = run(["show", "model", "llama-3.1-8b", "--format", "json"])
    doc = json.loads(out)
    m = doc.get("model", doc)
    m["id"] = "badtag"
    m["ollama"] = "Llama 3.1; rm -rf ~"
    with open(os.path.join(d, "badtag.json"), "w") as f:
        json.dump(m, f)
    refused(["plan", "--presets", os.path.dirname(d), "--model", "badtag"],
            "badtag.json", "ollama")


main([test_library_names, test_no_library_name, test_bad_tag_refused])
