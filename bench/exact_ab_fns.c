/*
 * exact_ab_fns.c - the measured functions of bench/exact_ab.c, built once
 * for each way of measuring them: VARIANT names them (leaf_VARIANT,
 * node_VARIANT) and the build's flags say how they are measured (none;
 * -fpatchable-function-entry=18,16 for hprof's exact visits;
 * -finstrument-functions for bench/cygprof.c).
 */
#ifndef VARIANT
#error "build with -DVARIANT=name"
#endif
#define NAME_(f, v) f##_##v
#define NAME(f, v) NAME_(f, v)

long NAME(leaf, VARIANT)(long x);
long NAME(node, VARIANT)(int depth);

__attribute__((noinline)) long NAME(leaf, VARIANT)(long x)
{
    return x * 3 + 1;
}

/* every call from a new activation of its caller */
__attribute__((noinline)) long NAME(node, VARIANT)(int depth)
{
    volatile int here = depth;
    if (depth <= 1)
        return 1;
    return NAME(node, VARIANT)(depth - 1) + here;
}
