#!/usr/bin/python3
"""kvplan completion: the bash script, sourced in bash and asked as bash
asks it (COMP_WORDS, COMP_CWORD), completes the commands, each command's
options as the table has them, the catalogue's ids as `kvplan list` lists
them (a --presets directory on the line counted), values kvplan accepts,
the = forms, and each command's words. The zsh and fish scripts name every
option of every command, and parse where the shell is installed.
Usage: t_options_completion.py path/to/kvplan. Ends with "N passed, N failed"."""
import json
import os
import shutil
import subprocess

from optionslib import (ENV, KVPLAN, ROOT, TMP, argv, check, commands, main, options, run,
                        write_gpu_preset)

SCRIPT = os.path.join(TMP, "kvplan.bash")
PRESETS = os.path.join(TMP, "presets")
HARNESS = ('source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); '
           '_kvplan; printf "%s\\n" "${COMPREPLY[@]}"')


def complete(*words):
    """What the script offers for `kvplan WORDS...`, the last word the one typed."""
    p = subprocess.run(["bash", "--norc", "--noprofile", "-c", HARNESS, "_", SCRIPT, KVPLAN,
                        *words], capture_output=True, text=True, env=ENV, timeout=30)
    return [w for w in p.stdout.split("\n") if w]


def ids(kind):
    return [item["id"] for item in json.loads(run(["list", kind, "--format", "json"])[1])]


def setup():
    status, out, err = run(["completion", "bash"])
    check("completion bash prints a script", status == 0 and out, err)
    with open(SCRIPT, "w") as f:
        f.write(out)
    check("the bash script parses", subprocess.run(["bash", "-n", SCRIPT]).returncode == 0)
    write_gpu_preset(PRESETS, "my-gpu")


def test_commands_and_options():
    cmds = commands()[1:]
    check("kvplan <TAB> offers the commands", complete("") == cmds, repr(complete("")))
    for cmd in commands():
        want = sorted(flag for flag, _, _ in options(cmd))
        got = sorted(complete(*argv(cmd, "--")))
        check("kvplan %s --<TAB> offers its options" % cmd, got == want,
              "extra %s, missing %s" % (sorted(set(got) - set(want)), sorted(set(want) - set(got))))
    check("kvplan --mo<TAB> offers --model and --mono", complete("--mo") == ["--model", "--mono"])


def test_ids():
    gpus, models = ids("gpus"), ids("models")
    check("plan --gpu <TAB>: every GPU, and auto", sorted(complete("plan", "--gpu", "")) ==
          sorted(gpus + ["auto"]))
    check("solve --gpu <TAB>: every GPU", sorted(complete("solve", "--gpu", "")) == sorted(gpus))
    check("plan --model <TAB>: every model", sorted(complete("plan", "--model", "")) == sorted(models))
    check("show model <TAB>: every model", sorted(complete("show", "model", "")) == sorted(models))
    check("show gpu h1<TAB>", complete("show", "gpu", "h1") == [g for g in gpus if g.startswith("h1")])
    check("--presets on the line: its GPUs too",
          complete("plan", "--presets", PRESETS, "--gpu", "my") == ["my-gpu"])
    check("--presets=DIR on the line too", complete("plan", "--presets=" + PRESETS, "--gpu", "my") ==
          ["my-gpu"])


def test_values_are_accepted():
    """Each engine and precision offered is one kvplan plans with."""
    for flag, extra in (("--engine", []), ("--kv-dtype", []), ("--weight-dtype", []),
                        ("--kv-dtype-v", ["--engine", "llama.cpp"])):
        offered = complete("plan", flag, "")
        check("plan %s <TAB> offers values" % flag, len(offered) > 2, repr(offered))
        for value in offered:
            status, _, err = run(["plan", *extra, "%s=%s" % (flag, value)])
            cache_type = "has no" in err and flag.startswith("--kv-dtype")  # the engine's own
            check("plan %s %s (offered) is taken" % (flag, value), status == 0 or cache_type, err)
    for cmd, flag, want in (("plan", "--format", ["text", "json", "markdown"]),
                            ("solve", "--format", ["text", "json", "markdown"]),
                            ("sweep", "--format", ["table", "csv", "markdown", "json"]),
                            ("list", "--format", ["text", "json"]), ("plan", "--units", ["gib", "gb"])):
        check("%s %s <TAB>" % (cmd, flag), complete(cmd, flag, "") == want)
    for axis in complete("sweep", "--vary", ""):
        status, _, err = run(["sweep", "--vary", axis, "--format", "csv", "--max-rows", "1000000"])
        check("sweep --vary %s (offered) is taken" % axis, status == 0, err)


def test_equals_forms():
    check("--gpu=h1<TAB> (= not a word break)",
          complete("plan", "--gpu=h1") == ["--gpu=" + g for g in ids("gpus") if g.startswith("h1")])
    check("--gpu = h1<TAB> (= a word break)",
          complete("plan", "--gpu", "=", "h1") == [g for g in ids("gpus") if g.startswith("h1")])
    check("--format =<TAB>", complete("solve", "--format", "=") == ["text", "json", "markdown"])
    check("--presets = DIR: DIR is no word of the command",
          complete("show", "--presets", "=", PRESETS, "") == ["gpu", "model"])


def test_words_and_files():
    check("list <TAB>", complete("list", "") == ["gpus", "models", "engines", "datasets"])
    check("completion <TAB>", complete("completion", "") == ["bash", "zsh", "fish"])
    check("show --format json <TAB>", complete("show", "--format", "json", "") == ["gpu", "model"])
    log = os.path.join(ROOT, "tests", "data", "logs", "vllm-03.lo")
    check("calibrate <TAB> offers files", complete("calibrate", log) == [log + "g"])
    check("plan --load <TAB> offers files", complete("plan", "--load", SCRIPT[:-2]) == [SCRIPT])
    check("plan --presets <TAB> offers directories", complete("plan", "--presets", PRESETS[:-1]) ==
          [PRESETS])
    check("import-hf -o <TAB> offers files", complete("import-hf", "-o", SCRIPT[:-2]) == [SCRIPT])


def shell_script(shell):
    status, script, err = run(["completion", shell])
    check("completion %s prints a script" % shell, status == 0 and script, err)
    path = os.path.join(TMP, "kvplan." + shell)
    with open(path, "w") as f:
        f.write(script)
    return script, path


def test_zsh_and_fish_offer_every_option():
    for shell, line in (("zsh", "'%s:"), ("fish", "-l %s")):
        script, path = shell_script(shell)
        for cmd in commands():
            if shell == "zsh":
                start = script.find("    (%s) d=(" % cmd)
                part = script[start:script.find(") ;;", start)]
            else:
                part = "\n".join(x for x in script.splitlines() if "__kvplan_using %s'" % cmd in x)
            missing = [flag for flag, _, _ in options(cmd)
                       if (line % (flag if shell == "zsh" else flag[2:])) not in part]
            check("the %s script offers each option of %s" % (shell, cmd), not missing,
                  "missing: %s" % missing)
        if shutil.which(shell):
            check("the %s script parses" % shell,
                  subprocess.run([shell, "-n", path], capture_output=True).returncode == 0)
    status, _, err = run(["completion", "tcsh"])
    check("completion tcsh is refused", status == 2 and "'tcsh' is not bash, zsh or fish" in err, err)


# zsh's completion system only runs inside a widget: these stand-ins print
# what the script offers (zsh itself then keeps those matching the word)
ZSH_STUBS = """compdef() {}
compset() {}
compadd() { [[ $1 == -- ]] && shift; print -l -- "$@"; }
_describe() { print -l -- ${(P)4}; }
_files() { print "FILES $*"; }
source "$1"; shift; words=("$@"); CURRENT=$#words; _kvplan
"""


def test_zsh_completes():
    if not shutil.which("zsh"):
        return
    _, path = shell_script("zsh")

    def zsh(*words):
        p = subprocess.run(["zsh", "-f", "-c", ZSH_STUBS, "_", path, KVPLAN, *words],
                           capture_output=True, text=True, env=ENV, timeout=30)
        return p.stdout.split("\n")[:-1]
    check("zsh: kvplan <TAB>", [w.split(":")[0] for w in zsh("")] == commands()[1:])
    want = [flag for flag, _, _ in options("plan")] + ["-" + s for _, _, s in options("plan") if s]
    check("zsh: plan --<TAB>", sorted(w.split(":")[0] for w in zsh("plan", "--")) == sorted(want))
    check("zsh: show gpu <TAB>", zsh("show", "gpu", "") == ids("gpus"))
    check("zsh: plan --gpu=<TAB>", zsh("plan", "--gpu=") == ids("gpus") + ["auto"])
    check("zsh: list <TAB>", zsh("list", "") == ["gpus", "models", "engines", "datasets"])
    check("zsh: plan --load <TAB>", zsh("plan", "--load", "") == ["FILES "])


def test_fish_completes():
    if not shutil.which("fish"):
        return
    _, path = shell_script("fish")
    bindir = os.path.join(TMP, "bin")
    os.makedirs(bindir, exist_ok=True)
    if not os.path.exists(os.path.join(bindir, "kvplan")):
        os.symlink(KVPLAN, os.path.join(bindir, "kvplan"))
    env = dict(ENV, PATH=bindir + os.pathsep + ENV.get("PATH", ""), HOME=TMP)

    def fish(line):
        p = subprocess.run(["fish", "--no-config", "-c", 'source "$argv[1]"; complete -C "$argv[2]"',
                            path, line], capture_output=True, text=True, env=env, timeout=30)
        return [w.split("\t")[0] for w in p.stdout.split("\n")[:-1]]
    h1 = [g for g in ids("gpus") if g.startswith("h1")]
    check("fish: kvplan pl<TAB>", fish("kvplan pl") == ["plan"])
    check("fish: plan --gp<TAB>", "--gpu" in fish("kvplan plan --gp"))
    check("fish: show gpu h1<TAB>", fish("kvplan show gpu h1") == h1)
    check("fish: plan --gpu=h1<TAB>", fish("kvplan plan --gpu=h1") == ["--gpu=" + g for g in h1])
    check("fish: list <TAB>", fish("kvplan list ") == ["gpus", "models", "engines", "datasets"])
    check("fish: solve --format <TAB>", fish("kvplan solve --format ") == ["json", "markdown", "text"])


if __name__ == "__main__":
    main([test_commands_and_options, test_ids, test_values_are_accepted, test_equals_forms,
          test_words_and_files, test_zsh_and_fish_offer_every_option, test_zsh_completes,
          test_fish_completes], setup)
