/*
 * py_read.c - see py_read.h.
 */
#define _GNU_SOURCE
#include "unwind/python/py_read.h"

#include <string.h>
#include <unistd.h>

static pid_t self_pid;

#define PAGE 4096ull

int py_plausible(uint64_t a, size_t len)
{
    return a >= PAGE && a + len > a && a + len < (1ull << 47);
}

static ssize_t vm_read(struct iovec *l, int nl, struct iovec *r, int nr)
{
    return process_vm_readv(self_pid, l, (unsigned long)nl, r, (unsigned long)nr, 0);
}

int py_read(void *dst, uint64_t src, size_t len, int safe)
{
    if (!py_plausible(src, len))
        return -1;
    if (!safe) {
        memcpy(dst, (const void *)(uintptr_t)src, len);
        return 0;
    }
    struct iovec l = { dst, len }, r = { (void *)(uintptr_t)src, len };
    return vm_read(&l, 1, &r, 1) == (ssize_t)len ? 0 : -1;
}

int py_read_init(void)
{
    self_pid = getpid();
    uint64_t probe = 0x5079667261ull, got = 0;
    return py_read(&got, (uint64_t)(uintptr_t)&probe, sizeof got, 1) == 0 && got == probe ? 0 : -1;
}

int py_batch_add(py_batch *b, void *dst, uint64_t src, size_t len)
{
    if (b->n >= PY_BATCH_MAX || !py_plausible(src, len))
        return -1;
    b->local[b->n] = (struct iovec){ dst, len };
    b->remote[b->n] = (struct iovec){ (void *)(uintptr_t)src, len };
    b->ok[b->n] = 0;
    return b->n++;
}

/* The reads in the order of their source addresses (Shell sort: a
 * handler's batch holds tens to hundreds). */
static void sort_reads(py_batch *b)
{
    static const int gaps[] = { 132, 57, 23, 10, 4, 1 };
    for (int i = 0; i < b->n; i++)
        b->order[i] = (uint16_t)i;
    for (unsigned g = 0; g < sizeof gaps / sizeof gaps[0]; g++) {
        int gap = gaps[g];
        for (int i = gap; i < b->n; i++) {
            uint16_t t = b->order[i];
            uintptr_t key = (uintptr_t)b->remote[t].iov_base;
            int j = i;
            for (; j >= gap && (uintptr_t)b->remote[b->order[j - gap]].iov_base > key; j -= gap)
                b->order[j] = b->order[j - gap];
            b->order[j] = t;
        }
    }
}

static uint64_t start_of(const struct iovec *v)
{
    return (uint64_t)(uintptr_t)v->iov_base;
}
static uint64_t end_of(const struct iovec *v)
{
    return start_of(v) + v->iov_len;
}

/* Read i goes into the pieces: joined to the last one when it starts at
 * or after its end, on the same page or the next (the bytes between go to
 * b->gap), else a piece of its own. */
static void add_to_pieces(py_batch *b, int i)
{
    const struct iovec *r = &b->remote[i];
    if (b->nr > 0) {
        struct iovec *last = &b->from[b->nr - 1];
        uint64_t end = end_of(last);
        if (start_of(r) >= end && start_of(r) / PAGE <= (end - 1) / PAGE + 1) {
            uint64_t gap = start_of(r) - end;
            if (gap)
                b->to[b->nl++] = (struct iovec){ b->gap, gap };
            last->iov_len += gap + r->iov_len;
            b->to[b->nl++] = b->local[i];
            b->piece[i] = (uint16_t)(b->nr - 1);
            return;
        }
    }
    b->first_local[b->nr] = (uint16_t)b->nl;
    b->from[b->nr] = *r;
    b->piece[i] = (uint16_t)b->nr++;
    b->to[b->nl++] = b->local[i];
}

static void plan(py_batch *b)
{
    sort_reads(b);
    b->nl = b->nr = 0;
    for (int k = 0; k < b->n; k++) {
        int i = b->order[k], p = k ? b->order[k - 1] : -1;
        b->same_as[i] = (uint16_t)i;
        if (p >= 0 && b->remote[p].iov_base == b->remote[i].iov_base &&
            b->remote[p].iov_len == b->remote[i].iov_len)
            b->same_as[i] = b->same_as[p];
        else
            add_to_pieces(b, i);
    }
}

/* Pieces from p on in one call; those copied whole are done. The first
 * piece not copied whole (its reads then go one by one), or nr. */
static int ask(py_batch *b, int p, unsigned char *done)
{
    ssize_t got = vm_read(b->to + b->first_local[p], b->nl - b->first_local[p], b->from + p, b->nr - p);
    size_t left = got > 0 ? (size_t)got : 0;
    for (; p < b->nr && left >= b->from[p].iov_len; p++) {
        left -= b->from[p].iov_len;
        done[p] = 1;
    }
    return p;
}

void py_batch_run(py_batch *b, int safe)
{
    if (!safe) {
        for (int i = 0; i < b->n; i++) {
            memcpy(b->local[i].iov_base, b->remote[i].iov_base, b->local[i].iov_len);
            b->ok[i] = 1;
        }
        return;
    }
    plan(b);
    unsigned char done[PY_BATCH_MAX] = { 0 }; /* by piece: 1 copied whole, 2 failed */
    for (int p = 0; p < b->nr;) {
        p = ask(b, p, done);
        if (p < b->nr)
            done[p++] = 2;
    }
    for (int k = 0; k < b->n; k++) {
        int i = b->order[k];
        if (b->same_as[i] != i)
            continue;
        int d = done[b->piece[i]];
        b->ok[i] = d == 1 || (d == 2 && py_read(b->local[i].iov_base, start_of(&b->remote[i]),
                                                b->local[i].iov_len, 1) == 0);
    }
    for (int i = 0; i < b->n; i++) {
        int s = b->same_as[i];
        if (s != i && (b->ok[i] = b->ok[s]))
            memcpy(b->local[i].iov_base, b->local[s].iov_base, b->local[i].iov_len);
    }
}

void py_blocks_start(py_blocks *k, int budget, uint64_t top)
{
    k->reads_left = budget;
    k->top = top;
    k->last = 0;
    k->lo[0] = k->hi[0] = k->lo[1] = k->hi[1] = 0;
}

/* Buffer i gets as much of [lo, hi) as is mapped next below hi: its
 * pages asked for from the top down, so that the kernel, which stops at
 * the first it cannot read, stops at the end of the mapping. 0 when it
 * got [addr, hi) at least. */
static int fill(py_blocks *k, int i, uint64_t lo, uint64_t addr, uint64_t hi)
{
    if (k->reads_left <= 0)
        return -1;
    k->reads_left--;
    struct iovec to[PY_BLOCK_BYTES / PAGE + 1] = { { 0 } }, from[PY_BLOCK_BYTES / PAGE + 1] = { { 0 } };
    int n = 0;
    for (uint64_t top = hi; top > lo; n++) {
        uint64_t bottom = (top - 1) & ~(PAGE - 1);
        if (bottom < lo)
            bottom = lo;
        to[n] = (struct iovec){ k->buf[i] + (bottom - lo), top - bottom };
        from[n] = (struct iovec){ (void *)(uintptr_t)bottom, top - bottom };
        top = bottom;
    }
    ssize_t got = vm_read(to, n, from, n);
    uint64_t have = hi;
    for (int j = 0; j < n && got >= (ssize_t)from[j].iov_len; j++) {
        got -= (ssize_t)from[j].iov_len;
        have = start_of(&from[j]);
    }
    if (have > addr)
        return -1;
    k->base[i] = lo;
    k->lo[i] = have;
    k->hi[i] = hi;
    k->last = i;
    return 0;
}

/* A block of up to PY_BLOCK_BYTES ending at hi. */
static int fill_below(py_blocks *k, int i, uint64_t addr, uint64_t hi)
{
    return fill(k, i, hi > PY_BLOCK_BYTES + PAGE ? hi - PY_BLOCK_BYTES : PAGE, addr, hi);
}

const unsigned char *py_blocks_read(py_blocks *k, uint64_t addr, size_t len, int safe)
{
    if (!py_plausible(addr, len) || len > 256)
        return NULL;
    if (!safe)
        return (const unsigned char *)(uintptr_t)addr;
    for (int i = 0; i < 2; i++)
        if (addr >= k->lo[i] && addr + len <= k->hi[i])
            return k->buf[i] + (addr - k->base[i]);
    /* a new block, in the buffer not read last (a generator's frame, off
     * the frame stack, leaves the stack's block in place), ending at the
     * walk's top where that holds addr: the first read then serves the
     * frames of every activation near the top */
    int i = !k->last;
    uint64_t hi = addr + len;
    if (k->top >= hi && k->top - addr <= PY_BLOCK_BYTES)
        hi = k->top;
    k->lo[i] = k->hi[i] = 0; /* a read that fails half-way leaves the buffer mixed */
    if (fill_below(k, i, addr, hi) != 0 && (hi == addr + len || fill_below(k, i, addr, addr + len) != 0))
        return NULL;
    return k->buf[i] + (addr - k->base[i]);
}
