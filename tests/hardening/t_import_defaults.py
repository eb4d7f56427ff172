#!/usr/bin/python3
"""import-hf reads a published config as transformers loads it: a field the
config leaves out takes its class's default (transformers'
configuration_<model>.py), the output names each such field and the class,
the layer pattern comes from sliding_window_pattern or the family's rule, and
a window no layer takes is a warning, never dropped unsaid.
The published Gemma 3 27B config (google/gemma-3-27b-it config.json: no
vocab_size, no max_position_embeddings, no layer pattern, the text model under
text_config) plans as the catalogue's preset: the same KV per token and the
same users at 128k. Usage: t_import_defaults.py path/to/kvplan; ends
"N passed, N failed"."""
import json
import os
import subprocess
import sys
import tempfile

from launchlib import check, main

KVPLAN = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build/kvplan")
HERE = os.path.dirname(os.path.abspath(__file__))
GEMMA = os.path.join(HERE, "..", "data", "hf-published", "gemma-3-27b-it", "config.json")
TMP = tempfile.mkdtemp(prefix="kvplan-hfdefaults-")
ENV = dict(os.environ, XDG_CONFIG_HOME=os.path.join(TMP, "config"))


def run(*args):
    return subprocess.run([KVPLAN] + list(args), capture_output=True, text=True, env=ENV,
                          timeout=60)


def imported(config, *extra):
    """import-hf of a config given as a dict: (exit status, preset or None, stderr)"""
    path = os.path.join(TMP, "config-%d.json" % len(os.listdir(TMP)))
    with open(path, "w") as f:
        json.dump(config, f)
    r = run("import-hf", path, *extra)
    return r.returncode, json.loads(r.stdout) if r.returncode == 0 else None, r.stderr


def test_published_gemma3_plans_as_the_catalogue():
    presets = os.path.join(TMP, "presets")
    os.makedirs(presets, exist_ok=True)
    r = run("import-hf", GEMMA, "--id", "gemma-3-27b-imported",
            "-o", os.path.join(presets, "g.json"))
    check("the published Gemma 3 27B config imports", r.returncode == 0, r.stderr)
    check("the defaulted fields and their class are named",
          "defaulted as transformers' Gemma3TextConfig" in r.stderr and
          "vocab_size 262208" in r.stderr and "max_position_embeddings 131072" in r.stderr and
          "sliding_window_pattern 6" in r.stderr, r.stderr)
    with open(os.path.join(presets, "g.json")) as f:
        preset = json.load(f)
    check("the preset's source names the defaults",
          "Gemma3TextConfig" in preset["source"], preset["source"])
    sw = preset.get("sliding_window") or {}
    check("the 1024-token window on 52 of 62 layers",
          (sw.get("window_tokens"), sw.get("windowed_layers")) == (1024, 52), repr(sw))
    got = run("plan", "--presets", presets, "--model", "gemma-3-27b-imported",
              "--context", "128k", "--format", "json")
    want = run("plan", "--model", "gemma-3-27b", "--context", "128k", "--format", "json")
    check("both plan", got.returncode == 0 and want.returncode == 0, got.stderr + want.stderr)
    a, b = json.loads(got.stdout)["result"], json.loads(want.stdout)["result"]
    for key in ("kv_bytes_per_token_per_gpu", "max_users", "kv_tokens", "weights_bytes"):
        check("%s as the catalogue's preset" % key, a[key] == b[key],
              "%r != %r" % (a[key], b[key]))
    check("one user at 128k", a["max_users"] == 1, repr(a["max_users"]))


BASE = {"num_hidden_layers": 4, "hidden_size": 64, "num_attention_heads": 8,
        "intermediate_size": 128, "vocab_size": 100, "max_position_embeddings": 4096}


def test_mistral_defaults():
    rc, p, err = imported(dict(BASE, model_type="mistral"))
    check("mistral: MistralConfig's sliding_window 4096 on every layer",
          rc == 0 and p["sliding_window"] and p["sliding_window"]["window_tokens"] == 4096 and
          p["sliding_window"]["windowed_layers"] == 4, err)
    check("mistral: MistralConfig's 8 KV heads", rc == 0 and p["num_kv_heads"] == 8, err)
    check("mistral: said", "MistralConfig" in err and "sliding_window 4096" in err and
          "num_key_value_heads 8" in err, err)
    rc, p, err = imported(dict(BASE, model_type="mistral", sliding_window=None,
                               num_key_value_heads=2))
    check("mistral: a null window is none (transformers' None)",
          rc == 0 and p["sliding_window"] is None and p["num_kv_heads"] == 2, err)


def test_qwen_windows_from_max_window_layers():
    q = dict(BASE, model_type="qwen2", num_key_value_heads=2, use_sliding_window=True, sliding_window=256,
             max_window_layers=1)
    rc, p, err = imported(q)
    check("qwen2: layers from max_window_layers slide",
          rc == 0 and p["sliding_window"] and p["sliding_window"]["windowed_layers"] == 3, err)
    rc, p, err = imported(dict(q, use_sliding_window=False))
    check("qwen2: use_sliding_window false disables it, and says so",
          rc == 0 and p["sliding_window"] is None and "disabled" in err, err)
    rc, p, err = imported(dict(BASE, model_type="qwen3", num_key_value_heads=2,
                                   sliding_window=256))
    check("qwen3: Qwen3Config's use_sliding_window false and head_dim 128",
          rc == 0 and p["sliding_window"] is None and p["head_dim"] == 128 and
          "use_sliding_window false" in err, err)


def test_llama_defaults():
    c = dict(BASE, model_type="llama")
    del c["max_position_embeddings"], c["vocab_size"]
    rc, p, err = imported(c)
    check("llama: LlamaConfig's 2048 positions and 32000 tokens",
          rc == 0 and p["max_context_tokens"] == 2048 and p["vocab_size"] == 32000, err)
    check("llama: no guess noted", "assumed 2,048" not in err, err)


def test_unplaced_window_is_a_warning():
    rc, p, err = imported(dict(BASE, model_type="llama", sliding_window=512))
    check("a window no layer takes is a warning", rc == 0 and
          "warning: sliding_window 512 is not placed" in err and p["sliding_window"] is None, err)
    rc, p, err = imported(dict(BASE, model_type="cohere",
                               layer_types=["sliding_attention", "full_attention"] * 2))
    check("sliding layers without a window are a warning", rc == 0 and
          "warning: 2 sliding layers but no sliding_window" in err and
          p["sliding_window"] is None, err)
    rc, p, err = imported(dict(BASE, model_type="gemma3_text", sliding_window=512,
                               layer_types=["sliding_attention"] * 5))
    check("more windowed layers than layers are refused",
          rc == 2 and "layer_types: 5 windowed layers of 4" in err, err)


def test_more_families():
    c = dict(BASE, model_type="gpt_oss", num_key_value_heads=2, num_local_experts=4,
             num_experts_per_tok=2)
    rc, p, err = imported(c)
    check("gpt_oss: GptOssConfig's window of 128 in alternate layers", rc == 0 and
          p["sliding_window"] and (p["sliding_window"]["window_tokens"],
                                   p["sliding_window"]["windowed_layers"]) == (128, 2), err)
    text = dict(BASE, num_key_value_heads=2, num_local_experts=2, intermediate_size_mlp=64,
                max_position_embeddings=131072)
    rc, p, err = imported({"model_type": "llama4", "text_config": text})
    check("llama4: a text_config without model_type takes Llama4TextConfig's chunk of 8192",
          rc == 0 and p["sliding_window"] and (p["sliding_window"]["window_tokens"],
                                               p["sliding_window"]["windowed_layers"]) ==
          (8192, 3) and "Llama4TextConfig" in err, err)


def test_a_window_past_the_context_is_said():
    rc, p, err = imported(dict(BASE, model_type="mistral", max_position_embeddings=2048))
    check("mistral: MistralConfig's 4096 window past a 2048 context is no window, and said",
          rc == 0 and p["sliding_window"] is None and
          "sliding_window 4096 is more than the 2048-token context" in err, err)


def test_no_default_over_another_spelling():
    c = dict(BASE, model_type="mixtral", num_experts=4, experts_per_token=1)
    rc, p, err = imported(c)
    check("mixtral: num_experts is the config's, not MixtralConfig's num_local_experts 8",
          rc == 0 and p["moe"]["experts"] == 4 and p["moe"]["experts_per_token"] == 1 and
          "num_local_experts" not in err, err)


main([test_published_gemma3_plans_as_the_catalogue, test_mistral_defaults,
      test_qwen_windows_from_max_window_layers, test_llama_defaults,
      test_unplaced_window_is_a_warning, test_more_families, test_a_window_past_the_context_is_said,
      test_no_default_over_another_spelling], TMP)
