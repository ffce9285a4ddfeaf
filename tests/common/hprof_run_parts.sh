#!/bin/bash
# hprof_run_parts: tools/hprof-run puts the preload in front of the program
# of every part of an MPMD launch (LAUNCHER A : B), of every line of an
# application file (Open MPI's --app FILE, MPICH's -configfile FILE, read
# from a rewritten copy; the user's file is left alone), and tells the ranks
# in HPROF_RUN_APPS which parts it preloaded: a part whose program it cannot
# find or which is statically linked is named in one line and left as it
# was. Checked against a stand-in launcher that prints what it was given
# (tests/mpi/mpmd.sh runs real launches).
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$HERE/lib/common.sh"

# The stand-ins: launchers named as Debian names them (hprof-run tells the
# MPI library from the name), a libhprof.so for each, two programs.
mkdir -p "$W/bin" "$W/build/mpich" "$W/build/openmpi" "$W/run"
for m in mpich openmpi; do
    : > "$W/build/$m/libhprof.so"
    cat > "$W/bin/mpirun.$m" <<'EOS'
#!/bin/bash
# prints each argument on a line; an application file's lines after it
prev=""
for a in "$@"; do
    echo "ARG $a"
    case "$prev" in -configfile|--app) sed 's/^/FILE /' "$a"; echo "FILEPATH $a" ;; esac
    prev=$a
done
EOS
    chmod +x "$W/bin/mpirun.$m"
done
printf '#!/bin/sh\nexit 0\n' > "$W/run/prog_a"
cp "$W/run/prog_a" "$W/run/prog_b"
chmod +x "$W/run/prog_a" "$W/run/prog_b"
have_static=0
printf 'int main(void) { return 0; }\n' > "$W/st.c"
gcc -static "$W/st.c" -o "$W/run/prog_static" 2>/dev/null && have_static=1

lib=$W/build/mpich/libhprof.so
run() { # NAME ARGS... : runs hprof-run in $W/run, output in $W/NAME.out/.err
    local n=$1; shift
    (cd "$W/run" && PATH="$W/bin:$PATH" HPROF_BUILD="$W/build" LD_PRELOAD= timeout 30 \
        "$ROOT/tools/hprof-run" "$@" > "$W/$n.out" 2> "$W/$n.err")
}
# the launcher's arguments as one line, the marks folder as MARKS
args_of() { sed -n 's/^ARG //p' "$W/$1.out" | sed "s|HPROF_RUN_MARKS=$W/run/\.hprof-run\.[A-Za-z0-9]*|HPROF_RUN_MARKS=MARKS|" | tr '\n' ' '; }
expect_args() { # NAME WANT
    local got; got=$(args_of "$1")
    if [ "$got" = "$2" ]; then ok "hprof-run parts: $1"; else notok "hprof-run parts: $1" "launcher got '$got', want '$2'; stderr: $(head -c 300 "$W/$1.err")"; fi
}
E="env LD_PRELOAD=$lib HPROF_RUN_MARKS=MARKS"

run two mpirun.mpich -n 1 ./prog_a x : -n 2 ./prog_b y a:b
expect_args two "-n 1 $E HPROF_RUN_APPS=+1,+2 ./prog_a x : -n 2 $E HPROF_RUN_APPS=+1,+2 ./prog_b y a:b "

run one mpirun.mpich -np 4 ./prog_a x
expect_args one "-np 4 $E HPROF_RUN_APPS=+4 ./prog_a x "

run three mpirun.mpich ./prog_a : -n 2 ./prog_b : -n=3 ./prog_a
expect_args three "$E HPROF_RUN_APPS=+?,+2,+3 ./prog_a : -n 2 $E HPROF_RUN_APPS=+?,+2,+3 ./prog_b : -n=3 $E HPROF_RUN_APPS=+?,+2,+3 ./prog_a "

# a program whose path holds '=' (env would take it for an assignment): the shell's exec starts it
mkdir -p "$W/run/np=4" && cp "$W/run/prog_a" "$W/run/np=4/prog_a"
run equals mpirun.mpich -n 1 ./np=4/prog_a : -n 1 ./prog_b
X="/bin/sh -c exec\${IFS}\"\$0\"\${IFS}\"\$@\""
expect_args equals "-n 1 $E HPROF_RUN_APPS=+1,+1 $X ./np=4/prog_a : -n 1 $E HPROF_RUN_APPS=+1,+1 ./prog_b "

run missing mpirun.mpich -n 1 ./prog_a : -n 3 ./not_here
expect_args missing "-n 1 $E HPROF_RUN_APPS=+1,-3 ./prog_a : -n 3 ./not_here "
if [ "$(grep -c 'part 2 of the command names no program hprof-run can find' "$W/missing.err")" -eq 1 ]; then
    ok "hprof-run parts: a part without a program found is named in one line"
else
    notok "hprof-run parts: a part without a program found is named in one line" "stderr: $(head -c 300 "$W/missing.err")"
fi

if [ "$have_static" -eq 1 ]; then
    run static mpirun.mpich -n 2 ./prog_static : -n 1 ./prog_a
    expect_args static "-n 2 ./prog_static : -n 1 $E HPROF_RUN_APPS=-2,+1 ./prog_a "
    if grep -q '^hprof-run: ./prog_static (part 1) is statically linked' "$W/static.err"; then
        ok "hprof-run parts: a statically linked part is named in one line"
    else
        notok "hprof-run parts: a statically linked part is named in one line" "stderr: $(head -c 300 "$W/static.err")"
    fi
else
    ok "hprof-run parts: a statically linked part # skip: gcc -static does not link here"
fi

# application files: the launcher reads a rewritten copy, which is gone after the run
appfile_case() { # NAME LAUNCHER OPTION N
    local n=$1 launcher=$2 opt=$3 c=$4
    printf '# the job\n%s 1 ./prog_a x\n\n%s 2 ./prog_b y\n' "$c" "$c" > "$W/run/$n.txt"
    cp "$W/run/$n.txt" "$W/$n.orig"
    run "$n" "$launcher" "$opt" "$n.txt"
    local copy want got
    copy=$(sed -n 's/^FILEPATH //p' "$W/$n.out")
    got=$(sed -n 's/^FILE //p' "$W/$n.out" | sed "s|HPROF_RUN_MARKS=$W/run/\.hprof-run\.[A-Za-z0-9]*|HPROF_RUN_MARKS=MARKS|")
    want=$(printf '# the job\n%s 1 %s HPROF_RUN_APPS=+1,+2 ./prog_a x\n\n%s 2 %s HPROF_RUN_APPS=+1,+2 ./prog_b y' \
        "$c" "${E/build\/mpich/build/$5}" "$c" "${E/build\/mpich/build/$5}")
    if [ "$got" = "$want" ]; then ok "hprof-run parts: $n: every line preloaded"
    else notok "hprof-run parts: $n: every line preloaded" "launcher read '$(tr '\n' '|' <<<"$got")', want '$(tr '\n' '|' <<<"$want")'"; fi
    if cmp -s "$W/run/$n.txt" "$W/$n.orig" && [ -n "$copy" ] && [ "$copy" != "$n.txt" ] && [ ! -e "$copy" ] &&
       [ -z "$(ls -A "$W/run" | grep '^\.hprof-run')" ]; then
        ok "hprof-run parts: $n: the user's file unchanged, the copy removed"
    else
        notok "hprof-run parts: $n: the user's file unchanged, the copy removed" "copy '$copy'; left: $(ls -A "$W/run" | tr '\n' ' ')"
    fi
}
appfile_case configfile mpirun.mpich -configfile -n mpich
appfile_case appfile mpirun.openmpi --app -np openmpi
exit 0
