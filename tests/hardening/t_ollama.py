#!/usr/bin/python3
"""--engine ollama on the real binary: Ollama's defaults (ollama/ollama
v0.32.15: the VRAM-tiered num_ctx of server/routes.go Serve, one parallel
request of envconfig/config.go), its launch line (the environment of
`ollama serve`), the same plan in text, Markdown and JSON, its row in
`kvplan list engines`, and what Ollama has no setting for refused by name
with exit status 2.
Usage: t_ollama.py path/to/kvplan. Ends with "N passed, N failed"."""
import json
import os
import tempfile

from optionslib import check, main, refused, run

BASE = ["plan", "--engine", "ollama", "--model", "llama-3.1-8b", "--weight-dtype", "q4_k_m",
        "--gpu", "rtx-4090"]
LAUNCH = "OLLAMA_CONTEXT_LENGTH=32768 OLLAMA_NUM_PARALLEL=1 ollama serve  # then: ollama run llama3.1:8b"


def test_defaults_and_launch():
    status, out, err = run(BASE)
    check("ollama plan exits 0", status == 0 and not err, err)
    check("a 24 GB card: one request of 32,768 tokens (the 23 GiB tier)",
          "1 user fits at 32,768 tokens each under Ollama 0.32" in out, out[:300])
    check("the launch line is ollama serve's environment", "Launch              " + LAUNCH in out,
          out)
    check("the log line Ollama writes at startup",
          'msg="vram-based default context" total_vram="23.5 GiB" default_num_ctx=32768' in out)
    for row in ("Ollama's VRAM", "Default num_ctx", "num_ctx ", "Ollama budget",
                "LLAMA_ARG_FIT_TARGET", "OLLAMA_NUM_PARALLEL unset", "llama-server -c"):
        check("the explain rows name %s" % row, row in out)
    # two cards: 47.08 GiB, the 262,144 tier, lowered to Llama 3.1's 131,072
    status, out, err = run(BASE + ["--gpus", "2"])
    check("two 24 GB cards: Llama 3.1's 131,072 (its n_ctx_train)",
          "at 131,072 tokens each" in out and "OLLAMA_CONTEXT_LENGTH=131072" in out, out[:300])


def test_given_options_set_the_environment():
    status, out, err = run(BASE + ["--context", "8k", "--parallel", "3", "--kv-dtype", "q8_0",
                                   "--fit-target", "2GiB"])
    want = ("OLLAMA_CONTEXT_LENGTH=8192 OLLAMA_NUM_PARALLEL=3 OLLAMA_KV_CACHE_TYPE=q8_0 "
            "OLLAMA_FLASH_ATTENTION=1 LLAMA_ARG_FIT_TARGET=2048 ollama serve")
    check("context, parallel, cache type and fit margin as environment", want in out, out)
    check("3 requests at once", "3 users fit at 8,192 tokens each" in out, out[:300])


def test_formats_agree():
    status, out, err = run(BASE + ["--format", "json"])
    r = json.loads(out)["result"]
    check("JSON: profile and release", (r["profile"], r["engine_version"], r["engine_title"]) ==
          ("ollama", "0.32", "Ollama 0.32"), r["profile"])
    check("JSON: one slot of 32,768", (r["engine"]["slots"], r["context_tokens"]) == (1, 32768))
    check("JSON: the launch line", r["engine"]["launch"] == LAUNCH, r["engine"]["launch"])
    status, md, err = run(BASE + ["--format", "markdown"])
    check("Markdown: the engine and the launch line",
          "Ollama 0.32" in md and "OLLAMA_NUM_PARALLEL=1 ollama serve" in md, md[:400])


def test_partial_offload():
    status, out, err = run(["plan", "--engine", "ollama", "--model", "llama-3.1-70b",
                            "--weight-dtype", "q4_k_m", "--gpu", "rtx-4090", "--context", "8k",
                            "--host-memory", "64GiB"])
    check("70B on 24 GB: llama-server's --fit keeps 42 layers on the GPU",
          "-ngl 42 of 81" in out and "the fit search's" in out, out[:400])
    check("no num_gpu when --fit chooses", "ollama serve  # then: ollama run llama3.1:70b\n" in out)


def test_list_engines():
    status, out, err = run(["list", "engines"])
    rows = [l for l in out.splitlines() if l.startswith("ollama ")]
    check("list engines has Ollama's row", rows and "ollama@0.32" in rows[0] and "0.32" in rows[0],
          out)


def test_snapshot_keeps_its_context():
    path = os.path.join(tempfile.mkdtemp(), "o.json")
    status, out, err = run(BASE + ["--context", "16k", "--export", path])
    status, out, err = run(["plan", "--load", path])
    check("a loaded Ollama snapshot keeps its 16k (no default over it)",
          "at 16,384 tokens each under Ollama 0.32" in out, out[:300])


def test_refusals():
    refused(BASE + ["--gpus", "2", "--tp", "2"], "--tp", "Ollama has no tensor parallel")
    refused(BASE + ["--gpus", "2", "--tp", "1"], "--tp", "one server over every GPU")
    refused(BASE + ["--gpus", "2", "--pp", "2"], "--pp", "give them with --gpus")
    refused(BASE + ["--kv-dtype-v", "q8_0"], "--kv-dtype-v", "OLLAMA_KV_CACHE_TYPE")
    refused(BASE + ["--kv-dtype", "bf16"], "--kv-dtype", "no bf16 cache")
    refused(BASE + ["--no-kv-offload"], "--no-kv-offload", "only the GPU layers")
    refused(BASE + ["--max-num-seqs", "4"], "--max-num-seqs", "use --parallel")
    refused(BASE + ["--draft-model", "llama-3.2-1b"], "--draft-model", "Ollama takes a draft")
    refused(BASE + ["--parallel", "300"], "--parallel")


if __name__ == "__main__":
    main([test_defaults_and_launch, test_given_options_set_the_environment, test_formats_agree,
          test_partial_offload, test_list_engines, test_snapshot_keeps_its_context,
          test_refusals])
