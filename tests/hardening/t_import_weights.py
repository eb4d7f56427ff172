#!/usr/bin/python3
"""import-hf takes the weights' exact bytes from the checkpoint beside the
config: model.safetensors.index.json's metadata.total_size, else the tensors
the *.safetensors headers describe (only the headers are read), and the plan
then uses them in place of params x bits. A header that does not describe its
own file is refused with exit 2, naming the file and the field. --hf-id sets
the model every launch line serves. Usage: t_import_weights.py path/to/kvplan;
ends "N passed, N failed"."""
import json
import os
import struct
import subprocess
import sys
import tempfile

from launchlib import check, main

KVPLAN = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build/kvplan")
TMP = tempfile.mkdtemp(prefix="kvplan-hfweights-")
ENV = dict(os.environ, XDG_CONFIG_HOME=os.path.join(TMP, "config"))
CONFIG = {"model_type": "llama", "num_hidden_layers": 2, "hidden_size": 64,
          "num_attention_heads": 4, "num_key_value_heads": 2, "intermediate_size": 128,
          "vocab_size": 100, "max_position_embeddings": 4096, "torch_dtype": "bfloat16"}
SIZES = {"BF16": 2, "F8_E4M3": 1, "I8": 1, "F32": 4}


def run(*args):
    return subprocess.run([KVPLAN] + list(args), capture_output=True, text=True, env=ENV,
                          timeout=60)


def checkpoint(name, files=(), index=None):
    """A folder with the config, safetensors files {file: {tensor: (dtype, shape)}}
    (their data zeros) and an index's text; returns the config's path."""
    d = os.path.join(TMP, name)
    os.makedirs(d)
    with open(os.path.join(d, "config.json"), "w") as f:
        json.dump(CONFIG, f)
    for fname, tensors in files:
        header, off = {"__metadata__": {"format": "pt"}}, 0
        for tname, (dtype, shape) in tensors.items():
            n = SIZES[dtype]
            for s in shape:
                n *= s
            header[tname] = {"dtype": dtype, "shape": shape, "data_offsets": [off, off + n]}
            off += n
        raw = json.dumps(header).encode()
        with open(os.path.join(d, fname), "wb") as f:
            f.write(struct.pack("<Q", len(raw)) + raw + b"\0" * off)
    if index is not None:
        with open(os.path.join(d, "model.safetensors.index.json"), "w") as f:
            f.write(index)
    return os.path.join(d, "config.json")


SHARDS = [("model-00001-of-00002.safetensors",
           {"embed": ("BF16", [100, 64]), "q": ("F8_E4M3", [64, 64]), "s": ("F32", [64])}),
          ("model-00002-of-00002.safetensors", {"k": ("I8", [32, 64]), "v": ("I8", [32, 64])})]
EXACT = 100 * 64 * 2 + 64 * 64 + 64 * 4 + 2 * 32 * 64


def test_headers_give_the_exact_bytes():
    path = checkpoint("shards", SHARDS)
    r = run("import-hf", path, "--id", "shards")
    check("the headers are read", r.returncode == 0, r.stderr)
    preset = json.loads(r.stdout)
    check("weights_bytes is the tensors' sum", preset.get("weights_bytes") == EXACT,
          "%r != %d" % (preset.get("weights_bytes"), EXACT))
    check("the sum by dtype is said",
          "in 5 tensors of 2 safetensors files: I8 4096 F8_E4M3 4096 BF16 12800 F32 256" in
          r.stderr, r.stderr)
    presets = os.path.join(TMP, "presets-shards")
    os.makedirs(presets)
    with open(os.path.join(presets, "m.json"), "w") as f:
        f.write(r.stdout)
    plan = run("plan", "--presets", presets, "--model", "shards", "--format", "json")
    got = json.loads(plan.stdout)["result"]["weights_bytes"] if plan.returncode == 0 else None
    check("the plan uses them, not params x bits", got == EXACT, plan.stderr + repr(got))


def test_the_index_comes_first():
    path = checkpoint("indexed", SHARDS, index='{"metadata": {"total_size": 123456789},\n'
                                               ' "weight_map": {"embed": '
                                               '"model-00001-of-00002.safetensors"}}')
    r = run("import-hf", path)
    check("the index's total_size", r.returncode == 0 and
          json.loads(r.stdout).get("weights_bytes") == 123456789 and
          "metadata.total_size" in r.stderr, r.stderr)
    bad = checkpoint("indexed-bad", index='{"metadata": {"total_size": "big"}}')
    r = run("import-hf", bad)
    check("an index's total_size not a number is refused, naming it",
          r.returncode == 2 and "model.safetensors.index.json:1:" in r.stderr and
          "metadata.total_size" in r.stderr, r.stderr)
    none = checkpoint("indexed-none", index='{"weight_map": {}}')
    r = run("import-hf", none)
    check("an index without metadata is refused", r.returncode == 2 and "metadata: missing" in
          r.stderr, r.stderr)


def test_no_checkpoint_no_bytes():
    r = run("import-hf", checkpoint("bare"))
    check("a config alone: params x bits", r.returncode == 0 and
          "weights_bytes" not in json.loads(r.stdout) and "weights:" not in r.stderr, r.stderr)


def hostile(name, raw, field):
    d = checkpoint(name)
    with open(os.path.join(os.path.dirname(d), "model.safetensors"), "wb") as f:
        f.write(raw)
    r = run("import-hf", d)
    check("%s: exit 2 naming %r" % (name, field), r.returncode == 2 and
          "model.safetensors: " in r.stderr and field in r.stderr, r.stderr)


def image(header, data_len):
    raw = json.dumps(header).encode()
    return struct.pack("<Q", len(raw)) + raw + b"\0" * data_len


def test_hostile_headers_are_refused():
    hostile("long", struct.pack("<Q", 4096) + b"{}", "header length: 4096 bytes, past the end")
    hostile("huge", struct.pack("<Q", 200 * 1000 * 1000) + b"{}", "more than 100000000")
    hostile("short", b"\1\0\0", "header length: the file has 3 bytes, fewer than 8")
    hostile("past", image({"a": {"dtype": "BF16", "shape": [8], "data_offsets": [0, 16]}}, 4),
            "a.data_offsets: end 16 is past the data's 4 bytes")
    hostile("overlap", image({"a": {"dtype": "I8", "shape": [4], "data_offsets": [0, 4]},
                              "b": {"dtype": "I8", "shape": [4], "data_offsets": [3, 7]}}, 7),
            "data_offsets: overlap")
    hostile("dtype", image({"a": {"dtype": "Q4_K", "shape": [4], "data_offsets": [0, 4]}}, 4),
            "a.dtype: 'Q4_K' is not a safetensors dtype")
    hostile("product", image({"a": {"dtype": "F8_E4M3", "shape": [2 ** 33, 2 ** 33],
                                    "data_offsets": [0, 0]}}, 0), "the product of the dimensions")
    hostile("name", image({"a\u001b]0;x\u0007": {"dtype": "I8", "shape": [1],
                                                   "data_offsets": [0, 1]}}, 1),
            "tensor name: empty or holding a control byte")
    hostile("json", struct.pack("<Q", 5) + b"{\"a\":", "header: not one JSON object")


def test_hf_id_names_the_launch_lines():
    path = checkpoint("named")
    presets = os.path.join(TMP, "presets-named")
    os.makedirs(presets)
    r = run("import-hf", path, "--id", "named", "--hf-id", "acme/Named-7B",
            "-o", os.path.join(presets, "m.json"))
    check("--hf-id is taken", r.returncode == 0, r.stderr)
    with open(os.path.join(presets, "m.json")) as f:
        check("the preset's hf_id", json.load(f)["hf_id"] == "acme/Named-7B")
    for engine, want in (("vllm", "vllm serve acme/Named-7B "),
                         ("sglang", "--model-path acme/Named-7B "),
                         ("trtllm", "trtllm-serve acme/Named-7B ")):
        p = run("plan", "--presets", presets, "--model", "named", "--engine", engine)
        check("%s's launch line serves the --hf-id" % engine, want in p.stdout, p.stdout)
    p = run("plan", "--presets", presets, "--model", "named", "--engine", "llama.cpp")
    check("llama.cpp keeps its local GGUF file", "llama-server -m named.gguf" in p.stdout,
          p.stdout)
    local = dict(CONFIG, _name_or_path="/mnt/models/named")
    with open(path, "w") as f:
        json.dump(local, f)
    r = run("import-hf", path, "--hf-id", "acme/Named-7B")
    check("--hf-id over a local _name_or_path: no note that launch lines name the preset id",
          r.returncode == 0 and json.loads(r.stdout)["hf_id"] == "acme/Named-7B" and
          "_name_or_path" not in r.stderr, r.stderr)
    for bad in ("acme/../x", "a b", "--trust-remote-code", "acme/x/y"):
        r = run("import-hf", path, "--hf-id", bad)
        check("--hf-id %r is refused" % bad, r.returncode == 2 and "--hf-id:" in r.stderr,
              r.stderr)


def test_incomplete_checkpoints_are_refused():
    """A folder holding some of a checkpoint's shards (a download cut short)
    would plan the model with a fraction of its weights."""
    r = run("import-hf", checkpoint("half", SHARDS[:1]))
    check("shard 1 of 2 alone: exit 2 naming the missing shard", r.returncode == 2 and
          "model-00002-of-00002.safetensors is missing" in r.stderr and r.stdout == "",
          r.stderr)
    r = run("import-hf", checkpoint("second-half", SHARDS[1:]))
    check("shard 2 of 2 alone: exit 2 naming shard 1", r.returncode == 2 and
          "model-00001-of-00002.safetensors is missing" in r.stderr, r.stderr)
    index = json.dumps({"metadata": {"total_size": EXACT},
                        "weight_map": {"embed": SHARDS[0][0], "k": SHARDS[1][0]}})
    r = run("import-hf", checkpoint("indexed-half", SHARDS[:1], index=index))
    check("an index naming a file not there: exit 2 naming it", r.returncode == 2 and
          "weight_map: tensor 'k' is in model-00002-of-00002.safetensors, which is not in" in
          r.stderr, r.stderr)
    r = run("import-hf", checkpoint("indexed-whole", SHARDS, index=index))
    check("an index whose files are all there is read", r.returncode == 0 and
          json.loads(r.stdout).get("weights_bytes") == EXACT, r.stderr)
    # the index alone beside config.json (downloaded to plan, as hf-mem reads
    # it): its metadata.total_size, no shard needed
    r = run("import-hf", checkpoint("indexed-alone", [], index=index))
    check("the index alone, no shard downloaded: its total_size", r.returncode == 0 and
          json.loads(r.stdout).get("weights_bytes") == EXACT, r.stderr)


def test_weights_far_from_the_dimensions_are_said():
    """The dimensions give params x torch_dtype; a checkpoint holding far
    less (or more) is named with both figures."""
    params = json.loads(run("import-hf", checkpoint("dims")).stdout)["params"]
    tiny = [("model.safetensors", {"w": ("BF16", [16])})]
    r = run("import-hf", checkpoint("tiny", tiny))
    check("32 bytes against params x bf16: a warning with both figures", r.returncode == 0 and
          "warning: the checkpoint holds 32 bytes" in r.stderr and
          "x bf16 make %d bytes" % (2 * params) in r.stderr, r.stderr)
    whole = [("model.safetensors", {"w": ("BF16", [params])})]
    r = run("import-hf", checkpoint("whole", whole))
    check("the two figures within 2x: no warning", r.returncode == 0 and
          "warning" not in r.stderr, r.stderr)


main([test_incomplete_checkpoints_are_refused, test_weights_far_from_the_dimensions_are_said,
      test_headers_give_the_exact_bytes, test_the_index_comes_first, test_no_checkpoint_no_bytes,
      test_hostile_headers_are_refused, test_hf_id_names_the_launch_lines], TMP)
