"""import-gguf's blocks: a file whose <arch>.block_count names more blocks than
its blk.N tensors hold, or a tensor of a block past it, refused with the key
or the tensor named (exit 2); the exact bytes of each block kept in the
preset ("gguf"), so that llama.cpp's layer split (-ngl, --n-cpu-moe) puts the
file's own bytes on each device (src/llama-model.cpp load_tensors: the last
-ngl blocks on the GPU, the output layer when -ngl passes n_layer, the token
embedding on the CPU; common/arg.cpp --n-cpu-moe: the *_exps of blocks below
N in host memory); and the launch lines naming the file it came from.

Usage: t_gguf_layers.py KVPLAN. Ends with "N passed, N failed"."""
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import ggufwrite as w  # noqa: E402
from tally import check, finish  # noqa: E402

K = os.path.abspath(sys.argv[1])
T = tempfile.mkdtemp(prefix="kvplan-gguf-layers.")
P = os.path.join(T, "presets")
os.makedirs(P)
ENV = dict(os.environ, XDG_CONFIG_HOME=os.path.join(T, "config"), LC_ALL="C.UTF-8")


def run(*args):
    p = subprocess.run([K] + list(args), capture_output=True, text=True, env=ENV, timeout=60)
    return p.returncode, p.stdout, p.stderr


def imported(name, kvs, tensors):
    path = os.path.join(T, name)
    w.write(path, kvs, tensors)
    return run("import-gguf", path, "-o", os.path.join(P, name[:-5].lower() + ".json"))


def offload(mid, *args):
    rc, out, err = run("plan", "--presets", P, "--model", mid, "--engine", "llama.cpp",
                       "--gpu", "rtx-4090", "--host-memory", "64GiB", "--format", "json", *args)
    if rc != 0:
        return {"error": err}
    return json.loads(out)["result"]["engine"].get("offload") or {}


# --- block_count against the blocks the tensors hold
small = lambda L: w.llama_kvs(layers=L, hidden=64, heads=4, kv=2, ffn=128, ctx=4096)  # noqa: E731
blocks = lambda n: [("token_embd.weight", [64, 32], "F16")] + [  # noqa: E731
    ("blk.%d.attn_q.weight" % i, [64, 64], "F16") for i in range(n)]
rc, _, err = imported("short.gguf", small(4), blocks(3))
check(rc == 2 and "short.gguf: llama.block_count: 4 blocks, but no tensor holds block 3 (blk.3.*)" in err,
      "block_count past the blocks: exit %d %s" % (rc, err))
rc, _, err = imported("gap.gguf", small(3), blocks(1) + [("blk.2.attn_q.weight", [64, 64], "F16")])
check(rc == 2 and "llama.block_count: 3 blocks, but no tensor holds block 1" in err,
      "a block missing between: exit %d %s" % (rc, err))
rc, _, err = imported("past.gguf", small(2), blocks(3))
check(rc == 2 and 'past.gguf: tensor 3 "blk.2.attn_q.weight": block 2 is past llama.block_count 2' in err,
      "a tensor past block_count: exit %d %s" % (rc, err))
rc, _, err = imported("huge.gguf", small(2), blocks(2) + [("blk.99999999999.x", [16], "F32")])
check(rc == 2 and "is past llama.block_count 2" in err, "a block number past 2^32: exit %d %s" % (rc, err))
rc, _, err = imported("even.gguf", small(3), blocks(3))
check(rc == 0, "every block held: exit %d %s" % (rc, err))

# more than 8 sizes of block (the spec keeps 8): the file's name, even shares
rc, _, err = imported("Many-Sizes.gguf", small(10), [("token_embd.weight", [64, 32], "F16")] +
                      [("blk.%d.attn_q.weight" % i, [64, i + 1], "F16") for i in range(10)])
with open(os.path.join(P, "many-sizes.json")) as f:
    many = json.load(f)
check(rc == 0 and many.get("gguf") == {"file": "Many-Sizes.gguf"}, "ten sizes of block: %s %s" % (err, many.get("gguf")))
many["gguf"].update(embed_bytes=4096, output_bytes=0, layer_bytes=[128 * (i + 1) for i in range(10)])
os.makedirs(os.path.join(T, "many"))
with open(os.path.join(T, "many", "m.json"), "w") as f:
    json.dump(many, f)
rc, _, err = run("plan", "--presets", os.path.join(T, "many"), "--model", "many-sizes")
check(rc == 2 and "layer_bytes: more than 8 different sizes of layer" in err, "a preset of ten sizes: %d %s" % (rc, err))

# --- Llama 3.1 8B as llama.cpp's Q4_K_M lays it out: 11 of its 32 blocks keep
# attn_v and ffn_down in Q6_K (use_more_bits), so blocks differ in size
tensors = w.llama31_8b_q4_k_m()
rc, _, err = imported("Meta-Llama-3.1-8B-Q4_K_M.gguf", w.llama_kvs(), tensors)
check(rc == 0, "llama 8b: exit %d %s" % (rc, err))
block = [0] * 32
outside = 0
embed = 0
for name, dims, t in tensors:
    b = w.tensor_bytes(dims, t)
    if name.startswith("blk."):
        block[int(name.split(".")[1])] += b
    elif name == "token_embd.weight":
        embed = b
    else:
        outside += b  # output.weight, output_norm, rope_freqs
with open(os.path.join(P, "meta-llama-3.1-8b-q4_k_m.json")) as f:
    g = json.load(f).get("gguf", {})
check(g.get("file") == "Meta-Llama-3.1-8B-Q4_K_M.gguf", "llama 8b: gguf.file %s" % g.get("file"))
check(g.get("layer_bytes") == block and g.get("embed_bytes") == embed and g.get("output_bytes") == outside,
      "llama 8b: the preset's bytes by block %s" % g)
check(len(set(block)) == 2, "llama 8b: two sizes of block (the test's own mix): %s" % sorted(set(block)))
mid = "meta-llama-3.1-8b-q4_k_m"
# llama.cpp's -ngl since ggml-org/llama.cpp #18148 (src/llama-model.cpp
# load_tensors, i_gpu_start = max(n_layer + 1 - ngl, 0)): the output layer
# first, then the last ngl - 1 blocks
for ngl in (20, 30, 32):
    o = offload(mid, "--n-gpu-layers", str(ngl))
    want = sum(block[33 - ngl:]) + outside
    check(o.get("gpu_weights_bytes_per_gpu") == want,
          "llama 8b -ngl %d: GPU weights %s, the blocks' own %d" % (ngl, o.get("gpu_weights_bytes_per_gpu"), want))
    check(o.get("host_weights_bytes") == sum(tensors_b for tensors_b in block[:33 - ngl]) + embed,
          "llama 8b -ngl %d: host weights %s" % (ngl, o.get("host_weights_bytes")))
# --weight-dtype q4_k_m, the file's own type (general.file_type), keeps its
# bytes by block; another type replaces them with even shares, and says so
for dt in ("q4_k_m", "q8_0"):
    o = offload(mid, "--n-gpu-layers", "20", "--weight-dtype", dt)
    same = o.get("gpu_weights_bytes_per_gpu") == sum(block[13:]) + outside
    check(same == (dt == "q4_k_m"), "llama 8b --weight-dtype %s -ngl 20: %s" % (dt, o))
rc, out, _ = run("plan", "--presets", P, "--model", mid, "--engine", "llama.cpp", "--gpu", "rtx-4090",
                 "--n-gpu-layers", "20", "--host-memory", "64GiB", "--weight-dtype", "q8_0")
check("--weight-dtype q8_0 replaces the GGUF's own bytes by block" in out,
      "llama 8b: another type says it replaces the file's bytes")
# before it (llama.cpp@mla-kv) the last ngl blocks, the output layer on the CPU
o = offload(mid, "--n-gpu-layers", "20", "--engine", "llama.cpp@mla-kv")
check(o.get("gpu_weights_bytes_per_gpu") == sum(block[12:]) and
      o.get("host_weights_bytes") == sum(block[:12]) + embed + outside,
      "llama 8b llama.cpp@mla-kv -ngl 20: %s" % o)
o = offload(mid, "--n-gpu-layers", "33")  # the output layer too
check(o.get("gpu_weights_bytes_per_gpu") == sum(block) + outside and o.get("host_weights_bytes") == embed,
      "llama 8b -ngl 33: %s" % o)
# an even share of 32 would put 20 x (weights - 2 x embedding) / 32 there: not the file's
even = 20 * (sum(block) + embed + outside - 2 * embed) // 32
check(offload(mid, "--n-gpu-layers", "20").get("gpu_weights_bytes_per_gpu") != even,
      "llama 8b: not the even share %d" % even)
rc, out, _ = run("plan", "--presets", P, "--model", mid, "--engine", "llama.cpp", "--gpu", "rtx-4090",
                 "--n-gpu-layers", "20", "--host-memory", "64GiB")
check("GPU layers' tensors (GGUF)" in out, "llama 8b: the explain row names the file's bytes")

# --- a MoE file whose blocks' experts differ (ffn_down_exps in Q6_K in two)
h, f, e, L = 256, 256, 8, 4
kvs = w.llama_kvs("qwen3moe", layers=L, hidden=h, heads=4, kv=2, ffn=f, ctx=4096, name="Tiny MoE",
                  extra=[("qwen3moe.expert_count", w.U32, e), ("qwen3moe.expert_used_count", w.U32, 2),
                         ("qwen3moe.attention.key_length", w.U32, 64)])
mt = [("token_embd.weight", [h, 1024], "Q8_0"), ("output.weight", [h, 1024], "Q6_K")]
for i in range(L):
    b = "blk.%d." % i
    mt += [(b + "attn_q.weight", [h, h], "Q4_K"), (b + "ffn_gate_inp.weight", [h, e], "F32"),
           (b + "ffn_up_exps.weight", [h, f, e], "Q4_K"),
           (b + "ffn_down_exps.weight", [f, h, e], "Q6_K" if i >= 2 else "Q4_K")]
rc, _, err = imported("Tiny-MoE.gguf", kvs, mt)
check(rc == 0, "moe: exit %d %s" % (rc, err))
exps = [sum(w.tensor_bytes(d, t) for n, d, t in mt if n.startswith("blk.%d." % i) and "_exps" in n) for i in range(L)]
blk = [sum(w.tensor_bytes(d, t) for n, d, t in mt if n.startswith("blk.%d." % i)) for i in range(L)]
out_b = w.tensor_bytes([h, 1024], "Q6_K")
for k in (1, 3):
    o = offload("tiny-moe", "--n-gpu-layers", "999", "--n-cpu-moe", str(k))
    want = sum(blk) - sum(exps[:k]) + out_b
    check(o.get("gpu_weights_bytes_per_gpu") == want and o.get("host_expert_bytes") == sum(exps[:k]),
          "moe --n-cpu-moe %d: GPU %s host experts %s, want %d and %d" %
          (k, o.get("gpu_weights_bytes_per_gpu"), o.get("host_expert_bytes"), want, sum(exps[:k])))

# --- launch lines: the file llama-server opens, the Modelfile Ollama makes its tag from
rc, out, _ = run("plan", "--presets", P, "--model", mid, "--engine", "llama.cpp", "--gpu", "rtx-4090")
check("llama-server -m Meta-Llama-3.1-8B-Q4_K_M.gguf " in out, "llama.cpp launch names the file: %s" %
      [x for x in out.splitlines() if "Launch" in x])
rc, out, _ = run("plan", "--model", "llama-3.1-8b", "--engine", "llama.cpp", "--gpu", "rtx-4090")
check("llama-server -m llama-3.1-8b.gguf " in out, "a catalogue preset: ID.gguf as before")
rc, out, _ = run("plan", "--presets", P, "--model", mid, "--engine", "ollama", "--gpu", "rtx-4090")
check("# then: ollama create %s from a Modelfile of FROM ./Meta-Llama-3.1-8B-Q4_K_M.gguf, and ollama run %s"
      % (mid, mid) in out, "ollama launch: the Modelfile FROM the file: %s" % [x for x in out.splitlines() if "Launch" in x])

# --- the preset's gguf object read back, and refused when it is not a file's name
with open(os.path.join(P, "meta-llama-3.1-8b-q4_k_m.json")) as f:
    doc = json.load(f)
bad = os.path.join(T, "bad")
os.makedirs(bad)
for field, value, want in (("file", "../x.gguf", "file: expected a file's name"),
                           ("layer_bytes", [1, 2], "layer_bytes: expected an array of 32 byte counts"),
                           ("layer_bytes", ["1"] * 32, "layer_bytes[0]: expected a whole byte count")):
    d = json.loads(json.dumps(doc))
    d["gguf"][field] = value
    with open(os.path.join(bad, "m.json"), "w") as f:
        json.dump(d, f)
    rc, _, err = run("plan", "--presets", bad, "--model", mid)
    check(rc == 2 and want in err and "m.json" in err, "preset gguf.%s: exit %d %s" % (field, rc, err))

shutil.rmtree(T, ignore_errors=True)
finish()
