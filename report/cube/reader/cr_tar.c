/* cr_tar.c - tar member index over an in-memory archive. */
#include "report/cube/reader/cr_tar.h"
#include "report/cube/reader/cr_util.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BLOCK 512
#define MAX_MEMBERS 1000000

static int all_zero(const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i])
            return 0;
    return 1;
}

/* Octal field (leading spaces, digits, then NUL/space), or GNU base-256
 * when the top bit of the first byte is set. -1 if malformed. */
static int parse_number(const unsigned char *f, size_t len, uint64_t *out)
{
    uint64_t v = 0;
    if (f[0] & 0x80) {
        if (f[0] != 0x80)
            return -1; /* negative or > 2^88: refuse */
        for (size_t i = 1; i < len; i++) {
            if (v >> 56)
                return -1;
            v = (v << 8) | f[i];
        }
        *out = v;
        return 0;
    }
    size_t i = 0;
    while (i < len && f[i] == ' ')
        i++;
    int digits = 0;
    for (; i < len && f[i] >= '0' && f[i] <= '7'; i++, digits++) {
        if (v >> 60)
            return -1;
        v = v * 8 + (uint64_t)(f[i] - '0');
    }
    if (i < len && f[i] != '\0' && f[i] != ' ')
        return -1;
    if (digits == 0)
        return -1;
    *out = v;
    return 0;
}

static int checksum_ok(const unsigned char *h, int *bug)
{
    uint64_t stored;
    if (parse_number(h + 148, 8, &stored) < 0)
        return 0;
    uint64_t usum = 0;
    int64_t ssum = 0;
    for (int i = 0; i < BLOCK; i++) {
        unsigned char c = (i >= 148 && i < 156) ? ' ' : h[i];
        usum += c;
        ssum += (signed char)c;
    }
    if (stored == usum || (int64_t)stored == ssum)
        return 1;
    /* Cube 4.8 summed the checksum field as 7 spaces: one space short. */
    if (stored + 32 == usum) {
        *bug = 1;
        return 1;
    }
    return 0;
}

static void member_name(const unsigned char *h, char *out, size_t outlen)
{
    char name[101], prefix[156];
    memcpy(name, h, 100);
    name[100] = '\0';
    prefix[0] = '\0';
    if (memcmp(h + 257, "ustar\0", 6) == 0) { /* POSIX: prefix field */
        memcpy(prefix, h + 345, 155);
        prefix[155] = '\0';
    }
    if (prefix[0])
        snprintf(out, outlen, "%s/%s", prefix, name);
    else
        snprintf(out, outlen, "%s", name);
}

static int add_member(cr_archive *a, const unsigned char *h, size_t off, size_t size)
{
    if (cr_grow((void **)&a->m, a->n, &a->cap, sizeof *a->m, MAX_MEMBERS) < 0)
        return -1;
    cr_member *m = &a->m[a->n++];
    member_name(h, m->name, sizeof m->name);
    m->off = off;
    m->size = size;
    return 0;
}

static int is_regular(unsigned char type)
{
    return type == '0' || type == '\0' || type == '7';
}

int cr_tar_scan(cr_archive *a, const unsigned char *buf, size_t len, char *err, size_t errlen)
{
    memset(a, 0, sizeof *a);
    size_t off = 0;
    for (;;) {
        if (len - off < BLOCK) {
            if (off == 0)
                return cr_err(err, errlen, "not a CUBE4 file (too short for a tar archive)");
            return cr_err(err, errlen, "truncated archive (no end-of-archive marker)");
        }
        const unsigned char *h = buf + off;
        if (all_zero(h, BLOCK)) {
            if (off == 0)
                return cr_err(err, errlen, "not a CUBE4 file (empty tar archive)");
            /* The end is two zero blocks. cubew pads a member whose size is a
             * multiple of 512 with one zero block more: skip it, read on. */
            if (len - off - BLOCK < BLOCK || all_zero(h + BLOCK, BLOCK))
                return 0;
            off += BLOCK;
            continue;
        }
        if (memcmp(h + 257, "ustar", 5) != 0)
            return off == 0 ? cr_err(err, errlen, "not a CUBE4 file (no tar header)")
                            : cr_err(err, errlen, "corrupt archive: bad tar header at offset %zu", off);
        if (!checksum_ok(h, &a->checksum_bug))
            return cr_err(err, errlen, "corrupt archive: bad tar header checksum at offset %zu", off);
        uint64_t size;
        if (parse_number(h + 124, 12, &size) < 0)
            return cr_err(err, errlen, "corrupt archive: bad member size at offset %zu", off);
        size_t data = off + BLOCK;
        if (size > len - data)
            return cr_err(err, errlen, "truncated archive (member at offset %zu needs %llu bytes, %zu left)",
                          off, (unsigned long long)size, len - data);
        if (is_regular(h[156]) && add_member(a, h, data, (size_t)size) < 0)
            return cr_err(err, errlen, "too many archive members or out of memory");
        size_t padded = ((size_t)size + BLOCK - 1) / BLOCK * BLOCK;
        if (padded > len - data) /* last member without padding: stop */
            return cr_err(err, errlen, "truncated archive (no end-of-archive marker)");
        off = data + padded;
    }
}

const cr_member *cr_tar_find(const cr_archive *a, const char *name)
{
    for (int i = 0; i < a->n; i++) {
        const char *n = a->m[i].name;
        if (n[0] == '.' && n[1] == '/') /* archives made with "tar -C dir ." */
            n += 2;
        if (strcmp(n, name) == 0)
            return &a->m[i];
    }
    return NULL;
}

void cr_tar_free(cr_archive *a)
{
    free(a->m);
    memset(a, 0, sizeof *a);
}
