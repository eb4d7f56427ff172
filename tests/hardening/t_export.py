"""Exports the planner wrote and kvplan then refused to load, and text cut
without a word. Each case drives the real binary (the planner through
--dump-screen --keys and on a pseudo-terminal, `--gpu auto` through a fake
nvidia-smi first in PATH) and loads what it wrote back with `kvplan plan
--load`.

Usage: t_export.py KVPLAN. Ends with "N passed, N failed"."""
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e2e"))
from ptyterm import PtyTerm  # noqa: E402

K = os.path.abspath(sys.argv[1])
T = tempfile.mkdtemp(prefix="kvplan-export.")
ENV = dict(os.environ, XDG_CONFIG_HOME=os.path.join(T, "config"), LC_ALL="C.UTF-8")
ENV.pop("NO_COLOR", None)
passed = failed = 0


def check(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL: %s %s" % (name, detail))


def run(args, env=None):
    p = subprocess.run([K] + args, capture_output=True, timeout=60, env=env or ENV)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def path(name):
    return os.path.join(T, name)


def planner(keys, *args):
    """The planner's screen after the keys (80x24)."""
    rc, out, err = run(["--dump-screen", "-"] + list(args) + ["--keys", keys])
    return out + err


def load(f):
    return run(["plan", "--load", f])


def session_of(f):
    with open(f, encoding="utf-8") as h:
        return json.load(h)["session"]["scenarios"]


def loads_back(name, f):
    rc, out, err = load(f)
    check(name + ": the export loads back", os.path.exists(f) and rc == 0, err.strip())
    return rc == 0


# --- labels: the prompt stops at 24 bytes and says so; two labels the same
# in their first 24 bytes are two names for one scenario, refused at once
A1, A2 = "abcdefghijklmnopqrstuvwxyz-1", "abcdefghijklmnopqrstuvwxyz-2"
screen = planner("a" + A1)
check("long label: the limit is said", "at most 24 bytes" in screen, screen[-300:])
screen = planner("a%s<Enter>na%s<Enter>" % (A1, A2))
check("long labels: the second, the same name, is refused",
      "label: 'abcdefghijklmnopqrstuvwx' already names scenario 1" in screen, screen[-300:])
f = path("labels.json")
planner("a%s<Enter>na%s<Enter>e%s<Enter>" % (A1, A2, f))
if loads_back("long labels", f):
    labels = [e["label"] for e in session_of(f)]
    check("long labels: the first keeps 24 bytes, the second its own name (its place's letter)",
          labels == [A1[:24], "B"], labels)

# --- a 200-character note keeps 160 and the status line says so
screen = planner("N" + "n" * 200)
check("long note: the limit is said", "at most 160 bytes" in screen, screen[-300:])
f = path("note.json")
planner("N%s<Enter>e%s<Enter>" % ("n" * 200, f))
if loads_back("long note", f):
    note = session_of(f)[0]["note"]
    check("long note: 160 bytes kept", note == "n" * 160, len(note))

# --- Backspace takes a whole character: a prefilled "Aé" becomes "A"
base = path("two.json")
planner("ne%s<Enter>" % base)
with open(base, encoding="utf-8") as h:
    doc = json.load(h)
doc["session"]["scenarios"][0]["label"] = "A\u00e9"
ae = path("ae.json")
with open(ae, "w", encoding="utf-8") as h:
    json.dump(doc, h, ensure_ascii=False)
f = path("backspace.json")
planner("1a<BS><Enter>e%s<Enter>" % f, "--load", ae)
if loads_back("Backspace on Aé", f):
    label = session_of(f)[0]["label"]
    check("Backspace on Aé: A", label == "A", repr(label))

# --- a label from a file's name is cut at a whole character
long_name = path("\u00e9" * 30 + ".json")
one = dict(doc)
one.pop("session")  # a single scenario: labelled from its file
with open(long_name, "w", encoding="utf-8") as h:
    json.dump(one, h)
f = path("opened.json")
screen = planner("o%s<Enter>ne%s<Enter>" % (long_name, f))
check("a long file name: opened", "opened" in screen or os.path.exists(f), screen[-300:])
if loads_back("a long file name", f):
    label = session_of(f)[0]["label"]
    check("a long file name: 24 bytes of whole characters", label == "\u00e9" * 12, repr(label))

# --- --gpu auto: the driver's name is made text before it is stored
bindir = path("bin")
os.mkdir(bindir)
smi = os.path.join(bindir, "nvidia-smi")
names = {
    "escape": b"NVIDIA H100 80GB HBM3\x1b[31m\x1b]0;owned\x07",
    "byte 0xff": b"NVIDIA H100 80GB HBM3 \xff\xfe",
    "multibyte cut at 95": b"NVIDIA H100 80GB HBM3 x" + "\u00e9".encode() * 60,
}
for what, name in names.items():
    with open(smi, "wb") as h:
        h.write(b"#!/bin/sh\nprintf '%s, 81559\\n'\n" % name.replace(b"%", b"%%"))
    os.chmod(smi, stat.S_IRWXU)
    env = dict(ENV, PATH=bindir + os.pathsep + ENV["PATH"])
    f = path("auto-%s.json" % what.replace(" ", "-"))
    p = subprocess.run([K, "plan", "--gpu", "auto", "--export", f], capture_output=True,
                       timeout=60, env=env)
    check("--gpu auto, %s: exported" % what, p.returncode == 0, p.stderr[-200:])
    check("--gpu auto, %s: no control byte printed" % what,
          b"\x1b" not in p.stdout and b"\x07" not in p.stdout)
    if loads_back("--gpu auto, " + what, f):
        with open(f, encoding="utf-8") as h:
            basis = json.load(h)["scenario"]["gpu"]["memory_basis"]
        check("--gpu auto, %s: the basis ends whole" % what,
              basis.startswith("this machine (nvidia-smi: 81559 MiB, NVIDIA H100") and
              basis.endswith(")") and len(basis.encode()) <= 95, repr(basis))

# --- import-hf: a long multibyte _name_or_path is no Hugging Face id: left out, said,
# and the preset it writes exports and loads back
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "hf",
                       "falcon-7b.json"), encoding="utf-8") as h:
    config = json.load(h)
config["_name_or_path"] = "xx" + "\u00e9" * 60  # 95 bytes would end inside an é
hf = path("hf-config.json")
with open(hf, "w", encoding="utf-8") as h:
    json.dump(config, h, ensure_ascii=False)
presets = path("presets")
os.mkdir(presets)
rc, out, err = run(["import-hf", hf, "--id", "long-name", "-o", os.path.join(presets, "m.json")])
check("import-hf, a long _name_or_path: imported, and said", rc == 0 and "left out" in err, err.strip())
rc, out, err = run(["plan", "--presets", presets, "--model", "long-name", "--export", path("m.json")])
if rc == 0 and loads_back("import-hf, a long _name_or_path", path("m.json")):
    with open(path("m.json"), encoding="utf-8") as h:
        hf_id = json.load(h)["scenario"]["model"]["hf_id"]
    check("import-hf: no hf_id kept", hf_id == "", hf_id)

# --- the loader: what no label or note may hold, and the limits, in bytes
with open(base, encoding="utf-8") as h:
    good = json.load(h)


def refused(name, entry, field, value, expect):
    doc = json.loads(json.dumps(good))
    doc["session"]["scenarios"][entry][field] = value
    f = path("bad-%s.json" % name)
    with open(f, "w", encoding="utf-8") as h:
        json.dump(doc, h)  # ensure_ascii: U+2028 and U+0000 as \u escapes
    rc, out, err = load(f)
    check("load %s: exit 2" % name, rc == 2, "exit %d %s" % (rc, err.strip()))
    check("load %s: says why" % name, f in err and field in err and expect in err, err.strip())


def accepted(name, entry, field, value):
    doc = json.loads(json.dumps(good))
    doc["session"]["scenarios"][entry][field] = value
    f = path("ok-%s.json" % name)
    with open(f, "w", encoding="utf-8") as h:
        json.dump(doc, h)
    rc, out, err = load(f)
    check("load %s: accepted" % name, rc == 0, err.strip())


refused("line-separator", 1, "label", "fp8\u2028x", "U+2028")
refused("paragraph-separator", 0, "note", "one\u2029two", "U+2029")
refused("rtl-mark", 1, "label", "\u200fB", "U+200F")
refused("empty-label", 1, "label", "", "empty")
refused("blank-label", 1, "label", "   ", "empty")
refused("nul-in-note", 0, "note", "kept\u0000cut", "\\u0000")
refused("nul-in-label", 1, "label", "B\u0000C", "\\u0000")
refused("label-25-bytes", 1, "label", "x" * 25, "longer than 24 bytes")
refused("note-161-bytes", 0, "note", "x" * 161, "longer than 160 bytes")
refused("spaced-duplicate", 1, "label", " a ", "names two scenarios")
accepted("label-24-bytes", 1, "label", "x" * 24)
accepted("label-12-e-acute", 1, "label", "\u00e9" * 12)
accepted("note-160-bytes", 0, "note", "x" * 160)


def labels_of(f):
    p = subprocess.run([K, "plan", "--load", f], capture_output=True, timeout=30, env=ENV)
    check("%s loads back" % os.path.basename(f), p.returncode == 0, p.stderr[-300:])
    with open(f, encoding="utf-8") as h:
        return [e["label"] for e in json.load(h)["session"]["scenarios"]]


# --- on a real pseudo-terminal: the terminal's Backspace takes a whole
# character (the loaded "Aé" becomes "A"), UTF-8 typed at the keyboard is
# kept whole, and the prompt stops at its limit and says so
out = os.path.join(T, "out.json")
t = PtyTerm([K, "--load", ae], cols=100, rows=30, env=ENV)
try:
    t.wait_for("q quit")
    t.press("1")
    t.press("a")
    t.wait_for(r"Name of scenario 1: A\u00e9_")
    check("the prompt says the limit", "at most 24 bytes" in t.text(), t.text()[-400:])
    t.press(t.cap("kbs"))  # the terminal's own Backspace
    t.wait_for(r"Name of scenario 1: A_ ")
    t.press("\r")
    # UTF-8 typed at the keyboard: each character whole, up to 24 bytes
    t.press("2")
    t.press("a")
    t.press("\u20ac" * 7)  # 21 bytes
    t.press("\u00e9")      # 23: fits
    t.press("\u00e9")      # 25: does not
    t.wait_for("the name: at most 24 bytes")
    check("the typed name stops at a whole character",
          "Name of scenario 2: " + "\u20ac" * 7 + "\u00e9_" in t.text(), t.text()[-400:])
    t.press("\r")
    t.press("e")
    t.press(out + "\r")
    t.wait_for("wrote ")
except AssertionError as e:  # a screen that never came: the case fails, the rest runs
    check("the planner answers", False, str(e)[-600:])
finally:
    t.kill()
if os.path.exists(out):
    labels = labels_of(out)
    check("Backspace took é whole", labels[0] == "A", repr(labels))
    check("the typed name is kept whole", labels[1] == "\u20ac" * 7 + "\u00e9", repr(labels))
else:
    check("exported", False)

shutil.rmtree(T, ignore_errors=True)
print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
