# Sourced: cubelib_find finds cubelib's command-line tools (the library
# under the Cube GUI and Scalasca), an optional client like pyCubexR: from
# TEST_CUBELIB (its bin folder) or ../shared/clients/cubelib-4.6/bin beside
# the checkout. A copy whose library links were flattened into small text
# files naming their target gets real links in a scratch folder, put first
# on LD_LIBRARY_PATH. Sets CUBELIB (the bin folder); on failure returns 1
# with the reason in CUBELIB_WHY. Needs ROOT and a scratch folder W.
cubelib_find() {
    CUBELIB=${TEST_CUBELIB:-$ROOT/../shared/clients/cubelib-4.6/bin}
    CUBELIB_WHY=""
    if [ ! -x "$CUBELIB/cube_dump" ]; then CUBELIB_WHY="no cubelib at $CUBELIB"; return 1; fi
    local lib=$CUBELIB/../lib f target
    mkdir -p "$W/cubelib-lib"
    for f in "$lib"/libcube4.so*; do
        [ -f "$f" ] || continue
        target=$f
        if [ "$(stat -c %s "$f")" -lt 256 ] && ! head -c 4 "$f" | grep -q ELF; then
            target=$lib/$(head -c 255 "$f")
        fi
        ln -sf "$target" "$W/cubelib-lib/$(basename "$f")"
    done
    export LD_LIBRARY_PATH="$W/cubelib-lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    if ! "$CUBELIB/cube_dump" -h > "$W/cubelib-probe.txt" 2>&1 && ! grep -q Usage "$W/cubelib-probe.txt"; then
        CUBELIB_WHY="cubelib at $CUBELIB does not run: $(head -c 200 "$W/cubelib-probe.txt")"; return 1
    fi
    return 0
}
