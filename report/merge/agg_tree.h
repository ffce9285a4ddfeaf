/*
 * agg_tree.h - the aggregators of the merge (issue 41): the ranks in
 * groups of `cap` consecutive ranks (aligned: ranks g*cap .. g*cap+cap-1),
 * the group's first rank its aggregator; the aggregators in a tree of
 * fan-in AGG_FANIN over their order, whose root is rank 0 and each of
 * whose subtrees is a contiguous range of ranks: an aggregator's own
 * group, then its children's subtrees in order.
 *
 * Where nodes hold whole blocks of consecutive ranks (the usual block
 * placement, nodes of a multiple of `cap` ranks) a group is a node's
 * ranks or a part of them, and the members' messages stay on the node.
 * The groups are reckoned, not negotiated: MPI_Comm_split_type and
 * MPI_Comm_split are blocking collectives that poll, and at 64 ranks on
 * 2 cores under MPICH making the two communicators took 8.2 s, where the
 * whole merge takes 0.2 s.
 *
 * Every message goes over the merge's communicator, from a given source
 * (never any source: a rank that runs ahead to the next chunk is not
 * taken for another); one up the tree takes O(log_F(P / cap)) steps.
 */
#ifndef HPROF_AGG_TREE_H
#define HPROF_AGG_TREE_H

#include <mpi.h>
#include <stddef.h>

#define AGG_FANIN 16

typedef struct agg_tree {
    MPI_Comm comm; /* the merge's */
    int rank, size, cap;
    int leader; /* this rank's aggregator */
    int group_rank, group_size;
    int place, nleaders; /* an aggregator's place among them */
} agg_tree;

/* Ranks a group holds: up to AGG_GROUP_RANKS, fewer where each stands for
 * many (HPROF_SIMULATE_RANKS=simulate), so that a group's part of a row
 * stays about AGG_GROUP_LOCATIONS long and the compression is spread. */
#define AGG_GROUP_RANKS 16
#define AGG_GROUP_LOCATIONS 4096
int agg_tree_cap(int simulate);

void agg_tree_build(MPI_Comm comm, int cap, agg_tree *t);

/* An aggregator's children (their places among the aggregators), in the
 * order of their ranges: up to max of them; how many. */
int agg_tree_children(const agg_tree *t, int *children, int max);
/* An aggregator's parent's place, -1 for rank 0. */
int agg_tree_parent(const agg_tree *t);

/* Every member's bytes to its aggregator, member by member. At the
 * aggregator: blobs[i] (malloc'd; NULL where memory failed) of sizes[i]
 * bytes, its own copied. 0, or -1 where memory failed. */
int agg_tree_gather(const agg_tree *t, const void *mine, size_t bytes, void **blobs, size_t *sizes);

/* A message between aggregators: from a child (malloc'd into *buf, NULL
 * when memory failed: the message is taken all the same), to the parent. */
int agg_tree_recv(const agg_tree *t, int child, void **buf, size_t *len);
int agg_tree_send_up(const agg_tree *t, const void *buf, size_t len);

#endif
