/* py_lines: reads lines "FIRSTLINE HEX_TABLE UNIT:LINE ..." (stdin) and
 * checks py_line_at against each expected line; prints one ok/not ok line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unwind/python/py_lines.h"

static char buf[1 << 22];
static uint8_t table[1 << 20];

int main(void)
{
    long codes = 0, units = 0, bad = 0;
    char first_bad[256] = "";
    while (fgets(buf, sizeof buf, stdin)) {
        char *save, *tok = strtok_r(buf, " \n", &save);
        if (!tok)
            continue;
        int firstline = atoi(tok);
        char *hex = strtok_r(NULL, " \n", &save);
        size_t len = 0;
        for (char *h = hex; h && h[0] && h[1] && h[0] != '-'; h += 2)
            sscanf(h, "%2hhx", &table[len++]);
        codes++;
        while ((tok = strtok_r(NULL, " \n", &save))) {
            unsigned unit;
            int want;
            if (sscanf(tok, "%u:%d", &unit, &want) != 2)
                continue;
            units++;
            int got = py_line_at(table, len, firstline, unit);
            if (got != want && bad++ == 0)
                snprintf(first_bad, sizeof first_bad, "unit %u of a code at line %d: %d, Python says %d",
                         unit, firstline, got, want);
        }
    }
    if (codes == 0 || bad)
        printf("not ok - py_lines: %ld of %ld instructions in %ld code objects wrong; first: %s\n", bad,
               units, codes, first_bad);
    else
        printf("ok - py_lines: the line of every instruction of %ld code objects (%ld instructions) as "
               "Python's co_lines\n",
               codes, units);
    return 0;
}
