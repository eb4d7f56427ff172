#!/usr/bin/python3
"""The option table against what documents it: every command's --help
names each option of its own (plan's and the planner's all of theirs), and
names no option the table lacks; the man page names every option of every
command, and its headings none the table lacks; README says how to load the
completion of each shell.
Usage: t_options_doc.py path/to/kvplan. Ends with "N passed, N failed"."""
import os
import re

from optionslib import ROOT, argv, check, commands, main, options, run

OPTION = re.compile(r"--[a-z0-9][a-z0-9-]*")


def table():
    """{command: {its options' flags}}"""
    return {cmd: {flag for flag, _, _ in options(cmd)} for cmd in commands()}


def test_help_names_the_table():
    rows = table()
    every = set().union(*rows.values())
    for cmd, flags in rows.items():
        status, out, err = run(["--help"] if cmd == "planner" else argv(cmd, "--help"))
        check("%s --help exits 0" % cmd, status == 0 and not err, err)
        named = set(OPTION.findall(out))
        own = flags if cmd in ("plan", "planner") else flags - rows["plan"]
        missing = sorted(own - named - {"--help"})
        check("%s --help names each of its options" % cmd, not missing, "missing: %s" % missing)
        stale = sorted(named - every)
        check("%s --help names no option the table lacks" % cmd, not stale, "stale: %s" % stale)


def man_page():
    with open(os.path.join(ROOT, "doc", "kvplan.1")) as f:
        return f.read().replace("\\-", "-")


def test_man_page_names_the_table():
    every = set().union(*table().values())
    man = man_page()
    missing = sorted(every - set(OPTION.findall(man)))
    check("the man page names every option of every command", not missing, "missing: %s" % missing)
    lines = man.splitlines()
    # headings: the line after .TP, and the synopsis's .B lines (prose may name engines' flags)
    heads = [lines[i + 1] for i, line in enumerate(lines[:-1]) if line.startswith(".TP")]
    heads += [line for line in lines if re.match(r"\.(B|BI|BR|RB) ", line)]
    stale = sorted(set(OPTION.findall(" ".join(heads))) - every)
    check("the man page's headings name no option the table lacks", not stale, "stale: %s" % stale)
    check("the man page has the completion command", "completion bash" in man)


def test_readme_tells_completion():
    with open(os.path.join(ROOT, "README.md")) as f:
        readme = f.read()
    section = readme[readme.find("## Shell completion"):]
    check("README has a Shell completion section", readme.find("## Shell completion") >= 0)
    for shell in ("bash", "zsh", "fish"):
        check("README loads the %s completion" % shell, "kvplan completion " + shell in section)


if __name__ == "__main__":
    main([test_help_names_the_table, test_man_page_names_the_table, test_readme_tells_completion])
