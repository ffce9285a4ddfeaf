"""Call paths of `hprof-view --json`'s call tree, for the Python tests'
checks (the json: csv paths are cut short past 64 frames)."""
import json


def load(jsonf):
    """The call tree's nodes, and a function giving a node's path: its
    frames' names from the program's root (left out) down, ';'-joined."""
    tree = json.load(open(jsonf))["call_tree"]
    ids = {n["id"]: n for n in tree}

    def path(n):
        out = []
        while n["parent"] is not None:
            out.append(n["name"])
            n = ids[n["parent"]]
        return ";".join(reversed(out))

    return tree, path


def runs(p):
    """A path compactly, whole: its frames with their repeats counted
    ('<module>;recurse x255;(python frames left out);recurse x254;spin')."""
    out, f, i = [], p.split(";"), 0
    while i < len(f):
        j = i
        while j < len(f) and f[j] == f[i]:
            j += 1
        out.append(f[i] if j - i == 1 else "%s x%d" % (f[i], j - i))
        i = j
    return ";".join(out)


def told(bad, counts, what):
    """The first bad paths, each whole and compact, with why and its count."""
    return " | ".join("%s (%d %s): %s" % (why, counts[p], what, runs(p)) for p, why in bad[:3])
