#!/usr/bin/python3
"""Checks hprof-view's exports of one profile against the profile itself.

usage: check_exports.py hatchet   NAME PROFILE.cubex HATCHET.json PROGRAM NP MPI_NAME
       check_exports.py speedscope NAME PROFILE.cubex SPEEDSCOPE.json SCHEMA.json NP
       check_exports.py perfetto  NAME TRACE.json NP

hatchet (PYTHONPATH: Hatchet, pyCubexR, tools/python): GraphFrame.from_json
of the export gives, per (call path, rank, thread) and for every metric,
the exclusive value pyCubexR reads from the file and, for summed metrics,
its inclusive value; gf.tree() prints the call tree; hprof_hatchet.read
sets metadata that becomes one row of scalars, as Thicket's
thicketize_graphframe builds it. speedscope: valid against speedscope's
schema, one profile per location whose weights sum to that location's
time (pyCubexR). perfetto: trace-event JSON with one track per rank.
Prints 'ok - NAME: ...' or 'not ok - NAME: ...' lines.
"""
import io
import json
import math
import sys
from contextlib import redirect_stdout


def close(a, b):
    return a == b or math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


def report(name, what, problems, detail=""):
    if problems:
        print("not ok - %s: %s: %s" % (name, what, "; ".join(problems[:3])))
    else:
        print("ok - %s: %s%s" % (name, what, detail))
    return not problems


def cube_locations(cube):
    """[location index] -> (MPI rank, thread), from pyCubexR's system tree."""
    out = []
    for group in cube._anchor_result.system_tree_nodes[0].all_location_groups():
        for loc in group.all_locations():
            out.append((int(group.rank), int(loc.rank)))
    return out


def cube_values(path):
    """(cnode id, rank, thread, metric) -> (exclusive, inclusive or None)."""
    import numpy as np
    from pycubexr import CubexParser
    from pycubexr.classes.values import CubeValues

    def as_array(v):
        return np.asarray(v._values if isinstance(v, CubeValues) else v, dtype=float)
    values, root = {}, None
    with CubexParser(path) as cube:
        locs = cube_locations(cube)
        roots = cube.get_root_cnodes()
        root = roots[0].id if len(roots) == 1 else None
        for metric in cube.get_metrics():
            mv = cube.get_metric_values(metric)
            sums = metric.data_type in ("DOUBLE", "UINT64", "INT64")
            for cn in cube.all_cnodes():
                ex = as_array(mv.cnode_values(cn))
                inc = as_array(mv.cnode_values(cn, convert_to_inclusive=True)) if sums else None
                for i, (rank, thread) in enumerate(locs):
                    values[(cn.id, rank, thread, metric.name)] = (
                        float(ex[i]), float(inc[i]) if inc is not None else None)
    return values, locs, root


def check_hatchet(name, cubex, jpath, program, np_, mpi_name):
    import pandas as pd
    import hprof_hatchet
    gf = hprof_hatchet.read(jpath)
    want, locs, root = cube_values(cubex)
    df = gf.dataframe.reset_index()
    metrics = gf.exc_metrics
    problems, compared, seen = [], 0, set()
    for r in df.to_dict("records"):
        cnode, rank, thread = int(r["cnode"]), int(r["rank"]), int(r.get("thread", 0))
        seen.add(cnode)
        for m, inc_name in zip(metrics, gf.inc_metrics):
            ex, inc = want.get((cnode, rank, thread, m), (None, None))
            got_ex, got_inc = float(r[m]), float(r[inc_name])
            if ex is None or not close(got_ex, ex):
                problems.append("%s at cnode %d rank %d: Hatchet %r, pyCubexR %r" % (m, cnode, rank, got_ex, ex))
            if inc is not None and not close(got_inc, inc):
                problems.append("%s at cnode %d rank %d: Hatchet %r, pyCubexR %r" % (inc_name, cnode, rank,
                                                                                     got_inc, inc))
            compared += 2 if inc is not None else 1
    cnodes = {k[0] for k in want} - {root}
    if cnodes - seen:
        problems.append("call paths missing: cnodes %s" % sorted(cnodes - seen)[:5])
    if len(df) != len(cnodes) * len(locs):
        problems.append("%d records for %d call paths x %d locations" % (len(df), len(cnodes), len(locs)))
    ok = report(name, "GraphFrame.from_json gives pyCubexR's values per call path and rank, every metric",
                problems, " (%d values, %d metrics, %d call paths)" % (compared, len(metrics), len(cnodes)))
    buf = io.StringIO()
    with redirect_stdout(buf):
        text = gf.tree()
    text = text if isinstance(text, str) else buf.getvalue()
    ok &= report(name, "gf.tree() prints the call tree",
                 [] if "main" in text and "MPI_" in text else ["no main or MPI call in: %r" % text[-300:]])
    meta, problems = gf.metadata, []
    if meta.get("program") != program:
        problems.append("program %r, not %r" % (meta.get("program"), program))
    if meta.get("ranks") != np_:
        problems.append("ranks %r, not %d" % (meta.get("ranks"), np_))
    if not str(meta.get("mpi", "")).startswith(mpi_name):
        problems.append("mpi %r, not %s's" % (meta.get("mpi"), mpi_name))
    for key in ("command", "date", "hprof_version", "sampling_hz"):
        if key not in meta:
            problems.append("no %s" % key)
    frame = pd.DataFrame.from_dict({1: meta}, orient="index")  # as thicketize_graphframe does
    if len(frame) != 1 or any(isinstance(v, (list, dict)) for v in frame.iloc[0]):
        problems.append("metadata is not one row of scalars: %r" % meta)
    ok &= report(name, "hprof_hatchet.read sets the run's metadata (program, ranks, MPI, command, date)",
                 problems, " (%s)" % ", ".join("%s=%s" % (k, meta.get(k)) for k in ("program", "ranks", "mpi")))
    return ok


def check_speedscope(name, cubex, jpath, schema_path, np_):
    import jsonschema
    doc = json.load(open(jpath))
    problems = []
    try:
        jsonschema.validate(doc, json.load(open(schema_path)))
    except jsonschema.ValidationError as e:
        problems.append("%s at %s" % (e.message[:200], list(e.absolute_path)[:6]))
    ok = report(name, "--speedscope validates against speedscope's file-format-schema.json", problems)
    want, locs, _ = cube_values(cubex)
    time = {}
    for (cnode, rank, thread, m), (ex, _) in want.items():
        if m == "time":
            time[(rank, thread)] = time.get((rank, thread), 0) + ex
    problems, profiles = [], [p for p in doc.get("profiles", []) if p["type"] == "sampled"]
    threaded = any(t for _, t in locs)
    if len(profiles) != len(locs):
        problems.append("%d profiles for %d locations" % (len(profiles), len(locs)))
    for p, (rank, thread) in zip(profiles, locs):
        label = "rank %d thread %d" % (rank, thread) if threaded else "rank %d" % rank
        s = sum(p["weights"])
        if p["name"] != label or not close(s, time[(rank, thread)]) or not close(p["endValue"], s):
            problems.append("%s: %r weighs %r, ends at %r; its time %r" % (label, p["name"], s, p["endValue"],
                                                                          time[(rank, thread)]))
        if len(p["samples"]) != len(p["weights"]):
            problems.append("%s: %d samples, %d weights" % (label, len(p["samples"]), len(p["weights"])))
    ranks = len({r for r, _ in locs})
    if ranks != np_:
        problems.append("%d ranks, not %d" % (ranks, np_))
    ok &= report(name, "one profile per rank, weights sum to the rank's time (pyCubexR)", problems,
                 " (%s)" % ", ".join("%s %.6f s" % (p["name"], sum(p["weights"])) for p in profiles[:4]))
    rank_time = {}
    for (rank, _), t in time.items():
        rank_time[rank] = rank_time.get(rank, 0) + t
    return ok & check_evented(name, [p for p in doc["profiles"] if p["type"] == "evented"], np_, rank_time)


def check_evented(name, profiles, np_, rank_time):
    """The heaviest paths over time: a profile per rank, its events in time
    order, each close matching the innermost open frame, all inside the run,
    the time under its outer frames no more than the rank's (pyCubexR)."""
    problems, busy = [], []
    if [p["name"] for p in profiles] != ["rank %d over time" % r for r in range(min(np_, 16))]:
        problems.append("evented profiles %r" % [p["name"] for p in profiles])
    for r, p in enumerate(profiles):
        stack, last, outer = [], p["startValue"], 0.0
        for e in p["events"]:
            if e["at"] < last or e["at"] > p["endValue"] + 1e-9:
                problems.append("%s: event at %r after %r (end %r)" % (p["name"], e["at"], last, p["endValue"]))
                break
            if e["type"] == "O":
                stack.append((e["frame"], e["at"]))
            elif not stack or stack[-1][0] != e["frame"]:
                problems.append("%s: closes frame %d, innermost %r" % (p["name"], e["frame"], stack[-1:]))
                break
            else:
                frame, opened = stack.pop()
                outer += e["at"] - opened if not stack else 0
            last = e["at"]
        if stack:
            problems.append("%s: %d frames left open" % (p["name"], len(stack)))
        if not 0 < outer <= min(p["endValue"] - p["startValue"], rank_time.get(r, 0) * (1 + 1e-6)) + 1e-9:
            problems.append("%s: %r s under its outer frames; it ends at %r, the rank's time %r"
                            % (p["name"], outer, p["endValue"], rank_time.get(r)))
        busy.append(outer)
    return report(name, "evented profiles of the heaviest paths over time, nested and in time order", problems,
                  " (%s s under the outer frames)" % ", ".join("%.3f" % b for b in busy[:4]))


def check_perfetto(name, jpath, np_):
    doc = json.load(open(jpath))
    events, problems = doc.get("traceEvents"), []
    if not isinstance(events, list) or not events:
        return report(name, "--perfetto is trace-event JSON", ["no traceEvents list"])
    tracks, counters = {}, {}
    for e in events:
        if not isinstance(e.get("ph"), str) or not isinstance(e.get("pid"), int) or not isinstance(e.get("name"), str):
            problems.append("event without ph, pid or name: %r" % e)
        elif e["ph"] == "M" and e["name"] == "process_name":
            tracks[e["pid"]] = e["args"]["name"]
        elif e["ph"] == "C":
            vals = list(e.get("args", {}).values())
            if not isinstance(e.get("ts"), (int, float)) or e["ts"] < 0 or not vals or \
                    not all(isinstance(v, (int, float)) and math.isfinite(v) for v in vals):
                problems.append("bad counter %r" % e)
            counters.setdefault(e["pid"], set()).add(e["name"])
        elif e["ph"] not in ("M", "i"):
            problems.append("unexpected event %r" % e)
    if sorted(tracks) != list(range(np_)) or any(tracks[r] != "rank %d" % r for r in tracks):
        problems.append("tracks %r, not rank 0..%d" % (tracks, np_ - 1))
    if any("MPI %" not in counters.get(r, ()) or len(counters.get(r, ())) < 2 for r in range(np_)):
        problems.append("counters per rank: %r" % counters)
    return report(name, "--perfetto is trace-event JSON with one track per rank, MPI share and paths as counters",
                  problems, " (%d events, counters %s)" % (len(events), sorted(counters.get(0, ()))[:3]))


def main():
    kind, name = sys.argv[1], sys.argv[2]
    if kind == "hatchet":
        ok = check_hatchet(name, sys.argv[3], sys.argv[4], sys.argv[5], int(sys.argv[6]), sys.argv[7])
    elif kind == "speedscope":
        ok = check_speedscope(name, sys.argv[3], sys.argv[4], sys.argv[5], int(sys.argv[6]))
    else:
        ok = check_perfetto(name, sys.argv[3], int(sys.argv[4]))
    sys.exit(0 if ok else 1)


main()
