import struct, subprocess, sys
# has_record.py PROGRAM SYMBOL...: for each function, "SYMBOL yes" when a
# __patchable_function_entries record points into the 64 bytes before its
# entry with no other function's entry in between, else "SYMBOL no"
prog = sys.argv[1]
raw = subprocess.run(["objcopy", "-O", "binary", "--only-section=__patchable_function_entries", prog, "/dev/stdout"],
                     capture_output=True, check=True).stdout
recs = set(struct.unpack("<%dQ" % (len(raw) // 8), raw[: len(raw) // 8 * 8]))
syms, addrs = {}, set()
for line in subprocess.run(["nm", prog], capture_output=True, text=True, check=True).stdout.splitlines():
    p = line.split()
    if len(p) == 3:
        syms[p[2]] = int(p[0], 16)
        if p[1] in "tTwW":
            addrs.add(int(p[0], 16))
for name in sys.argv[2:]:
    fn = syms.get(name)
    own = fn is not None and any(fn - 64 <= r <= fn and not any(r < a < fn for a in addrs) for r in recs)
    print(name, "missing" if fn is None else ("yes" if own else "no"))
