#!/usr/bin/python3
"""A Mac plan on the real binary: Apple silicon's memory is unified, so the
CPU layers of llama.cpp's fit search take what Metal's working set and macOS
leave of the Mac's own RAM, read over its own bus, never the RAM or the DDR
preset of the machine running kvplan. The wired limit kvplan takes is at
most max(80% of the RAM, all but 5 GiB), as exo's configure_mlx.sh sets
iogpu.wired_limit_mb (exo-explore/exo at 191553a). solve keeps a Mac to one
machine with the split, and names the sysctl that holds it all on the GPU.
Usage: t_mac_fit.py path/to/kvplan. Ends with "N passed, N failed"."""
import json
import os
import re

from optionslib import ENV, TMP, check, main, refused, run

MAC = ["--gpu", "apple-m4-pro", "--model", "llama-3.1-70b", "--engine", "llama.cpp",
       "--weight-dtype", "q4_k_m"]


def run_env(args, meminfo):
    """kvplan ARGS with KVPLAN_MEMINFO (this machine's RAM, as hostmem reads it) set."""
    saved = ENV.get("KVPLAN_MEMINFO")
    ENV["KVPLAN_MEMINFO"] = meminfo
    try:
        return run(args)
    finally:
        if saved is None:
            ENV.pop("KVPLAN_MEMINFO", None)
        else:
            ENV["KVPLAN_MEMINFO"] = saved


def test_the_host_is_the_macs():
    """64 GB M4 Pro: 48 GiB of Metal working set; macOS keeps min(20%, 5
    GiB) = 5 GiB (what exo's configure_mlx.sh leaves it), so the GPU's part
    and the CPU layers share 59 GiB = 63,350,767,616 B. The fit search's
    -ngl 75 puts the output layer and 74 layers (llama.cpp's -ngl since
    ggml-org/llama.cpp #18148), 643,537,306 + 74 x 524,088,382 =
    39,426,077,574 B of weights, 9,932,111,872 B of cache (74 x 32,768 cells
    x 4 KiB) and 598,212,608 B of buffers on the GPU: 49,956,402,054 B,
    which leaves 13,394,365,562 B (12.47 GiB) for the CPU
    layers, at the M4 Pro's 273 GB/s, whatever this machine has. (It was
    the cap's leftover, 59 - 48 = 11 GiB, which a bigger wired limit shrank.)"""
    big = os.path.join(TMP, "meminfo-1tib")
    with open(big, "w") as f:
        f.write("MemTotal:       1073741824 kB\n")
    args = ["plan", *MAC, "--context", "16k", "--parallel", "2"]
    status, out, err = run_env(args, big)
    check("the Mac plan: exit 0", status == 0, err)
    status2, out2, err2 = run_env(args, "")
    check("the same plan with this machine's RAM 1 TiB or unknown", out == out2, (out[:500], out2[:500]))
    check("the fit search puts layers on the CPU", "on the CPU (the fit search's)" in out, out[:600])
    want = ("12.47 GiB of unified memory: 64.00 GiB less the GPU's 46.53 GiB (its weights, cache "
            "and buffers) and 5.00 GiB for macOS, read at 273.0 GB/s (the unified memory's)")
    check("the host input says so", want in out, [l for l in out.splitlines() if "Host memory" in l])
    check("no DDR preset, nothing of this machine's", "DDR" not in out and "this machine" not in out,
          out[:2000])
    d = json.loads(run_env([*args, "--format", "json"], big)[1])
    o = d["result"]["engine"]["offload"]
    check("JSON: 13,394,365,562 B of host memory at 273 GB/s",
          o.get("host_memory_bytes") == 13394365562 and o.get("host_bandwidth_bytes_per_s") == 273e9
          and o.get("os_reserve_bytes") == 5 << 30, o)
    m = re.search(r"iogpu\.wired_limit_mb=(\d+)` holds it all on the GPU \(--wired-limit-mb (\d+)", out)
    check("the warning names the sysctl that holds it all on the GPU", m and m.group(1) == m.group(2),
          out[-700:])
    if m:
        status, out, err = run([*args, "--wired-limit-mb", m.group(1)])
        check("with it every layer is on the GPU", status == 0 and "on the CPU" not in out.split("\n")[2]
              and "wired_limit_mb=" not in out, out[:400])
        status, out, err = run([*args, "--wired-limit-mb", str(int(m.group(1)) - 1024)])
        check("a GiB less keeps a layer on the CPU", "on the CPU" in out.split("\n")[2], out[:400])
    status, out, err = run([*args, "--cpu", "apple-m4-pro"])
    check("--cpu apple-m4-pro: 256-bit LPDDR5X-8533, 273.1 GB/s", status == 0 and
          "read at 273.1 GB/s (Apple M4 Pro, LPDDR5X-8533, 256-bit (unified), --cpu apple-m4-pro)" in out,
          (err, [l for l in out.splitlines() if "Host memory" in l]))


def test_refusals():
    """A host size on a Mac means nothing beside the wired limit; a limit
    that leaves macOS less than 5 GiB (or 20%) is refused."""
    refused(["plan", *MAC, "--host-memory", "64GiB"], "--host-memory", "unified", "--wired-limit-mb")
    refused(["plan", *MAC, "--wired-limit-mb", "65536"], "--wired-limit-mb",
            "of the 65536 MiB apple-m4-pro has: at most 60416 MiB")
    refused(["plan", *MAC, "--wired-limit-mb", "60417"], "at most 60416 MiB")
    status, out, err = run(["plan", *MAC, "--wired-limit-mb", "60416"])
    check("--wired-limit-mb 60416 (all but 5 GiB) plans", status == 0, err)
    refused(["solve", *MAC, "--users", "1", "--gpu", "apple-m4-pro", "--wired-limit-mb", "65536"],
            "--wired-limit-mb", "at most 60416 MiB")
    status, out, err = run(["plan", *MAC, "--host-memory", "auto"])
    check("--host-memory auto on a Mac: the Mac's own", status == 0 and "this machine" not in out, err)


def test_solve_on_a_mac():
    """solve: one Mac with 5 layers on the CPU serves a user at 32k (the
    whole model needs more than the 48 GiB working set), and the longest
    context on one Mac uses the split; each names the sysctl."""
    status, out, err = run(["solve", *MAC, "--context", "32k", "--users", "1"])
    row = [l.split() for l in out.splitlines() if l.startswith("apple-m4-pro")]
    check("solve: one Mac serves it", status == 0 and row and row[0][1] == "1", out)
    check("solve names the split and the sysctl",
          re.search(r"\(apple-m4-pro: the fit search's -ngl \d+ of 81: .* on the CPU; `sudo sysctl "
                    r"iogpu\.wired_limit_mb=\d+` holds it all on the GPU\)", out), out)
    # one RAM for both sides: the longest context is what the 59 GiB hold
    # beside the 43,214,145,229 B of weights and 598,212,608 B of buffers,
    # 19,538,409,779 B / 320 KiB a token = 59,626, in 256-cell steps 59,392;
    # all on the GPU it would need a wired limit past the most (60416 MiB)
    status, out, err = run(["solve", *MAC, "--users", "1", "--max-context"])
    m = re.search(r": ([\d,]+) (\(\d+k\) )?tokens", out)
    check("solve --max-context: 59,392 tokens, past what fits whole (22,016)", status == 0 and m and
          int(m.group(1).replace(",", "")) == 59392, out)
    check("solve --max-context names no sysctl: no limit holds it all on the GPU",
          "iogpu.wired_limit_mb=" not in out, out)


def test_small_presets():
    """The consumer cards and small Macs are in the catalogue and plan."""
    status, out, err = run(["list", "gpus"])
    ids = {l.split()[0] for l in out.splitlines()[1:] if l.strip()}
    for gpu in ["rtx-3060", "rtx-4060-ti-16gb", "rtx-4070", "rtx-4080", "rtx-5060-ti-16gb",
                "rtx-5070", "rtx-5080", "rx-7900-xtx", "rx-9070-xt", "apple-m2-8gb",
                "apple-m3-16gb", "apple-m4-16gb", "apple-m4-32gb", "apple-m4pro-24gb",
                "apple-m3pro-18gb", "apple-m3max-36gb", "apple-m4max-36gb"]:
        check("list gpus has %s" % gpu, gpu in ids, sorted(ids))
    status, out, err = run(["plan", "--gpu", "apple-m4-16gb", "--model", "llama-3.1-8b",
                            "--engine", "llama.cpp", "--weight-dtype", "q4_k_m", "--context", "8k"])
    check("an 8B on a 16 GB M4: 10.67 GiB of working set", status == 0 and "10.67 GiB each" in out,
          out[:800])


def test_the_wired_limit_leaves_the_host_alone():
    """-ngl 60 of the 70B at 16k, two slots (the output layer and 59 layers):
    the GPU's part is 31,564,751,844 B of weights + 7,918,845,952 B of cache
    + 598,212,608 B of buffers = 40,081,810,404 B, so 23,268,957,212 B of the
    59 GiB are left for the 13.47 GiB in host memory: it fits, and a bigger wired limit (the
    sysctl's hint) changes neither figure. Before, the host was the cap's
    leftover: 11 GiB (does not fit), 7 GiB under --wired-limit-mb 53248."""
    for extra in [[], ["--wired-limit-mb", "53248"], ["--wired-limit-mb", "60416"]]:
        status, out, err = run(["plan", *MAC, "--context", "16k", "--parallel", "2", "-ngl", "60",
                                "--format", "json", *extra])
        d = json.loads(out) if status == 0 else {}
        r = d.get("result", {})
        o = r.get("engine", {}).get("offload", {})
        check("-ngl 60 %s: 23,268,957,212 B of host memory, 2 users" % (extra or "at the default"),
              o.get("host_memory_bytes") == 23268957212 and o.get("host_fits") is True
              and r.get("max_users") == 2, (err, o))


def test_no_host_memory_left_is_checked():
    """A 16 GB M4 (10.67 GiB of working set, macOS keeps 20% = 3.2 GiB:
    13,743,895,347 B for both sides) and the 70B at -ngl 10: the GPU's
    part is small, but 70 CPU layers need ~35 GiB: checked against what is
    left, not an unknown host memory that passes them all."""
    status, out, err = run(["plan", "--gpu", "apple-m4-16gb", "--model", "llama-3.1-70b",
                            "--engine", "llama.cpp", "--weight-dtype", "q4_k_m", "--context", "2k",
                            "-ngl", "10", "--format", "json"])
    d = json.loads(out) if status == 0 else {}
    r = d.get("result", {})
    o = r.get("engine", {}).get("offload", {})
    check("70 CPU layers do not fit the 16 GB Mac, no user", o.get("host_memory_bytes") is not None
          and o.get("host_fits") is False and r.get("fits") is False and r.get("max_users") == 0,
          (err, o))


def test_cpu_reads_no_more_of_the_bus_than_the_gpu():
    """One bus: the Mac's CPU layers reach at most the GPU's share of it (here
    --mbu 0.5), not a DDR desktop's 0.6; the GPU's fitted 0.94 (tools/fit_apple.py)
    leaves the CPU at 0.6."""
    status, out, err = run(["plan", *MAC, "--context", "16k", "--parallel", "2", "--mbu", "0.5"])
    host = [l for l in out.splitlines() if l.strip().startswith("Host time")]
    check("the host time reads at the GPU's 0.500", status == 0 and host and
          "x 0.500 reached (assumed: at most the GPU's, one bus)" in host[0], host or err)
    status, out, err = run(["plan", *MAC, "--context", "16k", "--parallel", "2"])
    host = [l for l in out.splitlines() if l.strip().startswith("Host time")]
    check("under the GPU's fitted 0.94 the host keeps 0.600", status == 0 and host and
          "x 0.600 reached)" in host[0], host or err)
    status, out, err = run(["plan", "--engine", "llama.cpp", "--model", "llama-3.1-70b",
                            "--weight-dtype", "q4_k_m", "--gpu", "rtx-4090", "--context", "8k",
                            "--host-memory", "64GiB"])
    check("a discrete card's host keeps 0.600", "x 0.600 reached)" in out, out[-1500:])


if __name__ == "__main__":
    main([test_cpu_reads_no_more_of_the_bus_than_the_gpu, test_no_host_memory_left_is_checked,
          test_the_wired_limit_leaves_the_host_alone, test_the_host_is_the_macs, test_refusals, test_solve_on_a_mac, test_small_presets])
