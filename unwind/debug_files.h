/*
 * debug_files.h - where libdwfl finds a module's separate debug file:
 * on this machine only. libdwfl's standard search ends by asking the
 * debuginfod servers in DEBUGINFOD_URLS (Debian and Ubuntu set it for
 * login shells) and, even without them, loads libdebuginfod and libcurl
 * into the process: at MPI_Finalize every rank would download the debug
 * files of its libraries into ~/.cache, or wait on a network a compute
 * node does not have. A profiler must not do that inside the program.
 *
 * The search, in the order gdb and libdwfl use: by build ID under
 * /usr/lib/debug/.build-id, then the .gnu_debuglink name beside the
 * file, in .debug/ beside it, and under /usr/lib/debug/<its directory>;
 * a candidate is taken only when its build ID (else its CRC) matches.
 * Not from signal handlers.
 */
#ifndef HPROF_DEBUG_FILES_H
#define HPROF_DEBUG_FILES_H

#include <elfutils/libdwfl.h>

/* A Dwfl_Callbacks.find_debuginfo: an open descriptor and its path in
 * *debuginfo_file_name (malloc'd), or -1. */
int debug_files_find(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
                     const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
                     char **debuginfo_file_name);

#endif
