"""ggufwrite: writes real-format GGUF files (v2 or v3) for the tests.

The layout is GGUF's: "GGUF", the version (u32), the tensor and metadata
counts (u64), each metadata key (u64 length + bytes), its value type (u32)
and value, each tensor's name, n_dims (u32), dims (u64 each), ggml type
(u32) and offset (u64), then the data, aligned. The data is left as a hole
(a sparse file) so a model of gigabytes costs no disk.

Block sizes and bytes per block, by ggml type number, as ggml's type_traits
table states them (ggml-org/llama.cpp ggml/src/ggml.c, type_traits, at
commit 00bdaa105cb0; gguf-py/gguf/constants.py GGML_QUANT_SIZES agrees).
"""
import struct

TYPES = {  # name: (number, values a block, bytes a block)
    "F32": (0, 1, 4), "F16": (1, 1, 2), "Q4_0": (2, 32, 18), "Q4_1": (3, 32, 20),
    "Q5_0": (6, 32, 22), "Q5_1": (7, 32, 24), "Q8_0": (8, 32, 34), "Q8_1": (9, 32, 36),
    "Q2_K": (10, 256, 84), "Q3_K": (11, 256, 110), "Q4_K": (12, 256, 144),
    "Q5_K": (13, 256, 176), "Q6_K": (14, 256, 210), "Q8_K": (15, 256, 292),
    "IQ2_XXS": (16, 256, 66), "IQ2_XS": (17, 256, 74), "IQ3_XXS": (18, 256, 98),
    "IQ1_S": (19, 256, 50), "IQ4_NL": (20, 32, 18), "IQ3_S": (21, 256, 110),
    "IQ2_S": (22, 256, 82), "IQ4_XS": (23, 256, 136), "I8": (24, 1, 1), "I16": (25, 1, 2),
    "I32": (26, 1, 4), "I64": (27, 1, 8), "F64": (28, 1, 8), "IQ1_M": (29, 256, 56),
    "BF16": (30, 1, 2), "TQ1_0": (34, 256, 54), "TQ2_0": (35, 256, 66),
    "MXFP4": (39, 32, 17), "NVFP4": (40, 64, 36), "Q1_0": (41, 128, 18),
}

U8, I8, U16, I16, U32, I32, F32, BOOL, STRING, ARRAY, U64, I64, F64 = range(13)
_FMT = {U8: "<B", I8: "<b", U16: "<H", I16: "<h", U32: "<I", I32: "<i", F32: "<f",
        BOOL: "<?", U64: "<Q", I64: "<q", F64: "<d"}


def gstr(s):
    b = s.encode() if isinstance(s, str) else s
    return struct.pack("<Q", len(b)) + b


def value(t, v):
    """A value of GGUF type t; an array is (element type, [values])."""
    if t == STRING:
        return gstr(v)
    if t == ARRAY:
        et, items = v
        return struct.pack("<IQ", et, len(items)) + b"".join(value(et, x) for x in items)
    return struct.pack(_FMT[t], v)


def tensor_bytes(dims, tname):
    _, blck, size = TYPES[tname]
    n = 1
    for d in dims:
        n *= d
    return n // blck * size


def header(kvs, tensors, version=3, alignment=32, offsets=None):
    """The header's bytes and the data's size. kvs: [(key, type, value)];
    tensors: [(name, [dims], type name)]."""
    out = b"GGUF" + struct.pack("<IQQ", version, len(tensors), len(kvs))
    for key, t, v in kvs:
        out += gstr(key) + struct.pack("<I", t) + value(t, v)
    at = 0
    for i, (name, dims, tname) in enumerate(tensors):
        off = offsets[i] if offsets else at
        out += gstr(name) + struct.pack("<I", len(dims)) + b"".join(struct.pack("<Q", d) for d in dims)
        out += struct.pack("<IQ", TYPES[tname][0] if isinstance(tname, str) else tname, off)
        if isinstance(tname, str):
            at += -(-tensor_bytes(dims, tname) // alignment) * alignment
    return out, at


def write(path, kvs, tensors, version=3, alignment=32, data_bytes=None):
    head, data = header(kvs, tensors, version, alignment)
    start = -(-len(head) // alignment) * alignment
    with open(path, "wb") as f:
        f.write(head)
        f.truncate(start + (data if data_bytes is None else data_bytes))
    return start, data


def llama_kvs(arch="llama", layers=32, hidden=4096, heads=32, kv=8, ffn=14336, ctx=131072,
              file_type=15, name="Llama 3.1 8B", extra=()):
    return [("general.architecture", STRING, arch), ("general.name", STRING, name),
            ("general.file_type", U32, file_type), ("general.alignment", U32, 32),
            (arch + ".block_count", U32, layers), (arch + ".context_length", U32, ctx),
            (arch + ".embedding_length", U32, hidden), (arch + ".feed_forward_length", U32, ffn),
            (arch + ".attention.head_count", U32, heads),
            (arch + ".attention.head_count_kv", U32, kv),
            (arch + ".rope.dimension_count", U32, hidden // heads),
            ("tokenizer.ggml.tokens", ARRAY, (STRING, ["<s>", "</s>", "a", "b"])),
            ("tokenizer.ggml.scores", ARRAY, (F32, [0.0, 0.0, -1.0, -2.0]))] + list(extra)


def with_blocks(tensors, layers):
    """The tensors, and a norm (F32 [16]) for each block blk.i below `layers`
    that none of them holds: a file describes every block its block_count
    names."""
    held = {n.split(".")[1] for n, _, _ in tensors if n.startswith("blk.")}
    return list(tensors) + [("blk.%d.attn_norm.weight" % i, [16], "F32")
                            for i in range(layers) if str(i) not in held]


def llama31_8b_q4_k_m():
    """Llama 3.1 8B's tensors as llama.cpp's Q4_K_M writes them: Q4_K, with
    output.weight, and attn_v and ffn_down of the layers use_more_bits picks
    (the first and last eighth, every third between), in Q6_K; norms F32."""
    L, h, kvd, ffn, vocab = 32, 4096, 1024, 14336, 128256
    t = [("rope_freqs.weight", [64], "F32"), ("token_embd.weight", [h, vocab], "Q4_K")]
    for i in range(L):
        more = i < L // 8 or i >= 7 * L // 8 or (i - L // 8) % 3 == 2
        b = "blk.%d." % i
        t += [(b + "attn_norm.weight", [h], "F32"), (b + "attn_q.weight", [h, h], "Q4_K"),
              (b + "attn_k.weight", [h, kvd], "Q4_K"),
              (b + "attn_v.weight", [h, kvd], "Q6_K" if more else "Q4_K"),
              (b + "attn_output.weight", [h, h], "Q4_K"), (b + "ffn_norm.weight", [h], "F32"),
              (b + "ffn_gate.weight", [h, ffn], "Q4_K"), (b + "ffn_up.weight", [h, ffn], "Q4_K"),
              (b + "ffn_down.weight", [ffn, h], "Q6_K" if more else "Q4_K")]
    t += [("output_norm.weight", [h], "F32"), ("output.weight", [h, vocab], "Q6_K")]
    return t
