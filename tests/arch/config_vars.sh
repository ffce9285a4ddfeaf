#!/bin/bash
# Configuration in one place (issue 18): core/config.c's table is what the
# loader and the typo finder use, what the guide's environment table lists
# (docs/guide/environment.md)
# (its user variables, exactly), and every HPROF_*/HPROFTEST_* variable the
# sources read is a row of it. The loader is checked here without MPI
# (tests/mpi/config_bad_input.sh checks it in real runs).
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$HERE/../common/lib/common.sh"

P=$W/print_vars
if ! gcc -std=gnu11 -O1 -Wall -Wextra -Werror -Wno-unused-parameter -I. \
        "$HERE/config_vars/print_vars.c" core/config.c core/log.c -o "$P" 2> "$W/cc.err"; then
    notok "config: the table's test program builds" "$(head -c 400 "$W/cc.err")"; exit 0
fi
"$P" names > "$W/names"

# The guide's table: rows "| `HPROF_X` | ...".
grep -oE '^\| `HPROF[A-Z_]*`' docs/guide/environment.md | tr -d '|` ' | sort > "$W/readme"
awk '$1 == "user" { print $2 }' "$W/names" | sort > "$W/user"
if [ -s "$W/user" ] && diff "$W/user" "$W/readme" > "$W/diff"; then
    ok "config: the guide's environment table lists exactly the table's $(wc -l < "$W/user") user variables"
else
    notok "config: the guide's environment table lists exactly the table's user variables" \
          "$(grep '^[<>]' "$W/diff" | tr '\n' ' ' | sed 's/</only in config.c:/g; s/>/only in the guide:/g')"
fi

# ... and so does the manual page hprof(7): a ".B HPROF_X" entry each.
grep -oE '^\.B HPROF[A-Z_\\-]*' docs/man/hprof.7 | sed 's/^\.B //; s/\\-/-/g' | sort > "$W/man"
if [ -s "$W/user" ] && diff "$W/user" "$W/man" > "$W/diff"; then
    ok "config: hprof(7) lists exactly the table's $(wc -l < "$W/user") user variables"
else
    notok "config: hprof(7) lists exactly the table's user variables" \
          "$(grep '^[<>]' "$W/diff" | tr '\n' ' ' | sed 's/</only in config.c:/g; s/>/only in hprof.7:/g')"
fi

# Every variable named in a getenv() of the library's sources is a row.
awk '{ print $2 }' "$W/names" | sort > "$W/all"
grep -ohE 'getenv\("HPROF[A-Z_]*"\)' lib/*/*.c unwind/*.c report/*/*.c wrappers/*.c |
    grep -oE 'HPROF[A-Z_]*' | sort -u > "$W/read"
stray=$(comm -23 "$W/read" "$W/all" | tr '\n' ' ')
if [ -s "$W/read" ] && [ -z "$stray" ]; then
    ok "config: every variable the library reads with getenv is in the table"
else
    notok "config: every variable the library reads with getenv is in the table" "not in it: $stray"
fi

# The loader, from the table: defaults, one bad value of each kind, a typo.
def=$(env -u HPROF_VERBOSE "$P" load 2>&1)
want="output=- hz=100 clock=0 nounwind=- thunks=1 metrics=- verbose=0 max_nodes=262144 compress=1 buckets=256"
if [ "$def" = "$want" ]; then ok "config: defaults from the table"
else notok "config: defaults from the table" "$def"; fi
out=$(env HPROF_SAMPLING_CLOCK=sun HPROF_THUNKS=2 HPROF_METRICS= HPROF_SAMPLNG_HZ=5 \
      HPROF_SAMPLING_HZ=20000 "$P" load 2>&1)
bad=""
for line in "HPROF_SAMPLING_CLOCK='sun' is not 'wall' or 'cpu'; using wall" \
            "HPROF_THUNKS='2' is not an integer from 0 to 1; using 1" \
            "HPROF_METRICS is set but empty; using the default" \
            "unknown variable HPROF_SAMPLNG_HZ ignored (did you mean HPROF_SAMPLING_HZ?)" \
            "sampling at 10000 Hz" "hz=10000 clock=0"; do
    grep -qF "$line" <<< "$out" || bad="$bad [$line]"
done
if [ -z "$bad" ]; then ok "config: bad values and typos get their one line, defaults kept"
else notok "config: bad values and typos get their one line, defaults kept" "missing:$bad; got: $(tr '\n' ' ' <<< "$out" | cut -c1-300)"; fi
# Blanks around a number count on both sides (' 10' was taken, '10 ' refused);
# blanks alone are no number.
lead=$(env HPROF_SAMPLING_HZ=' 10' "$P" load 2>&1) trail=$(env HPROF_SAMPLING_HZ='10 ' "$P" load 2>&1)
blank=$(env HPROF_SAMPLING_HZ='  ' "$P" load 2>&1)
if [[ "$lead" == *"hz=10 "* ]] && [[ "$trail" == *"hz=10 "* ]] && [[ "$lead$trail" != *"not an integer"* ]] &&
   [[ "$blank" == *"HPROF_SAMPLING_HZ='  ' is not an integer from"* ]] && [[ "$blank" == *"hz=100 "* ]]; then
    ok "config: ' 10' and '10 ' are 10, blanks alone are refused"
else notok "config: numbers with blanks" "' 10': $lead / '10 ': $trail / '  ': $blank"; fi
