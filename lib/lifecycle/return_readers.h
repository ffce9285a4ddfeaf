/*
 * return_readers.h - code of the program's own that reads the return
 * addresses hprof replaces (its thunks, the exit thunk of functions
 * measured exactly), found at MPI_Init so that hprof leaves them alone:
 *
 *   - an unwinder linked into the executable (-static-libgcc with
 *     -static-libstdc++: it defines _Unwind_RaiseException, or, stripped,
 *     has C++ exception tables or exports __gxx_personality_v0, and imports
 *     neither _Unwind_RaiseException nor _Unwind_Resume). hprof
 *     cannot interpose it to put return addresses back before a throw, and
 *     it finds no unwind information for a thunk: an exception through a
 *     replaced slot terminates the program. Thunks and exact measurement
 *     are off.
 *   - a -finstrument-functions tracer: __cyg_profile_func_exit defined
 *     outside the C library (in the executable, or a library it resolves
 *     to). It reads each function's return address at its exit: after an
 *     MPI call it would find a thunk. Thunks are off unless HPROF_THUNKS
 *     is set.
 *
 * Each said in one line. What cannot be seen (a function that reads
 * __builtin_return_address(0) itself) is in docs/guide/how-it-works.md.
 */
#ifndef HPROF_RETURN_READERS_H
#define HPROF_RETURN_READERS_H

/* Reads the executable and turns off what must be off; once, at MPI_Init,
 * before the first walk. */
void return_readers_check(void);

/* 1 when the executable has its own unwinder (exact measurement stays off). */
int return_readers_own_unwinder(void);

#endif
