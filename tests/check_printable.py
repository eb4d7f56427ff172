#!/usr/bin/python3
"""Every byte kvplan printed is text: UTF-8 without control characters
other than newline and tab (no C0, DEL, C1 raw or encoded, nor bidirectional
overrides). Issue 9: messages quoted ESC]2; from a snapshot to the terminal.
Usage: check_printable.py DIR: checks every DIR/printed.* file, whose
command line is in printed.*.args. Prints "printable: N passed, N failed"."""
import os
import sys


def first_bad(data):
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        return e.start, "a byte that is not UTF-8"
    for i, ch in enumerate(text):
        cp = ord(ch)
        if ch in "\n\t":
            continue
        if cp < 0x20 or 0x7F <= cp <= 0x9F:
            return i, "control character U+%04X" % cp
        if 0x202A <= cp <= 0x202E or 0x2066 <= cp <= 0x2069:
            return i, "bidirectional override U+%04X" % cp
    return None


def main():
    d = sys.argv[1]
    passed = failed = 0
    for name in sorted(os.listdir(d)):
        if not name.startswith("printed.") or name.endswith(".args"):
            continue
        with open(os.path.join(d, name), "rb") as f:
            data = f.read()
        bad = first_bad(data)
        if bad is None:
            passed += 1
            continue
        failed += 1
        args = open(os.path.join(d, name + ".args"), "rb").read()
        print("FAIL: kvplan %r printed %s at %d: %r" % (args, bad[1], bad[0],
                                                        data[max(0, bad[0] - 20):bad[0] + 20]))
    print("printable: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
