#!/bin/sh
# check-layers.sh: the arrows point down. core includes nothing of ours but
# core, and neither cJSON nor curses nor stdio file calls; io knows no
# curses, tui knows no GPUs, and nothing below cli includes cli.
fail=0
bad() { echo "layering: $1" >&2; fail=1; }
for f in src/core/*.[ch]; do
    grep -nE '#include *[<"](cJSON|curses|ncurses|io/|tui/|app/|cli/)' "$f" && bad "$f includes a higher layer"
    grep -nE '\b(fopen|fprintf|printf|puts|fputs|getenv|open|read|write)\s*\(' "$f" | grep -v snprintf && bad "$f does I/O"
done
for f in src/io/*.[ch]; do
    grep -nE '#include *[<"](curses|ncurses|tui/|app/|cli/)' "$f" && bad "$f includes a higher layer"
done
for f in $(ls src/tui/*.[ch] 2>/dev/null); do
    grep -nE '#include *[<"](cJSON|core/|io/|app/|cli/)' "$f" && bad "$f (toolkit) knows the planner"
done
for f in $(ls src/app/*.[ch] 2>/dev/null); do
    grep -nE '#include *[<"]cli/' "$f" && bad "$f includes cli"
done
[ $fail = 0 ] && echo "layers: ok"
exit $fail
