/* cw_tar.c - ustar headers for streamed members. */
#include "report/cube/writer/cw_tar.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define BLOCK 512

/* Octal with NUL terminator when it fits, else GNU base-256 (sizes of
 * 8 GiB and more), which GNU tar and our reader accept. */
static void put_number(unsigned char *f, size_t len, uint64_t v)
{
    if (len == 12 && v > 077777777777ULL) {
        memset(f, 0, len);
        f[0] = 0x80;
        for (size_t i = len - 1; i > 0 && v; i--, v >>= 8)
            f[i] = (unsigned char)(v & 0xff);
        return;
    }
    char tmp[24];
    snprintf(tmp, sizeof tmp, "%0*llo", (int)len - 1, (unsigned long long)v);
    memcpy(f, tmp, len - 1);
    f[len - 1] = '\0';
}

static void make_header(unsigned char *h, const cw_member *m, uint64_t size)
{
    memset(h, 0, BLOCK);
    memcpy(h, m->name, strnlen(m->name, 99));
    put_number(h + 100, 8, 0644);
    put_number(h + 108, 8, 0);
    put_number(h + 116, 8, 0);
    put_number(h + 124, 12, size);
    put_number(h + 136, 12, (uint64_t)(m->mtime > 0 ? m->mtime : 0));
    h[156] = '0';
    memcpy(h + 257, "ustar", 6); /* magic "ustar\0", version "00" */
    memcpy(h + 263, "00", 2);
    memset(h + 148, ' ', 8); /* checksum counts its field as spaces */
    unsigned sum = 0;
    for (int i = 0; i < BLOCK; i++)
        sum += h[i];
    char ck[8];
    snprintf(ck, sizeof ck, "%06o", sum & 0777777);
    memcpy(h + 148, ck, 6);
    h[154] = '\0';
    h[155] = ' ';
}

int cw_tar_begin(cw_out *o, cw_member *m, const char *name, long long mtime)
{
    unsigned char h[BLOCK];
    snprintf(m->name, sizeof m->name, "%s", name);
    m->mtime = mtime;
    m->header_off = o->pos;
    make_header(h, m, 0);
    return cw_out_write(o, h, BLOCK);
}

int cw_tar_end(cw_out *o, cw_member *m, char filler)
{
    unsigned char h[BLOCK];
    uint64_t size = (uint64_t)(o->pos - m->header_off - BLOCK);
    /* cubelib's reader skips (size/512 + 1) blocks after every member (the
     * padding cubew writes), so a member of an exact multiple of 512 bytes
     * would hide the next one from it: such a member gets one more byte. */
    if (size % BLOCK == 0) {
        if (cw_out_write(o, &filler, 1) < 0)
            return -1;
        size++;
    }
    size_t pad = (size_t)((BLOCK - size % BLOCK) % BLOCK);
    if (cw_out_zeros(o, pad) < 0)
        return -1;
    make_header(h, m, size);
    return cw_out_patch(o, m->header_off, h, BLOCK);
}

int cw_tar_finish(cw_out *o)
{
    return cw_out_zeros(o, CW_TAR_END_BYTES);
}
