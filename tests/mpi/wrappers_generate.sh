#!/bin/bash
# wrappers_generate: the wrapper generator for one MPI library ($TEST_MPI):
# it runs and wraps every exported MPI_ function (but the documented
# exceptions), the generated code compiles without warnings, libhprof.so
# exports every wrapper (C and Fortran spellings), and the request table
# passes its unit test. Prints 'ok - NAME' / 'not ok - NAME: reason'.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
TEST_MPI=${TEST_MPI:-openmpi}
MPICC=${MPICC:-mpicc.$TEST_MPI}
TEST_LIBDIR=${TEST_LIBDIR:-$ROOT/build/$TEST_MPI}
T=${TEST_TMP:-$(mktemp -d)}
ok()    { echo "ok - $1"; }
notok() { echo "not ok - $1: $2"; }
G=$T/gen

# 1. the generator
if python3 "$ROOT/wrappers/gen_wrappers.py" --mpicc "$MPICC" --outdir "$G" > "$T/gen.log" 2>&1; then
    ok "generator runs ($TEST_MPI)"
else
    notok "generator runs ($TEST_MPI)" "$(tr '\n' ' ' < "$T/gen.log" | cut -c1-300)"
    exit 0
fi
cat "$T/gen.log"
missing=""
for f in wrappers_c.c wrappers_f.c wrappers_f08.c fn_table.c fn_ids.h; do [ -s "$G/$f" ] || missing="$missing $f"; done
[ -z "$missing" ] && ok "generator writes all five files" || notok "generator writes all five files" "missing:$missing"
line=$(grep '^hprof: wrapping ' "$T/gen.log")
if [[ $line =~ wrapping\ ([0-9]+)\ of\ ([0-9]+)\ MPI_\ functions\ exported\ by\ ([^ ]+) ]] &&
   [ "${BASH_REMATCH[1]}" = "${BASH_REMATCH[2]}" ] && [ "${BASH_REMATCH[1]}" -gt 400 ]; then
    ok "every exported MPI_ function wrapped (${BASH_REMATCH[1]}, ${BASH_REMATCH[3]})"
else
    notok "every exported MPI_ function wrapped" "${line:-no 'hprof: wrapping' line}"
fi
if grep -q 'not wrapped, exported but not in the list' "$T/gen.log"; then
    notok "no undocumented unwrapped functions" "$(grep 'not wrapped, exported but not' "$T/gen.log" | cut -c1-300)"
else
    ok "no undocumented unwrapped functions"
fi
# mpi_f08: every entry of the library's f08 module procedures that has a C
# counterpart (Open MPI: mpi_aint_add/diff_f08_, local arithmetic, and
# mpi_f_sync_reg_f08_ have none; MPICH: the MPIX_Delete_error_* ones too)
line=$(grep '^hprof: wrapping .* mpi_f08 entries' "$T/gen.log")
if [[ $line =~ wrapping\ ([0-9]+)\ of\ ([0-9]+)\ mpi_f08 ]] && [ "${BASH_REMATCH[1]}" -gt 300 ] &&
   [ $((BASH_REMATCH[2] - BASH_REMATCH[1])) -le 4 ]; then
    ok "mpi_f08 entries wrapped (${BASH_REMATCH[1]} of ${BASH_REMATCH[2]})"
else
    notok "mpi_f08 entries wrapped" "${line:-no 'mpi_f08 entries' line}"
fi
nlist=$(grep -c '^[a-z0-9]* *| ' "$ROOT/wrappers/mpi_functions.txt")
nlist=$((nlist - $(grep -c '^except' "$ROOT/wrappers/mpi_functions.txt")))
ntab=$(grep -c '^    \[HPROF_FN_' "$G/fn_table.c")
[ "$ntab" = "$nlist" ] && ok "fn_table has every listed function ($ntab)" \
    || notok "fn_table has every listed function" "table $ntab, list $nlist"
for f in MPI_Init MPI_Send MPI_Pcontrol MPI_Waitall MPI_Alltoallw_c MPI_Session_init MPI_Psend_init; do
    grep -q "HPROF_FN_$f = " "$G/fn_ids.h" || notok "fn_ids.h" "no HPROF_FN_$f"
done

# 2. the generated code compiles without warnings, with the Makefile's
# include paths
INC=$(make -s --no-print-directory -C "$ROOT" print-CPPFLAGS 2> /dev/null | sed "s|-I|-I$ROOT/|g")
warn=0
for f in wrappers_c wrappers_f wrappers_f08 fn_table; do
    if ! $MPICC -std=gnu11 -O2 -Wall -Wextra -fPIC -fvisibility=hidden $INC -I"$G/.." \
            -c "$G/$f.c" -o "$T/$f.o" > "$T/$f.cc.log" 2>&1 || [ -s "$T/$f.cc.log" ]; then
        notok "$f.c compiles without warnings" "$(head -c 300 "$T/$f.cc.log" | tr '\n' ' ')"; warn=1
    fi
done
for f in wrap_support requests fortran_libs fortran_mpich; do
    if ! $MPICC -std=gnu11 -O2 -Wall -Wextra -fPIC -fvisibility=hidden $INC \
            -c "$ROOT/wrappers/$f.c" -o "$T/$f.o" > "$T/$f.cc.log" 2>&1 || [ -s "$T/$f.cc.log" ]; then
        notok "wrappers/$f.c compiles without warnings" "$(head -c 300 "$T/$f.cc.log" | tr '\n' ' ')"; warn=1
    fi
done
[ $warn = 0 ] && ok "generated and support code compiles without warnings (-Wall -Wextra)"

# 3. every wrapper is exported by libhprof.so
so=$TEST_LIBDIR/libhprof.so
if [ ! -e "$so" ]; then
    notok "wrappers exported by libhprof.so" "$so not built"
else
    nm -D --defined-only "$so" | awk '{print $3}' | sort -u > "$T/so.syms"
    nm --defined-only "$T/wrappers_c.o" | awk '$2=="T"{print $3}' | grep '^MPI_' | sort -u > "$T/c.syms"
    nm --defined-only "$T/wrappers_f.o" | awk '$2=="T"{print $3}' | grep -iv '^hprof_' | sort -u > "$T/f.syms"
    mc=$(comm -23 "$T/c.syms" "$T/so.syms" | head -n 5 | tr '\n' ' ')
    mf=$(comm -23 "$T/f.syms" "$T/so.syms" | head -n 5 | tr '\n' ' ')
    nm --defined-only "$T/wrappers_f08.o" | awk '$2=="T"{print $3}' | grep -iv '^hprof_' | sort -u > "$T/f08.syms"
    m8=$(comm -23 "$T/f08.syms" "$T/so.syms" | head -n 5 | tr '\n' ' ')
    n8=$(wc -l < "$T/f08.syms")
    [ -z "$m8" ] && [ "$n8" -gt 300 ] && ok "all $n8 mpi_f08 wrappers exported by libhprof.so" \
        || notok "mpi_f08 wrappers exported by libhprof.so" "$n8 generated; missing: $m8"
    nc=$(wc -l < "$T/c.syms"); nf=$(wc -l < "$T/f.syms")
    [ -z "$mc" ] && [ "$nc" -gt 400 ] && ok "all $nc C wrappers exported by libhprof.so" \
        || notok "C wrappers exported by libhprof.so" "$nc generated; missing: $mc"
    [ -z "$mf" ] && [ "$nf" -gt 1000 ] && ok "all $nf Fortran wrapper symbols exported by libhprof.so" \
        || notok "Fortran wrappers exported by libhprof.so" "$nf generated; missing: $mf"
    for s in mpi_send_ mpi_send__ mpi_send MPI_SEND mpi_init_ mpi_finalize_ MPI_Pcontrol MPI_Init_thread; do
        grep -qx "$s" "$T/so.syms" || notok "libhprof.so exports $s" "missing"
    done
fi

# 4. the request table
if cc -std=gnu11 -O2 -Wall -Wextra -pthread -I"$ROOT" "$(dirname "$0")/wrappers_generate/reqtable_test.c" \
        "$ROOT/wrappers/requests.c" -o "$T/reqtable_test" > "$T/rt.log" 2>&1 && [ ! -s "$T/rt.log" ]; then
    "$T/reqtable_test" || true
else
    notok "reqtable build" "$(head -c 300 "$T/rt.log" | tr '\n' ' ')"
fi
exit 0
