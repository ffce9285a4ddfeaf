#!/bin/bash
# Every measured MPI call's begin and end (hprof_call_begin, hprof_call_end,
# lib/measure.c) are one straight path in the common case, a call repeated
# from a known call site: the steps of that path (the record, the
# call-site cache, the node's counters, the time line, the path log) are
# inlined, and every other case leaves by a jump to its own function
# (begin_rare, begin_beside_poll_run, end_apart, end_beside_bucket,
# end_beside_path_log, end_tail_measured), so that neither function calls
# anything and the common path saves no register for a call. Here: their
# code in each built libhprof.so has no call instruction, jumps to no
# function but those, and hprof_call_end names none of the steps.
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$HERE/../common/lib/common.sh"
MPIS=${MPIS:-"openmpi mpich"}

STEPS="record node_of_call call_site mpi_site_cached unwind_mpi_cached add_call book_call timeline_add_call path_log_add_in"
APART="begin_rare begin_beside_poll_run end_apart end_beside_bucket end_beside_path_log end_tail_measured"

# the functions fn's code calls or jumps to ("call:NAME" for a call)
targets() {
    objdump -d --no-show-raw-insn "$1" | awk -v f="$2" '$0 ~ "^[0-9a-f]+ <" f ">:$" { on = 1; next } on && /^$/ { exit } on' > "$W/$2.s"
    [ -s "$W/$2.s" ] || return 1
    grep -oE '(call|jmp) +[0-9a-f]+ <[^>+]+>' "$W/$2.s" | sed -E 's/^(call|jmp) +[0-9a-f]+ <([^>.@]+).*/\1:\2/' | sort -u
}

for m in $MPIS; do
    so=build/$m/libhprof.so
    if [ ! -f "$so" ]; then notok "hot path: $so" "not built (make all)"; continue; fi
    bad=""
    for fn in hprof_call_begin hprof_call_end; do
        if ! t=$(targets "$so" $fn); then bad="$bad; no $fn in objdump's output"; continue; fi
        calls=$(grep -oE '^\s*[0-9a-f]+:\s+call' "$W/$fn.s" | wc -l)
        [ "$calls" -eq 0 ] || bad="$bad; $fn has $calls call instruction(s) ($(grep '^call:' <<<"$t" | sed 's/^call://' | tr '\n' ' '))"
        for j in $(grep '^jmp:' <<<"$t" | sed 's/^jmp://'); do
            [ "$j" = "$fn" ] && continue
            grep -qw "$j" <<<"$APART" || bad="$bad; $fn jumps to $j"
        done
    done
    called=$(targets "$so" hprof_call_end | sed 's/^[a-z]*://')
    for s in $STEPS; do grep -qx "$s" <<<"$called" && bad="$bad; hprof_call_end calls $s"; done
    if [ -z "$bad" ]; then ok "hot path: $so: an MPI call's begin and end inline their common steps and call nothing (rare cases: a jump to their own functions)"
    else notok "hot path: $so" "${bad#; } (inline the common steps, leave the rest to a tail call: lib/measure.c)"; fi
done
