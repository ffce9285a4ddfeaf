/*
 * py_ident.c - see py_ident.h.
 */
#include "unwind/python/py_ident.h"

#include <string.h>

#include "unwind/python/py_codes.h"
#include "unwind/python/py_layout.h"

_Static_assert(sizeof(py_code_print) == 72, "a print has no padding: prints are compared whole");

#define LINES_DIGESTED 64   /* first bytes of a line table in the print */
#define STR_KIND_FORM 0x7Cu /* a str's state bits read: kind 2..4, compact 5, ascii 6 (not interned) */

static uint64_t code_type, unicode_type, bytes_type;

void py_ident_init(uint64_t code, uint64_t unicode, uint64_t bytes)
{
    code_type = code;
    unicode_type = unicode;
    bytes_type = bytes;
}

static uint64_t get64(const unsigned char *b, int off)
{
    uint64_t v;
    memcpy(&v, b + off, 8);
    return v;
}

static uint32_t get32(const unsigned char *b, int off)
{
    uint32_t v;
    memcpy(&v, b + off, 4);
    return v;
}

/* ---- what is read of an object ------------------------------------------- */

/* Where a str's characters lie and how many are kept: at most max bytes
 * of UTF-8 (a char takes 1 byte in an ASCII string, up to 4 in others),
 * its end when keep_tail (a file name). */
typedef struct str_part {
    uint32_t len, form; /* characters in all; STR_KIND_FORM bits */
    int kind, ascii;
    uint64_t at, bytes; /* the characters kept: [obj + at, + bytes) */
} str_part;

static int str_part_of(uint64_t len, uint32_t state, size_t max, int keep_tail, str_part *s)
{
    s->kind = (int)(state >> 2) & 7;
    s->ascii = (state >> 6) & 1;
    if (!((state >> 5) & 1) || (s->kind != 1 && s->kind != 2 && s->kind != 4) || len > (1u << 20))
        return -1; /* a legacy string: not in code objects */
    uint64_t limit = s->ascii ? max : max / 4, n = len < limit ? len : limit;
    s->len = (uint32_t)len;
    s->form = state & STR_KIND_FORM;
    s->at = (s->ascii ? STR_ASCII_DATA : STR_DATA) + (keep_tail ? len - n : 0) * (uint64_t)s->kind;
    s->bytes = n * (uint64_t)s->kind;
    return 0;
}

/* A str's header as read from OB_TYPE on: its type checked, its part. */
static int str_header(const unsigned char *h, size_t max, int keep_tail, str_part *s)
{
    if (get64(h, 0) != unicode_type)
        return -1;
    return str_part_of(get64(h, STR_LENGTH - OB_TYPE), get32(h, STR_STATE - OB_TYPE), max, keep_tail, s);
}

static uint64_t mix(uint64_t h, const unsigned char *b, size_t n)
{
    for (; n >= 8; b += 8, n -= 8) {
        uint64_t v;
        memcpy(&v, b, 8);
        h = (h ^ v) * 0x9E3779B97F4A7C15ull;
        h ^= h >> 29;
    }
    uint64_t v = 0;
    memcpy(&v, b, n);
    h = (h ^ v ^ (uint64_t)n << 56) * 0xBF58476D1CE4E5B9ull;
    return h ^ h >> 31;
}

/* A code object as read: its print and its names' characters. */
typedef struct code_read {
    py_code_print p;
    str_part q, f;
    const unsigned char *qchars, *fchars, *lines; /* lines: the first LINES_DIGESTED bytes at most */
} code_read;

static size_t lines_digested(uint64_t len)
{
    return len < LINES_DIGESTED ? (size_t)len : LINES_DIGESTED;
}

/* Fills r->p from the code object's fields (c, from OB_TYPE on) and the
 * names' and line table's bytes already in r. */
static int finish_print(code_read *r, uint64_t code, const unsigned char *c)
{
    if (get64(c, 0) != code_type)
        return -1;
    r->p.code = code;
    r->p.units = (uint32_t)get64(c, OB_SIZE - OB_TYPE);
    r->p.firstline = (int32_t)get32(c, CO_FIRSTLINE - OB_TYPE);
    r->p.qualname = get64(c, CO_QUALNAME - OB_TYPE);
    r->p.filename = get64(c, CO_FILENAME - OB_TYPE);
    r->p.linetable = get64(c, CO_LINETABLE - OB_TYPE);
    r->p.qualname_len = r->q.len;
    r->p.qualname_state = r->q.form;
    r->p.filename_len = r->f.len;
    r->p.filename_state = r->f.form;
    uint64_t h = mix(0x6870726F66ull, r->qchars, r->q.bytes);
    h = mix(h, r->fchars, r->f.bytes);
    r->p.digest = mix(h, r->lines, lines_digested(r->p.linetable_len));
    return 0;
}

/* ---- one code object, piece by piece ----------------------------------- */

typedef struct code_bytes {
    unsigned char c[CO_END - OB_TYPE];
    unsigned char q[PY_CODES_NAME_MAX + 1], f[PY_CODES_FILE_MAX + 1], l[LINES_DIGESTED];
} code_bytes;

static int read_str(uint64_t obj, size_t max, int keep_tail, int safe, str_part *s, unsigned char *chars)
{
    unsigned char h[STR_ASCII_DATA - OB_TYPE];
    if ((obj & 7) || py_read(h, obj + OB_TYPE, sizeof h, safe) != 0 || str_header(h, max, keep_tail, s) != 0)
        return -1;
    return s->bytes ? py_read(chars, obj + s->at, s->bytes, safe) : 0;
}

static int read_code(uint64_t code, int safe, code_read *r, code_bytes *b)
{
    if ((code & 7) || py_read(b->c, code + OB_TYPE, sizeof b->c, safe) != 0 || get64(b->c, 0) != code_type)
        return -1;
    uint64_t q = get64(b->c, CO_QUALNAME - OB_TYPE), f = get64(b->c, CO_FILENAME - OB_TYPE);
    uint64_t l = get64(b->c, CO_LINETABLE - OB_TYPE);
    unsigned char lh[BYTES_DATA - OB_TYPE];
    if (read_str(q, PY_CODES_NAME_MAX, 0, safe, &r->q, b->q) != 0 ||
        read_str(f, PY_CODES_FILE_MAX, 1, safe, &r->f, b->f) != 0 || (l & 7) ||
        py_read(lh, l + OB_TYPE, sizeof lh, safe) != 0 || get64(lh, 0) != bytes_type)
        return -1;
    r->p.linetable_len = get64(lh, BYTES_SIZE - OB_TYPE);
    size_t nl = lines_digested(r->p.linetable_len);
    if (nl && py_read(b->l, l + BYTES_DATA, nl, safe) != 0)
        return -1;
    r->qchars = b->q;
    r->fchars = b->f;
    r->lines = b->l;
    return finish_print(r, code, b->c);
}

/* A str's kept characters as UTF-8 in the names' room, or NULL. */
static char *copy_name(const str_part *s, const unsigned char *chars)
{
    uint64_t n = s->bytes / (uint64_t)s->kind;
    char *out = py_codes_name_room(s->ascii ? n + 1 : n * 4 + 1);
    if (!out)
        return NULL;
    size_t o = 0;
    for (uint64_t i = 0; i < n; i++) {
        uint32_t c = s->kind == 1   ? chars[i]
                     : s->kind == 2 ? (uint32_t)(chars[2 * i] | chars[2 * i + 1] << 8)
                                    : get32(chars, (int)(4 * i));
        if (c < 0x80) {
            out[o++] = (char)c;
        } else if (c < 0x800) {
            out[o++] = (char)(0xC0 | c >> 6), out[o++] = (char)(0x80 | (c & 63));
        } else if (c < 0x10000) {
            out[o++] = (char)(0xE0 | c >> 12), out[o++] = (char)(0x80 | ((c >> 6) & 63));
            out[o++] = (char)(0x80 | (c & 63));
        } else {
            out[o++] = (char)(0xF0 | c >> 18), out[o++] = (char)(0x80 | ((c >> 12) & 63));
            out[o++] = (char)(0x80 | ((c >> 6) & 63)), out[o++] = (char)(0x80 | (c & 63));
        }
    }
    out[o] = '\0';
    return out;
}

/* A new entry's copies: the names, and the line table when there is room
 * (lines past a copy cut short, or without one: the first line). */
static void fill_entry(uint32_t id, const code_read *r, int safe)
{
    uint64_t n = r->p.linetable_len < PY_CODES_LINES_MAX ? r->p.linetable_len : PY_CODES_LINES_MAX;
    uint8_t *lines = n ? py_codes_lines_room(n) : NULL;
    if (lines && py_read(lines, r->p.linetable + BYTES_DATA, n, safe) != 0)
        lines = NULL;
    py_codes_publish(id, copy_name(&r->q, r->qchars), copy_name(&r->f, r->fchars), lines, (uint32_t)n);
}

static uint32_t entry_of(const code_read *r, int safe)
{
    int fresh;
    uint32_t id = py_codes_lookup(&r->p, &fresh);
    if (fresh)
        fill_entry(id, r, safe);
    return id;
}

uint32_t py_ident_code(uint64_t code, int safe)
{
    code_read r;
    code_bytes b;
    return read_code(code, safe, &r, &b) == 0 ? entry_of(&r, safe) : PY_CODES_NONE;
}

/* ---- many code objects, checked against their last entries ------------- */

static unsigned cache_index(uint64_t code)
{
    return (unsigned)((code >> 4) * 0x9E3779B97F4A7C15ull >> 40) & (PY_IDENT_CACHE - 1);
}

/* One code object's reads, expected to look as its entry's print says. */
typedef struct check {
    int at[5]; /* reads in the batch: code, qualname, filename (header, characters), line table */
    unsigned char *c, *q, *fh, *f, *l;
    str_part qs, fs;
} check;

/* Adds the reads of a code object that should match print e; room: where
 * they go (enough for any). -1 when the batch is full. */
static int add_check(py_batch *b, unsigned char *room, const py_code_print *e, check *k)
{
    if (str_part_of(e->qualname_len, e->qualname_state, PY_CODES_NAME_MAX, 0, &k->qs) != 0 ||
        str_part_of(e->filename_len, e->filename_state, PY_CODES_FILE_MAX, 1, &k->fs) != 0)
        return -1;
    size_t fhead = STR_ASCII_DATA - OB_TYPE, nl = lines_digested(e->linetable_len);
    k->c = room;
    k->q = k->c + (CO_END - OB_TYPE);
    k->fh = k->q + (k->qs.at - OB_TYPE) + k->qs.bytes;
    k->f = k->fh + fhead;
    k->l = k->f + k->fs.bytes;
    /* the file name's header and characters in one piece where they touch */
    int one = k->fs.at == (k->fs.ascii ? STR_ASCII_DATA : STR_DATA);
    if (one) {
        k->f = k->fh + (k->fs.at - OB_TYPE);
        k->l = k->f + k->fs.bytes;
    }
    k->at[0] = py_batch_add(b, k->c, e->code + OB_TYPE, CO_END - OB_TYPE);
    k->at[1] = py_batch_add(b, k->q, e->qualname + OB_TYPE, (k->qs.at - OB_TYPE) + k->qs.bytes);
    k->at[2] =
        py_batch_add(b, k->fh, e->filename + OB_TYPE, one ? (k->fs.at - OB_TYPE) + k->fs.bytes : fhead);
    k->at[3] = one || !k->fs.bytes ? k->at[2] : py_batch_add(b, k->f, e->filename + k->fs.at, k->fs.bytes);
    k->at[4] = py_batch_add(b, k->l, e->linetable + OB_TYPE, (BYTES_DATA - OB_TYPE) + nl);
    for (int i = 0; i < 5; i++)
        if (k->at[i] < 0)
            return -1;
    return 0;
}

/* The checked code object is e's: every piece read, headers as e says,
 * and the same print from what was read. */
static int check_holds(const py_batch *b, const check *k, const py_code_print *e)
{
    for (int i = 0; i < 5; i++)
        if (!b->ok[k->at[i]])
            return 0;
    code_read r;
    str_part qs, fs;
    if (str_header(k->q, PY_CODES_NAME_MAX, 0, &qs) != 0 ||
        str_header(k->fh, PY_CODES_FILE_MAX, 1, &fs) != 0 || qs.len != e->qualname_len ||
        qs.form != e->qualname_state || fs.len != e->filename_len || fs.form != e->filename_state ||
        get64(k->l, 0) != bytes_type || get64(k->l, BYTES_SIZE - OB_TYPE) != e->linetable_len)
        return 0;
    r.q = qs;
    r.f = fs;
    r.qchars = k->q + (qs.at - OB_TYPE);
    r.fchars = k->f;
    r.lines = k->l + (BYTES_DATA - OB_TYPE);
    r.p.linetable_len = e->linetable_len;
    return finish_print(&r, e->code, k->c) == 0 && memcmp(&r.p, e, sizeof r.p) == 0;
}

/* Up to PY_IDENT_BATCH code objects: the cache's guesses checked in one
 * system call, the others read piece by piece. */
_Static_assert(sizeof(check) <= 160, "py_ident_work.checks holds PY_IDENT_BATCH");
_Static_assert(PY_IDENT_BATCH * 5 <= PY_BATCH_MAX, "a batch holds PY_IDENT_BATCH checks");

static void ident_some(py_ident_work *w, const uint64_t *codes, int n, uint32_t *ids)
{
    check *k = (check *)(void *)w->checks;
    const py_code_print **e = (const py_code_print **)w->expect;
    py_batch_start(&w->batch);
    for (int i = 0; i < n; i++) {
        unsigned slot = cache_index(codes[i]);
        w->guess[i] = w->id[slot];
        e[i] = w->code[slot] == codes[i] ? py_codes_print(w->guess[i]) : NULL;
        if (e[i] && e[i]->code != codes[i]) /* its checks read the entry's object: this one */
            e[i] = NULL;
        if (e[i] &&
            add_check(&w->batch, w->room + (size_t)i * (sizeof w->room / PY_IDENT_BATCH), e[i], &k[i]) != 0)
            e[i] = NULL;
    }
    py_batch_run(&w->batch, 1);
    for (int i = 0; i < n; i++) {
        /* the guess, not the slot: a code object before this one that
         * shares its slot may have taken it over since */
        if (e[i] && check_holds(&w->batch, &k[i], e[i])) {
            ids[i] = w->guess[i];
            continue;
        }
        if (w->new_left-- <= 0) {
            ids[i] = PY_CODES_NONE; /* the walk's budget: a later sample reads it */
            continue;
        }
        unsigned slot = cache_index(codes[i]);
        ids[i] = py_ident_code(codes[i], 1);
        w->code[slot] = ids[i] != PY_CODES_NONE ? codes[i] : 0;
        w->id[slot] = ids[i];
    }
}

/* The live str at obj (plain loads) holds what print says and copy has
 * (ASCII only: there the copy is the characters themselves). */
static int str_same(uint64_t obj, uint32_t len, uint32_t state, size_t max, int keep_tail, const char *copy)
{
    const unsigned char *o = (const unsigned char *)(uintptr_t)obj;
    str_part s;
    if (!copy || str_part_of(len, state, max, keep_tail, &s) != 0 || !s.ascii ||
        get64(o, OB_TYPE) != unicode_type || get64(o, STR_LENGTH) != len ||
        (get32(o, STR_STATE) & STR_KIND_FORM) != state)
        return 0;
    return memcmp(o + s.at, copy, s.bytes) == 0;
}

static int lines_same(uint64_t obj, uint64_t len, const uint8_t *copy, uint32_t copy_len)
{
    const unsigned char *o = (const unsigned char *)(uintptr_t)obj;
    size_t n = lines_digested(len);
    return get64(o, OB_TYPE) == bytes_type && get64(o, BYTES_SIZE) == len &&
           (n == 0 || (copy && copy_len >= n)) &&
           memcmp(o + BYTES_DATA, copy ? copy : (const uint8_t *)"", n) == 0;
}

/* The live code object (plain loads: an MPI call's, alive) is entry id's. */
static int plain_holds(uint64_t code, uint32_t id)
{
    const py_code_print *e = py_codes_print(id);
    const char *q, *f;
    const uint8_t *l;
    uint32_t nl;
    const unsigned char *c = (const unsigned char *)(uintptr_t)code;
    if (!e || py_codes_copies(id, &q, &f, &l, &nl) != 0 || get64(c, OB_TYPE) != code_type ||
        (uint32_t)get64(c, OB_SIZE) != e->units || (int32_t)get32(c, CO_FIRSTLINE) != e->firstline ||
        get64(c, CO_QUALNAME) != e->qualname || get64(c, CO_FILENAME) != e->filename ||
        get64(c, CO_LINETABLE) != e->linetable)
        return 0;
    return str_same(e->qualname, e->qualname_len, e->qualname_state, PY_CODES_NAME_MAX, 0, q) &&
           str_same(e->filename, e->filename_len, e->filename_state, PY_CODES_FILE_MAX, 1, f) &&
           lines_same(e->linetable, e->linetable_len, l, nl);
}

uint32_t py_ident_plain(py_ident_work *w, uint64_t code)
{
    unsigned slot = cache_index(code);
    if (w->code[slot] == code && plain_holds(code, w->id[slot]))
        return w->id[slot];
    uint32_t id = py_ident_code(code, 0);
    w->code[slot] = id != PY_CODES_NONE ? code : 0;
    w->id[slot] = id;
    return id;
}

void py_ident_codes(py_ident_work *w, const uint64_t *codes, int n, uint32_t *ids)
{
    for (int i = 0; i < n; i += PY_IDENT_BATCH)
        ident_some(w, codes + i, n - i < PY_IDENT_BATCH ? n - i : PY_IDENT_BATCH, ids + i);
}
