/*
 * debug_files.c - a module's separate debug file, found on this machine
 * only (debug_files.h).
 */
#define _GNU_SOURCE
#include "unwind/debug_files.h"

#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#define DEBUG_ROOT "/usr/lib/debug"

/* What a candidate must carry: a build ID, or (a module without one) the
 * CRC that .gnu_debuglink names. */
typedef struct debug_want {
    const void *id;
    int id_len;
    GElf_Word crc;
} debug_want;

static int crc_matches(int fd, GElf_Word want)
{
    unsigned char buf[65536];
    uLong crc = crc32(0, Z_NULL, 0);
    ssize_t n;
    while ((n = read(fd, buf, sizeof buf)) > 0)
        crc = crc32(crc, buf, (uInt)n);
    return n == 0 && (GElf_Word)crc == want;
}

static int matches(int fd, const debug_want *w)
{
    if (w->id_len <= 0)
        return crc_matches(fd, w->crc);
    Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
    const void *id = NULL;
    ssize_t len = elf ? dwelf_elf_gnu_build_id(elf, &id) : -1;
    int same = len == w->id_len && memcmp(id, w->id, (size_t)len) == 0;
    if (elf)
        elf_end(elf);
    return same;
}

/* path opened when it is the wanted file; -1 otherwise. */
static int try_path(const char *path, const debug_want *w, char **found)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    if (!matches(fd, w) || lseek(fd, 0, SEEK_SET) != 0 || !(*found = strdup(path))) {
        close(fd);
        return -1;
    }
    return fd;
}

/* The .gnu_debuglink (or .gnu_debugaltlink) name: as it is when absolute,
 * else beside file_name, in .debug/ there, under DEBUG_ROOT/<that dir>
 * (only for a file named by its absolute path). */
static int by_link(const char *file_name, const char *link, const debug_want *w, char **found)
{
    if (link[0] == '/')
        return try_path(link, w, found);
    if (!file_name)
        return -1;
    char *copy = strdup(file_name);
    if (!copy)
        return -1;
    const char *dir = dirname(copy);
    char path[4096];
    int fd = -1;
    const char *forms[] = { "%s/%s", "%s/.debug/%s", DEBUG_ROOT "%s/%s" };
    size_t nforms = dir[0] == '/' ? 3 : 2;
    for (size_t i = 0; fd < 0 && i < nforms; i++)
        if (snprintf(path, sizeof path, forms[i], dir, link) < (int)sizeof path)
            fd = try_path(path, w, found);
    free(copy);
    return fd;
}

int debug_files_find(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
                     const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
                     char **debuginfo_file_name)
{
    /* by build ID: libdwfl's own lookup under the debuginfo path, which
     * asks no server (for the main file and for a dwz alt file alike) */
    errno = 0;
    int fd = dwfl_build_id_find_debuginfo(mod, userdata, modname, base, file_name, debuglink_file,
                                          debuglink_crc, debuginfo_file_name);
    if (fd >= 0 || !debuglink_file)
        return fd;
    /* by .gnu_debuglink. A dwz alt file that its build ID did not find
     * is not looked for by name: the module's own ID never matches it. */
    debug_want w = { NULL, 0, debuglink_crc };
    const unsigned char *bits = NULL;
    GElf_Addr vaddr;
    w.id_len = dwfl_module_build_id(mod, &bits, &vaddr);
    w.id = bits;
    return by_link(file_name, debuglink_file, &w, debuginfo_file_name);
}
