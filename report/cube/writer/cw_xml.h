/*
 * cw_xml.h - write text into XML safely: the five special characters
 * become entities, control characters that XML 1.0 forbids and bytes that
 * are not valid UTF-8 become '?', so any symbol name yields a parseable
 * anchor.xml.
 */
#ifndef HPROF_CW_XML_H
#define HPROF_CW_XML_H

#include "report/cube/writer/cw_out.h"

/* Escaped s (NULL writes nothing). */
int cw_xml_text(cw_out *o, const char *s);
/* <tag>escaped s</tag>\n */
int cw_xml_elem(cw_out *o, const char *tag, const char *s);

#endif
