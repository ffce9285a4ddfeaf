/* cw_xml.c - XML escaping with UTF-8 validation. */
#include "report/cube/writer/cw_xml.h"

#include <string.h>

/* Length of the valid UTF-8 sequence at s, 0 if invalid. */
static size_t utf8_len(const unsigned char *s)
{
    unsigned c = s[0];
    size_t n;
    unsigned min;
    if (c < 0x80)
        return 1;
    if (c >= 0xc2 && c <= 0xdf)
        n = 2, min = 0x80;
    else if (c >= 0xe0 && c <= 0xef)
        n = 3, min = 0x800;
    else if (c >= 0xf0 && c <= 0xf4)
        n = 4, min = 0x10000;
    else
        return 0;
    unsigned cp = c & (0x3f >> (n - 1));
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) || cp == 0xfffe || cp == 0xffff)
        return 0;
    return n;
}

static const char *entity(unsigned char c)
{
    switch (c) {
    case '&': return "&amp;";
    case '<': return "&lt;";
    case '>': return "&gt;";
    case '"': return "&quot;";
    case '\'': return "&apos;";
    default: return NULL;
    }
}

/* Printable ASCII that needs no entity: most text is nothing else. */
static int plain(unsigned char c)
{
    return c >= 0x20 && c < 0x7f && c != '&' && c != '<' && c != '>' && c != '"' && c != '\'';
}

int cw_xml_text(cw_out *o, const char *s)
{
    if (!s)
        return 0;
    const unsigned char *p = (const unsigned char *)s, *run = p;
    while (*p) {
        if (plain(*p)) {
            p++;
            continue;
        }
        const char *ent = entity(*p);
        size_t n = utf8_len(p);
        int bad = n == 0 || (*p < 0x20 && *p != '\t' && *p != '\n' && *p != '\r');
        if (!ent && !bad) {
            p += n;
            continue;
        }
        if (cw_out_write(o, run, (size_t)(p - run)) < 0)
            return -1;
        if (cw_out_write(o, ent ? ent : "?", ent ? strlen(ent) : 1) < 0)
            return -1;
        p++;
        run = p;
    }
    return cw_out_write(o, run, (size_t)(p - run));
}

int cw_xml_elem(cw_out *o, const char *tag, const char *s)
{
    if (cw_out_printf(o, "<%s>", tag) < 0 || cw_xml_text(o, s) < 0)
        return -1;
    return cw_out_printf(o, "</%s>\n", tag);
}
