#!/usr/bin/env python3
"""Writes the seed corpus of fuzz_gguf (tests/fuzz/corpus/gguf): small GGUF
files of each architecture import-gguf reads, with tensors of several types,
and a v2 file. Run from the repository's root; the files are committed."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "hardening"))
import ggufwrite as w  # noqa: E402

OUT = os.path.join(os.path.dirname(__file__), "corpus", "gguf")


def tiny(arch, extra=(), types=("F16", "Q4_K", "Q6_K", "Q8_0"), version=3, experts=0):
    # the metadata a small model's; the tensors smaller still (the reader
    # holds them to their types, not to the metadata), so a seed is a few KB
    h, kvd, ffn, vocab = 256, 2, 1, 3
    kvs = w.llama_kvs(arch, layers=2, hidden=h, heads=4, kv=2, ffn=512, ctx=4096, name="tiny " + arch,
                      extra=extra)
    t = [("token_embd.weight", [h, vocab], types[0])]
    for i in range(2):
        b = "blk.%d." % i
        t += [(b + "attn_norm.weight", [16], "F32"), (b + "attn_q.weight", [h, 2], types[1]),
              (b + "attn_k.weight", [h, kvd], types[2]), (b + "attn_v.weight", [h, kvd], types[3])]
        if experts:
            t += [(b + "ffn_gate_exps.weight", [h, ffn, experts], types[1]),
                  (b + "ffn_gate_inp.weight", [h, experts], "F32")]
        else:
            t += [(b + "ffn_down.weight", [h, 1], types[1])]
    t.append(("output.weight", [h, vocab], types[2]))
    w.write(os.path.join(OUT, arch + ("-v2" if version == 2 else "") + ".gguf"), kvs, t, version)


def blocks(name, layers, held):
    # block_count against the blk.N tensors: more blocks named than held, or
    # a tensor of a block past it (both refused)
    kvs = w.llama_kvs(layers=layers, hidden=64, heads=4, kv=2, ffn=128, ctx=4096, name=name)
    t = [("token_embd.weight", [64, 32], "F16")] + [("blk.%d.attn_q.weight" % i, [64, 64], "Q8_0")
                                                    for i in range(held)]
    w.write(os.path.join(OUT, name + ".gguf"), kvs, t)


def main():
    os.makedirs(OUT, exist_ok=True)
    blocks("blocks-short", 4, 3)
    blocks("blocks-past", 2, 3)
    tiny("llama")
    tiny("llama", version=2)
    tiny("qwen3moe", extra=[("qwen3moe.expert_count", w.U32, 4), ("qwen3moe.expert_used_count", w.U32, 2)],
         experts=4)
    tiny("gemma2", extra=[("gemma2.attention.sliding_window", w.U32, 1024),
                          ("gemma2.attention.key_length", w.U32, 64)], types=("BF16", "Q5_0", "Q8_0", "IQ4_NL"))
    tiny("deepseek2", extra=[("deepseek2.attention.kv_lora_rank", w.U32, 64),
                             ("deepseek2.attention.key_length_mla", w.U32, 96),
                             ("deepseek2.attention.value_length_mla", w.U32, 64)],
         types=("Q8_0", "MXFP4", "Q2_K", "IQ2_XS"))


if __name__ == "__main__":
    main()
