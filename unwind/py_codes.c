/*
 * py_codes.c - see py_codes.h.
 */
#define _GNU_SOURCE
#include "py_codes.h"

#include <sys/mman.h>

#include "cct.h"
#include "py_lines.h"

#define CODES_MAX  16384u            /* entries; a power of two */
#define ROOM_BYTES (16u << 20)       /* for the copies: names, file names, line tables */
#define PROBES     64

enum { FREE, CLAIMED, READY };

typedef struct code_entry {
    uint64_t code;                  /* 0: free; claimed by compare-and-swap */
    py_code_print print;            /* written by the claimer before READY */
    uint32_t state;
    uint32_t lines_len;
    const char *qualname, *filename;
    const uint8_t *lines;
} code_entry;

static code_entry *codes;
static uint64_t interp_lo, interp_hi;
static char *room;
static size_t room_used;

int py_codes_init(void)
{
    if (codes)
        return 0;
    /* CODES_MAX fits the keys' entry field (cct.h) */
    _Static_assert(CODES_MAX - 1 <= CCT_KEY_PY_ENTRY_MAX, "entry ids must fit the keys");
    void *t = mmap(NULL, CODES_MAX * sizeof(code_entry), PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    void *r = mmap(NULL, ROOM_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (t == MAP_FAILED || r == MAP_FAILED) {
        if (t != MAP_FAILED)
            munmap(t, CODES_MAX * sizeof(code_entry));
        if (r != MAP_FAILED)
            munmap(r, ROOM_BYTES);
        return -1;
    }
    room = r;
    __atomic_store_n(&codes, (code_entry *)t, __ATOMIC_RELEASE);
    return 0;
}

void py_codes_set_interpreter(uint64_t lo, uint64_t hi)
{
    interp_lo = lo;
    interp_hi = hi;
}

int py_codes_in_interpreter(uint64_t pc)
{
    return pc >= interp_lo && pc < interp_hi;
}

static int same_print(const py_code_print *a, const py_code_print *b)
{
    return a->code == b->code && a->qualname == b->qualname && a->filename == b->filename &&
           a->linetable == b->linetable && a->firstline == b->firstline;
}

uint32_t py_codes_lookup(const py_code_print *p, int *fresh)
{
    *fresh = 0;
    code_entry *t = __atomic_load_n(&codes, __ATOMIC_ACQUIRE);
    if (!t || !p->code)
        return PY_CODES_NONE;
    uint64_t h = (p->code >> 4) * 0x9E3779B97F4A7C15ull;
    uint32_t i = (uint32_t)(h >> 40);
    for (int k = 0; k < PROBES; k++, i++) {
        code_entry *e = &t[i & (CODES_MAX - 1)];
        uint64_t c = __atomic_load_n(&e->code, __ATOMIC_ACQUIRE);
        if (c == 0) {
            uint64_t expected = 0;
            if (!__atomic_compare_exchange_n(&e->code, &expected, p->code, 0, __ATOMIC_ACQ_REL,
                                             __ATOMIC_ACQUIRE)) {
                c = expected;
            } else {
                e->print = *p;
                __atomic_store_n(&e->state, CLAIMED, __ATOMIC_RELEASE);
                *fresh = 1;
                return i & (CODES_MAX - 1);
            }
        }
        if (c == p->code && __atomic_load_n(&e->state, __ATOMIC_ACQUIRE) == READY && same_print(&e->print, p))
            return i & (CODES_MAX - 1);
    }
    return PY_CODES_NONE;
}

char *py_codes_room(size_t len)
{
    if (!room)
        return NULL;
    size_t at = __atomic_fetch_add(&room_used, len, __ATOMIC_RELAXED);
    return at + len <= ROOM_BYTES ? room + at : NULL;
}

void py_codes_publish(uint32_t id, const char *qualname, const char *filename, const uint8_t *lines,
                      uint32_t lines_len)
{
    if (!codes || id >= CODES_MAX)
        return;
    code_entry *e = &codes[id];
    e->qualname = qualname;
    e->filename = filename;
    e->lines = lines;
    e->lines_len = lines ? lines_len : 0;
    __atomic_store_n(&e->state, READY, __ATOMIC_RELEASE);
}

static const code_entry *ready_entry(uint32_t id)
{
    if (!codes || id >= CODES_MAX)
        return NULL;
    const code_entry *e = &codes[id];
    return __atomic_load_n(&e->state, __ATOMIC_ACQUIRE) == READY ? e : NULL;
}

int py_codes_info(uint32_t id, const char **qualname, const char **filename, int *firstline)
{
    const code_entry *e = ready_entry(id);
    if (!e)
        return -1;
    *qualname = e->qualname;
    *filename = e->filename;
    *firstline = e->print.firstline;
    return 0;
}

int py_codes_line(uint32_t id, uint32_t unit)
{
    const code_entry *e = ready_entry(id);
    if (!e)
        return -1;
    int line = e->lines ? py_line_at(e->lines, e->lines_len, e->print.firstline, unit) : -1;
    return line >= 0 ? line : e->print.firstline;
}
