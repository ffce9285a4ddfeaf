/*
 * layout_tree.h - the layout of the merge's ranks (layout_msg.h) to rank
 * 0 along the aggregators' tree (agg_tree.h): each member's record to
 * its aggregator, each aggregator's block (its group's records, then its
 * children's blocks in the order of their ranges) up to its parent in
 * one message. Rank 0 takes at most its group's members and its
 * children's messages, not one message a rank.
 */
#ifndef HPROF_LAYOUT_TREE_H
#define HPROF_LAYOUT_TREE_H

#include "report/merge/agg_tree.h"
#include "report/merge/layout_msg.h"

/* Collective over t's communicator. b: this rank's block of its own
 * record (or a failed one); at rank 0 on return every rank's records in
 * rank order, or a block that says it failed. 0, or -1 where this rank's
 * part failed (every message is taken and sent all the same). */
int layout_tree_gather(const agg_tree *t, layout_block *b);

#endif
