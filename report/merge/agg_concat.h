/*
 * agg_concat.h - a fixed-size record from each of the first ranks to rank
 * 0, in rank order, along the aggregators' tree (agg_tree.h): each member
 * to its aggregator, each aggregator's range (its group's records, then
 * its children's ranges in order) up in one message. Rank 0 takes at most
 * its group's members and its children's messages, not one message a
 * rank: under Open MPI every rank that first talks to rank 0 costs rank 0
 * some 30 KB of the library's per-peer state.
 */
#ifndef HPROF_AGG_CONCAT_H
#define HPROF_AGG_CONCAT_H

#include <stddef.h>

#include "report/merge/agg_tree.h"

/* Collective over t's communicator. Ranks below `first` give their `rec`
 * bytes at mine, the others none. At rank 0 on return: a malloc'd array
 * of first x rec bytes (first capped at the ranks there are), rank by
 * rank; NULL where a rank's part was lost (memory) or elsewhere. */
void *agg_concat_records(const agg_tree *t, const void *mine, size_t rec, int first);

#endif
