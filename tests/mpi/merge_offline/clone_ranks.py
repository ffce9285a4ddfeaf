"""clone_ranks.py SEED OUTDIR N [STEM]: N partial profiles STEM.rankR.cubex
(R = 0..N-1) in OUTDIR, each a copy of SEED (one rank's profile) with its
rank rewritten to R and the job's size (hprof::ranks) to N: the files a
killed N-rank job would leave, made without running N ranks."""
import io
import os
import re
import sys
import tarfile


def members(seed):
    with tarfile.open(seed) as t:
        return [(m, t.extractfile(m).read()) for m in t.getmembers()]


def anchor_for(anchor, rank, n):
    text = re.sub(r"<rank>\d+</rank>", "<rank>%d</rank>" % rank, anchor)
    return re.sub(r'key="hprof::ranks" value="\d+"', 'key="hprof::ranks" value="%d"' % n, text)


def main():
    seed, outdir, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    stem = sys.argv[4] if len(sys.argv) > 4 else "run"
    parts = members(seed)
    anchor = dict((m.name, data) for m, data in parts)["anchor.xml"].decode()
    os.makedirs(outdir, exist_ok=True)
    for r in range(n):
        with tarfile.open(os.path.join(outdir, "%s.rank%d.cubex" % (stem, r)), "w", format=tarfile.USTAR_FORMAT) as t:
            for m, data in parts:
                if m.name == "anchor.xml":
                    data = anchor_for(anchor, r, n).encode()
                info = tarfile.TarInfo(m.name)
                info.size, info.mtime, info.mode = len(data), m.mtime, m.mode
                t.addfile(info, io.BytesIO(data))


main()
