/*
 * exact_bare.c - libexact_bare.so for exact_silence.c, built without
 * -fpatchable-function-entry: bare_add has a symbol and no NOP area.
 */
__attribute__((noinline)) int bare_add(int x)
{
    __asm__ volatile("" : "+r"(x));
    return x + 3;
}
