#include "wrappers/fortran_libs.h"

#include <dlfcn.h>
#include <stddef.h>

void *hprof_flib_sym(hprof_flib *lib, const char *name)
{
    void *h = __atomic_load_n(&lib->handle, __ATOMIC_ACQUIRE);
    for (int i = 0; !h && lib->names[i]; i++) {
        h = dlopen(lib->names[i], RTLD_NOW | RTLD_GLOBAL);
        if (h)
            __atomic_store_n(&lib->handle, h, __ATOMIC_RELEASE);
    }
    return h ? dlsym(h, name) : NULL;
}
