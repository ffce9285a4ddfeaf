"""hprof profiles in Hatchet and Thicket.

    import hprof_hatchet
    gf = hprof_hatchet.read("prof.hatchet.json")      # from hprof-view --hatchet
    gf.tree()

read() returns a hatchet.GraphFrame indexed by (node, rank) - and thread
where a rank has several - with every metric of the profile ("time" and
"time (inc)", ...) and gf.metadata holding the run: program, command,
ranks, date, hprof's version, sampling rate. Hatchet's own JSON reader
leaves the metadata out; Thicket takes it from gf.metadata:

    import thicket as tt
    th = tt.Thicket.concat_thickets(
        [tt.Thicket.thicketize_graphframe(hprof_hatchet.read(f), f) for f in files])

A .cubex file is converted on the way when hprof-view is on PATH (or
given as view=).
"""
import json
import subprocess

import hatchet


def load_json(path, view="hprof-view"):
    """The --hatchet JSON text of path (a .cubex is converted with view)."""
    if str(path).endswith(".cubex"):
        return subprocess.run([view, "--hatchet", str(path)], check=True, capture_output=True,
                              text=True).stdout
    with open(path) as f:
        return f.read()


def read(path, view="hprof-view"):
    """A hatchet.GraphFrame of the profile, its metadata set."""
    text = load_json(path, view)
    gf = hatchet.GraphFrame.from_json(text)
    gf.metadata = dict(json.loads(text).get("metadata", {}))
    if "time" not in gf.exc_metrics and gf.exc_metrics:
        gf.default_metric = gf.exc_metrics[0]  # gf.tree() shows "time" by default
    return gf
