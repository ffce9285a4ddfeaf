# For py_lines.sh: every code object (nested ones too) of a few standard
# modules, one line each: co_firstlineno, co_linetable in hex ('-' when
# empty), then UNIT:LINE for every instruction (2-byte code units), LINE -1
# where co_lines() says None.
import sys, types, importlib

def codes(co):
    yield co
    for c in co.co_consts:
        if isinstance(c, types.CodeType):
            yield from codes(c)

for name in sys.argv[1:]:
    mod = importlib.import_module(name)
    src = open(mod.__file__).read()
    for co in codes(compile(src, mod.__file__, "exec")):
        pairs = []
        for start, end, line in co.co_lines():
            for b in range(start, end, 2):
                pairs.append("%d:%d" % (b // 2, -1 if line is None else line))
        print(co.co_firstlineno, co.co_linetable.hex() or "-", " ".join(pairs))
