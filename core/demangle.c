/*
 * demangle.c - see demangle.h. cplus_demangle_v3 is libiberty's
 * (libiberty-dev's PIC archive), the code under __cxa_demangle; the build
 * links its one object in and keeps its names out of what libhprof exports.
 */
#include "core/demangle.h"

#include <libiberty/demangle.h>

char *hprof_demangle(const char *symbol)
{
    if (!symbol || symbol[0] != '_' || symbol[1] != 'Z')
        return 0;
    return cplus_demangle_v3(symbol, DMGL_PARAMS | DMGL_ANSI);
}
