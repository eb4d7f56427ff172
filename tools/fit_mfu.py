#!/usr/bin/python3
"""fit_mfu: llama.cpp's prefill compute fraction on NVIDIA GPUs, from llama-bench pp512.

kvplan's prefill under llama.cpp takes MFU x the preset's dense_bf16_tflops;
without a fit that is the global 0.5. llama-bench's pp512 (one 512-token
prompt alone, no step overhead: policy_llamacpp.c) is compute-bound, so
kvplan's rate at --mfu 1 scales with the MFU and a case implies
MFU = measured pp512 / kvplan's pp512 at MFU 1.

The fit is each GPU's F16 case (kvplan counts F16 weights' GEMM at the
16-bit rate, as ggml-cuda's cuBLAS path runs it); the quantised cases
(q8_0, q4_k_m: llama.cpp's MMQ kernels, dequantising in the GEMM) are held
out and only checked. The fitted fraction goes into the GPU's preset as
`achievable_mfu` with its basis; llama.cpp only (no serving-engine prefill
was measured on these GPUs).

With --check it exits 1 when a preset's achievable_mfu is not the fit
(`make cli-test`).

Usage: fit_mfu.py KVPLAN DATA.json [--check]   (prints the fit and every case's error)
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pp512  # noqa: E402
import validate_speed as vs  # noqa: E402

FIT_DTYPE = "fp16"


def cases(data):
    for c in json.load(open(data))["measurements"]:
        if (c["engine"] == "llama.cpp" and c.get("complete") and c.get("prefill_tokens_per_s")
                and c["input_tokens"] == 0 and not c["gpu"].startswith("apple-")):
            yield c


def rate(kvplan, c, mfu):
    """kvplan's pp512 tok/s for case c at the given MFU (None: the preset's own)."""
    args = vs.base_args(c)
    i = args.index("--context")
    args[i + 1] = str(max(int(args[i + 1]), pp512.PP_TOKENS + c["output_tokens"]))
    args += ["--prompt", str(pp512.PP_TOKENS), "--concurrency", "1"]
    if mfu:
        args += ["--mfu", str(mfu)]
    r, err = vs.plan(kvplan, args)
    if r is None:
        sys.exit("fit_mfu: %s: %s" % (c["id"], err))
    return r["prefill_tokens_per_s"]


def main():
    check = sys.argv[3:] == ["--check"]
    if len(sys.argv) != 3 + check:
        sys.exit(__doc__)
    kvplan, data = sys.argv[1:3]
    rows = []
    for c in cases(data):
        at1 = rate(kvplan, c, 1.0)
        rows.append((c, at1, c["prefill_tokens_per_s"] / at1))
    fitted = {c["gpu"]: round(implied, 3) for c, _, implied in rows if c["weight_dtype"] == FIT_DTYPE}
    print("| case | GPU | weights | role | measured pp512 | MFU implied | MFU 0.5 | error | fitted MFU | "
          "error |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for c, at1, implied in rows:
        meas = c["prefill_tokens_per_s"]
        fit = fitted.get(c["gpu"])
        role = "fit" if c["weight_dtype"] == FIT_DTYPE else "held out"
        after = "%.0f | %+.1f%%" % (at1 * fit, 100 * (at1 * fit / meas - 1)) if fit else "n/a | n/a"
        print("| %s | %s | %s | %s | %.0f | %.3f | %.0f | %+.1f%% | %s |" % (
            c["id"], c["gpu"], c["weight_dtype"], role, meas, implied, at1 * 0.5,
            100 * (at1 * 0.5 / meas - 1), after))
    print()
    stale = []
    for gpu, f in sorted(fitted.items()):
        have = vs.show(kvplan, "gpu", gpu).get("achievable_mfu")
        print("%s: achievable_mfu %.3f (preset %s)" % (gpu, f, have))
        if have is None or abs(have - f) > 0.0005:
            stale.append(gpu)
    if check and stale:
        sys.exit("fit_mfu: the presets' achievable_mfu differ from the fit: %s" % ", ".join(stale))


if __name__ == "__main__":
    main()
