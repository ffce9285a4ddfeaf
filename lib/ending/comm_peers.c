#include "lib/ending/comm_peers.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

/* A communicator whose world ranks are base, base+1, ... (a duplicate of
 * MPI_COMM_WORLD, a split into blocks) keeps no array. The arrays of all
 * others together stay under MAX_RANKS_KEPT; past it a peer is said in the
 * communicator's own ranks. */
#define MAX_COMMS 1024
#define MAX_RANKS_KEPT (1 << 20)

typedef struct comm_entry {
    uint64_t key;
    int size, inter;
    int base;   /* >= 0: world rank of rank 0, the others following */
    int *world; /* else the world rank of each rank, or NULL: not known */
} comm_entry;

static comm_entry comms[MAX_COMMS];
static int ncomms, ranks_kept;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* The world ranks of comm's group (its remote group when inter) into
 * world[size]; 0 or -1. */
static int translate(MPI_Comm comm, int inter, int size, int *world)
{
    MPI_Group group, world_group;
    if ((inter ? PMPI_Comm_remote_group(comm, &group) : PMPI_Comm_group(comm, &group)) != MPI_SUCCESS)
        return -1;
    int rc = PMPI_Comm_group(MPI_COMM_WORLD, &world_group);
    if (rc == MPI_SUCCESS) {
        int *local = malloc((size_t)size * sizeof *local);
        for (int i = 0; local && i < size; i++)
            local[i] = i;
        rc = local ? PMPI_Group_translate_ranks(group, size, local, world_group, world) : -1;
        free(local);
        PMPI_Group_free(&world_group);
    }
    PMPI_Group_free(&group);
    return rc == MPI_SUCCESS ? 0 : -1;
}

static int is_run(const int *world, int size)
{
    for (int i = 0; i < size; i++)
        if (world[i] < 0 || world[i] != world[0] + i)
            return 0;
    return 1;
}

static comm_entry *find(uint64_t key)
{
    for (int i = 0; i < ncomms; i++)
        if (comms[i].key == key)
            return &comms[i];
    return NULL;
}

void comm_peers_note(MPI_Comm comm)
{
    int inter = 0, size = 0;
    if (comm == MPI_COMM_NULL || PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS ||
        (inter ? PMPI_Comm_remote_size(comm, &size) : PMPI_Comm_size(comm, &size)) != MPI_SUCCESS ||
        size <= 0)
        return;
    int *world = malloc((size_t)size * sizeof *world);
    if (world && translate(comm, inter, size, world) != 0) {
        free(world);
        world = NULL;
    }
    comm_entry e = { HPROF_COMM_KEY(comm), size, inter, -1, NULL };
    if (world && is_run(world, size))
        e.base = world[0];
    pthread_mutex_lock(&lock);
    comm_entry *slot = find(e.key);
    if (!slot && ncomms < MAX_COMMS)
        slot = &comms[ncomms++];
    if (slot) {
        if (e.base < 0 && world && ranks_kept + size <= MAX_RANKS_KEPT) {
            e.world = world, world = NULL;
            ranks_kept += size;
        }
        int *old = slot->world;
        if (old)
            ranks_kept -= slot->size;
        __atomic_store_n(&slot->world, NULL, __ATOMIC_RELEASE);
        slot->size = e.size, slot->inter = e.inter, slot->base = e.base, slot->key = e.key;
        __atomic_store_n(&slot->world, e.world, __ATOMIC_RELEASE);
        free(old);
    }
    pthread_mutex_unlock(&lock);
    free(world);
}

void comm_peers_forget(MPI_Comm comm)
{
    pthread_mutex_lock(&lock);
    comm_entry *e = find(HPROF_COMM_KEY(comm));
    if (e) {
        if (e->world)
            ranks_kept -= e->size;
        free(e->world);
        *e = comms[--ncomms];
        comms[ncomms] = (comm_entry){ 0 };
    }
    pthread_mutex_unlock(&lock);
}

int comm_peers_world_rank(uint64_t comm, int local)
{
    if (comm == HPROF_COMM_KEY(MPI_COMM_WORLD))
        return local;
    const comm_entry *e = find(comm);
    if (!e || local < 0 || local >= e->size)
        return -1;
    if (e->base >= 0)
        return e->base + local;
    return e->world ? e->world[local] : -1;
}

static void peer_word(uint64_t comm, const char *key, int peer, int is_source, char *buf, size_t len)
{
    size_t used = 0;
    for (; used < len && buf[used]; used++)
        ;
    if (peer == HPROF_NO_PEER || used >= len)
        return;
    int world = comm_peers_world_rank(comm, peer);
    if (peer == MPI_PROC_NULL)
        snprintf(buf + used, len - used, " %s=none", key);
    else if (is_source && peer == MPI_ANY_SOURCE)
        snprintf(buf + used, len - used, " %s=any", key);
    else if (world >= 0)
        snprintf(buf + used, len - used, " %s=%d", key, world);
    else
        snprintf(buf + used, len - used, " %s=local%d", key, peer);
}

static void tag_word(const char *key, int tag, char *buf, size_t len)
{
    size_t used = 0;
    for (; used < len && buf[used]; used++)
        ;
    if (tag == HPROF_NO_PEER || used >= len)
        return;
    if (tag == MPI_ANY_TAG)
        snprintf(buf + used, len - used, " %s=any", key);
    else
        snprintf(buf + used, len - used, " %s=%d", key, tag);
}

void comm_peers_describe(const char *fn, const hprof_call_where *where, char *buf, size_t len)
{
    if (len == 0)
        return;
    uint64_t c = where->comm;
    const comm_entry *e = find(c);
    char comm[32];
    if (c == HPROF_COMM_KEY(MPI_COMM_WORLD))
        snprintf(comm, sizeof comm, "world");
    else if (c == HPROF_COMM_KEY(MPI_COMM_SELF))
        snprintf(comm, sizeof comm, "self");
    else if (e)
        snprintf(comm, sizeof comm, "%s%d", e->inter ? "inter" : "size", e->size);
    else
        snprintf(comm, sizeof comm, "unknown");
    snprintf(buf, len, " fn=%s comm=%s", fn, comm);
    peer_word(c, "source", where->source, 1, buf, len);
    peer_word(c, "dest", where->dest, 0, buf, len);
    int both = where->send_tag != HPROF_NO_PEER && where->recv_tag != HPROF_NO_PEER;
    tag_word(both ? "sendtag" : "tag", where->send_tag, buf, len);
    tag_word(both ? "recvtag" : "tag", where->recv_tag, buf, len);
    peer_word(c, "root", where->root, 0, buf, len);
}
