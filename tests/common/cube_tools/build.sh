# Sourced by tests/common scripts (needs ROOT): builds a generator from
# cube_tools/ against the CUBE writer, with the flags every such test uses.
# build_cube_tool SRC OUT [flags...]   (later flags win: -O1, sanitizers)
CUBE_TOOL_CFLAGS="-std=gnu11 -O2 -Wall -Wextra -Werror -Wno-unused-parameter"
build_cube_tool() { local src=$1 out=$2; shift 2
    gcc $CUBE_TOOL_CFLAGS "$@" -I"$ROOT" "$ROOT/tests/common/cube_tools/$src" \
        "$ROOT"/report/cube/writer/*.c -o "$out" -lz -lm; }
# build_view_asan DIR: hprof-view built with -fsanitize=address,undefined
# into DIR/hprof-view-asan (its HTML page generated as the Makefile does);
# the compiler's messages in DIR/cc.err.
build_view_asan() { local d=$1
    python3 "$ROOT/tools/hprof-view/html/embed.py" "$ROOT/tools/hprof-view/html/report.html" \
        "$d/view_html_template.c" 2> "$d/cc.err" &&
    gcc -std=gnu11 -g -O1 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all \
        -Wall -Wextra -Wno-unused-parameter -I"$ROOT" -I"$ROOT" \
        "$ROOT"/report/cube/reader/*.c "$ROOT"/tools/hprof-view/*.c "$d/view_html_template.c" \
        -o "$d/hprof-view-asan" -lexpat -lz -lm 2> "$d/cc.err"; }
