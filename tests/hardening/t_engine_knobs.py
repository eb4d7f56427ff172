#!/usr/bin/python3
"""An engine step keeps the engine knobs chosen, as it keeps the cache
precision: the next engine or release with the same knob gets the value, one
without it says on the status line that it is kept for the next that has it,
and stepping back brings it back. --dump-screen with --keys.
Usage: t_engine_knobs.py path/to/kvplan. Ends with "N passed, N failed"."""
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e2e"))
from launchlib import check, main  # noqa: E402

K = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build/kvplan")
T = tempfile.mkdtemp(prefix="kvplan-engine-knobs.")
ENV = dict(os.environ, XDG_CONFIG_HOME=os.path.join(T, "config"), LC_ALL="C.UTF-8")
ARGS = ["--model", "llama-3.1-70b", "--gpus", "4", "--engine", "vllm"]
# Down x7 to GPU util, two steps up to 0.920, then Up to the Engine control
TO_ENGINE = "<Down>" * 7 + "<Right><Right><Up>"


def dump(keys, args=None):
    args = ARGS if args is None else args
    p = subprocess.run([K, "--dump-screen", "-", "--size", "120x30", "--keys", keys, *args],
                       capture_output=True, text=True, env=ENV, cwd=T, timeout=60)
    return p.stdout


def util(text):
    m = re.search(r"^\s*GPU util .*?(auto )?(\d\.\d{3})", text, re.M)
    return m and (m.group(1) or "") + m.group(2)


def knobs():
    text = dump(TO_ENGINE)
    check("the knob is set to 0.920 on vLLM", util(text) == "0.920", text)
    text = dump(TO_ENGINE + "<Right>")
    check("a release step (vLLM 0.20) keeps GPU util 0.920",
          "vLLM 0.20" in text and util(text) == "0.920", text)
    text = dump(TO_ENGINE + "<Right>" * 5)
    check("an engine without the knob (SGLang) says it is kept",
          "GPU util is off with SGLang 0.5: kept for the next that has it" in text, text)
    text = dump(TO_ENGINE + "<Right>" * 5 + "<Left><Left>")
    check("stepping back to vLLM brings 0.920 back", util(text) == "0.920", text)


def display_names():
    """The status line names the engine as the title and the Engine control
    do ("llama.cpp 2025 builds", "TensorRT-LLM 1.x"), not by its id."""
    fp8 = ["--engine", "vllm", "--kv-dtype", "fp8"]
    text = dump("<Down>" * 6 + "<Right>" * 7, fp8)
    check("the cache kept is said with the display name",
          "(llama.cpp late-2025 builds has none): kept" in text and "llama.cpp@" not in text, text)
    text = dump("<Down>" * 6 + "<Right>" * 10, fp8)
    check("the cache back is said with the display name",
          "the fp8 cache is back with TensorRT-LLM 1.x" in text, text)


if __name__ == "__main__":
    main([knobs, display_names], T)
