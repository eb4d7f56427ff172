"""Shared by the t_options_*.py tests: the option table as the binary gives
it (`kvplan __complete options COMMAND`, one row a line: --name, METAVAR or
"-" for a flag, the short letter or "-"), and running kvplan in a private
configuration directory. Checks and the final line come from launchlib."""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import launchlib  # noqa: E402  (check, main)

KVPLAN = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build/kvplan")
ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
TMP = tempfile.mkdtemp(prefix="kvplan-options-")
ENV = dict(os.environ, XDG_CONFIG_HOME=TMP, LC_ALL="C.UTF-8", TERM="dumb")
ENV.pop("NO_COLOR", None)
check = launchlib.check


def run(args, timeout=60):
    """kvplan ARGS: (exit status, standard output, standard error)."""
    p = subprocess.run([KVPLAN, *args], capture_output=True, text=True, env=ENV,
                       timeout=timeout, stdin=subprocess.DEVNULL)
    return p.returncode, p.stdout, p.stderr


def write(name, text):
    """A file of TMP holding text: its path."""
    path = os.path.join(TMP, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def refused(args, *words):
    """kvplan ARGS is refused: exit 2, nothing on standard output, and each
    of words in the message."""
    status, out, err = run(args)
    check("%s: exit 2, nothing on stdout" % " ".join(args), status == 2 and out == "",
          (status, out, err))
    for w in words:
        check("%s: the message has %r" % (" ".join(args), w), w in err, err)


def commands():
    """Every command's name as the scripts give it: "planner" first."""
    status, out, err = run(["__complete", "commands"])
    check("kvplan __complete commands lists the commands", status == 0 and out, err)
    return ["planner"] + out.split()


def options(cmd):
    """The rows cmd takes: [(flag, metavar or None, short letter or None)]."""
    rows = []
    status, out, err = run(["__complete", "options", cmd])
    check("kvplan __complete options %s lists its options" % cmd, status == 0 and out, err)
    for line in out.splitlines():
        flag, metavar, short = line.split("\t")
        rows.append((flag, None if metavar == "-" else metavar, None if short == "-" else short))
    return rows


def argv(cmd, *args):
    """The command line of cmd ("planner": kvplan's own options)."""
    return list(args) if cmd == "planner" else [cmd, *args]


def write_gpu_preset(directory, gpu_id):
    """A --presets directory holding the H100 SXM's preset as gpu_id."""
    os.makedirs(directory)
    with open(os.path.join(ROOT, "presets", "gpus", "h100-sxm.json")) as f:
        gpu = json.load(f)
    gpu["id"] = gpu_id
    with open(os.path.join(directory, gpu_id + ".json"), "w") as f:
        json.dump(gpu, f)


def main(tests, setup=None):
    launchlib.main(tests, TMP, setup)
