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


def header(head, libs):
    """wrappers_f08.c up to the wrappers: the includes and the libraries the
    probe found (how entries are looked up and how MPI_STATUS_IGNORE and
    MPI_IN_PLACE of the mpi_f08 module arrive: wrappers/fortran_f08.h)"""
    return [head, '#include <mpi.h>', '#include <stddef.h>', '#include <stdint.h>',
            '#include <string.h>', '#include "lib/ending/comm_peers.h"', '#include "lib/lifecycle/lifecycle.h"', '#include "lib/measure.h"', '#include "wrappers/requests.h"', '#include "lib/lifecycle/spawn.h"',
            '#include "wrappers/wrap_support.h"',
            '#include "gen/fn_ids.h"', '#include "wrappers/fortran_f08.h"', '',
            '#pragma GCC diagnostic ignored "-Wdeprecated-declarations"', '',
            '/* The mpi_f08 libraries the probe found (fortran_libs.h). */',
            'static const char *const hprof_f08_libs[] = { %s NULL };'
            % ''.join('"%s", "%s", ' % pair for pair in libs),
            'hprof_flib hprof_flib_f08 = { hprof_f08_libs, NULL };', '']
