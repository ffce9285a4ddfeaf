"""gen_f08.py - the mpi_f08 part of wrappers/gen_wrappers.py.

The Fortran 2008 bindings (`use mpi_f08`) have entry points of their own,
which reach the MPI library without passing through the C MPI_ symbols or the
mpif.h ones (Open MPI: mpi_send_f08_ -> ompi_send_f -> PMPI_Send; MPICH:
mpi_init_f08_ -> PMPI_Init). Their names, as the libraries export them:

  Open MPI (libmpi_usempif08)   mpi_send_f08_         profiling: pmpi_send_f08_
  MPICH (libmpichfort)          mpi_send_f08ts_       profiling: pmpir_send_f08ts_
                                mpi_barrier_f08_                 pmpir_barrier_f08_
                                mpi_send_f08ts_large_ (MPI_Send_c, count of
                                                       kind MPI_COUNT_KIND)

`ts` entries take their choice buffers as array descriptors (TYPE(*),
DIMENSION(..)); the wrapper only passes them on, and reads the base address
(the descriptor's first field) to recognise MPI_IN_PLACE. Handles are derived
types holding the Fortran integer handle, so they read like mpif.h handles;
a TYPE(MPI_Status) has the layout of an mpif.h status in both libraries.
Only the Python standard library is used.
"""
import re

ENTRY = re.compile(r'^mpi_([a-z0-9_]+?)_(f08ts|f08)(_large)?_$')


def entries(syms):
    """{list function name in lower case: (entry, profiling entry)} and the
    entries without a profiling entry, from a library's exported symbols"""
    found, orphans = {}, []
    for s in sorted(syms):
        m = ENTRY.match(s)
        if not m:
            continue
        prof = next((p for p in ('p' + s, 'pmpir_' + s[4:]) if p in syms), None)
        if not prof:
            orphans.append(s)
            continue
        found['mpi_%s%s' % (m.group(1), '_c' if m.group(3) else '')] = (s, prof)
    return found, orphans


def wants(fn):
    """functions with an mpi_f08 binding hprof wraps (the _c variants too)"""
    if fn.get('f') == 'none' or fn.group in ('tool', 'handle'):
        return False
    return fn.ret in ('int', 'double', 'MPI_Aint')


def header(head, flav, libs):
    """wrappers_f08.c up to the wrappers: how to find the library's entries,
    MPI_STATUS_IGNORE and MPI_IN_PLACE of the mpi_f08 module"""
    o = [head, '#include <mpi.h>', '#include <dlfcn.h>', '#include <stddef.h>', '#include <stdint.h>',
         '#include <string.h>', '#include "measure.h"', '#include "requests.h"', '#include "spawn.h"',
         '#include "wrap_support.h"',
         '#include "fn_ids.h"', '',
         '#pragma GCC diagnostic ignored "-Wdeprecated-declarations"',
         '#ifndef MPI_F_STATUS_SIZE   /* Open MPI: the Fortran MPI_STATUS_SIZE */',
         '#define MPI_F_STATUS_SIZE ((int)(sizeof(MPI_Status) / sizeof(MPI_Fint)))',
         '#endif', '',
         '/* mpi_f08 wrappers: each forwards to the library\'s own profiling entry',
         ' * (weak: libhprof never needs the Fortran library at link time; a program',
         ' * relinked with -lhprof may have lost it to --as-needed, then it is loaded',
         ' * at the first call). C MPI_ functions the library calls from there reach',
         ' * our C wrappers nested in this call and pass through unmeasured. */',
         'static const char *const hprof_f08_libs[] = { %s NULL };'
         % ''.join('"%s", "%s", ' % pair for pair in libs),
         'static void *hprof_f08_handle;',
         'static void *hprof_f_sym(const char *name)',
         '{',
         '    void *h = __atomic_load_n(&hprof_f08_handle, __ATOMIC_ACQUIRE);',
         '    for (int i = 0; !h && hprof_f08_libs[i]; i++) {',
         '        h = dlopen(hprof_f08_libs[i], RTLD_NOW | RTLD_GLOBAL);',
         '        if (h) __atomic_store_n(&hprof_f08_handle, h, __ATOMIC_RELEASE);',
         '    }',
         '    return h ? dlsym(h, name) : NULL;',
         '}', '']
    if flav == 'openmpi':
        # Open MPI's mpi_f08 module binds MPI_IN_PLACE and MPI_STATUS(ES)_IGNORE
        # to the very objects of mpif.h (its f08 layer calls the mpif.h code).
        o += ['extern char mpi_fortran_in_place_[] __attribute__((weak));',
              '#define HPROF_F_IS_IN_PLACE(p) (mpi_fortran_in_place_ && (void *)(p) == (void *)mpi_fortran_in_place_)',
              '#define HPROF_FST_IGNORE MPI_F_STATUS_IGNORE',
              '#define HPROF_FSTS_IGNORE MPI_F_STATUSES_IGNORE']
    elif flav == 'mpich':
        o += ['/* a TYPE(MPI_Status) is read as an mpif.h status */',
              '_Static_assert(sizeof(MPI_F08_status) == MPI_F_STATUS_SIZE * sizeof(MPI_Fint) &&',
              '               offsetof(MPI_F08_status, MPI_SOURCE) == MPI_F_SOURCE * sizeof(MPI_Fint),',
              '               "MPI_F08_status is not an mpif.h status");',
              '/* choice buffers arrive as descriptors: the base address comes first */',
              '#define HPROF_F_IS_IN_PLACE(p) ((p) && *(void *const *)(p) == (void *)&MPIR_F08_MPI_IN_PLACE)',
              '#define HPROF_FST_IGNORE ((MPI_Fint *)MPI_F08_STATUS_IGNORE)',
              '#define HPROF_FSTS_IGNORE ((MPI_Fint *)MPI_F08_STATUSES_IGNORE)']
    else:
        o += ['#define HPROF_F_IS_IN_PLACE(p) ((void)(p), 0)   /* unknown MPI: in-place not detected */',
              '#define HPROF_FST_IGNORE ((MPI_Fint *)0)',
              '#define HPROF_FSTS_IGNORE ((MPI_Fint *)0)']
    o += ['']
    return o
