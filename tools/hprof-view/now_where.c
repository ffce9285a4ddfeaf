#include "tools/hprof-view/now_where.h"

#include <stdlib.h>
#include <string.h>

#include "tools/hprof-view/view.h"

/* One "KEY=VALUE" word of an entry into its field. */
static void take_word(now_call *c, const char *w, size_t n)
{
    static const struct {
        const char *key;
        size_t off, len;
    } fields[] = {
        { "fn", offsetof(now_call, fn), sizeof c->fn },
        { "comm", offsetof(now_call, comm), NOW_WORD },
        { "source", offsetof(now_call, source), NOW_WORD },
        { "dest", offsetof(now_call, dest), NOW_WORD },
        { "tag", offsetof(now_call, tag), NOW_WORD },
        { "sendtag", offsetof(now_call, sendtag), NOW_WORD },
        { "recvtag", offsetof(now_call, recvtag), NOW_WORD },
        { "root", offsetof(now_call, root), NOW_WORD },
    };
    const char *eq = memchr(w, '=', n);
    if (!eq)
        return;
    size_t klen = (size_t)(eq - w), vlen = n - klen - 1;
    for (size_t i = 0; i < sizeof fields / sizeof *fields; i++) {
        if (strlen(fields[i].key) != klen || strncmp(fields[i].key, w, klen) != 0)
            continue;
        char *dst = (char *)c + fields[i].off;
        size_t m = vlen < fields[i].len - 1 ? vlen : fields[i].len - 1;
        memcpy(dst, eq + 1, m);
        dst[m] = '\0';
    }
}

/* "R.T word word ..." (up to its ';') into c: 0, or -1 when it is no entry. */
static int parse_entry(const char *s, size_t n, now_call *c)
{
    memset(c, 0, sizeof *c);
    char *end;
    long rank = strtol(s, &end, 10);
    if (end == s || *end != '.' || rank < 0 || rank > 1 << 30)
        return -1;
    const char *t = end + 1;
    long thread = strtol(t, &end, 10);
    if (end == t || thread < 0 || thread > 1 << 20 || (size_t)(end - s) > n)
        return -1;
    c->rank = (int)rank, c->thread = (int)thread;
    const char *p = end, *stop = s + n;
    while (p < stop) {
        while (p < stop && *p == ' ')
            p++;
        const char *w = p;
        while (p < stop && *p != ' ')
            p++;
        if (p > w)
            take_word(c, w, (size_t)(p - w));
    }
    return c->fn[0] ? 0 : -1;
}

int now_calls_read(const cube_profile *p, now_calls *out)
{
    out->v = NULL, out->n = 0;
    const char *all = cube_attr_get(p, "hprof::now");
    if (!all)
        return 0;
    size_t cap = 1;
    for (const char *s = all; *s; s++)
        cap += *s == ';';
    out->v = calloc(cap, sizeof *out->v);
    if (!out->v)
        return -1;
    for (const char *s = all; *s;) {
        size_t n = strcspn(s, ";");
        if (out->n < (int)cap && parse_entry(s, n, &out->v[out->n]) == 0)
            out->n++;
        s += n;
        while (*s == ';' || *s == ' ')
            s++;
    }
    return 0;
}

void now_calls_free(now_calls *c)
{
    free(c->v);
    c->v = NULL, c->n = 0;
}

const now_call *now_calls_find(const now_calls *c, int rank, int thread)
{
    for (int i = 0; i < c->n; i++)
        if (c->v[i].rank == rank && c->v[i].thread == thread)
            return &c->v[i];
    return NULL;
}

int now_peer_rank(const char *word)
{
    if (!word[0] || strspn(word, "0123456789") != strlen(word))
        return -1;
    return atoi(word);
}

/* ", source 2" or ", any source" of one peer word. */
static void peer_text(const char *name, const char *w, char *buf, size_t len, size_t *used)
{
    if (!w[0] || *used >= len)
        return;
    const char *sep = *used ? ", " : "";
    if (strcmp(w, "any") == 0)
        *used += (size_t)snprintf(buf + *used, len - *used, "%sany %s", sep, name);
    else if (strcmp(w, "none") == 0)
        *used += (size_t)snprintf(buf + *used, len - *used, "%s%s MPI_PROC_NULL", sep, name);
    else if (strncmp(w, "local", 5) == 0)
        *used += (size_t)snprintf(buf + *used, len - *used, "%s%s %s of its communicator", sep, name, w + 5);
    else
        *used += (size_t)snprintf(buf + *used, len - *used, "%s%s %s", sep, name, w);
}

void now_call_text(const now_call *c, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    if (!c)
        return;
    peer_text("source", c->source, buf, len, &used);
    peer_text("dest", c->dest, buf, len, &used);
    peer_text("tag", c->tag, buf, len, &used);
    peer_text("send tag", c->sendtag, buf, len, &used);
    peer_text("receive tag", c->recvtag, buf, len, &used);
    peer_text("root", c->root, buf, len, &used);
    const char *sep = used ? ", " : "";
    if (used >= len || strcmp(c->comm, "world") == 0)
        return;
    if (strcmp(c->comm, "self") == 0)
        snprintf(buf + used, len - used, "%sMPI_COMM_SELF", sep);
    else if (strncmp(c->comm, "size", 4) == 0)
        snprintf(buf + used, len - used, "%son a communicator of %s ranks", sep, c->comm + 4);
    else if (strncmp(c->comm, "inter", 5) == 0)
        snprintf(buf + used, len - used, "%son an intercommunicator, remote group of %s", sep, c->comm + 5);
    else
        snprintf(buf + used, len - used, "%son a communicator hprof did not see made", sep);
}

static void json_word(FILE *out, const char *key, const char *w)
{
    if (!w[0])
        return;
    fprintf(out, ", \"%s\": ", key);
    if (now_peer_rank(w) >= 0)
        fputs(w, out);
    else
        view_print_json_string(out, w);
}

void now_call_json(const now_call *c, FILE *out)
{
    if (!c)
        return;
    fputs(", \"mpi\": {\"function\": ", out);
    view_print_json_string(out, c->fn);
    json_word(out, "comm", c->comm);
    json_word(out, "source", c->source);
    json_word(out, "dest", c->dest);
    json_word(out, "tag", c->tag);
    json_word(out, "sendtag", c->sendtag);
    json_word(out, "recvtag", c->recvtag);
    json_word(out, "root", c->root);
    fputs("}", out);
}

void now_ranks_text(const int *v, int n, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < n && used < len; i++) {
        int j = i;
        while (j + 1 < n && v[j + 1] == v[j] + 1)
            j++;
        used +=
            (size_t)snprintf(buf + used, len - used, j > i ? "%s%d-%d" : "%s%d", i ? ", " : "", v[i], v[j]);
        i = j;
    }
}
