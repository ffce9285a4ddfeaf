/*
 * cr_anchor.h - parse anchor.xml (CUBE 4.x definitions) with expat into a
 * cube_profile: metrics, regions, call tree with call sites, system tree.
 */
#ifndef HPROF_CR_ANCHOR_H
#define HPROF_CR_ANCHOR_H

#include <stddef.h>
#include "report/cube/reader/cube_model.h"

/* Fills p's definitions from the XML text. Returns 0, or -1 with a reason. */
int cr_anchor_parse(cube_profile *p, const char *xml, size_t len, char *err, size_t errlen);

#endif
