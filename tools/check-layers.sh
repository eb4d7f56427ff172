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
# Inside core, headers in layer order: each includes only headers before it
# in this list, so no include goes back up and none goes round in a circle.
# A new header takes its place here.
core_order="version diag text dtype units shell params engine spec scenario
kvcost lora specdec explain engine_detail speed hosttier plan policy images solve"
for f in src/core/*.h; do
    h=$(basename "$f" .h)
    case " $(echo $core_order) " in
    *" $h "*) ;;
    *) bad "$f is not in check-layers.sh's order of core headers"; continue ;;
    esac
    below=$(echo $core_order | sed "s/ *\<$h\>.*//")
    for inc in $(sed -n 's/^#include *"\([a-z_]*\)\.h".*/\1/p' "$f"); do
        case " $below " in
        *" $inc "*) ;;
        *) bad "$f includes $inc.h, which is not below it in core's order" ;;
        esac
    done
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
