#!/usr/bin/python3
"""kvplan solve counts in the singular at one: "1 user ..., up to 1 GPU".
Usage: t_solve_words.py path/to/kvplan. Ends with "N passed, N failed"."""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from launchlib import check, main  # noqa: E402

K = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build/kvplan")
T = tempfile.mkdtemp(prefix="kvplan-solve-words.")


def one_gpu():
    p = subprocess.run([K, "solve", "--users", "1", "--context", "4096", "--model", "llama-3.1-8b",
                        "--gpu", "h100-sxm", "--max-gpus", "1"],
                       capture_output=True, text=True, cwd=T, timeout=60)
    check("solve says 'up to 1 GPU'", "1 user at 4k tokens" in p.stdout and "up to 1 GPU:" in p.stdout,
          p.stdout + p.stderr)
    p = subprocess.run([K, "solve", "--users", "1", "--context", "4096", "--model", "llama-3.1-8b",
                        "--gpu", "h100-sxm", "--max-gpus", "2"],
                       capture_output=True, text=True, cwd=T, timeout=60)
    check("and 'up to 2 GPUs'", "up to 2 GPUs:" in p.stdout, p.stdout + p.stderr)


main([one_gpu], T)
