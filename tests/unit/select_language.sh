#!/bin/bash
# The selection language (core/select/, HPROF_SELECT) without MPI, on a
# synthetic graph with recursion, mutual recursion and a cycle of three
# (tests/unit/select/calls.graph): every selector, the closures, operator
# precedence and parentheses, named definitions, what select_inputs
# reports, evaluating again, and every error as one line with its column.
# Built under ASan+UBSan (leaks included) where gcc has them.
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$HERE/../common/lib/common.sh"
. "$ROOT/tests/unit/select/lib.sh"
G=$SEL_DIR/calls.graph
ALL="main;ns::solve(int, double);ns::smooth(int);fib(int);tiny;ping;pong;cyc_a;cyc_b;cyc_c;leaf;island"

# ---- each selector
expect "all" "$ALL" "$G" -e 'all'
expect "%% is all (CaPI), all() reads as all" "$ALL" "$G" -e '%% & all()'
expect "none" "" "$G" -e 'none'
expect "mpi_path" "main;ns::solve(int, double);ping;pong" "$G" -e 'mpi_path'
expect "name: POSIX extended regex, anywhere in the name" "ns::solve(int, double);ns::smooth(int)" "$G" -e 'name("^ns::")'
expect "name: alternatives, anchored" "tiny;leaf" "$G" -e 'name("^(tiny|leaf)$")'
expect "name: a regex escape in a string needs no doubling" "fib(int)" "$G" -e 'name("^fib\(int\)$")'
expect "mangled: the mangled name" "ns::solve(int, double);ns::smooth(int);fib(int)" "$G" -e 'mangled("^_Z")'
expect "mangled: the name when there is no other" "main" "$G" -e 'mangled("^main$")'
expect "file" "ns::solve(int, double);ns::smooth(int)" "$G" -e 'file("/solver/")'
expect "file: functions without one never match" "main;fib(int);tiny;ping;pong;cyc_a;cyc_b;cyc_c;leaf" "$G" -e 'file("\.c$")'
expect "module (library)" "fib(int);tiny" "$G" -e 'module("libutil")'
expect "module (the program)" "main;ns::solve(int, double);ns::smooth(int);ping;pong" "$G" -e 'module("/bin/app$")'
expect "minsize: not smaller than K bytes (120 included)" "main;ns::solve(int, double);ns::smooth(int);ping;pong" "$G" -e 'minsize(120)'
expect "minsize(0) is every function" "$ALL" "$G" -e 'minsize(0)'
expect "minsize above the largest" "" "$G" -e 'minsize(2001)'

# ---- closures: transitive, through recursion and cycles, the set itself included
expect "callers through self-recursion (fib)" "main;ns::solve(int, double);ns::smooth(int);fib(int);tiny" "$G" -e 'callers(name("^tiny$"))'
expect "callers through a cycle of three" "main;cyc_a;cyc_b;cyc_c;leaf" "$G" -e 'callers(name("^leaf$"))'
expect "callers through mutual recursion" "main;ping;pong" "$G" -e 'callers(name("^ping$"))'
expect "callees through a cycle of three" "cyc_a;cyc_b;cyc_c;leaf" "$G" -e 'callees(name("^cyc_b$"))'
expect "callees through mutual recursion" "ping;pong" "$G" -e 'callees(name("^ping$"))'
expect "callees of a function that calls nothing" "island" "$G" -e 'callees(name("^island$"))'
expect "callees of the root: everything it reaches" "main;ns::solve(int, double);ns::smooth(int);fib(int);tiny;ping;pong;cyc_a;cyc_b;cyc_c;leaf" "$G" -e 'callees(name("^main$"))'
expect "callees, depth 0: the set itself" "main" "$G" -e 'callees(name("^main$"), 0)'
expect "callees, depth 1" "main;ns::solve(int, double);ping;cyc_a" "$G" -e 'callees(name("^main$"), 1)'
expect "callees, depth 2" "main;ns::solve(int, double);ns::smooth(int);ping;pong;cyc_a;cyc_b" "$G" -e 'callees(name("^main$"), 2)'
expect "callers, depth 3: the fewest calls count, in a cycle" "cyc_a;cyc_b;cyc_c;leaf" "$G" -e 'callers(name("^leaf$"), 3)'
expect "callers of nothing" "" "$G" -e 'callers(none)'
expect "callers on a call path to MPI functions (CaPI's onCallPathTo)" "main;ping;pong" "$G" -e 'callers(name("^p"))'

# ---- precedence: ! binds tightest, then & and - (left to right), then |
expect "& before |" "fib(int);tiny;ping;pong" "$G" -e 'file("/util/") | name("^p") & minsize(100)'
expect "parentheses first" "ping;pong" "$G" -e '(file("/util/") | name("^p")) & minsize(100)'
expect "- before |" "ns::smooth(int);fib(int);tiny" "$G" -e 'minsize(100) - mpi_path | file("/util/")'
expect "- from the left" "fib(int);tiny;island" "$G" -e 'all - minsize(100) - file("cyc")'
expect "- with parentheses on the right" "fib(int);tiny;cyc_a;cyc_b;cyc_c;leaf;island" "$G" -e 'all - (minsize(100) - file("cyc"))'
expect "! before &" "ns::smooth(int)" "$G" -e '!mpi_path & minsize(100)'
expect "! of a parenthesis" "ns::smooth(int);island" "$G" -e '!(mpi_path | module("lib"))'
expect "!! is the set" "main;ns::solve(int, double);ping;pong" "$G" -e '!!mpi_path'
expect "newlines and # comments are space" "main;ns::solve(int, double)" "$G" -e $'# the solver\'s side\nmpi_path   # on a path to MPI\n  - name("^p")'

# ---- named definitions
expect "a definition used twice" "main;ns::solve(int, double);ns::smooth(int)" "$G" -e 'util = module("libutil"); callers(%util) - %util'
expect "definitions without ';' (CaPI style)" "main;ns::solve(int, double)" "$G" -e 'a = mpi_path b = name("^p") %a - %b'
expect "a definition using an earlier one" "main;ns::solve(int, double);fib(int);ping;pong" "$G" -e 'a = mpi_path; b = %a | file("/util/"); %b & minsize(60)'

# ---- what a result depends on; the same result when evaluated again
expect "select_inputs: names only" "inputs:;main" -i "$G" -e 'name("^main$")'
expect "select_inputs: calls" "inputs: calls;island" -i "$G" -e 'callers(name("^island$"))'
expect "select_inputs: MPI paths" "inputs: mpi_path" -i "$G" -e 'mpi_path & none'
expect "select_inputs: an unused definition counts" "inputs: calls mpi_path" -i "$G" -e 'x = callees(mpi_path); none'

# ---- the names a selection asks for literally (select_literal_names: what
# the runtime explains when one measures nothing, issue 38.3)
expect "literal names: ^NAME\$, ^NAME\\(, qualified, mangled" "literal: tiny;literal: ns::solve;literal: _ZN2ns5solveEid;ns::solve(int, double);tiny" \
    -l "$G" -e 'name("^tiny$") | name("^ns::solve\(") | mangled("^_ZN2ns5solveEid$")'
expect "literal names: not a regex with more in it, nor unanchored" "" -l "$G" -e 'name("^ti.y$") & name("tiny") & name("^tiny") & none'
expect "literal names: not under ! nor right of -, through definitions" "literal: leaf;literal: fib" \
    -l "$G" -e 'x = name("^fib$"); (name("^leaf$") - name("^tiny$")) & !name("^main$") & none | %x & none'
expect "evaluated 5 times: the same result" "main;ns::solve(int, double);ns::smooth(int);fib(int);tiny" -r 5 "$G" -e 'a = callers(name("^tiny$")); %a & callees(%a)'

# ---- errors: one line each, with where
expect_error "error: unknown selector" "column 7: unknown selector 'nmae' (selectors: all, none, mpi_path, name," "$G" -e 'all | nmae("x")'
expect_error "error: unknown selector, line and column" "line 2, column 5: unknown selector 'nmae'" "$G" -e $'mpi_path\n  | nmae("x")'
expect_error "error: bad regex" 'column 6: bad regular expression "a(": ' "$G" -e 'name("a(")'
expect_error "error: bad regex range" 'column 6: bad regular expression "[z-a]": ' "$G" -e 'file("[z-a]")'
expect_error "error: '(' never closed" "column 1: '(' is never closed" "$G" -e '(mpi_path | all'
expect_error "error: nested '(' never closed" "column 1: '(' is never closed" "$G" -e '((all)'
expect_error "error: a selector's '(' never closed" "column 8: '(' is never closed" "$G" -e 'callers(all'
expect_error "error: ')' without '('" "column 9: ')' without a '(' before it" "$G" -e 'mpi_path)'
expect_error "error: one ')' too many" "column 6: ')' without a '(' before it" "$G" -e '(all))'
expect_error "error: no operator inside parentheses" "column 6: expected ')' or an operator (| & -), found 'none'" "$G" -e '(all none)'
expect_error "error: empty input" "empty selection" "$G" -e ''
expect_error "error: only a comment" "empty selection" "$G" -e '   # nothing here'
expect_error "error: string never closed" "column 6: the string is never closed" "$G" -e 'name("abc'
expect_error "error: unknown character" "column 5: unexpected character '\$'" "$G" -e 'all $ none'
expect_error "error: two selections side by side" "column 5: unexpected 'none' after the selection" "$G" -e 'all none'
expect_error "error: missing operand" "column 11: expected a selector, '(', '!' or %NAME, found the end" "$G" -e 'mpi_path |'
expect_error "error: a number where a string belongs" 'column 6: expected a quoted string: name("REGEX")' "$G" -e 'name(42)'
expect_error "error: a string where a number belongs" "column 9: expected a number: minsize(BYTES)" "$G" -e 'minsize("x")'
expect_error "error: a depth that is no number" "column 14: expected a depth (a number)" "$G" -e 'callers(all, x)'
expect_error "error: arguments to a selector without any" "column 5: expected ')' (it takes no arguments)" "$G" -e 'all(1)'
expect_error "error: number too large" "column 9: number too large" "$G" -e 'minsize(99999999999999999999999)'
expect_error "error: undefined name" "column 1: %b is not defined" "$G" -e '%b'
expect_error "error: a lone %" "'%' must be followed by a definition's name" "$G" -e '% | all'
expect_error "error: defined twice" "column 10: 'a' is defined twice" "$G" -e 'a = all; a = none; %a'
expect_error "error: filter() of a missing file" "column 8: filter(): /nonexistent/x.filter: cannot open: No such file or directory" "$G" -e 'filter("/nonexistent/x.filter")'
deep() { local i out=""; for ((i = 0; i < $2; i++)); do out="$out$1"; done; printf '%s' "$out"; }
# Regexes that would keep every rank in MPI_Init: back-references (46 s in
# glibc's regexec on a name of 21 characters) and repeats that expand to
# millions of positions (1.8 GB in regcomp); one line each, at once (the
# timeout only keeps a regression from hanging the check). Long lists of
# names and small bounds are taken.
keep=("${RUN[@]}")
RUN=(timeout 20 "${keep[@]}")
expect_error "error: back-references" 'column 6: regular expression "^(a|aa)*(a|aa)*\2\1Z$" refused: back-references (\2)' \
    "$G" -e 'name("^(a|aa)*(a|aa)*\2\1Z$")'
expect_error "error: nested bounded repeats" 'refused: its repeats add over 2000 positions' \
    "$G" -e 'name("(((a{1,40}){1,40}){1,40}){1,40}")'
expect_error "error: one large bound" 'refused: its repeats add over 2000 positions' "$G" -e 'file("x{1,10000}")'
RUN=("${keep[@]}")
expect "small bounds and a bracket with a digit after a backslash" "tiny;leaf" "$G" -e 'name("^(t|l)[a-z\1]{2,3}(f|y){1,2}$")'
expect "a list of 300 names, 3000 characters" "main" "$G" -e "name(\"^($(deep 'nosuchname|' 300)main)\$\")"
expect "200 unions in a row" "main" "$G" -e "$(deep 'none | ' 199)name(\"^main\$\")"
expect_error "error: 300 unions in a row" "the selection is nested too deeply (over 256 levels" "$G" -e "$(deep 'none | ' 299)all"
expect_error "error: 300 parentheses deep" "column 257: the selection is nested too deeply" "$G" -e "$(deep '(' 300)all$(deep ')' 300)"
expect_error "error: 300 complements deep" "the selection is nested too deeply" "$G" -e "$(deep '!' 300)all"
expect_error "error: 300 closures deep" "the selection is nested too deeply" "$G" -e "$(deep 'callers(' 300)all$(deep ')' 300)"
printf 'fn main\nfn other\ncall main | #99\n' > "$W/bad.graph"
expect_error "error: a call to no function of the graph" "bad graph: call 0 names function 99 of 2" "$W/bad.graph" -e 'all'
