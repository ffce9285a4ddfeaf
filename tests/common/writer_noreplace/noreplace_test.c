/* noreplace_test.c - a profile name that must not be replaced and is taken
 * while the profile is written (two jobs started at once in one folder, a
 * job and the job it spawned): the commit moves on to the next free
 * numbered name, reports it, and both files keep their contents.
 *
 *   noreplace_test DIR     prints ok/not ok lines
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/cube/writer/cw_tmpfile.h"

static int failed;
static void check(int cond, const char *name, const char *why)
{
    printf("%s - writer no-replace: %s%s%s\n", cond ? "ok" : "not ok", name, cond ? "" : ": ",
           cond ? "" : why);
    failed |= !cond;
}

static void put(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static int holds(const char *path, const char *text)
{
    char buf[64] = "";
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    return strcmp(buf, text) == 0;
}

/* writes `text` to `target`, which the paths in `takers` (NULL-terminated)
 * take meanwhile; returns the commit's status, the reported name in got */
static int write_one(const char *target, int overwrite_ok, const char *const *takers, const char *text,
                     char *got, size_t len)
{
    cw_tmpfile t;
    char err[256] = "";
    snprintf(got, len, "%s", target);
    cw_tmp_report_name_to(got, len);
    if (cw_tmp_create(&t, target, overwrite_ok, err, sizeof err) != 0)
        return -1;
    if (write(t.fd, text, strlen(text)) != (ssize_t)strlen(text))
        return -1;
    for (int i = 0; takers && takers[i]; i++)
        put(takers[i], "other");
    int rc = cw_tmp_commit(&t, err, sizeof err);
    cw_tmp_report_name_to(NULL, 0);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    char p[8][4096], got[4096];
    const char *names[8] = { "hprof-app-2p.cubex", "hprof-app-2p.1.cubex", "x.cubex",   "x.1.cubex",
                             "x.2.cubex",          "named.cubex",          "r.3.cubex", "r.4.cubex" };
    for (int i = 0; i < 8; i++)
        snprintf(p[i], sizeof p[i], "%s/%s", argv[1], names[i]);

    const char *t1[] = { p[0], NULL };
    int rc = write_one(p[0], 0, t1, "mine", got, sizeof got);
    check(rc == 0 && strcmp(got, p[1]) == 0 && holds(p[0], "other") && holds(p[1], "mine"),
          "a name taken meanwhile: the next one (.1), both kept", got);

    const char *t2[] = { p[2], p[3], NULL };
    rc = write_one(p[2], 0, t2, "mine", got, sizeof got);
    check(rc == 0 && strcmp(got, p[4]) == 0 && holds(p[2], "other") && holds(p[3], "other") &&
              holds(p[4], "mine"),
          "it and .1 taken: .2", got);

    put(p[5], "old");
    const char *t3[] = { p[5], NULL };
    rc = write_one(p[5], 1, t3, "mine", got, sizeof got);
    check(rc == 0 && strcmp(got, p[5]) == 0 && holds(p[5], "mine"), "a name given to replace: replaced", got);

    char r1[4096], r2[4096];
    snprintf(r1, sizeof r1, "%s/r.1.cubex", argv[1]);
    snprintf(r2, sizeof r2, "%s/r.2.cubex", argv[1]);
    put(r1, "other"), put(r2, "other");
    const char *t4[] = { p[6], NULL };
    rc = write_one(p[6], 0, t4, "mine", got, sizeof got);
    check(rc == 0 && strcmp(got, p[7]) == 0 && holds(p[6], "other") && holds(p[7], "mine"),
          "a numbered name (.3) taken: the next free number (.4)", got);
    return failed;
}
