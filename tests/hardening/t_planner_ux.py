#!/usr/bin/python3
"""What a new user of the planner meets, on the real binary drawn headless
(--dump-screen with --keys) and through the CLI: a choice kept when another
control moves, work never dropped without a word, the current tab marked,
labels that say what they computed. Usage: t_planner_ux.py path/to/kvplan.
Ends with "N passed, N failed"."""
import json
import os
import re
import subprocess
import sys
import tempfile
import traceback

KVPLAN = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build/kvplan")
TMP = tempfile.mkdtemp(prefix="kvplan-ux-")
ENV = dict(os.environ, LC_ALL="C.UTF-8", XDG_CONFIG_HOME=TMP)
ENV.pop("NO_COLOR", None)


def run(*args, check=True):
    out = subprocess.run([KVPLAN, *args], capture_output=True, env=ENV, timeout=60, cwd=TMP)
    if check and out.returncode != 0:
        raise AssertionError("kvplan %s: exit %d: %s" % (" ".join(args), out.returncode,
                                                         out.stderr.decode()))
    return out


def screen(keys, *args, size="100x30", attrs=False):
    """The planner's screen after keys (and its attribute grid with attrs)."""
    extra = ["--dump-attrs"] if attrs else []
    out = run(*args, "--size", size, "--dump-screen", "-", *extra, "--keys", keys)
    return out.stdout.decode("utf-8", "replace")


def control(text, label):
    """The value shown beside a list control ("◂ fp8 ▸" gives "fp8")."""
    m = re.search(r"^ %s\s+\S (.+?) \S\s" % re.escape(label), text, re.M)
    assert m, "no %s control:\n%s" % (label, text)
    return m.group(1)


def status(text):
    """The status line, the row above the key bar."""
    return text.split("\n")[-3]


def plan(*args):
    return json.loads(run("plan", "--format", "json", *args).stdout)


# ---- the Engine control keeps the cache precision chosen ----

TO_ENGINE = "<Down>" * 6  # from the Context control, where the focus starts


def test_stepping_engines_keeps_the_chosen_cache_precision():
    # TensorRT-LLM caches in fp8 (tensorrt_llm/llmapi/llm_args.py, KvCacheConfig.dtype);
    # llama.cpp has no fp8 cache type (common/arg.cpp, kv_cache_types): only it drops it
    args = ["--engine", "vllm", "--kv-dtype", "fp8"]
    # vLLM's older releases, then SGLang, then llama.cpp's four, then TensorRT-LLM
    s = screen(TO_ENGINE + "<Right>" * 6, *args)
    assert control(s, "Engine") == "llama.cpp 2026 builds", s
    assert control(s, "KV cache").startswith("auto"), s
    assert "fp8 cache is off with this engine" in status(s), s
    s = screen(TO_ENGINE + "<Right>" * 10, *args)
    assert control(s, "Engine") == "TensorRT-LLM 1.x" and control(s, "KV cache") == "fp8", s
    assert "the fp8 cache is back with TensorRT-LLM 1.x" in status(s), s
    s = screen(TO_ENGINE + "<Right>" * 10 + "<Left>" * 10, *args)
    assert control(s, "Engine") == "vLLM 0.21" and control(s, "KV cache") == "fp8", s


def test_versioned_engines_are_reachable_from_the_control():
    # each engine's releases together, its latest first, in the order `list engines`
    # gives them (newest first), each named by its release ("vLLM 0.21", "vLLM V0")
    listed = json.loads(subprocess.run([KVPLAN, "list", "engines", "--format", "json"],
                                       capture_output=True, text=True, check=True).stdout)
    named = lambda e, v: "%s %s" % (e["title"], v["release"])
    latest = [named(e, v) for e in listed for v in e["versions"] if v["latest"]]
    want = [named(e, v) for e in listed for v in e["versions"]]
    assert latest == ["vLLM 0.21", "SGLang 0.5", "llama.cpp 2026 builds", "TensorRT-LLM 1.x",
                      "Ollama 0.32"], latest
    s = screen(TO_ENGINE + "<End>", "--engine", "vllm")
    assert control(s, "Engine") == want[-1], s
    seen = [control(screen(TO_ENGINE + "<Right>" * i), "Engine") for i in range(1, len(want) + 1)]
    assert seen == want, (seen, want)
    # the planner's vllm@0 is the CLI's: its title and its count
    s = screen(TO_ENGINE + "<Right>" * 5, "--context", "32k")  # vLLM 0.21, 0.20, 0.17, 0.13, V0
    assert re.search(r"vLLM V0 +\? help$", s.split("\n")[0].rstrip()), s
    users = re.search(r"^ Users .*?=\s*([0-9,]+)\s*$", s, re.M | re.S)
    want = plan("--engine", "vllm@0", "--context", "32k")["result"]["max_users"]
    assert users and int(users.group(1).replace(",", "")) == want, (want, s)


# ---- no work dropped or changed without a word ----

def test_open_asks_before_replacing_scenarios_not_exported():
    s = screen("no")  # two scenarios, neither exported: o asks, as q does
    assert "Open another file? It replaces 2 scenarios not exported" in s, s
    assert "Open snapshot:" not in s, s
    s = screen("non")
    assert "not opening" in status(s) and "2 B" in s, s
    assert "Open snapshot:" in screen("noy"), s
    assert "Open snapshot:" in screen("o"), "one scenario, nothing to lose: no question"


PREFIX_NOTE = "held to 2047, the context less the token each user keeps"


def test_a_prefix_that_reaches_the_context_is_held_to_it_less_one_in_plan():
    out = run("plan", "--format", "json", "--context", "2k", "--prefix", "2k")
    assert PREFIX_NOTE in out.stderr.decode(), out.stderr
    assert json.loads(out.stdout)["scenario"]["prefix_tokens"] == 2047, out.stdout[:400]
    out = run("plan", "--format", "json", "--context", "2k", "--prefix", "1k")
    assert out.stderr == b"", out.stderr


def test_a_prefix_that_reaches_the_context_is_held_the_same_way_in_sweep():
    out = run("sweep", "--prefix", "2k", "--vary", "context=1k..8k", "--format", "csv")
    rows = out.stdout.decode().splitlines()
    head = rows[0].split(",")
    col = head.index("prefix_tokens") if "prefix_tokens" in head else None
    users = {r.split(",")[0]: r for r in rows[1:]}
    assert "reaches the context on 2 rows" in out.stderr.decode(), out.stderr
    for ctx, prefix in (("1k", 1023), ("2k", 2047), ("4k", 2048), ("8k", 2048)):
        one = plan("--context", ctx, "--prefix", str(prefix))["result"]["max_users"]
        cells = users[ctx].split(",")
        assert str(one) in cells, (ctx, prefix, one, users[ctx], col)


def test_a_prefix_that_reaches_the_context_is_held_and_restored_in_the_planner():
    to_prefix, back = "<Down>" * 4, "<Up>" * 4
    s = screen(to_prefix + "<Enter>2k<Enter>" + back + "<Left><Left>")  # context 8k -> 2k
    assert re.search(r"^ Prefix .* 2,047 ", s, re.M), s
    assert "Prefix 2,048 (2k) reaches the context: held to 2,047" in status(s), s
    s = screen(to_prefix + "<Enter>2k<Enter>" + back + "<Left><Left><Right>")  # 4k again
    assert re.search(r"^ Prefix .* 2k ", s, re.M), s
    assert "Prefix 2,048 (2k) is back" in status(s), s


def test_reset_every_control_leaves_a_plan_that_fits():
    s = screen("R", "--model", "llama-3.1-70b", "--gpus", "4")
    assert "needs 2 GPUs to fit" in status(s), s
    assert re.search(r"^ GPUs .* 2 ", s, re.M), s
    assert plan("--model", "llama-3.1-70b", "--gpus", "2")["result"]["fits"] is True
    assert plan("--model", "llama-3.1-70b", "--gpus", "1")["result"]["fits"] is False
    s = screen("R", "--model", "llama-3.1-8b", "--gpus", "4")
    assert status(s).strip() == "every control reset" and re.search(r"^ GPUs .* 1 ", s, re.M), s


# ---- the tabs show which scenario is current ----

def test_the_current_tab_is_marked_in_colour_and_in_monochrome():
    for mono in ([], ["--mono"], ["--mono", "--ascii"]):
        for key, cur in (("2", "[2 B]"), ("1", "[1 A]"), ("3", "[3 C]")):
            s = screen("nn" + key, *mono, attrs=True)
            rows = s.split("\n")
            title, grid = rows[0], rows[rows.index("--- attributes") + 1]
            at = title.find(cur)
            assert at > 0 and title.count("[") == 1, (mono, key, title)
            others = [m.start() for m in re.finditer(r" \d [A-Z] ", title)]
            assert others and all(grid[o + 1] != grid[at + 1] for o in others), (mono, title, grid)


SIX_LONG = "n".join("a%s<Enter>" % (c * 24) for c in "abcdef")  # six scenarios, 24-byte names


def tabs_counted(title, ascii_marks):
    """The scenarios the strip accounts for: its tabs plus those its marks count."""
    strip = title[:title.rindex("? help")]
    shown = [int(n) for n, c in re.findall(r"[ \[](\d) ([a-f])", strip) if "abcdef"[int(n) - 1] == c]
    left = re.search(r" %s(\d+)" % ("<" if ascii_marks else "\u2039"), strip)
    right = re.search(r" \+(\d+)%s" % (">" if ascii_marks else "\u203a"), strip)
    return shown, len(shown) + sum(int(m.group(1)) for m in (left, right) if m)


def test_the_current_tab_is_always_shown_and_tabs_left_out_are_counted():
    for size in ("120x40", "70x22"):
        for ascii_marks in (False, True):
            for key in "1356":
                extra = ["--ascii"] if ascii_marks else []
                title = screen(SIX_LONG + key, *extra, size=size).split("\n")[0]
                shown, counted = tabs_counted(title, ascii_marks)
                assert "[%s " % key in title, (size, key, title)
                assert counted == 6, (size, key, title)
                assert shown == sorted(shown) and shown == list(range(shown[0], shown[-1] + 1)), title
                # names are shortened, with the mark, before a tab is left out
                assert title.count("~" if ascii_marks else "\u2026") >= len(shown) - 1, title


def test_one_long_name_is_shortened_so_every_tab_fits():
    title = screen("a" + "abcdefghijklmnopqrstuvwx<Enter>nnnnn", size="70x22").split("\n")[0]
    assert re.search(r" 1 abc\w*\u2026 .* 2 B .* 5 E \[6 F\]", title), title


# ---- layouts: only the splits an engine takes ----

def slider(text, label):
    """The value after a slider's track, and the knob's column on it."""
    m = re.search(r"^ %s\s+([━─●]+) (\S+)" % re.escape(label), text, re.M)
    assert m, "no %s slider:\n%s" % (label, text)
    return m.group(2), m.group(1).index("●")


def test_gpus_and_tp_steps_offer_only_splits_of_the_heads():
    # vLLM asserts num_attention_heads % tensor_parallel_size == 0
    # (vllm/config/model.py, ModelConfig.verify_with_parallel_config: "Total number of
    # attention heads must be divisible by tensor parallel size"): Llama 3.1 8B's
    # 32 heads and 8 KV heads take TP 1, 2, 4, 8, 16, 32 only
    to_gpus = "<Up>" * 4  # Context -> Model -> Stages -> TP -> GPUs
    seen = [slider(screen(to_gpus + "<Right>" * i, "--engine", "vllm"), "GPUs")[0]
            for i in range(5)]
    assert seen == ["1", "2", "4", "8", "16"], seen
    # 12 GPUs of Llama 3.1 70B (64 heads, 8 KV): TP 4 steps up to nothing, down to 2 and 1
    args = ["--model", "llama-3.1-70b", "--gpus", "12", "--tp", "4", "--engine", "vllm"]
    assert slider(screen("<Up><Up><Up><Right>", *args), "TP")[0] == "4"
    assert slider(screen("<Up><Up><Up><Left>", *args), "TP")[0] == "2"
    # the sweep marks a split given that the heads cannot take, with the plan's
    # words under the table (the generic rule: vLLM refuses it); without --tp
    # each count gets one they can
    out = run("sweep", "--engine", "generic", "--gpus", "3", "--tp", "3",
              "--vary", "gpus=3..6").stdout.decode()
    gpus = {r.split()[0]: r.split()[1] for r in out.splitlines()[2:6]}
    assert gpus["3"] == "3!" and gpus["6"] == "6=3x2!", out
    assert "! the tensor-parallel size does not divide the model's heads evenly" in out, out
    out = run("sweep", "--engine", "vllm", "--vary", "gpus=1..8").stdout.decode()
    gpus = {r.split()[0]: r.split()[1] for r in out.splitlines()[2:10]}
    # each count the layout that serves the most (core/scenario_layout.c):
    # stages, TP and stages in "3=1pp3", "6=2pp3", where TP cannot hold them
    assert gpus == {"1": "1", "2": "2", "3": "3=1pp3", "4": "4", "5": "5=1pp5",
                    "6": "6=2pp3", "7": "7=1pp7", "8": "8"}, out


def test_the_gpus_knob_sits_at_one_place_for_one_count():
    places = {slider(screen("", "--gpus", "16", *tp), "GPUs")[1]
              for tp in ([], ["--tp", "2"], ["--tp", "4"], ["--tp", "8"])}
    assert len(places) == 1, places


def test_the_chart_marks_the_models_longest_context():
    # Llama 3.1 8B reads 128k tokens at most and the axis runs to 1M: a dotted
    # rule at 128k (halfway between the 64k and 256k ticks, both axes being
    # log2 steps) named "max 128k" at its top, in --mono too; Llama 2 7B's at 4k
    for size in ("120x40", "160x50"):
        for extra in ([], ["--mono"]):
            s = screen("", "--model", "llama-3.1-8b", *extra, size=size).split("\n")
            axis = next(i for i, l in enumerate(s) if re.search(r"1k +4k +16k +64k +256k +1M", l))
            c64, c256 = s[axis].index("64k"), s[axis].index("256k")
            # the model's line names it too: the chart's, after the rule
            top = next(i for i, l in enumerate(s) if "\u250amax 128k" in l)
            col = s[top].index("\u250amax 128k")
            assert abs(col - (c64 + c256) / 2) <= 1, (size, col, c64, c256, s)
            rule = [s[y][col] for y in range(top, axis)]
            assert rule.count("\u250a") >= len(rule) - 2, (size, rule)
    s = screen("", "--model", "llama-2-7b", size="120x40")
    assert "\u250amax 4k" in s, s


def users_row(text):
    m = re.search(r"^ Users .*?=\s*([0-9,]+)\s*(all replicas)?\s*$", text, re.M | re.S)
    assert m, text
    return int(m.group(1).replace(",", ""))


def test_stages_experts_concurrency_and_prompt_are_planner_controls():
    # Mixtral 8x7B on 8 GPUs under vLLM: Stages 2 (TP 4 each), expert parallel on
    # (vLLM V1 --enable-expert-parallel), 64 users at once, a 1k prompt
    args = ["--engine", "vllm", "--model", "mixtral-8x7b", "--gpus", "8"]
    to_stages = "<Up>" * 3
    s = screen(to_stages + "<Right>" + "<Down><Right>", *args)
    assert slider(s, "Stages")[0] == "2" and control(s, "Expert par") == "on", s
    assert "TP 4 x PP 2" in s.split("\n")[0], s
    want = plan(*args, "--pp", "2", "--enable-expert-parallel")["result"]["max_users"]
    assert users_row(s) == want, (want, s)
    # SGLang names its own knob; llama.cpp splits layers: no Stages row
    assert "DP attn" in screen("", "--engine", "sglang", "--model", "deepseek-v3", "--gpus", "8")
    assert "Stages" not in screen("", "--engine", "llama.cpp", "--gpus", "4")
    # the load: typed, as --concurrency and --prompt take them
    to_load = "<Down>" * 10  # Context -> ... -> First token -> At once
    s = screen(to_load + "<Enter>64<Enter><Down><Enter>1k<Enter>", "--context", "32k",
               size="100x40")
    assert slider(s, "At once")[0] == "64" and slider(s, "Prompt")[0] == "1k", s
    assert re.search(r"^ At once .* 64 users ", s, re.M), s
    r = plan("--context", "32k", "--concurrency", "64", "--prompt", "1k")["result"]
    m = re.search(r"first token ([0-9.]+) ms", s)
    assert m and abs(float(m.group(1)) - r["ttft_seconds"] * 1e3) < 0.01, (r["ttft_seconds"], s)


# ---- labels that compute and agree ----

def test_a_layer_split_is_labelled_as_the_cli_labels_it():
    args = ["--engine", "llama.cpp", "--gpus", "12", "--tp", "4", "--model", "llama-3.1-70b"]
    s = screen("", *args, size="120x40")
    cli = run("plan", *args).stdout.decode().splitlines()[0]
    assert "(3 x 4 GPUs, layers split)" in cli and "(3 x 4 GPUs, layers split)" in s.split("\n")[0], s
    per_gpu = plan(*args)["result"]["kv_bytes_per_token_per_gpu"]
    # 4 KiB a token a layer; the fullest of 4 GPUs holds ceil(81 / 4) = 21 of the 80
    # layers (llama.cpp's load_tensors gives whole layers; t_planner_layouts.py)
    assert per_gpu == 21 * 4096 and "per GPU: 672.00 MiB/user, 84 KiB/token" in s, s


def test_the_header_follows_the_kv_heads_control():
    s = screen("<Down><Home>")  # KV heads to 1 of Llama 3.1 8B's 32
    assert re.search(r"MQA 1( KV)? ?/ ?32", s.split("\n")[1]), s
    assert "GQA 8" not in s.split("\n")[1], s


def test_gb_mode_shows_the_numbers_its_division_used():
    s = screen("u")
    m = re.search(r"^ Users +floor\(([0-9.]+) GB pool / ([0-9.]+) GB per user\) = floor\(([0-9.]+)\)",
                  s, re.M)
    assert m, s
    assert round(float(m.group(1)) / float(m.group(2)), 2) == float(m.group(3)), m.groups()
    pane = s[s.index("How the number is computed"):]
    assert "KiB" not in pane and "131.07 KB" in pane, pane


def test_the_versus_markdown_gives_no_change_for_a_missing_price():
    md = os.path.join(TMP, "versus.md")
    # B on an A100 40GB, which the catalogue gives no price for
    screen("n<Up><Up><Up><Up><Up><Enter>a100-40gb<Enter>vm%s<Enter>" % md, "--gpu", "a100-80gb")
    rows = [r for r in open(md).read().splitlines() if r.startswith("| Cost per")]
    assert len(rows) == 3 and all(r.endswith("| n/a |") for r in rows), rows


# ---- boxes, the picker, versus and the title do what they say ----

def test_q_only_closes_the_boxes_that_say_any_key_closes_them():
    # the planner stops reading keys once it quits: a box opened after q shows it did not
    assert " Keys " in screen("?q?"), "q in the help quit the planner"
    s = screen("wqw", "--context", "1M", "--model", "llama-2-7b")
    assert "Warnings (any key closes)" in s, s


def test_the_picker_highlight_keeps_its_entry_when_sorted():
    to_gpu = "<Up>" * 5
    s = screen(to_gpu + "<Enter>h200<Tab><Enter>")
    assert "NVIDIA H200 SXM 141GB" in s.split("\n")[0], s.split("\n")[0]


def test_esc_in_the_versus_presentation_goes_back_to_versus():
    s = screen("nvp<Esc>", size="120x36")
    assert s.startswith(" kvplan  versus: 2 scenarios"), s


def test_a_title_too_long_is_cut_with_a_mark():
    s = screen("bnnnnn", size="70x22")
    title = s.split("\n")[0]
    head = title[:title.index(" 1 A*")].rstrip()
    assert head.endswith("\u2026") or head.endswith(" at 8k") or head.endswith(", 8k"), title


def test_a_name_cut_at_its_limit_says_so():
    s = screen("a" + "abcdefghijklmnopqrstuvwxyz0123")
    assert "full: 24 bytes, no more is kept" in s.split("\n")[-2], s
    s = screen("a" + "abcdefghijklmnopqrstuvwxyz0123<Enter>")
    assert "abcdefghijklmnopqrstuvwx (cut at the 24 bytes a name holds)" in status(s), status(s)


# ---- notes are seen ----

def test_a_note_is_shown_in_the_planner_and_in_the_markdown_with_its_name():
    md = os.path.join(TMP, "one.md")
    s = screen("afleet<Enter>Nfor the *board* meeting<Enter>m%s<Enter>" % md)
    assert "fleet: for the *board* meeting" in s, s
    text = open(md).read()
    assert text.endswith("\n\n- Scenario 1, fleet: for the \\*board\\* meeting\n"), text[-200:]


def main():
    tests = [(n, f) for n, f in sorted(globals().items()) if n.startswith("test_")]
    passed = failed = 0
    for name, fn in tests:
        try:
            fn()
            passed += 1
        except Exception:  # noqa: BLE001 - every failure is reported, the rest still run
            failed += 1
            print("FAIL %s" % name)
            traceback.print_exc()
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
