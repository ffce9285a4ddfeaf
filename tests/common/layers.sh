#!/bin/bash
# Layers (issue 18): every #include "..." runs from a layer to itself or a
# lower one. From low to high:
#   core      core/: the calling context tree, clock, config, log, function
#             table, own-code bounds, timeline and path log, HPROF_NOUNWIND parsing;
#             core/ (issue 28's ground floor): core/select, which functions to
#             measure exactly
#   capture   unwind/ (call paths): core
#   report    report/ (merge, symbols, CUBE writer and reader): core, and
#             unwind/modules.h, the record of loaded code symbols resolve in,
#             and unwind/python/py_codes.h, the record of Python code met;
#             the runtime's state comes as a snapshot (report/profile/locations.h)
#   view      tools/hprof-view/: the CUBE reader only
#   runtime   the rest of lib/ (init/finalize, threads, sampler, PAPI): all
#             but view; wrappers/ likewise.
# KNOWN lists the includes that still break the order, each with what
# removes it; one that is gone must leave the list too.
# Since lib/ was split, the folder gives the layer: core is core/, the
# runtime lib/ (and a file straight in lib/); the generated function
# table is core, the generated wrappers are wrappers/. Besides locations.h,
# report/ reads the runtime's PAPI event definitions through
# report/merge/event_defs.h.
# The same order holds for the symbols each object file of the build takes
# from another (build/<mpi>/obj, make all); a symbol may also run upwards
# when a header of a layer allowed to the user declares it: the lower layer
# owns that interface, a higher one implements it.
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$HERE/lib/common.sh"
shopt -s nullglob

KNOWN=()

layer_of() { # FILE -> core capture reader report view runtime wrappers
    case $1 in
        gen/fn_table.*) echo core ;;
        gen/*) echo wrappers ;;
        core/* | core/*) echo core ;;
        lib/*) echo runtime ;;
        unwind/*) echo capture ;;
        report/cube/reader/*) echo reader ;;
        report/*) echo report ;;
        tools/hprof-view/*) echo view ;;
        wrappers/*) echo wrappers ;;
    esac
}

allowed() { # FROM-LAYER TO-LAYER TO-FILE
    case "$1:$2" in
        core:core) return 0 ;;
        capture:core | capture:capture) return 0 ;;
        reader:reader) return 0 ;;
        report:core | report:report | report:reader) return 0 ;;
        report:capture) [ "$3" = unwind/modules.h ] || [ "$3" = unwind/python/py_codes.h ] ;;
        view:view | view:reader) return 0 ;;
        runtime:view | wrappers:view) return 1 ;;
        runtime:* | wrappers:*) return 0 ;;
        *) return 1 ;;
    esac
}

declare -A where
dup=""
for h in lib/*.h lib/*/*.h core/*/*.h unwind/*.h report/*/*.h wrappers/*.h tools/hprof-view/*.h; do
    b=$(basename "$h")
    [ -n "${where[$b]:-}" ] && dup="$dup $b (${where[$b]}, $h)"
    where[$b]=$h
done
# An include is found by its file name, wherever the -I paths put it: two
# headers of one name would make its layer a guess.
if [ -z "$dup" ]; then ok "layers: every header name is unique"
else notok "layers: every header name is unique" "$dup"; fi

bad=() known_seen=() n=0
for f in lib/*.[ch] lib/*/*.[ch] core/*/*.[ch] unwind/*.[ch] report/*/*.[ch] wrappers/*.[ch] tools/hprof-view/*.[ch]; do
    from=$(layer_of "$f")
    while IFS= read -r inc; do
        to_file=${where[$(basename "$inc")]:-}
        [ -n "$to_file" ] || continue # generated (fn_ids.h) or not ours
        n=$((n + 1))
        to=$(layer_of "$to_file")
        allowed "$from" "$to" "$to_file" && continue
        if printf '%s\n' "${KNOWN[@]}" | grep -qxF "$f $inc"; then
            known_seen+=("$f $inc")
        else
            bad+=("$f ($from) -> $to_file ($to)")
        fi
    done < <(grep -oE '^#include "[^"]+"' "$f" | cut -d'"' -f2)
done

if [ ${#bad[@]} -eq 0 ]; then
    ok "layers: $n includes run downwards (known exceptions: ${#known_seen[@]})"
else
    notok "layers: every include runs downwards" "$(printf '%s; ' "${bad[@]}" | cut -c1-600)"
fi

# The same order for symbols: NAME is declared in a header that FROM-LAYER
# may include (an interface owned below, implemented above).
declared_for() { # FROM-LAYER NAME
    local h
    for h in $(grep -lw -- "$2" lib/*.h lib/*/*.h core/*/*.h unwind/*.h report/*/*.h wrappers/*.h 2>/dev/null); do
        allowed "$1" "$(layer_of "$h")" "$h" || continue
        # declared, not only named in a comment
        grep -vE '^[[:space:]]*/?\*' "$h" | sed 's|/\*.*||' |
            grep -qE "(^|[^A-Za-z0-9_])$2[[:space:]]*(\(|\[|;|=)" && return 0
    done
    return 1
}
# The objects of today's sources (a moved or deleted file's stays behind
# in the build folder) and the generated ones.
current_objects() {
    local o
    while read -r o; do
        case $o in gen/*) echo "$o" ;; *) [ -f "$ROOT/${o%.o}.c" ] && echo "$o" ;; esac
    done
}
objdirs=()
for m in openmpi mpich; do [ -d "build/$m/obj" ] && objdirs+=("build/$m/obj"); done
if [ ${#objdirs[@]} -eq 0 ]; then
    notok "layers: every symbol runs downwards" "no build/<mpi>/obj: run make all first"
else
    sbad=() nsym=0
    for d in "${objdirs[@]}"; do
        # "object symbol defining-object" for every symbol one object takes
        # from another
        while read -r from sym def; do
            nsym=$((nsym + 1))
            fl=$(layer_of "${from%.o}.c") tl=$(layer_of "${def%.o}.c")
            allowed "$fl" "$tl" "${def%.o}.h" && continue
            declared_for "$fl" "$sym" && continue
            sbad+=("$from ($fl) takes $sym from $def ($tl)")
        done < <(cd "$d" && find . -name '*.o' | sed 's|^\./||' | sort | current_objects | xargs nm -P -A 2>/dev/null |
                 awk '$3 == "U" { sub(/:$/, "", $1); use[$1 " " $2] = 1; next }
                      $3 ~ /^[TDRBVWC]$/ { sub(/:$/, "", $1); def[$2] = $1 }
                      END { for (k in use) { split(k, a, " ");
                            if ((a[2] in def) && def[a[2]] != a[1]) print a[1], a[2], def[a[2]] } }' | sort)
    done
    if [ ${#sbad[@]} -eq 0 ]; then
        ok "layers: $nsym symbols taken across object files run downwards (${objdirs[*]})"
    else
        notok "layers: every symbol runs downwards" "$(printf '%s; ' "${sbad[@]}" | cut -c1-600)"
    fi
fi

for k in "${KNOWN[@]}"; do echo "# still to do: $k"; done
stale=""
for k in "${KNOWN[@]}"; do
    printf '%s\n' "${known_seen[@]+"${known_seen[@]}"}" | grep -qxF "$k" || stale="$stale [$k]"
done
if [ -z "$stale" ]; then ok "layers: every known exception still exists"
else notok "layers: every known exception still exists" "fixed, so take it off KNOWN:$stale"; fi
