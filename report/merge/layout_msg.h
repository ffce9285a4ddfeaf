/*
 * layout_msg.h - the merge's layout (each rank's threads, process rank,
 * host and thread names) as it travels up the aggregators' tree
 * (agg_tree.h): a block holds the records of a contiguous range of
 * ranks, in rank order; an aggregator joins its members' blocks and its
 * children's into one, and rank 0 reads every rank's record from one.
 *
 * Layout: uint32 nranks, failed; per rank { int32 nthreads, process_rank;
 * uint32 hostlen, the host with its NUL (hostlen LAYOUT_SAME_HOST: the
 * previous record's host; a group mostly shares one, it goes once per
 * run of equal hosts); uint32 nameslen, the thread names, each ended by
 * a NUL }.
 */
#ifndef HPROF_LAYOUT_MSG_H
#define HPROF_LAYOUT_MSG_H

#include <stddef.h>
#include <stdint.h>

#define LAYOUT_SAME_HOST UINT32_MAX
#define LAYOUT_MAX_THREADS (1 << 20) /* past it a record is taken as damaged */

typedef struct layout_record {
    int nthreads, process_rank;
    const char *host;  /* NUL-terminated */
    const char *names; /* NUL-ended names, up to nthreads (an empty one: the writer's default) */
    size_t names_len;
} layout_record;

typedef struct layout_block {
    unsigned char *buf; /* NULL where memory failed */
    size_t len, cap;
    uint32_t nranks;
    int failed;
    size_t last_host; /* offset of the last host written, 0: none */
} layout_block;

/* An empty block. 0, or -1 out of memory (the block then says it failed). */
int layout_block_begin(layout_block *b);
/* The next rank's record, its host sent again only where it differs
 * from the previous one's. 0, or -1 (the block then says it failed). */
int layout_block_add(layout_block *b, const layout_record *r);
/* A received block's records after b's (a damaged or failed one, or
 * buf NULL: b says it failed). */
int layout_block_join(layout_block *b, const void *buf, size_t len);
void layout_block_fail(layout_block *b);
void layout_block_free(layout_block *b);

/* Reading a block: its records in order. */
typedef struct layout_view {
    const unsigned char *at, *end;
    const char *host; /* the previous record's */
    uint32_t nranks, left;
    int failed; /* said so, or damaged */
} layout_view;
/* 0, or -1 where the block said it failed or its header is damaged. */
int layout_view_of(layout_view *v, const void *buf, size_t len);
/* 1 and the next record (pointing into the block), 0 at the end, -1
 * where the rest is damaged. */
int layout_view_next(layout_view *v, layout_record *r);

#endif
