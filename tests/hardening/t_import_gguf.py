"""kvplan import-gguf on GGUF files this test writes itself (ggufwrite.py):
the preset it gives, the weights' exact bytes worked by hand, the KV per
token of the plan against the catalogue's preset of the same model, the
architectures it refuses, and hostile headers refused with the file and the
field named, exit 2.

Usage: t_import_gguf.py KVPLAN. Ends with "N passed, N failed"."""
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import ggufwrite as w  # noqa: E402
from tally import check, finish  # noqa: E402

K = os.path.abspath(sys.argv[1])
ROOT = os.path.join(HERE, "..", "..")
T = tempfile.mkdtemp(prefix="kvplan-gguf.")
ENV = dict(os.environ, XDG_CONFIG_HOME=os.path.join(T, "config"), LC_ALL="C.UTF-8")


def run(*args):
    p = subprocess.run([K] + list(args), capture_output=True, text=True, env=ENV, timeout=60)
    return p.returncode, p.stdout, p.stderr


def imported(path, *more):
    rc, out, err = run("import-gguf", path, *more)
    return rc, (json.loads(out) if rc == 0 and out else None), err


def catalogue(mid):
    with open(os.path.join(ROOT, "presets", "models", mid + ".json")) as f:
        return json.load(f)


def result(*args):
    rc, out, err = run("plan", "--format", "json", *args)
    return json.loads(out)["result"] if rc == 0 else {"error": err}


# --- the exact bytes, worked by hand (bytes a block, values a block: ggml's type_traits)
#   F16  [64, 32]: 2,048 values x 2 bytes                      = 4,096
#   Q4_K [256, 4]: 1,024 values = 4 blocks of 256 x 144 bytes  =   576
#   Q6_K [512, 2]: 1,024 values = 4 blocks of 256 x 210 bytes  =   840
#   Q8_0 [64, 3]:    192 values = 6 blocks of 32 x 34 bytes    =   204
#   F32  [16]:        16 values x 4 bytes                       =    64
#   in all 5,780 bytes of 4,304 parameters
small = os.path.join(T, "small.gguf")
w.write(small, w.llama_kvs(layers=2, hidden=64, heads=4, kv=2, ffn=128, ctx=4096, name="Small"),
        [("token_embd.weight", [64, 32], "F16"), ("blk.0.attn_q.weight", [256, 4], "Q4_K"),
         ("blk.0.ffn_down.weight", [512, 2], "Q6_K"), ("blk.1.attn_k.weight", [64, 3], "Q8_0"),
         ("output_norm.weight", [16], "F32")])
rc, p, err = imported(small)
check(rc == 0, "small: exit %d %s" % (rc, err))
if p:
    check(p["weights_bytes"] == 5780, "small: weights_bytes %s, not 5780" % p.get("weights_bytes"))
    check(p["params"] == 4304, "small: params %s, not 4304" % p.get("params"))
    check(p["vocab_size"] == 32, "small: vocab from token_embd's ne[1]: %s" % p.get("vocab_size"))
    check(p["id"] == "small" and p["name"] == "Small", "small: id, name %s %s" % (p["id"], p["name"]))
    check(p["num_kv_heads"] == 2 and p["head_dim"] == 16 and p["attention"] == "GQA",
          "small: heads %s" % p)
for part in ("  f16                4,096 bytes in 1 tensor\n", "  q4_K                 576 bytes in 1 tensor\n",
             "  q6_K                 840 bytes", "  q8_0                 204 bytes", "  f32                   64 bytes",
             "weights 5,780 bytes", "; general.file_type Q4_K_M\n", "GGUF v3, llama, 0.000B parameters in 5 tensors"):
    check(part in err, "small: summary lacks %r: %s" % (part, err))

# --- Llama 3.1 8B as llama.cpp's Q4_K_M lays it out (a sparse file of 4.9 GB)
l8 = os.path.join(T, "Meta-Llama-3.1-8B-Q4_K_M.gguf")
tensors = w.llama31_8b_q4_k_m()
w.write(l8, w.llama_kvs(), tensors)
expect_bytes = sum(w.tensor_bytes(d, t) for _, d, t in tensors)
# token_embd 4096 x 128,256 in Q4_K: 2,052,096 blocks x 144 = 295,501,824 bytes;
# output in Q6_K: 2,052,096 x 210 = 430,940,160; the whole file's tensors 4,912,898,304
check(expect_bytes == 4912898304, "llama 8b: the test's own sum %d" % expect_bytes)
os.makedirs(os.path.join(T, "presets"))
rc, p, err = imported(l8, "-o", os.path.join(T, "presets", "l8.json"))
check(rc == 0, "llama 8b: exit %d %s" % (rc, err))
with open(os.path.join(T, "presets", "l8.json")) as f:
    p = json.load(f)
cat = catalogue("llama-3.1-8b")
check(p["id"] == "meta-llama-3.1-8b-q4_k_m", "llama 8b: id from the file name: %s" % p["id"])
check(p["weights_bytes"] == expect_bytes, "llama 8b: weights_bytes %s" % p["weights_bytes"])
# the catalogue counts config.json's tensors; the GGUF adds rope_freqs (64 values)
check(p["params"] == cat["params"] + 64, "llama 8b: params %s vs %s" % (p["params"], cat["params"]))
check(p["weight_dtype"] == "q4_k_m", "llama 8b: weight_dtype %s" % p["weight_dtype"])
for k in ("num_layers", "hidden_size", "num_attention_heads", "num_kv_heads", "head_dim",
          "vocab_size", "intermediate_size", "max_context_tokens", "attention"):
    check(p[k] == cat[k], "llama 8b: %s %s vs the catalogue's %s" % (k, p[k], cat[k]))
mine = result("--presets", os.path.join(T, "presets"), "--model", p["id"], "--context", "32k")
theirs = result("--model", "llama-3.1-8b", "--context", "32k")
for k in ("kv_bytes_per_token_per_gpu", "kv_bytes_per_layer_per_gpu", "user_bytes_per_gpu"):
    check(mine.get(k) == theirs.get(k) and mine.get(k), "llama 8b: %s %s vs %s" % (k, mine.get(k), theirs.get(k)))
check(mine.get("weights_bytes") == expect_bytes,
      "llama 8b: the plan's weights are the file's bytes: %s" % mine.get("weights_bytes"))

# --- other architectures, their dimensions from the catalogue's presets
def arch_file(name, arch, cat, extra, tensors):
    kvs = w.llama_kvs(arch, layers=cat["num_layers"], hidden=cat["hidden_size"],
                      heads=cat["num_attention_heads"], kv=cat.get("num_kv_heads", 1),
                      ffn=cat["intermediate_size"], ctx=cat["max_context_tokens"], file_type=7,
                      name=cat["name"])
    given = {k for k, _, _ in extra}
    kvs = [kv for kv in kvs if kv[0] not in given] + list(extra)
    path = os.path.join(T, name + ".gguf")
    w.write(path, kvs, w.with_blocks(tensors, cat["num_layers"]))
    return path


def agree(mid, arch, extra, tensors, fields):
    cat = catalogue(mid)
    path = arch_file(mid, arch, cat, extra, tensors)
    rc, p, err = imported(path, "--id", "x-" + mid, "-o", os.path.join(T, "presets", mid + ".json"))
    check(rc == 0, "%s: exit %d %s" % (mid, rc, err))
    if rc != 0:
        return None
    with open(os.path.join(T, "presets", mid + ".json")) as f:
        p = json.load(f)
    for k in fields:
        check(p.get(k) == cat.get(k), "%s: %s %s vs the catalogue's %s" % (mid, k, p.get(k), cat.get(k)))
    mine = result("--presets", os.path.join(T, "presets"), "--model", "x-" + mid, "--context", "32k")
    theirs = result("--model", mid, "--context", "32k")
    for k in ("kv_bytes_per_token_per_gpu", "kv_bytes_per_layer_per_gpu", "windowed_layers",
              "window_tokens", "user_bytes_per_gpu"):
        check(mine.get(k) == theirs.get(k), "%s: %s %s vs %s" % (mid, k, mine.get(k), theirs.get(k)))
    return p


emb = lambda h, v: [("token_embd.weight", [h, v], "Q8_0")]  # noqa: E731
g2 = catalogue("gemma-2-9b")
agree("gemma-2-9b", "gemma2", [("gemma2.attention.sliding_window", w.U32, 4096),
                               ("gemma2.attention.key_length", w.U32, 256),
                               ("gemma2.attention.value_length", w.U32, 256)],
      emb(3584, 256000), ("num_layers", "num_kv_heads", "head_dim", "vocab_size"))
p = agree("gemma-3-12b", "gemma3", [("gemma3.attention.sliding_window", w.U32, 1024),
                                    ("gemma3.attention.key_length", w.U32, 256)],
          emb(3840, 262208), ("num_layers", "num_kv_heads", "head_dim", "vocab_size"))
check(p and p["sliding_window"]["windowed_layers"] == 40, "gemma 3: 48 - 48/6 windowed: %s" % p)
exps = lambda h, f, e, L: [("blk.%d.ffn_up_exps.weight" % i, [h, f, e], "MXFP4") for i in range(L)]  # noqa: E731
p = agree("gpt-oss-20b", "gpt-oss", [("gpt-oss.attention.sliding_window", w.U32, 128),
                                     ("gpt-oss.attention.key_length", w.U32, 64),
                                     ("gpt-oss.attention.value_length", w.U32, 64),
                                     ("gpt-oss.expert_count", w.U32, 32),
                                     ("gpt-oss.expert_used_count", w.U32, 4)],
          emb(2880, 201088) + exps(2880, 2880, 32, 2), ("num_layers", "num_kv_heads", "head_dim"))
if p:
    # the experts: 2 x 2880 x 2880 x 32 values; 4 of 32 read a token
    e = 2 * 2880 * 2880 * 32
    check(p["moe"] == {"experts": 32, "experts_per_token": 4, "expert_params": e}, "gpt-oss: moe %s" % p["moe"])
    check(p["active_params"] == p["params"] - e + e // 32 * 4, "gpt-oss: active %s" % p["active_params"])
    check(p["sliding_window"]["windowed_layers"] == 12, "gpt-oss: alternating: %s" % p["sliding_window"])
p = agree("deepseek-v2-lite", "deepseek2", [("deepseek2.attention.kv_lora_rank", w.U32, 512),
                                            ("deepseek2.rope.dimension_count", w.U32, 64),
                                            ("deepseek2.attention.key_length", w.U32, 576),
                                            ("deepseek2.attention.value_length", w.U32, 512),
                                            ("deepseek2.attention.key_length_mla", w.U32, 192),
                                            ("deepseek2.attention.value_length_mla", w.U32, 128),
                                            ("deepseek2.expert_count", w.U32, 64),
                                            ("deepseek2.expert_used_count", w.U32, 6)],
          emb(2048, 102400) + exps(2048, 1408, 64, 1), ("num_layers", "attention", "mla"))
q3 = catalogue("qwen3-30b-a3b")
agree("qwen3-30b-a3b", "qwen3moe", [("qwen3moe.attention.key_length", w.U32, 128),
                                    ("qwen3moe.expert_count", w.U32, 128),
                                    ("qwen3moe.expert_used_count", w.U32, 8)],
      emb(2048, 151936) + exps(2048, 768, 128, 1), ("num_layers", "num_kv_heads", "head_dim", "vocab_size"))

# Mixtral as llama.cpp converts it: the llama architecture with experts
p = agree("mixtral-8x7b", "llama", [("llama.expert_count", w.U32, 8), ("llama.expert_used_count", w.U32, 2)],
          emb(4096, 32000) + exps(4096, 14336, 8, 1), ("num_layers", "num_kv_heads", "head_dim", "vocab_size"))
check(p and p["moe"]["experts"] == 8 and p["moe"]["experts_per_token"] == 2, "mixtral: moe %s" % (p and p.get("moe")))
for mid, arch, h, v in (("qwen3-8b", "qwen3", 4096, 151936), ("qwen2.5-7b", "qwen2", 3584, 152064)):
    agree(mid, arch, [], emb(h, v), ("num_layers", "num_kv_heads", "head_dim", "vocab_size", "sliding_window"))

# --- what it cannot describe, refused rather than guessed
def refused(name, kvs, tensors, want, version=3):
    path = os.path.join(T, name + ".gguf")
    w.write(path, kvs, tensors, version)
    rc, _, err = imported(path)
    check(rc == 2 and want in err and (name + ".gguf") in err,
          "%s: exit %d, want %r in %r" % (name, rc, want, err))


one = [("token_embd.weight", [64, 32], "F16")]
refused("mamba", w.llama_kvs("mamba", hidden=64, heads=4, kv=4), one,
        "general.architecture: 'mamba' is not one kvplan can describe")
refused("varying", w.llama_kvs(layers=2, hidden=64, heads=4, kv=2)[:-4] +
        [("llama.attention.head_count_kv", w.ARRAY, (w.U32, [2, 4]))], one,
        "llama.attention.head_count_kv: varies by layer (2 to 4)")
refused("vlen", w.llama_kvs(hidden=64, heads=4, kv=2, extra=[("llama.attention.key_length", w.U32, 16),
                                                           ("llama.attention.value_length", w.U32, 32)]),
        one, "llama.attention.value_length: 32 is not key_length 16")
refused("split", w.llama_kvs(hidden=64, heads=4, kv=2, extra=[("split.count", w.U16, 3)]), one,
        "split.count: one of 3 files; give the first")
refused("ffnfloat", [kv for kv in w.llama_kvs(hidden=64, heads=4, kv=2) if "feed_forward" not in kv[0]] +
        [("llama.feed_forward_length", w.F32, 1.5)], one,
        "llama.feed_forward_length: a f32, not a whole number")
refused("noblocks", [kv for kv in w.llama_kvs(hidden=64, heads=4, kv=2) if "block_count" not in kv[0]], one,
        "llama.block_count: missing")

# --- hostile headers: the file and the field named, exit 2
good_head, _ = w.header(w.llama_kvs(hidden=64, heads=4, kv=2),
                        [("token_embd.weight", [64, 32], "F16"), ("blk.0.attn_q.weight", [64, 64], "F16")])


def hostile(name, data, want, pad=1 << 16):
    path = os.path.join(T, name + ".gguf")
    with open(path, "wb") as f:
        f.write(data)
        if pad:
            f.truncate(len(data) + pad)
    rc, out, err = run("import-gguf", path)
    check(rc == 2 and want in err and path in err and out == "",
          "%s: exit %d, want %r in %r" % (name, rc, want, err))


def tensors_head(tensors, kvs=None, **kw):
    return w.header(kvs or w.llama_kvs(hidden=64, heads=4, kv=2), tensors, **kw)[0]


cut = len(good_head) - 20  # inside the last tensor's entry
hostile("truncated", good_head[:cut], 'tensor 1 "blk.0.attn_q.weight": dims: the file ends at byte %d (truncated)' % cut, pad=0)
hostile("empty", b"", "magic: the file ends at byte 0 (truncated)", pad=0)
hostile("magic", b"GGML" + good_head[4:], 'magic: "GGML" is not "GGUF"')
hostile("v1", good_head[:4] + struct.pack("<I", 1) + good_head[8:], "version: 1 is not supported")
hostile("v4", good_head[:4] + struct.pack("<I", 4) + good_head[8:], "version: 4 is not supported")
hostile("bigendian", good_head[:4] + struct.pack(">I", 3) + good_head[8:], "a big-endian file?")
hostile("tensors", good_head[:8] + struct.pack("<Q", 1 << 40) + good_head[16:],
        "tensor_count: 1099511627776 tensors are more than a GGUF holds")
hostile("kvs", good_head[:16] + struct.pack("<Q", 1 << 33) + good_head[24:],
        "kv_count: 8589934592 metadata entries are more than a GGUF holds")
hostile("kvs-file", good_head[:16] + struct.pack("<Q", 60000) + good_head[24:],
        "kv_count: 60000 metadata entries are more than the file can hold", pad=0)
hostile("keylen", good_head[:24] + struct.pack("<Q", 1 << 62) + good_head[32:],
        "metadata 0: key: a string of 4611686018427387904 bytes is longer than the")
at = good_head.index(b"tokenizer.ggml.tokens") + len(b"tokenizer.ggml.tokens") + 8
hostile("arraylen", good_head[:at] + struct.pack("<Q", 1 << 61) + good_head[at + 8:],
        'metadata 11 "tokenizer.ggml.tokens": array length: 2305843009213693952 string values are more')
hostile("nested", w.header([("a.b", w.ARRAY, (w.ARRAY, []))], [])[0], "an array of arrays")
hostile("valuetype", b"GGUF" + struct.pack("<IQQ", 3, 0, 1) + w.gstr("a.b") + struct.pack("<I", 13),
        'metadata 0 "a.b": value type: 13 is not a GGUF value type')
hostile("bool", b"GGUF" + struct.pack("<IQQ", 3, 0, 1) + w.gstr("a.b") + struct.pack("<IB", w.BOOL, 2),
        'metadata 0 "a.b": value: a bool of 2, not 0 or 1')
hostile("dupkey", w.header([("a.b", w.U8, 1), ("a.b", w.U8, 2)], [])[0], 'the key "a.b" is given twice')
hostile("align", tensors_head(one, w.llama_kvs(hidden=64, heads=4, kv=2)[:3] +
                              [("general.alignment", w.U32, 24)]), "general.alignment: 24 is not a power of two")
hostile("ndims", tensors_head([("t", [1, 1, 1, 1, 1], "F32")]), 'tensor 0 "t": n_dims: 5 is more than ggml\'s 4')
hostile("overflow", tensors_head([("t", [1 << 32, 1 << 32], "F32")]), 'tensor 0 "t": dims: ')
hostile("negative", tensors_head([("t", [1 << 63], "F32")]), "ne[0] 9223372036854775808 is past 2^63")
hostile("blocks", tensors_head([("t", [100], "Q4_K")]), "ne[0] 100 is not whole blocks of q4_K (256 values a block)")
hostile("type", tensors_head([("a", [32], "F32"), ("b", [32], "F32"), ("c", [32], "F32"),
                              ("blk.0.attn_q.weight", [64], 99)]),
        'tensor 3 "blk.0.attn_q.weight": type: 99 is not a ggml type')
hostile("retired", tensors_head([("t", [32], 31)]), 'tensor 0 "t": type: 31 is not a ggml type')
hostile("control", tensors_head([("blk.0\x1b[2J", [32], "F32")]), "tensor 0: name: \"blk.0\\x1b[2J\" contains a control character")
hostile("nul", tensors_head([("a\x00b", [32], "F32")]), 'tensor 0: name: "a" holds a NUL byte')
hostile("longname", tensors_head([("x" * 64, [32], "F32")]), "tensor 0: name: 64 bytes, longer than 63")
hostile("dupname", tensors_head([("t", [32], "F32"), ("t", [32], "F32")]), 'the name "t" is given twice')
hostile("misaligned", tensors_head([("t", [32], "F32")], offsets=[16]), "offset: 16 is not a multiple of the alignment 32")
hostile("order", tensors_head([("a", [32], "F32"), ("b", [32], "F32")], offsets=[0, 256]),
        'tensor 1 "b": offset: 256, where the tensor before it ends at 128')
hostile("pastend", tensors_head([("a", [32], "F32"), ("big", [1 << 20], "F32")]),
        'tensor 1 "big": offset: its data ends at byte', pad=256)

# --- a model split over three files (llama-gguf-split): the first given, the others beside it
sp = os.path.join(T, "split")
os.makedirs(sp)
part = lambda i, n=3: os.path.join(sp, "Big-Model-%05d-of-%05d.gguf" % (i, n))  # noqa: E731
splitkv = lambda no, n=3: [("split.no", w.U16, no), ("split.count", w.U16, n), ("split.tensors.count", w.I32, 3)]  # noqa: E731
w.write(part(1), w.llama_kvs(layers=1, hidden=64, heads=4, kv=2, name="Big", extra=splitkv(0)),
        [("token_embd.weight", [64, 32], "F16")])
w.write(part(2), splitkv(1), [("blk.0.attn_q.weight", [256, 4], "Q4_K")])
w.write(part(3), splitkv(2), [("output.weight", [512, 2], "Q6_K")])
rc, p, err = imported(part(1))
check(rc == 0 and p["weights_bytes"] == 4096 + 576 + 840 and p["params"] == 2048 + 1024 + 1024,
      "split: exit %d, %s %s" % (rc, p and p.get("weights_bytes"), err))
check(rc == 0 and p["id"] == "big-model" and "and the 2 other files of its split" in p["source"],
      "split: id %s, source %s" % (p and p["id"], p and p["source"]))
check("in 3 files in 3 tensors" in err, "split: summary %s" % err)
rc, _, err = imported(part(2))
check(rc == 2 and "split.count: one of 3 files; give the first, named PREFIX-00001-of-00003.gguf" in err,
      "split, second file given: %d %s" % (rc, err))
w.write(part(3), splitkv(1), [("output.weight", [512, 2], "Q6_K")])
rc, _, err = imported(part(1))
check(rc == 2 and part(3) in err and "split.no: not file 3 of the 3 of this split (its split.no 1" in err,
      "split, a file out of place: %d %s" % (rc, err))
w.write(part(3), splitkv(2), [("token_embd.weight", [64, 32], "F16")])
rc, _, err = imported(part(1))
check(rc == 2 and '"token_embd.weight" is in an earlier file of the split too' in err,
      "split, a tensor twice: %d %s" % (rc, err))
os.remove(part(3))
rc, _, err = imported(part(1))
check(rc == 2 and part(3) in err and "No such file" in err, "split, a file missing: %d %s" % (rc, err))

# a directory, a FIFO and a missing file: refused at once, never waited on
os.mkfifo(os.path.join(T, "fifo.gguf"))
for name, want in (("fifo.gguf", "not a regular file"), ("nothere.gguf", "No such file"), ("", "")):
    path = os.path.join(T, name)
    rc, out, err = run("import-gguf", path)
    check(rc == 2 and want in err, "%s: exit %d %s" % (name or "a directory", rc, err))
rc, _, err = run("import-gguf")
check(rc == 2 and "give one GGUF file" in err, "no file: %d %s" % (rc, err))
rc, _, err = run("import-gguf", small, small)
check(rc == 2 and "give one GGUF file" in err, "two files: %d %s" % (rc, err))
rc, _, err = run("import-gguf", small, "--id", "Bad Id")
check(rc == 2 and "--id: 'Bad Id' must be" in err, "--id: %d %s" % (rc, err))
rc, p, err = imported(small, "--id", "mine", "--name", "My model")
check(rc == 0 and p["id"] == "mine" and p["name"] == "My model", "--id --name: %s" % p)
# version 2 reads as 3 does
v2 = os.path.join(T, "v2.gguf")
w.write(v2, w.llama_kvs(layers=1, hidden=64, heads=4, kv=2, name="Small"),
        [("token_embd.weight", [64, 32], "F16"), ("blk.0.attn_norm.weight", [16], "F32")], version=2)
rc, p, err = imported(v2)
check(rc == 0 and p["weights_bytes"] == 4096 + 64 and "GGUF v2" in err, "v2: %d %s" % (rc, err))

shutil.rmtree(T, ignore_errors=True)
finish()
