#!/usr/bin/python3
"""screenshots: PNG pictures of the real planner, and the SVG pictures it
exports (--export-svg, g), for the README.

Runs build/kvplan on a pseudo-terminal (tests/e2e/ptyterm.py), presses the
keys of each scene, and paints pyte's screen with Pillow: DejaVu Sans Mono
for text, exact rectangles for block elements so bars have no seams.
Usage: screenshots.py KVPLAN OUTDIR [SCENE...]. Needs python3-pyte, python3-pil and
fonts-dejavu-core, run with /usr/bin/python3.
"""
import os
import subprocess
import sys

from PIL import Image, ImageDraw, ImageFont

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "e2e"))
from ptyterm import PtyTerm  # noqa: E402

FONTS = "/usr/share/fonts/truetype/dejavu/"
BACKGROUND, FOREGROUND = (24, 26, 32), (214, 216, 220)
COLOURS = {
    "black": (24, 26, 32), "red": (232, 83, 83), "green": (94, 196, 110),
    "brown": (229, 192, 88), "yellow": (229, 192, 88), "blue": (88, 140, 232),
    "magenta": (200, 110, 220), "cyan": (80, 196, 210), "white": (214, 216, 220),
}


def colour(name, default, bold=False):
    if name == "default":
        return default
    rgb = COLOURS.get(name)
    if rgb is None and len(name) == 6:
        rgb = tuple(int(name[i:i + 2], 16) for i in (0, 2, 4))
    if rgb is None:
        return default
    if bold:  # pyte folds bright colours into bold: paint them brighter
        rgb = tuple(min(255, int(c * 1.15) + 10) for c in rgb)
    return rgb


def block(ch, x, y, w, h):
    """The rectangle of a block element (U+2580-U+2590), or None."""
    o = ord(ch)
    if 0x2581 <= o <= 0x2588:
        k = o - 0x2580
        return (x, y + h - round(h * k / 8), x + w, y + h)
    if 0x2589 <= o <= 0x258F:
        return (x, y, x + round(w * (0x2590 - o) / 8), y + h)
    if o == 0x2580:
        return (x, y, x + w, y + h // 2)
    return None


def braille(ch, x, y, w, h):
    """The dots of a braille cell (U+2801-U+28FF) as rectangles, or None."""
    o = ord(ch) - 0x2800
    if not 0 < o <= 0xFF:
        return None
    bits = ((0, 0, 0x01), (0, 1, 0x02), (0, 2, 0x04), (0, 3, 0x40),
            (1, 0, 0x08), (1, 1, 0x10), (1, 2, 0x20), (1, 3, 0x80))
    d = max(2, min(w // 3, h // 6))
    return [(x + round((2 * c + 1) * w / 4) - d // 2, y + round((2 * r + 1) * h / 8) - d // 2, d)
            for c, r, bit in bits if o & bit]


def shade(ch):
    """Light, medium and dark shades as a fraction of the foreground."""
    return {0x2591: 0.3, 0x2592: 0.55, 0x2593: 0.8}.get(ord(ch))


def render(screen, path, size=15, pad=10):
    regular = ImageFont.truetype(FONTS + "DejaVuSansMono.ttf", size)
    bold = ImageFont.truetype(FONTS + "DejaVuSansMono-Bold.ttf", size)
    ascent, descent = regular.getmetrics()
    cw, ch = round(regular.getlength("M")), ascent + descent + 1
    img = Image.new("RGB", (screen.columns * cw + 2 * pad, screen.lines * ch + 2 * pad), BACKGROUND)
    draw = ImageDraw.Draw(img)
    for y in range(screen.lines):
        row = screen.buffer[y]
        for x in range(screen.columns):
            c = row[x]
            fg = colour(c.fg, FOREGROUND, c.bold)
            bg = colour(c.bg, BACKGROUND)
            if c.reverse:
                fg, bg = bg, fg
            px, py = pad + x * cw, pad + y * ch
            if bg != BACKGROUND:
                draw.rectangle((px, py, px + cw - 1, py + ch - 1), fill=bg)
            if not c.data or c.data == " ":
                continue
            rect = block(c.data, px, py, cw, ch)
            if rect:
                draw.rectangle((rect[0], rect[1], rect[2] - 1, rect[3] - 1), fill=fg)
                continue
            dots = braille(c.data, px, py, cw, ch)
            if dots:
                for dx, dy, d in dots:
                    draw.rectangle((dx, dy, dx + d - 1, dy + d - 1), fill=fg)
                continue
            k = shade(c.data)
            if k is not None:
                mix = tuple(int(b + (f - b) * k) for f, b in zip(fg, bg))
                draw.rectangle((px, py, px + cw - 1, py + ch - 1), fill=mix)
                continue
            draw.text((px, py), c.data, font=bold if c.bold else regular, fill=fg)
    img.save(path, optimize=True)


SCENES = [
    ("default", (100, 30), [], [], {}),
    # name, size, arguments, keys (bytes or terminfo names in <>), environment
    ("planner", (120, 36), ["--gpu", "a100-80gb", "--model", "llama-2-7b", "--context", "4k"],
     ["b", "<kcuf1>", "<kcuf1>", "<kcuf1>"], {}),
    ("long-context", (120, 36), ["--gpu", "h100-sxm", "--model", "llama-3.1-70b", "--gpus", "4",
                                  "--context", "128k", "--prefix", "4k", "--kv-dtype", "fp8"],
     [], {}),
    ("model-picker", (120, 36), [], ["<kcuu1>", "\r", "q", "w", "e", "n"], {}),
    ("presentation", (100, 30), ["--gpu", "a100-80gb", "--model", "llama-2-7b", "--context", "4k"],
     ["b", "<kcuf1>", "<kcuf1>", "p"], {}),
    ("monochrome", (100, 30), ["--model", "gemma-3-27b", "--context", "32k"], [],
     {"NO_COLOR": "1"}),
    ("replicas-engine", (160, 48), ["--gpu", "h100-sxm", "--model", "llama-3.1-70b", "--gpus",
                                     "12", "--tp", "4", "--context", "32k", "--engine", "vllm"],
     [], {}),
    ("versus", (120, 40), ["--gpu", "h100-sxm", "--model", "llama-3.1-70b", "--gpus", "2",
                           "--context", "32k"],
     ["b", "<kcud1>", "<kcud1>", "<kcuf1>", "<kcuf1>", "<kcuf1>", "<kcuf1>", "<kcuf1>", "a",
      "\x7f", "fp8\r", "n", "<kcuu1>", "<kcuu1>", "<kcuu1>", "<kcuu1>", "<kcuu1>", "<kcuf1>",
      "<kcuf1>", "a", "\x7f", "fp8 on 4\r", "v"], {}),
    ("versus-presentation", (120, 36), ["--gpu", "h100-sxm", "--model", "llama-3.1-70b", "--gpus",
                                        "2", "--context", "32k"],
     ["b", "<kcud1>", "<kcud1>", "<kcuf1>", "<kcuf1>", "<kcuf1>", "<kcuf1>", "<kcuf1>", "v", "p"],
     {}),
    ("target", (100, 30), ["--gpu", "h100-sxm", "--model", "llama-3.1-70b", "--gpus", "2",
                           "--context", "32k"], ["T", "40\r"], {}),
    ("service-level", (120, 40), ["--model", "llama-3.1-8b", "--context", "8k", "--min-tok-s",
                                  "40"], [], {}),
    ("hybrid", (160, 48), ["--gpu", "h100-sxm", "--model", "qwen3-next-80b-a3b", "--gpus", "4",
                           "--context", "32k", "--engine", "vllm"], [], {}),
    ("explain", (120, 40), ["--gpu", "h100-sxm", "--model", "llama-3.1-70b", "--gpus", "12",
                            "--tp", "4", "--context", "32k", "--engine", "vllm"], ["x"], {}),
    ("chart", (120, 40), ["--context", "64k"], [], {}),
    ("legend-narrow", (70, 22), ["--model", "llama-3.1-70b", "--gpus", "4", "--engine", "vllm",
                                 "--context", "32k", "--prefix", "2k", "--draft-model",
                                 "llama-3.2-1b"], [], {}),
    ("compare", (100, 30), ["--gpu", "h100-sxm", "--model", "llama-3.1-70b", "--gpus", "2"],
     ["b", "<kcud1>", "<kcud1>", "<kcuf1>", "<kcuf1>", "<kcuf1>", "<kcuf1>", "c"], {}),
    # the Load screen, once its full run has followed the keys ("/TEXT": until TEXT shows)
    ("load", (120, 40), ["--gpu", "h100-sxm", "--model", "llama-3.1-8b", "--gpus", "2",
                         "--context", "8k", "--engine", "vllm"],
     ["L", "<kcuf1>", "<kcuf1>", "/: 1000 requests, seed"], {}),
]


# SVG pictures (--export-svg, and g from the versus view): name, arguments, keys
PICTURES = [
    ("plan", ["plan", "--export-svg", "{out}", "--model", "llama-3.1-70b", "--gpus", "4",
              "--engine", "vllm", "--context", "32k", "--prefix", "2k", "--draft-model",
              "llama-3.2-1b"]),
    ("versus", ["--dump-screen", "-", "--gpu", "h100-sxm", "--model", "llama-3.1-70b",
                "--gpus", "2", "--context", "32k", "--keys",
                "b<Down><Down><Right><Right><Right><Right>n<Up><PgUp>vg{out}<Enter>"]),
]


def pictures(kvplan, out):
    env = dict(os.environ, XDG_CONFIG_HOME="/nonexistent")
    for name, args in PICTURES:
        path = os.path.abspath(os.path.join(out, name + ".svg"))
        # g asks before it replaces a file (and the keys give no answer): a
        # picture of an earlier run goes first, so each run writes it anew
        if os.path.lexists(path):
            os.remove(path)
        subprocess.run([kvplan] + [a.replace("{out}", path) for a in args], env=env, check=True,
                       stdout=subprocess.DEVNULL, timeout=60)
        print("wrote %s/%s.svg" % (out, name))


def main():
    kvplan, out = os.path.abspath(sys.argv[1]), sys.argv[2]
    only = set(sys.argv[3:])  # scene names: those alone (none: every scene)
    os.makedirs(out, exist_ok=True)
    pictures(kvplan, out)
    for name, (cols, rows), args, keys, extra in SCENES:
        if only and name not in only:
            continue
        env = dict(os.environ, XDG_CONFIG_HOME="/nonexistent")
        env.pop("NO_COLOR", None)
        env.update(extra)
        t = PtyTerm([kvplan, *args], cols=cols, rows=rows, env=env)
        try:
            t.wait_for(r"\? help")
            t.wait_for(r"q quit")  # the key bar: the last row of the first frame
            for k in keys:
                if k.startswith("/"):
                    t.wait_for(k[1:], timeout=60)
                else:
                    t.press(t.cap(k[1:-1]) if k.startswith("<") else k)
            t.settle(0.2)
            # hide the test-only frame counter from the picture
            last = t.screen.buffer[rows - 1]
            for x in range(cols):
                if last[x].data == "#":
                    for k in range(x, cols):
                        last[k] = t.screen.default_char
                    break
            render(t.screen, os.path.join(out, name + ".png"))
            print("wrote %s/%s.png" % (out, name))
        finally:
            t.kill()


if __name__ == "__main__":
    main()
