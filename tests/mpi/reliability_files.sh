#!/bin/bash
# The profile on disk: a planted symlink is never followed, the mode comes
# from the umask, a full disk gives one clear line and no partial file,
# the library exports only what it must, and the program's own output and
# status are unchanged.
set -u
. "$(dirname "$0")/progs/lib.sh"   # HPROF_SHARED, HPROF_LINK_LIBS
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
ok() { echo "ok - $*"; }
notok() { echo "not ok - $*"; }
$MPICC -g -O1 "$root/examples/halo/halo.c" -o plain -lm || { notok "build halo"; exit 1; }
$MPICC -g -O1 "$root/examples/halo/halo.c" -o halo -lm "${HPROF_SHARED[@]}" \
    || { notok "build halo with hprof"; exit 1; }
run() { timeout 60 $MPIRUN -np 2 "$@" 20 200; }

# --- symlinks planted at the target name -----------------------------------------
echo "precious" >victim
ln -s "$PWD/victim" named.cubex
HPROF_OUTPUT=named.cubex run ./halo >/dev/null 2>named.err
if [ "$(cat victim)" = precious ] && [ -f named.cubex ] && [ ! -L named.cubex ] \
   && "$TEST_VIEW" named.cubex >/dev/null 2>&1; then
    ok "HPROF_OUTPUT at a planted symlink: the link is replaced by the profile, its target untouched"
else
    notok "HPROF_OUTPUT symlink: victim '$(cat victim)', $(ls -l named.cubex)"
fi
mkdir -p dflt && ln -s "$PWD/victim" dflt/hprof-halo-2p.cubex
(cd dflt && run ../halo >/dev/null 2>err)
if [ "$(cat victim)" = precious ] && [ -L dflt/hprof-halo-2p.cubex ] && [ -f dflt/hprof-halo-2p.1.cubex ]; then
    ok "default name taken by a planted symlink: a new name is used, the link and its target untouched"
else
    notok "default name with a planted symlink: $(ls -l dflt | tr '\n' ' ')"
fi

# --- the umask decides the mode, temporary names are not left behind -----------------
mkdir -p mode && (cd mode && umask 077 && HPROF_OUTPUT=p.cubex run ../halo >/dev/null 2>&1)
m=$(stat -c %a mode/p.cubex 2>/dev/null)
[ "$m" = 600 ] && ok "umask 077: profile mode 600" || notok "umask 077: mode $m"
[ "$(ls -A mode)" = p.cubex ] && ok "nothing else left in the output folder" || notok "left: $(ls -A mode)"

# --- a full disk -------------------------------------------------------------------------
mkdir -p full
if mount -t tmpfs -o size=64k tmpfs full 2>/dev/null; then
    head -c 60000 /dev/zero >full/filler 2>/dev/null
    HPROF_OUTPUT=full/p.cubex run ./halo >full.out 2>full.err
    rc=$?
    lines=$(grep -c '^hprof: ' full.err)
    if [ $rc -eq 0 ] && [ "$lines" -eq 1 ] && grep -q 'No space left on device' full.err \
       && [ "$(ls -A full)" = filler ]; then
        ok "disk full: exit status 0, one line ($(cat full.err)), no partial file"
    else
        notok "disk full: rc $rc, $lines lines: $(tr '\n' ' ' <full.err); folder: $(ls -A full | tr '\n' ' ')"
    fi
    # A rank that dies (SIGTERM) with the disk full: the line says that no
    # partial profile was written, and why, instead of promising one.
    $MPICC -g -O1 "$here/reliability/dying.c" -o dying "${HPROF_SHARED[@]}" \
        || notok "build dying.c"
    HPROF_OUTPUT=full/p.cubex timeout 60 $MPIRUN -np 1 ./dying term >term.out 2>term.err
    sleep 0.5 # a writer, if one was started, had its chance
    lines=$(grep -c '^hprof: ' term.err)
    if [ "$lines" -eq 1 ] && grep -q '^hprof: .*no partial profile written.*No space left on device' term.err \
       && [ "$(ls -A full)" = filler ]; then
        ok "SIGTERM with the disk full: one line says no partial profile was written and why ($(grep '^hprof: ' term.err))"
    else
        notok "SIGTERM with the disk full: $lines lines: $(grep '^hprof: ' term.err | tr '\n' ' '); folder: $(ls -A full | tr '\n' ' ')"
    fi
    umount full
else
    ok "disk full # skipped: cannot mount a small tmpfs here"
fi

# --- exports ---------------------------------------------------------------------------------
# Interposed (lib/interpose/) to measure threads from their start, keep the
# program's signals, put the thunk stack's return addresses back before
# anything else walks or switches the stack, end exactly measured calls that
# an exception's catch or a longjmp leaves, note code that dlclose unloads
# and patch code dlopen added at the program's dlsym (README, lib/exports.map).
interposed='pthread_create|pthread_exit|sigaction|signal|_Unwind_RaiseException|_Unwind_Resume|_Unwind_Resume_or_Rethrow|_Unwind_ForcedUnwind|_Unwind_Backtrace|backtrace|unw_backtrace|_ULx86_64_init_local|swapcontext|setcontext|dlclose|_ULx86_64_init_local2|__cxa_begin_catch|longjmp|_longjmp|siglongjmp|__longjmp_chk|dlsym'
bad=$(nm -D --defined-only "$TEST_LIBDIR/libhprof.so" | awk '{ print $3 }' \
      | grep -v -E '^(MPI_|mpi_)' | grep -v -x -E "$interposed" | head -5 | tr '\n' ' ')
[ -z "$bad" ] && ok "libhprof.so exports only MPI/Fortran MPI symbols and the documented interposers" \
    || notok "libhprof.so exports more: $bad"

# --- the program's output and status -----------------------------------------------------
run ./plain >plain.out 2>plain.err; prc=$?
run ./halo >halo.out 2>halo.err; hrc=$?
if [ $prc = $hrc ] && cmp -s plain.out halo.out && diff <(cat plain.err) <(grep -v '^hprof: ' halo.err) >/dev/null; then
    ok "stdout, stderr (less hprof's lines) and exit status are those of the run without hprof"
else
    notok "output differs: status $hrc vs $prc; $(diff plain.out halo.out | head -3 | tr '\n' ' ')"
fi
n=$(grep -c '^hprof: ' halo.err)
[ "$n" -eq 1 ] && ok "hprof prints one line (rank 0 only)" || notok "hprof printed $n lines: $(cat halo.err)"

# --- no start-up work of our own: .init_array holds only the compiler's frame_dummy ---
sz=$(readelf -SW "$TEST_LIBDIR/libhprof.so" | awk '{ for (i = 1; i < NF; i++) if ($i == ".init_array") print $(i + 4) }')
[ "$sz" = 000008 ] && ok "libhprof.so runs no constructor of its own (one .init_array entry: frame_dummy)" \
    || notok "libhprof.so .init_array size $sz: a constructor crept in"

# --- a mistyped HPROF_ variable is named, with the closest real one ------------------------
HPROF_SAMPLNG_HZ=10 HPROF_OUTPUT=typo.cubex run ./halo >/dev/null 2>typo.err
n=$(grep -c '^hprof: unknown variable HPROF_SAMPLNG_HZ ignored (did you mean HPROF_SAMPLING_HZ?)$' typo.err)
[ "$n" -eq 1 ] && ok "a mistyped variable gets one line naming the closest valid one" \
    || notok "typo: $(tr '\n' ' ' <typo.err)"
