#!/bin/bash
# MPI regions carry the role Score-P 9 gives them (one2all, point2point,
# other collective, rma, atomic, file io, ...): cubelib's tools and
# remapping specs classify MPI time by it. Every function of the list that
# Score-P's profile also names must have Score-P's role.
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
W=${TEST_TMP:-$(mktemp -d)}
if ! gcc -std=gnu11 -Wall -Wextra -Werror -I"$ROOT" "$ROOT/tests/unit/mpi_roles/roles.c" \
        "$ROOT/report/profile/mpi_roles.c" -o "$W/roles" 2> "$W/cc.err"; then
    echo "not ok - mpi roles: driver builds: $(head -c 300 "$W/cc.err")"; exit 1
fi
# "group | prototype | ..." -> "MPI_Name group"
sed -n 's/^\([a-z]*\) *| *int \(MPI_[A-Za-z0-9_]*\)(.*/\2 \1/p' "$ROOT/wrappers/mpi_functions.txt" |
    "$W/roles" | sort > "$W/hprof.txt"
grep -v '^#' "$ROOT/tests/unit/mpi_roles/scorep9_roles.txt" | sort > "$W/scorep.txt"
read -r both differ < <(python3 - "$W/hprof.txt" "$W/scorep.txt" <<'PY'
import sys
def table(path):
    return dict(l.split(" ", 1) for l in open(path).read().splitlines())
h, s = table(sys.argv[1]), table(sys.argv[2])
both = [n for n in sorted(s) if n in h]
bad = ["%s: hprof '%s', Score-P '%s'" % (n, h[n], s[n]) for n in both if h[n] != s[n]]
print(len(both), "; ".join(bad[:5]) + (" (%d in all)" % len(bad) if bad else ""))
PY
)
if [ "$both" -lt 200 ]; then
    echo "not ok - mpi roles: as Score-P's: only $both functions in both lists"
elif [ -n "$differ" ]; then
    echo "not ok - mpi roles: as Score-P's: $differ"
else
    echo "ok - mpi roles: all $both MPI functions Score-P's profile names have its role"
fi
