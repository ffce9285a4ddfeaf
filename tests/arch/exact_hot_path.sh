#!/bin/bash
# A visit of a function measured exactly, in the common case (the same
# function entered again from a call site the thread knows), is one
# straight path at the entry (hprof_exact_enter_fast) and one at the exit
# (exact_stack_leave, lib/exact/exact_entry.c, unwind/exact_stack.c): the
# steps are inlined, and the only calls left go to the rare cases' own
# functions (enter_apart: entries to close or rearm, the clock before
# calibration; leave_below_top: a return that is not the newest entry's;
# leave_on_gettime: an exit before the TSC's calibration, whose clock is a
# call). Here: their code in each built libhprof.so calls nothing else.
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$HERE/../common/lib/common.sh"
MPIS=${MPIS:-"openmpi mpich"}

# fn: the calls it may make (the rare cases'); the rest must be inlined
check_calls() {
    local so=$1 fn=$2 allowed=$3
    objdump -d --no-show-raw-insn "$so" | awk -v f="$fn" '$0 ~ "^[0-9a-f]+ <" f ">:$" { on = 1; next } on && /^$/ { exit } on' > "$W/$fn.s"
    if [ ! -s "$W/$fn.s" ]; then
        notok "exact hot path: $so" "no $fn in objdump's output"
        return 1
    fi
    local called bad=""
    called=$(grep -oE '(call|jmp) +[0-9a-f]+ <[^>+]+>' "$W/$fn.s" | sed -E 's/.*<([^>.@]+).*/\1/' | sort -u)
    for c in $called; do
        [ "$c" = "$fn" ] && continue
        grep -qw "$c" <<<"$allowed" || bad="$bad $c"
    done
    if [ -n "$bad" ]; then
        notok "exact hot path: $so" "$fn calls$bad (inline them, or leave them to a rare case's function)"
        return 1
    fi
    return 0
}

for m in $MPIS; do
    so=build/$m/libhprof.so
    if [ ! -f "$so" ]; then notok "exact hot path: $so" "not built (make all)"; continue; fi
    check_calls "$so" hprof_exact_enter_fast "enter_apart" || continue
    check_calls "$so" exact_stack_leave "leave_below_top leave_on_gettime" || continue
    # the exit keeps nothing across a call, so it saves no register
    if grep -qE '^\s*[0-9a-f]+:\s+push' "$W/exact_stack_leave.s"; then
        notok "exact hot path: $so" "exact_stack_leave saves registers ($(grep -cE '^\s*[0-9a-f]+:\s+push' "$W/exact_stack_leave.s") pushes): something in it is kept across a call"
        continue
    fi
    ok "exact hot path: $so: an exact visit's entry and exit inline their common steps (their calls: rare cases only; the exit saves no register)"
done
