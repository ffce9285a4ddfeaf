/*
 * exact_split.h - shared by exact_split_main.cpp and exact_split_b.cpp: an
 * inline function both files emit (a COMDAT group the linker keeps once),
 * and the function of the second file measured exactly.
 */
#ifndef EXACT_SPLIT_H
#define EXACT_SPLIT_H

inline __attribute__((noinline)) int split_shared(int x)
{
    return x * 3 + 1;
}

int split_b_work(int x);

#endif
