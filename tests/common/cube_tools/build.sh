# Sourced by tests/common scripts (needs ROOT): builds a generator from
# cube_tools/ against the CUBE writer, with the flags every such test uses.
# build_cube_tool SRC OUT [flags...]   (later flags win: -O1, sanitizers)
CUBE_TOOL_CFLAGS="-std=gnu11 -O2 -Wall -Wextra -Werror -Wno-unused-parameter"
build_cube_tool() { local src=$1 out=$2; shift 2
    gcc $CUBE_TOOL_CFLAGS "$@" -I"$ROOT/report/writer" "$ROOT/tests/common/cube_tools/$src" \
        "$ROOT"/report/writer/*.c -o "$out" -lz -lm; }
