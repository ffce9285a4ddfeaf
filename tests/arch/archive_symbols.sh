#!/bin/bash
# libhprof.a exports what libhprof.so does and nothing else: every global
# symbol it defines is an MPI name (MPI_*, PMPI_*, the Fortran mpi_*,
# pmpi_*), hprof_* or a name of lib/exports.map (the interposers), so that
# a program linked with it statically keeps its own hmap_new, defs_new or
# collect_values (the Makefile links the objects into one and localizes
# their hidden symbols). Then a program that defines some of the internal
# names links with libhprof.a.
#   ARCHIVES="a.a b.a"  check these instead of build/<mpi>/libhprof.a
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$HERE/../common/lib/common.sh"
MPIS=${MPIS:-"openmpi mpich"}

# The allowed names as shell patterns: lib/exports.map's global: entries
# (comments dropped) and the MPI and hprof prefixes.
allowed=$(sed -e 's|/\*.*\*/||g' -e '/\/\*/,/\*\//d' lib/exports.map |
          awk '/global:/ { on = 1; next } /local:/ { on = 0 } on' | tr -d ' ;' | grep -v '^$')
allowed="$allowed MPI_* PMPI_* mpi_* pmpi_* hprof_*"
is_allowed() { # name
    local p
    for p in $allowed; do
        # shellcheck disable=SC2053 # p is a pattern
        [[ $1 == $p ]] && return 0
    done
    return 1
}

[ "$(wc -w <<<"$allowed")" -gt 10 ] && grep -q '^pthread_create$' <<<"${allowed// /$'\n'}" &&
    ok "archive symbols: $(wc -w <<<"$allowed") allowed patterns from lib/exports.map and the prefixes" ||
    notok "archive symbols: allowed patterns" "lib/exports.map read as: $allowed"

archives=${ARCHIVES:-$(for m in $MPIS; do echo "build/$m/libhprof.a"; done)}
for a in $archives; do
    if [ ! -f "$a" ]; then notok "archive symbols: $a" "not built (make all)"; continue; fi
    nm -g --defined-only "$a" 2> "$W/nm.err" | awk 'NF == 3 { print $3 }' | sort -u > "$W/globals"
    if [ ! -s "$W/globals" ]; then notok "archive symbols: $a" "nm found no symbol: $(head -c 200 "$W/nm.err")"; continue; fi
    bad=$(while read -r s; do is_allowed "$s" || echo "$s"; done < "$W/globals")
    n=$(wc -l < "$W/globals")
    if [ -z "$bad" ]; then ok "archive symbols: $a defines $n globals, all MPI, hprof_ or of lib/exports.map"
    else notok "archive symbols: $a" "$(wc -l <<<"$bad") of $n globals outside the allowed set: $(head -n 12 <<<"$bad" | tr '\n' ' ')"; fi
    # ...and still every interposer lib/exports.map names, and the wrappers
    # (default visibility: localizing the hidden ones left them global).
    missing=$(for p in $allowed MPI_Init MPI_Send mpi_send_; do
                  [[ $p == *'*'* ]] || grep -qxF "$p" "$W/globals" || echo "$p"; done)
    [ -z "$missing" ] && ok "archive symbols: $a still defines every interposer of lib/exports.map and the wrappers" ||
        notok "archive symbols: $a defines the interposers and wrappers" "missing: $(tr '\n' ' ' <<<"$missing")"
done

# A program of its own with names hprof uses inside links statically.
cat > "$W/own_names.c" <<'EOF'
#include <mpi.h>
int hmap_new(void) { return 1; }
int defs_new(void) { return 2; }
int collect_values(void) { return 3; }
int cct_init(void) { return 4; }
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Finalize();
    return hmap_new() + defs_new() + collect_values() + cct_init() == 10 ? 0 : 1;
}
EOF
for a in $archives; do
    [ -f "$a" ] || continue
    m=$(basename "$(dirname "$a")")
    cc=mpicc.$m
    command -v "$cc" > /dev/null || cc=mpicc
    if "$cc" -o "$W/own_names" "$W/own_names.c" "$a" -lunwind -ldw -lelf -lz -ldl -lpthread -lm > "$W/link.err" 2>&1; then
        ok "archive symbols: a program defining hmap_new, defs_new, collect_values, cct_init links with $a"
    else notok "archive symbols: a program with hprof's internal names links with $a" "$(grep -m2 'multiple definition\|error' "$W/link.err" | tr '\n' ' ' | cut -c1-300)"; fi
done
