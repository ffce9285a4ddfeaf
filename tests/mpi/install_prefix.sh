#!/bin/bash
# make install PREFIX=...: the libraries of each MPI library built, the
# tools, and an installed hprof-run that finds the installed libraries.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
prefix=$PWD/prefix
if make -C "$root" -s install PREFIX="$prefix" >install.log 2>&1; then
    echo "ok - make install PREFIX=... succeeded"
else
    echo "not ok - make install: $(tail -3 install.log | tr '\n' ' ')"; exit 0
fi
missing=""
for f in lib/hprof/$TEST_MPI/libhprof.so lib/hprof/$TEST_MPI/libhprof.a bin/hprof-view bin/hprof-run \
         bin/hprof-merge bin/hprof-snapshot lib/pkgconfig/hprof-$TEST_MPI.pc lib/pkgconfig/hprof.pc \
         share/man/man1/hprof-run.1 share/man/man1/hprof-view.1 share/man/man1/hprof-merge.1 \
         share/man/man1/hprof-snapshot.1 share/man/man7/hprof.7 share/hprof/python/hprof_hatchet.py; do
    [ -e "$prefix/$f" ] || missing="$missing $f"
done
[ -z "$missing" ] && echo "ok - installed: lib/hprof/$TEST_MPI/libhprof.{so,a}, bin/hprof-view, bin/hprof-run, bin/hprof-merge, bin/hprof-snapshot, pkg-config files, man pages, share/hprof/python/hprof_hatchet.py" \
    || echo "not ok - missing after install:$missing"
$MPICC -g "$root/examples/halo/halo.c" -o halo -lm || { echo "not ok - build halo"; exit 0; }
HPROF_OUTPUT=inst.cubex timeout 60 "$prefix/bin/hprof-run" $MPIRUN -np 2 ./halo 20 100 >run.out 2>run.err
if [ -s inst.cubex ] && "$prefix/bin/hprof-view" --csv inst.cubex | grep -q 'solve;residual;MPI_Allreduce'; then
    echo "ok - the installed hprof-run preloads the installed library; the installed hprof-view reads the profile"
else
    echo "not ok - installed hprof-run/hprof-view: $(tr '\n' ' ' <run.err)"
fi
# relinked through pkg-config: the program runs with the installed library
libs=$(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --libs "hprof-$TEST_MPI" 2>&1)
if $MPICC -g "$root/examples/halo/halo.c" -o halo_pc -lm $libs > pc.log 2>&1 &&
   HPROF_OUTPUT=pc.cubex timeout 60 $MPIRUN -np 2 ./halo_pc 20 100 > pc.out 2> pc.err && [ -s pc.cubex ]; then
    echo "ok - relinked with \$(pkg-config --libs hprof-$TEST_MPI): the program writes its profile"
else echo "not ok - relink with pkg-config: '$libs': $(tail -n 2 pc.log pc.err | tr '\n' ' ')"; fi
grep -q "$root/build" "$prefix/bin/hprof-run" && echo "not ok - installed hprof-run refers to the build tree" \
    || echo "ok - the installed hprof-run does not refer to the build tree"
