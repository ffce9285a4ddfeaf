#!/bin/bash
# Headers are module interfaces (issue 18):
# - every header compiles on its own, included twice (its guard), with the
#   include paths the Makefile gives; one that needs <mpi.h> once per MPI
#   library installed (mpicc.openmpi, mpicc.mpich);
# - no .c file declares another file's function (its header does) and no
#   name is aliased to hprof's (#define x hprof_x).
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$HERE/../common/lib/common.sh"

# the include paths the Makefile gives
INCLUDES=$(make -s --no-print-directory print-CPPFLAGS 2> /dev/null)
[ -n "$INCLUDES" ] || { notok "headers: the Makefile gives its include paths" "make print-CPPFLAGS printed nothing"; exit 0; }
shopt -s nullglob
FLAGS="-std=gnu11 -fsyntax-only -Wall -Wextra -Werror -Wno-unused-parameter"
# papi_events.h is read with and without PAPI, as the Makefile may build either
PAPI_DEFS="-UHPROF_PAPI"
printf '#include <papi.h>\n' | gcc -E -x c - > /dev/null 2>&1 && PAPI_DEFS="$PAPI_DEFS -DHPROF_PAPI"
MPICCS=""
for m in openmpi mpich; do command -v "mpicc.$m" > /dev/null && MPICCS="$MPICCS mpicc.$m"; done

# try CC H: 0 when H compiles alone under CC in every PAPI setting
try() { local cc=$1 h=$2 d
    printf '#include "%s"\n#include "%s"\n' "$ROOT/$h" "$ROOT/$h" > "$W/one.c"
    for d in $PAPI_DEFS; do
        $cc $FLAGS $d $INCLUDES "$W/one.c" > "$W/cc.err" 2>&1 || return 1
    done
}

bad="" n=0 nmpi=0
for h in lib/*.h lib/*/*.h core/*.h core/*/*.h unwind/*.h unwind/*/*.h report/*/*.h report/*/*/*.h wrappers/*.h tools/*/*.h; do
    n=$((n + 1))
    printf '#include "%s"\n' "$ROOT/$h" > "$W/pp.c"
    if gcc -E $INCLUDES "$W/pp.c" 2>&1 | grep -q "mpi.h: No such file"; then
        nmpi=$((nmpi + 1))
        [ -n "$MPICCS" ] || { bad="$bad $h(no mpicc)"; continue; }
        for cc in $MPICCS; do
            try "$cc" "$h" || bad="$bad $h($cc: $(grep -m1 error "$W/cc.err"))"
        done
    else
        try gcc "$h" || bad="$bad $h($(grep -m1 error "$W/cc.err"))"
    fi
done
if [ -z "$bad" ]; then
    ok "headers: all $n compile alone ($nmpi with mpi.h, under$MPICCS)"
else
    notok "headers: each compiles alone" "$(echo "$bad" | cut -c1-600)"
fi

# A file-scope prototype in a .c file: a line that starts with a type, ends
# with ");" and is not static, typedef or a statement.
protos=$(grep -nE '^[a-z_][a-z0-9_ ]*[ *]+[a-z_][a-z0-9_]*\([^;]*\);[[:space:]]*(/\*.*)?$' \
              lib/*.c lib/*/*.c core/*.c core/*/*.c unwind/*.c unwind/*/*.c report/*/*.c report/*/*/*.c wrappers/*.c tools/*/*.c |
         grep -vE '^[^:]+:[0-9]+:(static|typedef|return|extern|else|goto|__thread) ')
# ...and an extern declaration of one of hprof's names (a function or a
# variable): it belongs in the header of the module that defines it.
protos="$protos$(grep -nE '^extern [^(]*\<hprof_[a-z0-9_]*\>' \
              lib/*.c lib/*/*.c core/*.c core/*/*.c unwind/*.c unwind/*/*.c report/*/*.c report/*/*/*.c wrappers/*.c tools/*/*.c)"
if [ -z "$protos" ]; then
    ok "headers: no .c file declares another file's function"
else
    notok "headers: no .c file declares another file's function" "$(echo "$protos" | tr '\n' ' ' | cut -c1-400)"
fi
aliases=$(grep -nE '^#define ([a-z_][a-z0-9_]*) hprof_\1[[:space:]]*$' \
               lib/*.c lib/*/*.c core/*.c core/*/*.c unwind/*.c unwind/*/*.c report/*/*.c report/*/*/*.c wrappers/*.c lib/*.h lib/*/*.h core/*.h core/*/*.h unwind/*.h unwind/*/*.h report/*/*.h report/*/*/*.h)
if [ -z "$aliases" ]; then
    ok "headers: no name aliased to hprof_NAME"
else
    notok "headers: no name aliased to hprof_NAME" "$(echo "$aliases" | tr '\n' ' ' | cut -c1-400)"
fi
