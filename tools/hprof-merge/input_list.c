#include "tools/hprof-merge/input_list.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int add(input_list *l, const char *path, size_t len)
{
    if (l->n == l->cap) {
        int cap = l->cap ? 2 * l->cap : 256;
        char **v = realloc(l->paths, (size_t)cap * sizeof *v);
        if (!v)
            return -1;
        l->paths = v, l->cap = cap;
    }
    if (!(l->paths[l->n] = strndup(path, len)))
        return -1;
    l->n++;
    return 0;
}

/* NAME.rankR.cubex or NAME.rankR.S.cubex (R, S digits), as the partial
 * profiles are named (report/profile/fallback.h). */
static int partial_name(const char *name)
{
    size_t len = strlen(name);
    const char *r = strstr(name, ".rank");
    if (name[0] == '.' || !r || len < 6 || strcmp(name + len - 6, ".cubex") != 0)
        return 0;
    const char *p = r + 5;
    if (*p < '0' || *p > '9')
        return 0;
    while (p < name + len - 6 && ((*p >= '0' && *p <= '9') || *p == '.'))
        p++;
    return p == name + len - 6;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int add_folder(input_list *l, const char *dir, char *err, size_t errlen)
{
    DIR *d = opendir(dir);
    if (!d) {
        snprintf(err, errlen, "%s: %s", dir, strerror(errno));
        return -1;
    }
    int first = l->n, rc = 0;
    struct dirent *e;
    while (rc == 0 && (e = readdir(d)) != NULL) {
        if (!partial_name(e->d_name))
            continue;
        char path[8192];
        int len = snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        rc = len < (int)sizeof path ? add(l, path, (size_t)len) : 0;
        if (rc != 0)
            snprintf(err, errlen, "%s: out of memory", dir);
    }
    closedir(d);
    if (rc == 0 && l->n == first) {
        snprintf(err, errlen, "%s: a folder without partial profiles (NAME.rankR.cubex)", dir);
        return -1;
    }
    qsort(l->paths + first, (size_t)(l->n - first), sizeof *l->paths, by_name);
    return rc;
}

int input_list_add_arg(input_list *l, const char *arg, char *err, size_t errlen)
{
    struct stat st;
    if (stat(arg, &st) == 0 && S_ISDIR(st.st_mode))
        return add_folder(l, arg, err, errlen);
    if (add(l, arg, strlen(arg)) != 0) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    return 0;
}

int input_list_add_file(input_list *l, const char *list, char *err, size_t errlen)
{
    FILE *f = strcmp(list, "-") == 0 ? stdin : fopen(list, "r");
    if (!f) {
        snprintf(err, errlen, "%s: %s", list, strerror(errno));
        return -1;
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    int rc = 0;
    while (rc == 0 && (len = getline(&line, &cap, f)) >= 0) {
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
            len--;
        if (len > 0 && add(l, line, (size_t)len) != 0) {
            snprintf(err, errlen, "%s: out of memory", list);
            rc = -1;
        }
    }
    if (rc == 0 && ferror(f)) {
        snprintf(err, errlen, "%s: %s", list, strerror(errno));
        rc = -1;
    }
    free(line);
    if (f != stdin)
        fclose(f);
    return rc;
}

void input_list_free(input_list *l)
{
    for (int i = 0; i < l->n; i++)
        free(l->paths[i]);
    free(l->paths);
    l->paths = NULL;
    l->n = l->cap = 0;
}
