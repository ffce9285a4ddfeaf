#!/usr/bin/python3
"""Reads profiles with cubelib (the Cube GUI's library) through its
cube_dump tool, and compares every value on every call path and location,
exclusive and inclusive, with hprof-view's.

usage: cubelib_check.py HPROF_VIEW CUBE_DUMP FILE...

Prints one 'ok - ' / 'not ok - ' line per file. A file that hprof-view
refuses (the suite writes broken files on purpose) is not compared; nor is
one of more than MAX_CNODES call paths (cubelib opens those slowly: its
memory manager is quadratic), said in a comment line.
"""
import csv
import io
import math
import os
import subprocess
import sys

MAX_CNODES = 20000
# cube_dump prints 6 significant digits (max_time 9 decimals)
REL, ABS = 2e-5, 1e-9


def view_values(view, path):
    """(cnode, location, metric) -> (exclusive, inclusive), from --csv-ids"""
    r = subprocess.run([view, "--csv-ids", path], capture_output=True, text=True, timeout=300)
    if r.returncode != 0:
        return None
    rows = {}
    for row in csv.DictReader(io.StringIO(r.stdout)):
        rows[(int(row["cnode"]), int(row["location"]), row["metric"])] = (
            float(row["exclusive"]), float(row["inclusive"]))
    return rows


def dump(cube_dump, path, mode):
    """cube_dump's csv2 table along the call tree (mode excl or incl):
    (cnode, location, metric) -> value; or a string saying why not."""
    r = subprocess.run([cube_dump, "-m", "all", "-c", "all", "-x", "excl", "-z", mode, "-s", "csv2", path],
                       capture_output=True, text=True, timeout=600)
    if r.returncode != 0:
        return "cube_dump -z %s: exit %d: %s" % (mode, r.returncode, (r.stderr or r.stdout)[-200:].strip())
    lines = [l for l in r.stdout.splitlines() if l.strip()]
    start = next((i for i, l in enumerate(lines) if l.startswith("Cnode ID")), None)
    if start is None:
        return "cube_dump -z %s printed no table: %s" % (mode, (r.stderr + r.stdout)[-200:].strip())
    header = [h.strip() for h in lines[start].split(",")]
    values = {}
    for line in lines[start + 1:]:
        f = line.split(",")
        if len(f) != len(header):
            continue
        for name, v in zip(header[2:], f[2:]):
            values[(int(f[0]), int(f[1]), name)] = v.strip()
    return values


def close(a, b):
    return a == b or math.isclose(a, b, rel_tol=REL, abs_tol=ABS)


def compare(view, got, mode, problems):
    k = 0 if mode == "excl" else 1
    for key, (excl, incl) in view.items():
        want = (excl, incl)[k]
        metric = key[2]
        text = got.get(key)
        if text is None:
            problems.append("%s %s at cnode %d location %d: missing in cube_dump" % (mode, metric, key[0], key[1]))
        elif text == "-" and want == 0:
            continue          # a row of zeros cubelib keeps as absent
        else:
            try:
                v = float(text)
            except ValueError:
                v = float("nan")
            if not close(v, want):
                problems.append("%s %s at cnode %d location %d: cubelib %s, hprof-view %r"
                                % (mode, metric, key[0], key[1], text, want))
        if len(problems) > 3:
            return


def check_file(view_bin, cube_dump, path):
    view = view_values(view_bin, path)
    if view is None:
        return None
    ncnodes = 1 + max([c for (c, _, _) in view] or [0])
    if ncnodes > MAX_CNODES:
        return "skip"
    # min/max metrics have no inclusive sum: hprof-view's inclusive of them
    # is cubelib's too (min/max over the subtree), so both are compared.
    problems = []
    for mode in ("excl", "incl"):
        got = dump(cube_dump, path, mode)
        if isinstance(got, str):
            problems.append(got)
            break
        compare(view, got, mode, problems)
        if problems:
            break
    return problems


def main():
    view_bin, cube_dump, files = sys.argv[1], sys.argv[2], sys.argv[3:]
    compared = 0
    for path in files:
        name = os.path.basename(path)
        problems = check_file(view_bin, cube_dump, path)
        if problems is None:
            print("# %s: hprof-view refuses it (a broken file on purpose): not compared" % name)
            continue
        if problems == "skip":
            print("# %s: more than %d call paths: not opened with cubelib" % (name, MAX_CNODES))
            continue
        compared += 1
        if problems:
            print("not ok - cubelib reads %s as hprof-view does: %s" % (name, "; ".join(problems[:3])))
        else:
            print("ok - cubelib reads %s as hprof-view does" % name)
    if compared == 0:
        print("not ok - cubelib interop: no profile to compare")


main()
