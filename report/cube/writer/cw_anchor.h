/*
 * cw_anchor.h - write anchor.xml (Cube anchor syntax 4.4, as Score-P
 * writes it): attributes, the metric tree, regions, the call tree with
 * call sites (cnode line/mod attributes), and the system tree machine ->
 * node -> process -> thread.
 */
#ifndef HPROF_CW_ANCHOR_H
#define HPROF_CW_ANCHOR_H

#include "report/cube/writer/cube_defs.h"
#include "report/cube/writer/cw_order.h"
#include "report/cube/writer/cw_out.h"

/* metrics / cnodes: the forests of the definitions; a metric's and a
 * cnode's id in the file is its preorder position. */
int cw_anchor_write(cw_out *o, const cube_defs *d, const cw_forest *metrics, const cw_forest *cnodes);

#endif
