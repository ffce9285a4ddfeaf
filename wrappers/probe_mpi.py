"""probe_mpi.py - what wrappers/gen_wrappers.py learns of one MPI library
before it writes a line of code:

  * which MPI_ and PMPI_ functions its libraries export (the link line of
    `mpicc -show`, `nm -D --defined-only`),
  * which MPI_ and PMPI_ functions its mpi.h declares (the preprocessed
    header; the parameter types of the wrappers are taken from there), which
    names it defines as macros, and its flavour (Open MPI, MPICH),
  * which Fortran profiling entries pmpi_xxx_ and mpi_f08 entries its
    Fortran libraries export (the link line of the matching mpif90), and the
    mpif.h COMMON blocks they define.

probe() returns all of it as one MPI object; it raises ProbeError when the
library cannot be probed. Only the Python standard library is used.
"""
import os
import re
import shlex
import subprocess
import tempfile

import gen_f08
from c_decls import Param, split_params


class ProbeError(Exception):
    pass


def run(cmd):
    try:
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           universal_newlines=True, check=False)
    except OSError as e:
        return 127, '', str(e)
    return r.returncode, r.stdout, r.stderr


def link_line(wrapper):
    for flag in ('-show', '-showme', '--showme'):
        rc, out, _ = run([wrapper, flag])
        if rc == 0 and out.strip():
            return shlex.split(out)
    return None


def default_dirs():
    dirs = []
    rc, out, _ = run(['gcc', '-print-search-dirs'])
    for line in out.splitlines():
        if line.startswith('libraries:'):
            dirs += [os.path.normpath(d) for d in line.split('=', 1)[-1].split(':') if d]
    return dirs + ['/usr/lib/x86_64-linux-gnu', '/usr/lib64', '/usr/lib', '/lib']


def find_libs(tokens, wanted=None):
    """shared libraries named by -l on a link line (in its -L dirs or the default ones)"""
    dirs, libs = [], []
    for i, t in enumerate(tokens):
        if t.startswith('-L') and len(t) > 2:
            dirs.append(t[2:])
        elif t == '-L' and i + 1 < len(tokens):
            dirs.append(tokens[i + 1])
        elif t.startswith('-Wl,') and '-rpath' in t:
            dirs += [x for x in t[4:].split(',') if x.startswith('/')]
    names = [t[2:] for t in tokens if t.startswith('-l') and len(t) > 2]
    for n in names:
        if wanted and not wanted(n):
            continue
        for d in dirs + default_dirs():
            p = os.path.join(d, 'lib%s.so' % n)
            if os.path.exists(p):
                libs.append(os.path.realpath(p))
                break
    return libs


def exported(lib):
    rc, out, err = run(['nm', '-D', '--defined-only', lib])
    if rc != 0:
        raise ProbeError('nm -D %s failed: %s' % (lib, err.strip()))
    syms = set()
    for line in out.splitlines():
        f = line.split()
        if len(f) >= 3 and f[1] in ('T', 'W', 'i', 't', 'w'):
            syms.add(f[2].split('@')[0])
    return syms


def common_blocks(lib):
    """Fortran COMMON blocks the library defines (mpif.h sentinels such as
    MPI_IN_PLACE, MPI_STATUS_IGNORE live in them)"""
    rc, out, _ = run(['nm', '-D', '--defined-only', lib])
    out_set = set()
    for line in out.splitlines():
        f = line.split()
        if len(f) >= 3 and f[1] in ('B', 'C') and re.fullmatch(r'[a-z][a-z0-9_]*[a-z0-9]_', f[2]) \
                and not f[2].startswith('__'):
            out_set.add(f[2])
    return out_set


def soname(lib):
    rc, out, _ = run(['objdump', '-p', lib])
    m = re.search(r'SONAME\s+(\S+)', out)
    return m.group(1) if m else os.path.basename(lib)


def preprocess(mpicc, text, extra=()):
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, 'probe.c')
        with open(src, 'w') as f:
            f.write(text)
        rc, out, err = run([mpicc, '-E'] + list(extra) + [src])
        if rc != 0:
            raise ProbeError('%s -E failed: %s' % (mpicc, err.strip()[:500]))
        return out


def header_decls(mpicc):
    """name -> (ret, [Param]) for every P?MPI_ function declared by mpi.h"""
    text = preprocess(mpicc, '#include <mpi.h>\n')
    text = '\n'.join(l for l in text.splitlines() if not l.startswith('#'))
    text = re.sub(r'__attribute__\s*\(\((?:[^()]|\((?:[^()]|\([^()]*\))*\))*\)\)', ' ', text)
    decls = {}
    for stmt in text.split(';'):
        m = re.search(r'\b(P?MPI_\w+)\s*\(', stmt)
        if not m or '{' in stmt or 'typedef' in stmt:
            continue
        # the declarator must be the first parenthesis: "ret NAME(params)"
        head = stmt[:m.start()]
        if '(' in head or '=' in head:
            continue
        depth, i = 0, m.end() - 1
        for j in range(i, len(stmt)):
            if stmt[j] == '(':
                depth += 1
            elif stmt[j] == ')':
                depth -= 1
                if depth == 0:
                    break
        args = stmt[i + 1:j].strip()
        ret = ' '.join(head.replace('extern', ' ').split())
        params = [] if args in ('', 'void') else [Param(a) for a in split_params(args) if a != '...']
        decls[m.group(1)] = (ret, params)
    return decls


def macros(mpicc):
    text = preprocess(mpicc, '#include <mpi.h>\n', ['-dM'])
    return {m.group(1) for m in re.finditer(r'^#define\s+(\w+)', text, re.M)}


def flavour(mpicc):
    text = preprocess(mpicc, '#include <mpi.h>\n#ifdef OPEN_MPI\nHPROF_IS_OPENMPI\n#endif\n'
                             '#ifdef MPICH\nHPROF_IS_MPICH\n#endif\n')
    if 'HPROF_IS_OPENMPI' in text:
        return 'openmpi'
    if 'HPROF_IS_MPICH' in text:
        return 'mpich'
    return 'unknown'


class MPI:
    """What one MPI library offers (see the top of this file)."""

    def __init__(self):
        self.libs = []            # C libraries, real paths
        self.exp = set()          # MPI_ functions they export
        self.pexp = set()         # PMPI_ functions they export
        self.mac = set()          # names mpi.h defines as macros
        self.decls = {}           # P?MPI_ function declared by mpi.h -> (ret, [Param])
        self.flav = 'unknown'     # openmpi | mpich | unknown
        self.fsyms = set()        # Fortran profiling entries pmpi_xxx_
        self.fortran_libs = []    # libraries exporting them
        self.f08_map = {}         # mpi_f08 entries (gen_f08.entries)
        self.f08_orphans = []
        self.f08_libs = []
        self.fcommons = set()     # mpif.h COMMON blocks
        self.fnote = ''           # why there are no Fortran wrappers


def probe(mpicc, mpif90=None, no_fortran=False):
    m = MPI()
    tokens = link_line(mpicc)
    if tokens is None:
        raise ProbeError('cannot get the link line of %s (-show / -showme)' % mpicc)
    m.libs = libs = find_libs(tokens, lambda n: 'mpi' in n)
    if not libs:
        raise ProbeError('no MPI library found on the link line of %s: %s' % (mpicc, ' '.join(tokens)))
    for l in libs:
        syms = exported(l)
        m.exp |= {s for s in syms if s.startswith('MPI_')}
        m.pexp |= {s for s in syms if s.startswith('PMPI_')}
    m.mac = macros(mpicc)
    m.decls = header_decls(mpicc)
    m.flav = flavour(mpicc)
    if not no_fortran:
        probe_fortran(m, mpif90 or os.path.join(os.path.dirname(mpicc),
                                                os.path.basename(mpicc).replace('mpicc', 'mpif90')))
    return m


def probe_fortran(m, f90):
    """Fortran profiling entries of the Fortran MPI library"""
    ftok = link_line(f90)
    flibs = find_libs(ftok, lambda n: 'mpi' in n) if ftok else []
    flibs = [l for l in flibs if l not in m.libs]
    for l in flibs:
        syms = exported(l)
        got = {s for s in syms if s.startswith('pmpi_')}
        if got:
            m.fsyms |= got
            m.fortran_libs.append(l)
        found, orphans = gen_f08.entries(syms)
        if found:
            m.f08_map.update(found)
            m.f08_orphans += orphans
            m.f08_libs.append(l)
    for l in flibs + m.libs:
        m.fcommons |= common_blocks(l)
    if not m.fsyms:
        m.fnote = ' (no Fortran MPI library found via %s: no Fortran wrappers)' % f90
