/* view_html.h - the HTML page around the data (view_html_template.c is
 * generated from html/report.html by html/embed.py). */
#ifndef HPROF_VIEW_HTML_H
#define HPROF_VIEW_HTML_H

extern const char view_html_head[];
extern const char view_html_tail[];

#endif
