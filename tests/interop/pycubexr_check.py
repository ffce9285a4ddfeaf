#!/usr/bin/python3
"""Reads profiles with pyCubexR (the reader Extra-P uses) as published, and
compares every value on every call path and location with hprof-view.

usage: pycubexr_check.py HPROF_VIEW FILE...   (PYTHONPATH holds pycubexr)

Prints one 'ok - ' / 'not ok - ' line per file. A file that hprof-view
itself refuses (the suite writes broken files on purpose) is not compared.
"""
import csv
import io
import math
import os
import subprocess
import sys
import threading

import numpy as np
from pycubexr import CubexParser
from pycubexr.classes.values import CubeValues

MAX_INCLUSIVE_CNODES = 3000   # pyCubexR's inclusive conversion is quadratic


def view_values(view, path):
    """(cnode id, location, metric) -> (exclusive, inclusive), from --csv-ids"""
    r = subprocess.run([view, "--csv-ids", path], capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        return None
    rows = {}
    for row in csv.DictReader(io.StringIO(r.stdout)):
        rows[(int(row["cnode"]), int(row["location"]), row["metric"])] = (
            float(row["exclusive"]), float(row["inclusive"]))
    return rows


def as_array(values):
    return np.asarray(values._values if isinstance(values, CubeValues) else values, dtype=float)


def close(a, b):
    return a == b or math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


def file_attr(cube, key):
    """A top-level <attr> of anchor.xml (pyCubexR keeps them, unexposed)."""
    anchor = getattr(cube, "_anchor_result", None)
    return (getattr(anchor, "attrs", None) or {}).get(key)


def check_shape(cube, problems):
    """One root named after the program, main (if any, a C one: not a
    Python function, paradigm python) directly under it."""
    roots = [cn for cn in cube.all_cnodes() if cn.parent is None]
    if len(roots) != 1:
        problems.append("%d roots" % len(roots))
        return
    root = cube.get_region(roots[0])
    creator = file_attr(cube, "Creator")
    if root.name == "main" and (creator or "").startswith("hprof"):
        problems.append("root is main, not the program")
    mains = [cn for cn in cube.all_cnodes()
             if cube.get_region(cn).name == "main" and cube.get_region(cn).paradigm != "python"]
    if mains and not any(cn.parent is roots[0] for cn in mains):
        problems.append("no main directly under the root %r" % root.name)
    if file_attr(cube, "hprof::callsites") == "merge":
        check_one_child_per_callee(cube, problems)


def check_one_child_per_callee(cube, problems):
    """Score-P's call tree: one child per callee region under a parent
    (Extra-P names paths by region names and averages same-named siblings)."""
    seen = set()
    for cn in cube.all_cnodes():
        key = (cn.parent.id if cn.parent is not None else -1, cube.get_region(cn).id)
        if key in seen:
            problems.append("two children of cnode %d call %s" % (key[0], cube.get_region(cn).name))
            return
        seen.add(key)


def check_min_max(cube, metric, mv, view, problems):
    """Shortest and longest calls are measured on MPI call paths (and where
    an artificial node holds calls); elsewhere min_time is 0 and max_time
    the path's inclusive time (the longest one visit can be:
    report/profile/time_bounds.h), never a sentinel."""
    summaries = 3 if file_attr(cube, "hprof::locations") == "reduced" else 0
    for cn in cube.all_cnodes():
        vals = as_array(mv.cnode_values(cn))
        region = cube.get_region(cn)
        if vals.max(initial=0) > 3600 * 24 * 365:
            problems.append("%s on %s: %r s" % (metric.name, region.name, vals.max()))
        if region.paradigm == "mpi":
            continue
        for loc, v in enumerate(vals):
            if loc < summaries:
                continue    # a reduced file's sum, min and max: no one rank's path
            if view.get((cn.id, loc, "visits"), (0.0, 0.0))[0] > 0:
                continue    # calls measured there ((call tree full), (not unwound))
            want = 0.0 if metric.name == "min_time" else view.get((cn.id, loc, "time"), (0.0, 0.0))[1]
            if not close(float(v), want):
                problems.append("%s on %s (%s), not an MPI call path, location %d: %r, expected %r"
                                % (metric.name, region.name, region.paradigm, loc, float(v), want))
                return


def check_metric(cube, metric, view, nlocs, problems):
    mv = cube.get_metric_values(metric)
    if metric.name in ("min_time", "max_time"):
        check_min_max(cube, metric, mv, view, problems)
    if mv.num_locations() != nlocs:
        problems.append("%s: %d locations, hprof-view has %d" % (metric.name, mv.num_locations(), nlocs))
        return
    sums = metric.data_type in ("DOUBLE", "UINT64", "INT64")
    incl = sums and len(cube.all_cnodes()) <= MAX_INCLUSIVE_CNODES
    for cn in cube.all_cnodes():
        ex = as_array(mv.cnode_values(cn))
        inc = as_array(mv.cnode_values(cn, convert_to_inclusive=True)) if incl else None
        for loc in range(nlocs):
            want = view.get((cn.id, loc, metric.name), (0.0, 0.0))
            if not close(float(ex[loc]), want[0]):
                problems.append("%s at cnode %d location %d: pyCubexR %r, hprof-view %r"
                                % (metric.name, cn.id, loc, float(ex[loc]), want[0]))
            if inc is not None and not close(float(inc[loc]), want[1]):
                problems.append("inclusive %s at cnode %d location %d: pyCubexR %r, hprof-view %r"
                                % (metric.name, cn.id, loc, float(inc[loc]), want[1]))
            if len(problems) > 3:
                return


def check_file(view_bin, path):
    view = view_values(view_bin, path)
    if view is None:
        return None
    problems = []
    try:
        with CubexParser(path) as cube:
            check_shape(cube, problems)
            nlocs = 1 + max([loc for (_, loc, _) in view] or [0])
            nlocs = max(nlocs, len(cube.get_locations()) if hasattr(cube, "get_locations") else nlocs)
            for metric in cube.get_metrics():
                check_metric(cube, metric, view, nlocs, problems)
                if problems:
                    break
    except Exception as exc:  # pyCubexR refuses the file
        problems.append("pyCubexR: %s: %s" % (type(exc).__name__, str(exc)[:200]))
    return problems


def main():
    view_bin, files = sys.argv[1], sys.argv[2:]
    compared = 0
    for path in files:
        name = os.path.basename(path)
        problems = check_file(view_bin, path)
        if problems is None:
            print("# %s: hprof-view refuses it (a broken file on purpose): not compared" % name)
            continue
        compared += 1
        if problems:
            print("not ok - pyCubexR reads %s as hprof-view does: %s" % (name, "; ".join(problems[:3])))
        else:
            print("ok - pyCubexR reads %s as hprof-view does" % name)
    if compared == 0:
        print("not ok - pyCubexR interop: no profile to compare")


# pyCubexR walks call trees recursively: deep profiles (the limits test
# writes thousands of levels) need a deep Python stack, not another reader.
sys.setrecursionlimit(1 << 20)
threading.stack_size(1 << 29)
worker = threading.Thread(target=main)
worker.start()
worker.join()
