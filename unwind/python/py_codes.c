/*
 * py_codes.c - see py_codes.h.
 */
#define _GNU_SOURCE
#include "unwind/python/py_codes.h"

#include <sys/mman.h>

#include "core/cct.h"
#include "unwind/python/py_lines.h"

#define SLOTS (2 * PY_CODES_MAX) /* a power of two: at most half full, probes stay short */
#define PROBES 512
#define NAMES_ROOM ((size_t)PY_CODES_MAX * (PY_CODES_NAME_MAX + 1 + PY_CODES_FILE_MAX + 1))

_Static_assert((SLOTS & (SLOTS - 1)) == 0, "slots: a power of two");
_Static_assert(PY_CODES_LEFT_OUT >= SLOTS && PY_CODES_LEFT_OUT <= CCT_KEY_PY_ENTRY_MAX,
               "entry ids and the marker must fit the keys");

enum {
    FREE,
    CLAIMED,
    READY
};

typedef struct code_entry {
    uint64_t code;       /* 0: free; claimed by compare-and-swap */
    py_code_print print; /* written by the claimer before READY */
    uint32_t state;
    uint32_t lines_len;
    const char *qualname, *filename;
    const uint8_t *lines;
} code_entry;

static code_entry *codes;
static uint32_t taken, refused, lines_refused;
static uint64_t interp_lo, interp_hi;
static char *names;
static uint8_t *lines_room;
static size_t names_used, lines_used;

static void *reserve(size_t len)
{
    void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

int py_codes_init(void)
{
    if (codes)
        return 0;
    void *t = reserve(SLOTS * sizeof(code_entry)), *n = reserve(NAMES_ROOM),
         *l = reserve(PY_CODES_LINES_ROOM);
    if (!t || !n || !l) {
        if (t)
            munmap(t, SLOTS * sizeof(code_entry));
        if (n)
            munmap(n, NAMES_ROOM);
        if (l)
            munmap(l, PY_CODES_LINES_ROOM);
        return -1;
    }
    names = n;
    lines_room = l;
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
    return a->code == b->code && a->digest == b->digest && a->qualname == b->qualname &&
           a->filename == b->filename && a->linetable == b->linetable && a->firstline == b->firstline &&
           a->units == b->units && a->qualname_len == b->qualname_len && a->filename_len == b->filename_len &&
           a->qualname_state == b->qualname_state && a->filename_state == b->filename_state &&
           a->linetable_len == b->linetable_len;
}

/* A slot from the whole print: code objects that take turns at one
 * address spread over the table like any others. */
static uint32_t first_slot(const py_code_print *p)
{
    uint64_t h = (p->code ^ p->digest) * 0x9E3779B97F4A7C15ull;
    return (uint32_t)(h >> 40);
}

/* Counts a new entry in: 0, or -1 when PY_CODES_MAX are taken. */
static int take_one(void)
{
    uint32_t n = __atomic_load_n(&taken, __ATOMIC_RELAXED);
    do {
        if (n >= PY_CODES_MAX) {
            __atomic_store_n(&refused, 1, __ATOMIC_RELAXED);
            return -1;
        }
    } while (!__atomic_compare_exchange_n(&taken, &n, n + 1, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
    return 0;
}

uint32_t py_codes_lookup(const py_code_print *p, int *fresh)
{
    *fresh = 0;
    code_entry *t = __atomic_load_n(&codes, __ATOMIC_ACQUIRE);
    if (!t || !p->code)
        return PY_CODES_NONE;
    uint32_t i = first_slot(p);
    for (int k = 0; k < PROBES; k++, i++) {
        code_entry *e = &t[i & (SLOTS - 1)];
        uint64_t c = __atomic_load_n(&e->code, __ATOMIC_ACQUIRE);
        if (c == 0) {
            if (take_one() != 0)
                return PY_CODES_NONE;
            uint64_t expected = 0;
            if (__atomic_compare_exchange_n(&e->code, &expected, p->code, 0, __ATOMIC_ACQ_REL,
                                            __ATOMIC_ACQUIRE)) {
                e->print = *p;
                __atomic_store_n(&e->state, CLAIMED, __ATOMIC_RELEASE);
                *fresh = 1;
                return i & (SLOTS - 1);
            }
            __atomic_fetch_sub(&taken, 1, __ATOMIC_RELAXED); /* another context took this slot */
            c = expected;
        }
        if (c == p->code && __atomic_load_n(&e->state, __ATOMIC_ACQUIRE) == READY && same_print(&e->print, p))
            return i & (SLOTS - 1);
    }
    return PY_CODES_NONE;
}

static const code_entry *ready_entry(uint32_t id)
{
    if (!codes || id >= SLOTS)
        return NULL;
    const code_entry *e = &codes[id];
    return __atomic_load_n(&e->state, __ATOMIC_ACQUIRE) == READY ? e : NULL;
}

const py_code_print *py_codes_print(uint32_t id)
{
    const code_entry *e = ready_entry(id);
    return e ? &e->print : NULL;
}

int py_codes_copies(uint32_t id, const char **qualname, const char **filename, const uint8_t **lines,
                    uint32_t *lines_len)
{
    const code_entry *e = ready_entry(id);
    if (!e)
        return -1;
    *qualname = e->qualname;
    *filename = e->filename;
    *lines = e->lines;
    *lines_len = e->lines_len;
    return 0;
}

char *py_codes_name_room(size_t len)
{
    if (!names)
        return NULL;
    size_t at = __atomic_fetch_add(&names_used, len, __ATOMIC_RELAXED);
    return at + len <= NAMES_ROOM ? names + at : NULL;
}

uint8_t *py_codes_lines_room(size_t len)
{
    if (!lines_room || len > PY_CODES_LINES_ROOM)
        return NULL;
    size_t at = __atomic_load_n(&lines_used, __ATOMIC_RELAXED);
    do { /* claimed only when it fits: a long table that does not leaves room for short ones */
        if (at + len > PY_CODES_LINES_ROOM) {
            __atomic_store_n(&lines_refused, 1, __ATOMIC_RELAXED);
            return NULL;
        }
    } while (!__atomic_compare_exchange_n(&lines_used, &at, at + len, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
    return lines_room + at;
}

void py_codes_publish(uint32_t id, const char *qualname, const char *filename, const uint8_t *lines,
                      uint32_t lines_len)
{
    if (!codes || id >= SLOTS)
        return;
    code_entry *e = &codes[id];
    e->qualname = qualname;
    e->filename = filename;
    e->lines = lines;
    e->lines_len = lines ? lines_len : 0;
    __atomic_store_n(&e->state, READY, __ATOMIC_RELEASE);
}

int py_codes_info(uint32_t id, const char **qualname, const char **filename, int *firstline)
{
    if (id == PY_CODES_LEFT_OUT) {
        *qualname = "(python frames left out)";
        *filename = NULL;
        *firstline = -1;
        return 0;
    }
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

uint32_t py_codes_count(void)
{
    return __atomic_load_n(&taken, __ATOMIC_RELAXED);
}

int py_codes_full(void)
{
    return __atomic_load_n(&refused, __ATOMIC_RELAXED);
}

int py_codes_lines_full(void)
{
    return __atomic_load_n(&lines_refused, __ATOMIC_RELAXED);
}
