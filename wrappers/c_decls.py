"""c_decls.py - C declarations as the wrapper generator reads them: one
parameter (type, name, array suffix), a parameter list, a prototype. Used on
the function list (gen_wrappers.py) and on the MPI library's mpi.h
(probe_mpi.py). Only the Python standard library is used.
"""
import re


class Param:
    """One C parameter: base type text (with '*'s), name, array suffix."""

    def __init__(self, text):
        self.text = text = ' '.join(text.split())
        m = re.match(r'^(.*?)\b([A-Za-z_]\w*)\s*((?:\[\s*\w*\s*\])*)$', text)
        self.name = None
        self.type = text
        self.arr = ''
        if m:
            head = m.group(1).strip()
            if head and not re.fullmatch(r'(const|volatile|unsigned|signed|struct|enum|\s)*', head):
                self.type, self.name, self.arr = head, m.group(2), m.group(3).replace(' ', '')

    @property
    def core(self):
        """the type without const, '*' and array: MPI_Datatype, int, char ..."""
        return re.sub(r'\bconst\b|\*', ' ', self.type).split()[-1]

    @property
    def stars(self):
        return self.type.count('*') + self.arr.count('[')

    def decl(self, name=None):
        t = self.type
        sep = '' if t.endswith('*') else ' '
        return '%s%s%s%s' % (t, sep, name or self.name, self.arr)


def split_params(s):
    out, depth, cur = [], 0, ''
    for ch in s:
        if ch == '(':
            depth += 1
        elif ch == ')':
            depth -= 1
        if ch == ',' and depth == 0:
            out.append(cur)
            cur = ''
        else:
            cur += ch
    if cur.strip():
        out.append(cur)
    return [p.strip() for p in out]


def parse_proto(text):
    m = re.match(r'^\s*(.+?)\b(MPI_\w+)\s*\((.*)\)\s*$', text)
    if not m:
        return None
    ret, name, args = ' '.join(m.group(1).split()), m.group(2), m.group(3).strip()
    params, varargs = [], False
    if args and args != 'void':
        for a in split_params(args):
            if a == '...':
                varargs = True
            else:
                params.append(Param(a))
    return ret, name, params, varargs
