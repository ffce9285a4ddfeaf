/* view_html.h - the HTML page around the data (build/tools/gen/
 * view_html_template.c, generated from html/report.html by html/embed.py
 * at build time). */
#ifndef HPROF_VIEW_HTML_H
#define HPROF_VIEW_HTML_H

extern const char view_html_head[];
extern const char view_html_tail[];

#endif
