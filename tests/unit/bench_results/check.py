"""bench/run.py's merge of a partial run (BENCH_ONLY) into RESULTS.md, on
texts made here: prints "NAME ok" or "NAME bad: why" per rule."""
import importlib.util
import sys

spec = importlib.util.spec_from_file_location("bench_run", sys.argv[1])
bench = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bench)

OLD = """# hprof benchmark results

Written section by section:
- section 2 on day one
- section 1 on day zero

## 1. Per-call cost: old title

| old table 1 |

### The run before

| older table 1 |

### Issue 40's moves

| moves |

## 2. Per-sample cost: two

| old table 2 |

## Headline

- old headline
"""

NEW = """# hprof benchmark results

Written by `make bench` on day two.
Machine: the new one.

## 1. Per-call cost: new title

| new table 1 |

## 7. Brand new: seven

| table 7 |
"""

out = bench.merge_partial(OLD, NEW, "- section(s) 1,7 on day two")


def rule(name, good, why):
    print("%s %s" % (name, "ok" if good else "bad: " + why))


def between(text, a, b):
    i = text.find(a)
    j = text.find(b, i + 1) if i >= 0 else -1
    return text[i:j] if i >= 0 and j >= 0 else ""


head = out.split("\n## ", 1)[0]
rule("header", "Written section by section:" in head and "Machine: the new one." not in head
     and head.find("- section(s) 1,7 on day two") < head.find("- section 2 on day one"),
     "the old header with the run first in its list: " + head[:300])
one = between(out, "## 1. Per-call cost", "## 2.")
rule("replaced", one.find("| new table 1 |") >= 0 and one.find("| new table 1 |") < one.find("### The run before")
     < one.find("| old table 1 |") < one.find("### Earlier") < one.find("| older table 1 |")
     and one.count("### The run before") == 1 and "### Issue 40's moves" in one and "| moves |" in one,
     "new table, old one below as the run before, its subsections kept: " + one[:400])
rule("untouched", "## 2. Per-sample cost: two\n\n| old table 2 |" in out and "- old headline" in out,
     "a section not run kept as it was")
rule("added", "## 7. Brand new: seven" in out and out.find("## 7.") > out.find("## Headline"),
     "a new section added at the end")
rule("once", out.count("## 1. Per-call cost") == 1 and out.count("| new table 1 |") == 1,
     "each section once")
