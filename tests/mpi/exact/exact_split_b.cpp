/*
 * exact_split_b.cpp - the second file of exact_split (issue 38.2): built
 * with -fpatchable-function-entry=18,16 its __patchable_function_entries
 * section is tied to its copy of split_shared's COMDAT group, which the
 * linker discards for the first file's copy, and every record of this file
 * goes with it. split_b_work keeps its NOP area.
 */
#include "exact_split.h"

__attribute__((noinline)) int split_b_work(int x)
{
    return split_shared(x) + 2;
}
