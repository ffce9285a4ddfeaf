# Sourced by tests that run cubelib's tools (an optional client).
# cubelib_setup DIR SCRATCH: 0 when DIR/bin's tools run, with CUBELIB_BIN set.
# A copy whose library links were stored as small text files (a checkout or
# an archive that does not keep symbolic links) gets real links under
# SCRATCH, on LD_LIBRARY_PATH (the tools' RUNPATH comes after it).
cubelib_setup() { local d=$1 s=$2 f
    [ -x "$d/bin/cube_dump" ] || return 1
    CUBELIB_BIN=$d/bin
    if ! "$CUBELIB_BIN/cube_dump" -h > /dev/null 2>&1; then
        mkdir -p "$s/cubelib-lib"
        for f in "$d"/lib/libcube4.so*; do
            [ "$(head -c 4 "$f")" = $'\x7fELF' ] || continue
            ln -sf "$f" "$s/cubelib-lib/libcube4.so.${f##*.so.}"
            ln -sf "$f" "$s/cubelib-lib/libcube4.so.$(echo "${f##*.so.}" | cut -d. -f1)"
        done
        export LD_LIBRARY_PATH=$s/cubelib-lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    fi
    "$CUBELIB_BIN/cube_dump" -h > /dev/null 2>&1
}
