#!/bin/bash
# Score-P filter files as selections (core/select/, HPROF_FILTER) without
# MPI, on tests/unit/select/program.graph: the two kinds tools write
# (scorep-score -g: "EXCLUDE the cheap ones", so the rest is measured;
# CaPI: "EXCLUDE *" then "INCLUDE MANGLED" and a list, so only the list),
# wildcards and escapes, MANGLED/DEMANGLED, file rules with paths
# simplified as Score-P does, rule order, comments, CRLF lines, filter()
# in the language, and every error as one line naming FILE:LINE.
# Built under ASan+UBSan (leaks included) where gcc has them.
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$HERE/../common/lib/common.sh"
. "$ROOT/tests/unit/select/lib.sh"
G=$SEL_DIR/program.graph
F=$SEL_DIR/filters
GRID="ns::Grid::at(int, int) const"
VEC="ns::Vec::operator[](int)"
NEW="operator new(unsigned long)"

expect "scorep-score -g's file: all but the EXCLUDEd (MANGLED, per region)" \
       "main;ns::solve(int, double);ns::smooth(int);fib(int);util_helper;$NEW;solve_" "$G" -f "$F/scorep_score_g.filter"
expect "CaPI's file: EXCLUDE *, then INCLUDE MANGLED and a list: only the list" \
       "main;ns::solve(int, double);ns::smooth(int);solve_" "$G" -f "$F/capi.filter"
expect "literal names: a filter's INCLUDE rules without wildcards (select_literal_names)" \
       "literal: _ZN2ns5solveEid;literal: _ZN2ns6smoothEi;literal: main;literal: solve_" -l "$G" -e 'filter("'"$F"'/capi.filter") & none'
expect "literal names: none from scorep-score -g's EXCLUDE rules" "" -l "$G" -e 'filter("'"$F"'/scorep_score_g.filter") & none'
expect "wildcards * ? [] and escaped space, [, ], *, #; patterns over several lines" \
       "ns::solve(int, double);$GRID;$VEC;fib(int);tiny" "$G" -f "$F/wildcards.filter"
expect "MANGLED for the rest of its rule, DEMANGLED back, each rule starts demangled" \
       "main;ns::solve(int, double);fib(int);tiny;$NEW" "$G" -f "$F/mangled.filter"
expect "file rules first and final; paths simplified (//, /./, dir/..); no file: not excluded" \
       "main;ns::solve(int, double);ns::smooth(int);fib(int);util_helper;$NEW;solve_" "$G" -f "$F/files.filter"
expect "rules in order, the last matching one wins (exact names and wildcards)" \
       "ns::solve(int, double);$GRID;$VEC;fib(int);tiny;util_helper;$NEW" "$G" -f "$F/order.filter"
expect "CRLF line ends" "main" "$G" -f "$F/crlf.filter"
expect "filter() in the language: CaPI's file & mpi_path" \
       "main;ns::solve(int, double);solve_" "$G" -e "filter(\"$F/capi.filter\") & mpi_path"

# ---- a CaPI file for a large program: 20,000 functions, 6,667 exact rules
# (looked up in a hash table) and one wildcard rule after them
awk 'BEGIN { for (i = 0; i < 20000; i++) printf "fn f%d(int) | _Z%dfi | /src/f%d.c\n", i, i, i % 300 }' > "$W/big.graph"
awk 'BEGIN { print "SCOREP_REGION_NAMES_BEGIN\nEXCLUDE *\nINCLUDE MANGLED";
             for (i = 0; i < 20000; i += 3) printf "_Z%dfi\n", i
             print "EXCLUDE f1999?(int)\nSCOREP_REGION_NAMES_END" }' > "$W/big.filter"
awk 'BEGIN { for (i = 0; i < 20000; i += 3) if (i < 19990) printf "f%d(int)\n", i }' | paste -sd';' > "$W/big.want"
expect "a CaPI file for 20,000 functions: 6,667 exact names, then a wildcard" "$(cat "$W/big.want")" "$W/big.graph" -f "$W/big.filter"

# ---- errors: one line each, naming the file and line
bad() { # NAME TEXT FILE-CONTENT
    printf '%b' "$3" > "$W/bad.filter"
    expect_error "filter error: $1" "$W/bad.filter$2" "$G" -f "$W/bad.filter"
}
expect_error "filter error: a file that does not exist" "$W/none.filter: cannot open: No such file or directory" "$G" -f "$W/none.filter"
mkdir -p "$W/dir.filter"
expect_error "filter error: a directory" "$W/dir.filter: is a directory: a filter is read from a regular file" "$G" -f "$W/dir.filter"
# Files that never end or never come: refused at once, not read (a FIFO
# without a writer blocked MPI_Init for ever, /dev/zero grew one line to
# 2.1 GB); the timeout only keeps a regression from hanging the check.
rm -f "$W/fifo.filter" && mkfifo "$W/fifo.filter"
truncate -s 65M "$W/huge.filter"
keep=("${RUN[@]}")
RUN=(timeout 20 "${keep[@]}")
expect_error "filter error: a FIFO without a writer" "$W/fifo.filter: is a FIFO: a filter is read from a regular file" "$G" -f "$W/fifo.filter"
expect_error "filter error: filter() of a FIFO" "filter(): $W/fifo.filter: is a FIFO" "$G" -e "filter(\"$W/fifo.filter\")"
expect_error "filter error: /dev/zero" "/dev/zero: is a character device: a filter is read from a regular file" "$G" -f /dev/zero
expect_error "filter error: a file of 65 MiB" "$W/huge.filter: larger than a filter may be (64 MiB)" "$G" -f "$W/huge.filter"
RUN=("${keep[@]}")
bad "a keyword in the wrong case" ":3: 'Exclude' is not a keyword (keywords: SCOREP_REGION_NAMES_BEGIN/END" \
    'SCOREP_REGION_NAMES_BEGIN\n  EXCLUDE *\n  Exclude foo\nSCOREP_REGION_NAMES_END\n'
bad "a misspelt block keyword" ":1: 'SCOREP_REGION_NAME_BEGIN' is not a keyword" \
    'SCOREP_REGION_NAME_BEGIN\n  EXCLUDE *\nSCOREP_REGION_NAMES_END\n'
bad "a block never closed" ":2: 'SCOREP_REGION_NAMES_BEGIN' is never closed (SCOREP_REGION_NAMES_END is missing)" \
    '# comment\nSCOREP_REGION_NAMES_BEGIN\n  EXCLUDE *\n  INCLUDE main\n'
bad "an END without BEGIN" ":1: 'SCOREP_FILE_NAMES_END' without SCOREP_FILE_NAMES_BEGIN before it" \
    'SCOREP_FILE_NAMES_END\n'
bad "an END of the other block" ":3: 'SCOREP_FILE_NAMES_END' cannot close the SCOREP_REGION_NAMES_BEGIN block of line 1 (expected SCOREP_REGION_NAMES_END)" \
    'SCOREP_REGION_NAMES_BEGIN\n  EXCLUDE *\nSCOREP_FILE_NAMES_END\n'
bad "a block inside a block" ":2: 'SCOREP_FILE_NAMES_BEGIN' inside the SCOREP_REGION_NAMES_BEGIN block of line 1" \
    'SCOREP_REGION_NAMES_BEGIN\nSCOREP_FILE_NAMES_BEGIN\n'
bad "a pattern before INCLUDE or EXCLUDE" ":2: 'main' comes before any INCLUDE or EXCLUDE in its block" \
    'SCOREP_REGION_NAMES_BEGIN\n  main\n  EXCLUDE *\nSCOREP_REGION_NAMES_END\n'
bad "a pattern outside a block" ":1: 'main' outside a SCOREP_REGION_NAMES or SCOREP_FILE_NAMES block" \
    'main\n'
bad "EXCLUDE outside a block" ":2: 'EXCLUDE' outside a SCOREP_REGION_NAMES or SCOREP_FILE_NAMES block" \
    '\nEXCLUDE *\n'
bad "MANGLED in the file block" ":3: 'MANGLED' belongs inside an INCLUDE or EXCLUDE rule of a SCOREP_REGION_NAMES block" \
    'SCOREP_FILE_NAMES_BEGIN\n  EXCLUDE *\n  INCLUDE MANGLED x.c\nSCOREP_FILE_NAMES_END\n'
bad "MANGLED before any rule" ":2: 'MANGLED' belongs inside an INCLUDE or EXCLUDE rule" \
    'SCOREP_REGION_NAMES_BEGIN\n  MANGLED _Z3fibi\nSCOREP_REGION_NAMES_END\n'
bad "a line ending in a backslash" ":3: a line cannot end in '\\': Score-P does not continue lines" \
    'SCOREP_REGION_NAMES_BEGIN\n  EXCLUDE *\n  INCLUDE main \\\n    fib\nSCOREP_REGION_NAMES_END\n'
bad "no EXCLUDE rule (INCLUDE alone filters nothing)" ": no EXCLUDE rule: the filter excludes nothing, so it would select every function" \
    'SCOREP_REGION_NAMES_BEGIN\n  INCLUDE main\nSCOREP_REGION_NAMES_END\n'
bad "an empty file" ": no EXCLUDE rule" '# only a comment\n\n'
