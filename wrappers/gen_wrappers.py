#!/usr/bin/env python3
"""gen_wrappers.py - generate hprof's MPI wrappers for one MPI library.

    python3 wrappers/gen_wrappers.py --mpicc mpicc.openmpi --outdir build/openmpi/gen

Reads wrappers/mpi_functions.txt (format: see the top of that file and
wrappers/README.md), probes the MPI library behind --mpicc (probe_mpi.py:
what its libraries export, what its mpi.h declares, its Fortran libraries),
and writes into --outdir, always all five:

  wrappers_c.c  one C wrapper per function that is both exported and declared
  wrappers_f.c  Fortran (mpif.h / use mpi) wrappers: mpi_xxx_, mpi_xxx__,
                mpi_xxx and MPI_XXX as aliases of one function that forwards
                to the library's own pmpi_xxx_
  wrappers_f08.c  Fortran 2008 (use mpi_f08) wrappers, one per entry point
                the f08 library exports (gen_f08.py)
  fn_table.c    hprof_fn_table[] / hprof_fn_count for every listed function
  fn_ids.h      enum of HPROF_FN_<name>

Options: --list FILE (default: mpi_functions.txt next to this script),
--mpif90 CMD (default: mpicc's name with mpicc replaced by mpif90),
--no-fortran, --quiet. Exits non-zero when the list cannot be parsed or the
MPI library cannot be probed. Only the Python standard library is used.
"""
import argparse
import os
import re
import sys

import gen_f08
import probe_mpi
from c_decls import parse_proto

HERE = os.path.dirname(os.path.abspath(__file__))

BYTE_KINDS = {
    'sent': 'HPROF_BYTES_SENT',
    'recv': 'HPROF_BYTES_RECEIVED',
    'put': 'HPROF_BYTES_PUT',
    'get': 'HPROF_BYTES_GET',
    'read': 'HPROF_IO_BYTES_READ',
    'written': 'HPROF_IO_BYTES_WRITTEN',
}
COMPLETE_KINDS = ('wait', 'test', 'waitany', 'testany', 'waitall', 'testall', 'waitsome', 'testsome')
INT_TYPES = ('int', 'MPI_Count', 'MPI_Aint', 'MPI_Offset')


def die(msg):
    sys.stderr.write('gen_wrappers.py: %s\n' % msg)
    sys.exit(1)


# --------------------------------------------------------------------------
# the list
# --------------------------------------------------------------------------
class Fn:
    def __init__(self, group, ret, name, params, varargs, attrs, lineno):
        self.group, self.ret, self.name = group, ret, name
        self.params, self.varargs, self.lineno = params, varargs, lineno
        self.attrs = attrs          # list of (key, value)
        self.id = 'HPROF_FN_' + name

    def get(self, key, default=None):
        for k, v in self.attrs:
            if k == key:
                return v
        return default

    def has(self, key):
        return any(k == key for k, _ in self.attrs)

    def param(self, name):
        for p in self.params:
            if p.name == name:
                return p
        raise KeyError('%s: no parameter %r (line %d)' % (self.name, name, self.lineno))


def read_list(path):
    fns, excepts, seen = [], {}, set()
    with open(path) as f:
        for lineno, line in enumerate(f, 1):
            line = line.split('#', 1)[0].strip()
            if not line:
                continue
            fields = [x.strip() for x in line.split('|')]
            if fields[0] == 'except':
                if len(fields) < 2:
                    die('%s:%d: except needs a name' % (path, lineno))
                excepts[fields[1]] = fields[2] if len(fields) > 2 else ''
                continue
            if len(fields) not in (2, 3):
                die('%s:%d: expected "group | prototype | attributes"' % (path, lineno))
            pr = parse_proto(fields[1])
            if not pr:
                die('%s:%d: cannot parse prototype %r' % (path, lineno, fields[1]))
            ret, name, params, varargs = pr
            if name in seen:
                die('%s:%d: %s listed twice' % (path, lineno, name))
            seen.add(name)
            for p in params:
                if not p.name:
                    die('%s:%d: %s: parameter %r has no name' % (path, lineno, name, p.text))
            attrs = []
            for tok in (fields[2].split() if len(fields) > 2 else []):
                k, _, v = tok.partition('=')
                attrs.append((k, v))
            fns.append(Fn(fields[0], ret, name, params, varargs, attrs, lineno))
    return fns, excepts


# --------------------------------------------------------------------------
# expressions
# --------------------------------------------------------------------------
class Lang:
    """How a parameter is read in C wrappers and in Fortran wrappers."""

    def __init__(self, fortran):
        self.fortran = fortran

    def scalar(self, p):
        """a count-like parameter as an integer expression"""
        if not self.fortran:
            return p.name
        t = 'MPI_Fint' if p.core == 'int' else p.core
        return '(*(const %s *)%s)' % (t, p.name)

    def handle(self, p):
        if not self.fortran:
            return p.name
        conv = {'MPI_Datatype': 'PMPI_Type_f2c', 'MPI_Comm': 'PMPI_Comm_f2c'}[p.core]
        return '%s(*(const MPI_Fint *)%s)' % (conv, p.name)

    def request(self, name):
        """the MPI_Request a request parameter (MPI_Request *) holds"""
        return 'PMPI_Request_f2c(*(MPI_Fint *)%s)' % name if self.fortran else '*%s' % name

    def request_at(self, name, i):
        """element i of an array of requests"""
        return ('PMPI_Request_f2c(((MPI_Fint *)%s)[%s])' % (name, i) if self.fortran
                else '%s[%s]' % (name, i))

    def counts(self, p):
        if self.fortran:   # the _c variants' counts are INTEGER(MPI_COUNT_KIND) in mpi_f08
            return ('hprof_cnt_big((const MPI_Count *)%s)' if p.core == 'MPI_Count'
                    else 'hprof_cnt_int((const int *)%s)') % p.name
        return ('hprof_cnt_big(%s)' if p.core == 'MPI_Count' else 'hprof_cnt_int(%s)') % p.name

    def types(self, p):
        if self.fortran:
            return 'hprof_types_f((const MPI_Fint *)%s)' % p.name
        return 'hprof_types_c(%s)' % p.name

    def inplace(self, p):
        if self.fortran:
            return 'HPROF_F_IS_IN_PLACE(%s)' % p.name
        return '(%s == MPI_IN_PLACE)' % p.name


def product(fn, expr, lang):
    """sent=count*datatype -> C expression of type uint64_t"""
    factors = []
    for tok in expr.split('*'):
        tok = tok.strip()
        if re.fullmatch(r'\d+', tok):
            factors.append('(uint64_t)%s' % tok)
            continue
        p = fn.param(tok)
        if p.core == 'MPI_Datatype' and p.stars == 0:
            factors.append('hprof_w_tsize(%s)' % lang.handle(p))
        elif p.core in INT_TYPES and p.stars == 0:
            factors.append('(uint64_t)%s' % lang.scalar(p))
        else:
            die('%s: cannot use parameter %s (%s) in %r' % (fn.name, tok, p.type, expr))
    return ' * '.join(factors) or '0'


def coll_call(fn, rule, lang, target):
    m = re.fullmatch(r'(\w+)\((.*)\)', rule)
    if not m:
        die('%s: bad coll rule %r' % (fn.name, rule))
    args = []
    for a in [x.strip() for x in m.group(2).split(',') if x.strip()]:
        im = re.fullmatch(r'inplace\((\w+)\)', a)
        if im:
            args.append(lang.inplace(fn.param(im.group(1))))
            continue
        p = fn.param(a)
        if p.core == 'MPI_Datatype':
            args.append(lang.types(p) if p.arr or p.stars else lang.handle(p))
        elif p.core == 'MPI_Comm':
            args.append(lang.handle(p))
        elif p.core in INT_TYPES and p.stars > 0:
            args.append(lang.counts(p))
        elif p.core in INT_TYPES:
            args.append(lang.scalar(p))
        else:
            die('%s: cannot pass %s (%s) to coll rule' % (fn.name, a, p.type))
    return 'hprof_coll_%s(%s, %s);' % (m.group(1), target, ', '.join(args))


def byte_code(fn, lang, target, status_expr):
    """statements adding fn's bytes to target[] (a uint64_t array)"""
    out = []
    for key, val in fn.attrs:
        if key in BYTE_KINDS:
            if val.startswith('@'):
                out.append('%s[%s] += %s;' % (target, BYTE_KINDS[key], status_expr(fn.param(val[1:]))))
            else:
                out.append('%s[%s] += %s;' % (target, BYTE_KINDS[key], product(fn, val, lang)))
        elif key == 'coll':
            out.append(coll_call(fn, val, lang, target))
    return out


def status_params(fn):
    return [fn.param(v[1:]) for k, v in fn.attrs if k in BYTE_KINDS and v.startswith('@')]


# --------------------------------------------------------------------------
# C wrappers
# --------------------------------------------------------------------------
def c_params(fn, decl):
    """parameter declarations: types from the library's header, names from the list"""
    hparams = decl[1] if decl else None
    if hparams is not None and len(hparams) == len(fn.params):
        return [hp.decl(lp.name) if hp.name or hp.type else lp.decl() for hp, lp in zip(hparams, fn.params)]
    return [p.decl() for p in fn.params]


def c_signature(fn, decl):
    return ', '.join(c_params(fn, decl) + (['...'] if fn.varargs else [])) or 'void'


def nothing_done(fn, cast=''):
    """The C condition that a test or probe completed nothing (poll=NAME[:UNDEF]):
    *NAME is 0, or *UNDEF (NAME when not given) is MPI_UNDEFINED, as MPI_Testany's
    index is when no request was active."""
    name, _, undef = fn.get('poll').partition(':')
    return '*%s%s == 0 || *%s%s == MPI_UNDEFINED' % (cast, name, cast, undef or name)


def completion(fn, kind, lang, pre, post):
    """The requests a wait/test call completes: saved before the call (the
    library frees them), their bytes added after it from the statuses (our
    own when the caller ignores them). One routine for both bindings; lang
    says how each thing is spelled in C or in Fortran (Fortran: handles are
    MPI_Fint, indices 1-based, statuses MPI_F_STATUS_SIZE MPI_Fints)."""
    F = lang.fortran
    P = [p.name for p in fn.params]
    deref = (lambda x: '*(MPI_Fint *)%s' % x) if F else (lambda x: '*%s' % x)
    complete = 'hprof_w_req_fcomplete' if F else 'hprof_w_req_complete'
    if F:
        st_decl = 'MPI_Fint hprof_fst[MPI_F_STATUS_SIZE];'
        st_ignore = lambda st: 'if ((MPI_Fint *)%s == HPROF_FST_IGNORE) %s = hprof_fst;' % (st, st)
        st_arg = lambda st: '(MPI_Fint *)%s' % st
    else:
        st_decl = 'MPI_Status hprof_st;'
        st_ignore = lambda st: 'if (%s == MPI_STATUS_IGNORE) %s = &hprof_st;' % (st, st)
        st_arg = lambda st: st
    if kind in ('wait', 'test'):
        req, st = P[0], P[-1]
        flag = P[1] if kind == 'test' else None
        pre += ['MPI_Request hprof_saved = MPI_REQUEST_NULL;',
                st_decl,
                'int hprof_track = call.measured && hprof_w_req_any();',
                'if (hprof_track) {',
                '    hprof_saved = %s;' % ('PMPI_Request_f2c(*(MPI_Fint *)%s)' % req if F else '*%s' % req),
                '    ' + st_ignore(st),
                '}']
        cond = 'hprof_track' + (' && ' + deref(flag) if flag else '')
        post += ['if (%s) %s(call.bytes, hprof_saved, %s);' % (cond, complete, st_arg(st))]
        return
    n = '(*(MPI_Fint *)%s)' % P[0] if F else P[0]
    reqs = '((MPI_Fint *)%s)' % P[1] if F else P[1]
    copy = lambda size: ('for (int hprof_i = 0; hprof_i < %s; hprof_i++) hprof_saved[hprof_i] = '
                         'PMPI_Request_f2c(%s[hprof_i]);' % (n, reqs) if F
                         else 'memcpy(hprof_saved, %s, %s);' % (reqs, size))
    base = 1 if F else 0   # of an index into the requests
    if kind in ('waitany', 'testany'):
        idx, st = P[2], P[-1]
        flag = P[3] if kind == 'testany' else None
        if F:
            pre += ['MPI_Request *hprof_saved = NULL;',
                    st_decl,
                    'if (call.measured && hprof_w_req_any() && %s > 0 &&' % n,
                    '    (hprof_saved = hprof_thread_scratch((size_t)%s * sizeof(MPI_Request)))) {' % n,
                    '    ' + copy('(size_t)%s * sizeof(MPI_Request)' % n),
                    '    ' + st_ignore(st),
                    '}']
        else:   # one request, the common case of polling loops, without a call
            pre += ['MPI_Request hprof_one, *hprof_saved = NULL;',
                    st_decl,
                    'if (call.measured && hprof_w_req_any() && %s > 0 &&' % n,
                    '    (hprof_saved = %s == 1 ? &hprof_one : hprof_thread_scratch((size_t)%s * sizeof(MPI_Request)))) {' % (n, n),
                    '    if (%s == 1) hprof_one = %s[0]; else %s' % (n, reqs, copy('(size_t)%s * sizeof(MPI_Request)' % n)),
                    '    ' + st_ignore(st),
                    '}']
        cond = 'hprof_saved' + (' && ' + deref(flag) if flag else '')
        i = deref(idx)
        post += ['if (%s && %s != MPI_UNDEFINED && %s >= %d && %s %s %s)'
                 % (cond, i, i, base, i, '<=' if F else '<', n),
                 '    %s(call.bytes, hprof_saved[%s%s], %s);' % (complete, i, ' - 1' if F else '', st_arg(st))]
        return
    if kind in ('waitall', 'testall'):
        sts = P[-1]
        flag = P[2] if kind == 'testall' else None
        outcount = None
    else:  # waitsome, testsome
        outcount, idxs, sts = P[2], P[3], P[4]
        flag = None
    # scratch: the saved requests, then (statuses ignored) our own statuses
    if F:
        layout = ['    int hprof_ign = (MPI_Fint *)%s == HPROF_FSTS_IGNORE;' % sts,
                  '    size_t hprof_rq = ((size_t)%s * sizeof(MPI_Request) + 15) & ~(size_t)15;' % n,
                  '    char *hprof_buf = hprof_thread_scratch(hprof_rq + (hprof_ign ? (size_t)%s * MPI_F_STATUS_SIZE * sizeof(MPI_Fint) : 0));' % n]
        own_statuses = '        if (hprof_ign) %s = hprof_buf + hprof_rq;' % sts
        stat = lambda i: '((MPI_Fint *)%s + (size_t)%s * MPI_F_STATUS_SIZE)' % (sts, i)
    else:
        layout = ['    int hprof_ign = %s == MPI_STATUSES_IGNORE;' % sts,
                  '    size_t hprof_rq = (size_t)%s * sizeof(MPI_Request);' % n,
                  '    char *hprof_buf = hprof_thread_scratch(hprof_rq + (hprof_ign ? (size_t)%s * sizeof(MPI_Status) + 16 : 0));' % n]
        own_statuses = '        if (hprof_ign) %s = (MPI_Status *)(hprof_buf + ((hprof_rq + 15) & ~(size_t)15));' % sts
        stat = lambda i: '&%s[%s]' % (sts, i)
    pre += ['MPI_Request *hprof_saved = NULL;',
            'if (call.measured && hprof_w_req_any() && %s > 0) {' % n] + layout + \
           ['    if (hprof_buf) {',
            '        hprof_saved = (MPI_Request *)hprof_buf;',
            '        ' + copy('hprof_rq'),
            own_statuses,
            '    }',
            '}']
    if outcount is None:
        cond = 'hprof_saved' + (' && ' + deref(flag) if flag else '')
        post += ['if (%s)' % cond,
                 '    for (int hprof_i = 0; hprof_i < %s; hprof_i++)' % n,
                 '        %s(call.bytes, hprof_saved[hprof_i], %s);' % (complete, stat('hprof_i'))]
    else:
        oc = '(*(MPI_Fint *)%s)' % outcount if F else '*%s' % outcount
        ix = '((MPI_Fint *)%s)[hprof_i]' % idxs if F else '%s[hprof_i]' % idxs
        post += ['if (hprof_saved && %s != MPI_UNDEFINED)' % oc,
                 '    for (int hprof_i = 0; hprof_i < %s; hprof_i++)' % oc,
                 '        if (%s >= %d && %s %s %s)' % (ix, base, ix, '<=' if F else '<', n),
                 '            %s(call.bytes, hprof_saved[%s%s], %s);' % (complete, ix, ' - 1' if F else '', stat('hprof_i'))]


# The lean path of a poll (lib/polls/poll_run.h, hprof_poll_latest): a
# poll from its run's latest entry, told before the PMPI call, counts one
# poll of the run and nothing else (one in N is timed: hprof_poll_latest
# reads the clock before the call, hprof_poll_counted after it), in ~30 fewer instructions than the
# general wrapper, which in a loop whose own work misses the cache is ~4 ns
# a poll. Per complete= kind: when the lean path applies, what it keeps of
# the request before the library frees it, and how the names that
# completion()'s post lines read are bound from what it kept.
LEAN_POLLS = {
    None: ('1', [], []),
    'test': ('1', ['MPI_Request hprof_one = *{0};'],
             ['int hprof_track = hprof_w_req_any();', 'MPI_Request hprof_saved = hprof_one;']),
    'testany': ('{0} == 1', ['MPI_Request hprof_one = {1}[0];'],
                ['MPI_Request *hprof_saved = hprof_w_req_any() ? &hprof_one : NULL;']),
}
# attributes a lean poll may have: none that adds to its post lines
LEAN_ATTRS = {'poll', 'complete', 'nounwind', 'f', 'fargs', 'fnoierr', 'fret', 'fstr'}


def has_lean_path(fn):
    """Does fn's C wrapper take a lean path (a test or probe of LEAN_POLLS)?"""
    if not fn.get('poll') or fn.ret != 'int' or fn.varargs:
        return False
    return fn.get('complete') in LEAN_POLLS and all(k in LEAN_ATTRS for k, _ in fn.attrs)


def lean_poll_wrapper(fn, sig, params):
    """Three functions: the general wrapper (static, noinline, the exported
    one's frame passed in), the end of a lean poll that completed something
    or failed, and the exported lean path in front of both."""
    kind = fn.get('complete')
    P = [p.name for p in fn.params]
    guard, keep, bind = LEAN_POLLS[kind]
    guard, keep = guard.format(*P), [k.format(*P) for k in keep]
    args = ', '.join(P)
    general, completed = 'hprof_%s_general' % fn.name, 'hprof_%s_completed' % fn.name
    kept = ['MPI_Request hprof_one'] if keep else []
    post = []
    if kind:
        completion(fn, kind, Lang(False), [], post)
        keep += ['MPI_Status hprof_st;',
                 'if (%s == MPI_STATUS_IGNORE) %s = &hprof_st;' % (P[-1], P[-1])]
    post.append('call.poll = %s; /* completed nothing */' % nothing_done(fn))
    # the completed end is passed the parameters it reads
    used = [i for i, n in enumerate(P) if re.search(r'\b%s\b' % n, '\n'.join(bind + post))]
    o = general_c_wrapper(fn, sig, 'static __attribute__((noinline)) int %s(void *hprof_frame, %s)'
                          % (general, sig), 'hprof_frame')
    o += ['static __attribute__((noinline)) int %s(struct hprof_thread *hprof_run, void *hprof_frame, '
          'uint64_t hprof_t0, int rc, %s)' % (completed, ', '.join(kept + [params[i] for i in used])),
          '{',
          '    hprof_call call;',
          '    hprof_poll_resume(&call, hprof_run, %s, hprof_frame, hprof_t0);' % fn.id]
    o += ['    ' + l for l in bind]
    o += ['    if (rc == MPI_SUCCESS) {'] + ['        ' + l for l in post] + ['    }']
    o += ['    hprof_call_end(&call);', '    return rc;', '}', '']
    o += ['HPROF_EXPORT int %s(%s)' % (fn.name, sig),
          '{',
          '    struct hprof_thread *hprof_run;',
          '    uint64_t hprof_t0 = 0;   /* one poll in N is timed */',
          '    if (__builtin_expect(%s, 1) && (hprof_run = hprof_poll_latest(%s, HPROF_FRAME, &hprof_t0))) {' % (guard, fn.id)]
    o += ['        ' + l for l in keep]
    o += ['        int rc = P%s(%s);' % (fn.name, args),
          '        if (__builtin_expect(rc == MPI_SUCCESS && (%s), 1)) {' % nothing_done(fn),
          '            hprof_poll_counted(hprof_run, hprof_t0);',
          '            return rc;',
          '        }',
          '        return %s(hprof_run, HPROF_FRAME, hprof_t0, rc, %s);' % (completed, ', '.join(['hprof_one'] * len(kept) + [P[i] for i in used])),
          '    }',
          '    return %s(HPROF_FRAME, %s);' % (general, args),
          '}', '']
    return o


# Communicators a call makes (noted after it returns, lib/ending/comm_peers.h) and
# frees (forgotten before); MPI_Comm_idup's is unusable until it completes.
MADE_COMMS = ('newcomm', 'comm_cart', 'comm_graph', 'comm_dist_graph', 'intercomm', 'newintercomm',
              'newintracomm', 'parent')
FREED_COMMS = ('MPI_Comm_free', 'MPI_Comm_disconnect')


def where_code(fn, L):
    """The call's communicator and peers for snapshots (measure.h's
    hprof_call_where_set), or [] for a call without an input MPI_Comm."""
    names = {p.name: p for p in fn.params}
    comm = names.get('comm')
    if not comm or comm.core != 'MPI_Comm' or comm.stars:
        return []
    none = 'HPROF_NO_PEER'
    arg = lambda n: L.scalar(names[n]) if n in names and names[n].core == 'int' and not names[n].stars else none
    recv = 'source' in names
    send_tag = arg('sendtag') if 'sendtag' in names else (none if recv else arg('tag'))
    recv_tag = arg('recvtag') if 'recvtag' in names else (arg('tag') if recv else none)
    key = 'HPROF_COMM_KEY(%s)' % L.handle(comm)
    code = 'hprof_call_where_set(&call, %s, %s, %s, %s, %s, %s);' % (
        key, arg('source'), arg('dest'), send_tag, recv_tag, arg('root'))
    # a Fortran handle is converted by a call: only for measured calls
    return ['if (call.measured) ' + code] if L.fortran else [code]


def comm_book_code(fn, L, pre, post):
    """Note the communicators fn makes, forget those it frees."""
    if fn.name.startswith('MPI_Comm_idup'):
        return
    for p in fn.params:
        if p.core != 'MPI_Comm' or p.stars != 1:
            continue
        h = L.handle(p) if L.fortran else '*' + p.name
        if fn.name in FREED_COMMS:
            pre.append('if (call.measured) comm_peers_forget(%s);' % h)
        elif p.name in MADE_COMMS:
            post.append('if (call.measured) comm_peers_note(%s);' % h)


def request_parts(fn, L, pre, post, status_expr):
    """What both bindings do around the call: the polls' result, the
    requests a call frees, starts or makes (wrappers/requests.c), and the
    bytes a call moves; L spells each handle in C or in Fortran."""
    if fn.get('poll'):
        post += ['call.poll = %s;' % nothing_done(fn, '(MPI_Fint *)') if L.fortran
                 else 'call.poll = %s; /* completed nothing */' % nothing_done(fn)]
    if fn.has('reqfree'):
        rp = fn.params[0].name
        pre += ['MPI_Request hprof_saved = call.measured ? %s : MPI_REQUEST_NULL;' % L.request(rp) if L.fortran
                else 'MPI_Request hprof_saved = *%s;' % rp]
        post += ['if (call.measured) hprof_w_req_forget(hprof_saved);']
    start = fn.get('start')
    if start == 'one':
        post += ['if (call.measured) hprof_w_req_start(call.bytes, %s);' % L.request(fn.params[0].name)]
    elif start == 'all':
        n = '(*(MPI_Fint *)%s)' % fn.params[0].name if L.fortran else fn.params[0].name
        post += ['if (call.measured && hprof_w_req_any())',
                 '    for (int hprof_i = 0; hprof_i < %s; hprof_i++)' % n,
                 '        hprof_w_req_start(call.bytes, %s);' % L.request_at(fn.params[1].name, 'hprof_i')]
    req = fn.get('req')
    if req == 'persistent':
        code = byte_code(fn, L, 'hprof_pb', status_expr)
        rp = request_param(fn)
        post += ['if (call.measured) {',
                 '    uint64_t hprof_pb[HPROF_NBYTES] = {0};'] + ['    ' + c for c in code] + \
                ['    hprof_w_req_track(%s, HPROF_REQ_PERSISTENT, hprof_pb[HPROF_BYTES_SENT], '
                 'hprof_pb[HPROF_BYTES_RECEIVED]);' % L.request(rp.name), '}']
        return
    code = byte_code(fn, L, 'call.bytes', status_expr)
    if code:
        post[:0] = ['if (call.measured) {'] + ['    ' + c for c in code] + ['}']
    if req in ('recv', 'precv'):
        rp = request_param(fn)
        flags = 'HPROF_REQ_RECV' + (' | HPROF_REQ_PERSISTENT' if req == 'precv' else '')
        post += ['if (call.measured) hprof_w_req_track(%s, %s, 0, 0);' % (L.request(rp.name), flags)]
    elif req:
        die('%s: unknown req=%s' % (fn.name, req))


def request_param(fn):
    for p in fn.params:
        if p.core == 'MPI_Request' and p.stars == 1 and not p.type.startswith('const'):
            return p
    die('%s: req= but no MPI_Request* parameter' % fn.name)


def gen_c_wrapper(fn, decl):
    """The C wrapper of fn; for a poll with a lean path, that path exported and
    the general wrapper behind it (lean_poll_wrapper)."""
    sig = c_signature(fn, decl)
    if has_lean_path(fn):
        return lean_poll_wrapper(fn, sig, c_params(fn, decl))
    return general_c_wrapper(fn, sig, 'HPROF_EXPORT %s %s(%s)' % (fn.ret, fn.name, sig), 'HPROF_FRAME')


def general_c_wrapper(fn, sig, head, frame):
    """The wrapper's body under head; frame: the exported wrapper's frame."""
    L = Lang(False)
    ret = fn.ret
    args = ', '.join(p.name for p in fn.params)
    life = fn.get('life')
    o = []
    if life in ('init', 'init_thread'):
        o += ['HPROF_EXPORT %s %s(%s)' % (ret, fn.name, sig), '{',
              '    uint64_t t0 = hprof_clock_anchor();',
              '    int rc = P%s(%s);' % (fn.name, args),
              '    if (rc == MPI_SUCCESS) hprof_lifecycle_init_done(HPROF_FN_%s, t0);' % fn.name,
              '    return rc;', '}', '']
        return o
    if life == 'finalize':
        o += ['HPROF_EXPORT %s %s(%s)' % (ret, fn.name, sig), '{',
              '    hprof_lifecycle_finalize();   /* merges and writes the profile */',
              '    return P%s(%s);' % (fn.name, args), '}', '']
        return o

    pre, post = where_code(fn, L), []
    comm_book_code(fn, L, pre, post)
    # statuses that byte counting reads
    for sp in status_params(fn):
        pre += ['MPI_Status hprof_st_%s;' % sp.name,
                'if (call.measured && %s == MPI_STATUS_IGNORE) %s = &hprof_st_%s;' % (sp.name, sp.name, sp.name)]
    if fn.get('session') == 'init':   # the first session opens the measurement (lib/lifecycle/lifecycle.h)
        pre += ['uint64_t hprof_t0 = call.measured ? call.start_ns : hprof_clock_anchor();']
        post += ['hprof_lifecycle_session_init(%s, hprof_t0, call.measured);' % fn.id]
    if fn.get('spawn') == 'one':
        pre += ['hprof_spawn hprof_sp;   /* the children get hprof too (lib/lifecycle/spawn.h) */',
                'hprof_spawn_prepare(&hprof_sp, &command, &argv);']
    elif fn.get('spawn') == 'multiple':
        pre += ['hprof_spawn_multiple_note();']
    comp = fn.get('complete')
    if comp:
        if comp not in COMPLETE_KINDS:
            die('%s: unknown complete=%s' % (fn.name, comp))
        completion(fn, comp, L, pre, post)
    if fn.get('phase'):
        post += ['if (call.measured) hprof_w_phase(%s);' % fn.get('phase')]
    request_parts(fn, L, pre, post, lambda p: 'hprof_w_status_bytes(%s)' % p.name)

    o.append(head)
    o.append('{')
    if fn.get('session') == 'finalize':   # the last session closes it, like MPI_Finalize
        o += ['    if (hprof_lifecycle_session_last())   /* the profile is written */',
              '        return P%s(%s);' % (fn.name, args)]
    o.append('    hprof_call call;')
    poll = fn.get('poll')
    if poll:   # a poll in the thread's polling run takes a shorter path (measure.h)
        o += ['    uint64_t hprof_t0 = 0;   /* one poll of the run in N is timed */',
              '    struct hprof_thread *hprof_run = hprof_poll_join(%s, &hprof_t0);' % frame,
              '    if (hprof_run)',
              '        call.measured = 1;',
              '    else',
              '        hprof_call_begin(&call, %s, %s);' % (fn.id, frame)]
    else:
        o.append('    hprof_call_begin(&call, %s, %s);' % (fn.id, frame))
    o += ['    ' + l for l in pre]
    if fn.varargs:
        o.append('    /* the variable arguments cannot be forwarded portably; only the fixed ones are */')
    o.append('    %s rc = P%s(%s);' % (ret, fn.name, args))
    if poll:
        o += ['    if (hprof_run) {',
              '        if (rc == MPI_SUCCESS && (%s) &&' % nothing_done(fn),
              '            hprof_poll_again(hprof_run, %s, %s, hprof_t0))' % (fn.id, frame),
              '            return rc;',
              '        hprof_poll_resume(&call, hprof_run, %s, %s, hprof_t0);' % (fn.id, frame),
              '    }']
    if post:
        if ret == 'int':
            o.append('    if (rc == MPI_SUCCESS) {')
            o += ['        ' + l for l in post]
            o.append('    }')
        else:
            o += ['    ' + l for l in post]
    o.append('    hprof_call_end(&call);')
    o.append('    return rc;')
    o.append('}')
    o.append('')
    return o


# --------------------------------------------------------------------------
# Fortran wrappers
# --------------------------------------------------------------------------
def fortran_args(fn):
    """[(name, is_string)] before IERROR, and the string names in order"""
    if fn.get('fargs') is not None:
        names = [x for x in fn.get('fargs').split(',') if x]
    else:
        names = [p.name for p in fn.params]
    if fn.get('fstr') is not None:
        strs = [x for x in fn.get('fstr').split(',') if x]
    else:
        strs = []
        for p in fn.params:
            if p.name in names and p.core == 'char' and p.stars == 1:
                strs.append(p.name)
    return names, strs


def wants_fortran(fn):
    if fn.get('f') == 'none' or fn.group in ('tool', 'handle') or fn.name.endswith('_c'):
        return False
    if fn.ret not in ('int', 'double', 'MPI_Aint'):
        return False
    return True


def gen_f_wrapper(fn, f08=None):
    """The wrapper of one Fortran binding. mpif.h / use mpi (f08 None): one
    function forwarding to pmpi_xxx_, exported under four spellings. mpi_f08
    (f08 = (entry, profiling entry)): exported under the entry's own name,
    forwarding to the library's profiling entry; IERROR is OPTIONAL there
    (NULL when absent), so a missing one is replaced by our own."""
    L = Lang(True)
    names, strs = fortran_args(fn)
    noierr = fn.has('fnoierr')
    fret = fn.get('fret') or 'void'
    lower = fn.name.lower()
    params = ['void *%s' % n for n in names]
    fwd = list(names)
    if not noierr:
        params.append('MPI_Fint *ierr')
        fwd.append('ierr')
    for s in strs:
        params.append('size_t %s_len' % s)
        fwd.append('%s_len' % s)
    sig = ', '.join(params) or 'void'
    fwd = ', '.join(fwd)
    if f08:
        entry, target = f08
        impl, exports = 'hprof_f08_%s' % entry, [entry]
    else:
        target = 'p%s_' % lower
        impl, exports = 'hprof_f_%s' % fn.name, [lower + '_', lower + '__', lower, fn.name.upper()]
    o = ['extern %s %s(%s) __attribute__((weak));' % (fret, target, sig),
         'static %s %s(%s)' % (fret, impl, sig), '{',
         '    %s (*pfn)(%s) = %s;' % (fret, sig, target),
         '    if (!pfn) pfn = (%s (*)(%s))hprof_f_sym("%s");' % (fret, sig, target)]
    if f08 and not noierr:
        o += ['    MPI_Fint hprof_ierr;',
              '    if (!ierr) ierr = &hprof_ierr;   /* IERROR absent */']
    if fret == 'void':
        fail = '{ %sreturn; }' % ('' if noierr else '*ierr = MPI_ERR_OTHER; ')
        call_expr = 'pfn(%s);' % fwd
    else:
        fail = '{ return 0; }'
        call_expr = '%s r = pfn(%s);' % (fret, fwd)
    o.append('    if (!pfn) %s   /* no Fortran MPI library */' % fail)
    life = fn.get('life')
    ok = '*ierr == MPI_SUCCESS' if not noierr else '1'
    if life in ('init', 'init_thread'):
        o += ['    uint64_t t0 = hprof_clock_anchor();',
              '    hprof_lifecycle_nest_enter();',
              '    ' + call_expr,
              '    hprof_lifecycle_nest_leave();',
              '    if (%s) hprof_lifecycle_init_done(HPROF_FN_%s, t0);' % (ok, fn.name), '}']
    elif life == 'finalize':
        o += ['    hprof_lifecycle_finalize();', '    ' + call_expr, '}']
    else:
        pre, post = where_code(fn, L), []
        comm_book_code(fn, L, pre, post)
        for sp in status_params(fn):
            pre += ['MPI_Fint hprof_fst_%s[MPI_F_STATUS_SIZE];' % sp.name,
                    'if (call.measured && (MPI_Fint *)%s == HPROF_FST_IGNORE) %s = hprof_fst_%s;'
                    % (sp.name, sp.name, sp.name)]
        comp = fn.get('complete')
        if comp:
            completion(fn, comp, L, pre, post)
        request_parts(fn, L, pre, post, lambda p: 'hprof_w_fstatus_bytes((MPI_Fint *)%s)' % p.name)
        if fn.get('spawn') == 'one':
            pre += ['int hprof_sp0 = hprof_spawn_count();']
            post_any = ['hprof_spawn_fortran_done(hprof_sp0);']
        else:
            post_any = []
            if fn.get('session'):
                # the library's Fortran binding may call the C wrapper: it
                # leaves the session's count to this one (lib/lifecycle/lifecycle.h)
                pre += ['hprof_lifecycle_nest_enter();']
                post_any += ['hprof_lifecycle_nest_leave();']
            if fn.get('session') == 'init':
                pre.insert(0, 'uint64_t hprof_t0 = call.measured ? call.start_ns : hprof_clock_anchor();')
                post += ['hprof_lifecycle_session_init(%s, hprof_t0, call.measured);' % fn.id]
            if fn.get('spawn') == 'multiple':
                pre += ['hprof_spawn_multiple_note();']
        if fn.get('session') == 'finalize':
            o += ['    if (hprof_lifecycle_session_last()) {   /* the last session: the profile is written */',
                  '        hprof_lifecycle_nest_enter();', '        ' + call_expr,
                  '        hprof_lifecycle_nest_leave();', '        return;', '    }']
        o.append('    hprof_call call;')
        o.append('    hprof_call_begin(&call, %s, HPROF_FRAME);' % fn.id)
        o += ['    ' + l for l in pre]
        o.append('    ' + call_expr)
        o += ['    ' + l for l in post_any]
        if post:
            o.append('    if (%s) {' % ok)
            o += ['        ' + l for l in post]
            o.append('    }')
        o.append('    hprof_call_end(&call);')
        if fret != 'void':
            o.append('    return r;')
        o.append('}')
    for sym in exports:
        o.append('HPROF_EXPORT %s %s(%s) __attribute__((alias("%s")));' % (fret, sym, sig, impl))
    o.append('')
    return o


# --------------------------------------------------------------------------
# output files
# --------------------------------------------------------------------------
HEAD = '/* Generated by wrappers/gen_wrappers.py from wrappers/mpi_functions.txt for %s. Do not edit. */\n'


def write(path, text):
    tmp = path + '.tmp'
    with open(tmp, 'w') as f:
        f.write(text)
    os.replace(tmp, path)



def select(fns, m):
    """the functions wrapped in C, in Fortran (mpif.h / use mpi), in mpi_f08"""
    # Wrapped: exported, and declared by mpi.h - or, for functions the header
    # hides (Open MPI hides the MPI-1 functions removed in MPI-3.0), PMPI_
    # exported too: then the list's prototype declares the PMPI_ function.
    wrapped = [f for f in fns if f.name in m.exp and
               ((f.name in m.decls and 'P' + f.name in m.decls) or 'P' + f.name in m.pexp)]
    fwrapped = [f for f in wrapped if wants_fortran(f) and ('p%s_' % f.name.lower()) in m.fsyms]
    f08wrapped = [f for f in wrapped if gen_f08.wants(f) and f.name.lower() in m.f08_map]
    return wrapped, fwrapped, f08wrapped


def fn_ids_h(head, fns):
    ids = [head, '#ifndef HPROF_FN_IDS_H', '#define HPROF_FN_IDS_H', '', 'enum hprof_fn_id {']
    for i, f in enumerate(fns):
        ids.append('    %s = %d,' % (f.id, i))
    ids += ['    HPROF_FN_COUNT = %d' % len(fns), '};', '', '#endif', '']
    return ids


def fn_table_c(head, fns):
    t = [head, '#include "core/fn_table.h"', '#include "gen/fn_ids.h"', '',
         '__attribute__((visibility("default"))) const hprof_fn_info hprof_fn_table[] = {']
    for f in fns:
        flags = ' | '.join([x for c, x in ((f.has('nounwind'), 'HPROF_FN_NOUNWIND_DEFAULT'),
                                            (f.has('poll'), 'HPROF_FN_POLL')) if c]) or '0'
        t.append('    [%s] = { "%s", "%s", %s },' % (f.id, f.name, f.group, flags))
    t += ['};', '', '__attribute__((visibility("default"))) const int hprof_fn_count = HPROF_FN_COUNT;', '']
    return t


def wrappers_c(head, m, wrapped):
    mac, decls = m.mac, m.decls
    c = [head, '#include <mpi.h>',
         '/* deprecated MPI functions are wrapped too */',
         '#pragma GCC diagnostic ignored "-Wdeprecated-declarations"', '#include <stdint.h>', '#include <string.h>',
         '#include "lib/ending/comm_peers.h"', '#include "lib/lifecycle/lifecycle.h"', '#include "lib/measure.h"', '#include "lib/polls/poll_run.h"', '#include "wrappers/requests.h"', '#include "lib/lifecycle/spawn.h"',
         '#include "wrappers/wrap_support.h"', '#include "gen/fn_ids.h"', '']
    for f in wrapped:
        for n in (f.name, 'P' + f.name):
            if n in mac:
                c += ['#undef %s   /* a macro in mpi.h */' % n]
        if not (f.name in decls and 'P' + f.name in decls):
            c += ['/* not declared by this mpi.h: declared here from the list */',
                  'extern %s P%s(%s);' % (f.ret, f.name, ', '.join(p.decl() for p in f.params) or 'void')]
        c += gen_c_wrapper(f, decls.get(f.name))
    return c


def wrappers_f(head, m, fwrapped):
    fortran_libs, fcommons, flav = m.fortran_libs, set(m.fcommons), m.flav
    fo = [head, '#include <mpi.h>', '#include <stddef.h>', '#include <stdint.h>', '#include <string.h>',
          '#include "lib/ending/comm_peers.h"', '#include "lib/lifecycle/lifecycle.h"', '#include "lib/measure.h"', '#include "wrappers/requests.h"', '#include "lib/lifecycle/spawn.h"', '#include "wrappers/wrap_support.h"',
          '#include "gen/fn_ids.h"', '#include "wrappers/fortran_mpif.h"', '',
          '#pragma GCC diagnostic ignored "-Wdeprecated-declarations"', '',
          '/* The Fortran MPI libraries the probe found (fortran_libs.h). */',
          'static const char *const hprof_f_libs[] = { %s NULL };'
          % ''.join('"%s", "%s", ' % (probe_mpi.soname(l), l) for l in fortran_libs),
          'hprof_flib hprof_flib_mpif = { hprof_f_libs, NULL };', '',
          '/* Referencing the mpif.h COMMON blocks (MPI_IN_PLACE, MPI_BOTTOM,',
          ' * MPI_STATUS_IGNORE, ... live there) makes the linker export a relinked',
          ' * program\'s copies, so the Fortran MPI library - loaded later if need be -',
          ' * binds to the very blocks the program passes. */']
    if flav == 'openmpi':
        fcommons.add('mpi_fortran_in_place_')
    for cb in sorted(fcommons):
        fo.append('extern char %s[] __attribute__((weak));' % cb)
    fo.append('__attribute__((used)) static void *const hprof_f_commons[] = { %s };'
              % (', '.join(sorted(fcommons)) or '0'))
    fo.append('')
    if not fwrapped:
        fo += ['/* no Fortran wrappers for this MPI library */',
               'typedef int hprof_no_fortran_wrappers;', '']
    for f in fwrapped:
        fo += gen_f_wrapper(f)
    return fo


def wrappers_f08(head, m, f08wrapped):
    f8 = gen_f08.header(head, [(probe_mpi.soname(l), l) for l in m.f08_libs])
    if not f08wrapped:
        f8 += ['/* no mpi_f08 wrappers for this MPI library */', 'typedef int hprof_no_f08_wrappers;', '']
    for f in f08wrapped:
        f8 += gen_f_wrapper(f, m.f08_map[f.name.lower()])
    return f8


def report(a, fns, excepts, m, wrapped, fwrapped, f08wrapped, libname):
    exp, flav, fsyms, f08_map, f08_orphans, f08_libs = m.exp, m.flav, m.fsyms, m.f08_map, m.f08_orphans, m.f08_libs
    wrapped_set = {f.name for f in wrapped}
    fnote, soname = m.fnote, probe_mpi.soname
    exp_fn = sorted(exp)
    unwrapped = [s for s in exp_fn if s not in wrapped_set]
    known = [s for s in unwrapped if s in excepts]
    unknown = [s for s in unwrapped if s not in excepts]
    print('hprof: wrapping %d of %d MPI_ functions exported by %s (%s)%s'
          % (len([s for s in exp_fn if s in wrapped_set]), len(exp_fn) - len(known), libname, flav,
             '; %d more exported symbols are documented exceptions' % len(known) if known else ''))
    if not a.quiet:
        if known:
            print('hprof: not wrapped, documented exceptions (%d): %s' % (len(known), ' '.join(known)))
        if unknown:
            print('hprof: not wrapped, exported but not in the list or not declared (%d): %s'
                  % (len(unknown), ' '.join(unknown)))
        print('hprof: %d Fortran wrappers (4 spellings each)%s; %d functions in the table'
              % (len(fwrapped), fnote, len(fns)))
        f08_entries = sorted(e for e, _ in f08_map.values()) + f08_orphans
        f08_done = {f08_map[f.name.lower()][0] for f in f08wrapped}
        print('hprof: wrapping %d of %d mpi_f08 entries exported by %s (%s)'
              % (len(f08_done), len(f08_entries), ', '.join(soname(l) for l in f08_libs) or 'no library', flav))
        not_f08 = [e for e in f08_entries if e not in f08_done]
        if not_f08:
            print('hprof: mpi_f08 entries not wrapped (%d): %s' % (len(not_f08), ' '.join(sorted(not_f08))))
        missing = [f.name for f in wrapped if f.name in exp and wants_fortran(f)
                   and ('p%s_' % f.name.lower()) not in fsyms and fsyms]
        if missing and not a.quiet and os.environ.get('HPROF_GEN_VERBOSE'):
            print('hprof: no Fortran profiling entry for: %s' % ' '.join(missing))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--mpicc', required=True)
    ap.add_argument('--outdir', required=True)
    ap.add_argument('--list', default=os.path.join(HERE, 'mpi_functions.txt'))
    ap.add_argument('--mpif90')
    ap.add_argument('--no-fortran', action='store_true')
    ap.add_argument('--quiet', action='store_true')
    a = ap.parse_args()

    fns, excepts = read_list(a.list)
    try:
        m = probe_mpi.probe(a.mpicc, a.mpif90, a.no_fortran)
    except probe_mpi.ProbeError as e:
        die(str(e))
    wrapped, fwrapped, f08wrapped = select(fns, m)

    os.makedirs(a.outdir, exist_ok=True)
    libname = ', '.join(probe_mpi.soname(l) for l in m.libs)
    head = HEAD % libname
    for name, lines in (('fn_ids.h', fn_ids_h(head, fns)), ('fn_table.c', fn_table_c(head, fns)),
                        ('wrappers_c.c', wrappers_c(head, m, wrapped)),
                        ('wrappers_f.c', wrappers_f(head, m, fwrapped)),
                        ('wrappers_f08.c', wrappers_f08(head, m, f08wrapped))):
        write(os.path.join(a.outdir, name), '\n'.join(lines))
    report(a, fns, excepts, m, wrapped, fwrapped, f08wrapped, libname)
    return 0


if __name__ == '__main__':
    sys.exit(main())
