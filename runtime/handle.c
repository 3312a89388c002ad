/*
 * handle.c - the memory behind pykrt's handles (contexts, modules, kernels,
 * streams, events), so that a destroyed handle is an error, not a
 * use-after-free.
 *
 * Every such object begins with a pk_obj header holding a magic number of
 * its kind, set when the object is made and cleared when it is destroyed;
 * every entry point that takes a handle checks it (pk_alive). For the check
 * itself to be defined behaviour on a destroyed handle, the object's memory
 * never goes back to malloc: it goes to a pool of its kind, first in first
 * out, and is reused only once PK_QUARANTINE other objects of that kind
 * were destroyed after it. Until then a stale handle reads a cleared magic
 * and its call fails with PYKRT_ERROR_INVALID_HANDLE; after that it may
 * name a newer object of the same kind (never freed memory, never another
 * kind), which is the caller's lookout (docs/runtime.md). The pools hold at
 * most the peak number of live objects plus the quarantine.
 *
 * A pointer that never was a handle is not caught: reading its magic is
 * already undefined.
 */
#include <stdlib.h>
#include <string.h>

#include "runtime.h"

/* Destroyed objects of a kind kept back before their memory is reused. */
#define PK_QUARANTINE 64

/* ORDER KIND: as enum pk_kind in runtime.h. */
static const struct {
    const char *name;
    size_t size;
} kinds[PK_KINDS] = {
    {"context", sizeof(struct pykrt_context)}, {"module", sizeof(struct pykrt_module)},
    {"kernel", sizeof(struct pykrt_kernel)},   {"stream", sizeof(struct pykrt_stream)},
    {"event", sizeof(struct pykrt_event)},     {"graph", sizeof(struct pykrt_graph)},
};

typedef struct pool {
    pthread_mutex_t lock;
    pk_obj *head, *tail; /* destroyed objects, oldest first */
    size_t count;
} pool;

static pool pools[PK_KINDS] = {
    {PTHREAD_MUTEX_INITIALIZER, NULL, NULL, 0}, {PTHREAD_MUTEX_INITIALIZER, NULL, NULL, 0},
    {PTHREAD_MUTEX_INITIALIZER, NULL, NULL, 0}, {PTHREAD_MUTEX_INITIALIZER, NULL, NULL, 0},
    {PTHREAD_MUTEX_INITIALIZER, NULL, NULL, 0}, {PTHREAD_MUTEX_INITIALIZER, NULL, NULL, 0},
};

/* "PK" and the kind: distinct per kind, never 0 (destroyed). */
static uint32_t magic(pk_kind kind)
{
    return 0x504b0000u | (uint32_t)(kind + 1);
}

void *pk_obj_new(pk_kind kind)
{
    pool *p = &pools[kind];
    pk_obj *o = NULL;
    pthread_mutex_lock(&p->lock);
    if (p->count > PK_QUARANTINE) {
        o = p->head;
        p->head = o->next;
        p->tail = p->head ? p->tail : NULL;
        p->count--;
    }
    pthread_mutex_unlock(&p->lock);
    if (!o && !(o = malloc(kinds[kind].size)))
        return NULL;
    memset(o, 0, kinds[kind].size);
    o->magic = magic(kind);
    return o;
}

void pk_obj_release(void *obj, pk_kind kind)
{
    pk_obj *o = obj;
    pool *p = &pools[kind];
    o->magic = 0;
    o->next = NULL;
    pthread_mutex_lock(&p->lock);
    if (p->tail)
        p->tail->next = o;
    else
        p->head = o;
    p->tail = o;
    p->count++;
    pthread_mutex_unlock(&p->lock);
}

bool pk_alive(const void *obj, pk_kind kind)
{
    return obj && ((const pk_obj *)obj)->magic == magic(kind);
}

pykrt_status pk_dead(const char *what, pk_kind kind)
{
    return pk_fail(PYKRT_ERROR_INVALID_HANDLE, "%s: the %s was destroyed, or is not a %s", what, kinds[kind].name,
                   kinds[kind].name);
}

size_t pk_pool_count(pk_kind kind)
{
    pthread_mutex_lock(&pools[kind].lock);
    size_t n = pools[kind].count;
    pthread_mutex_unlock(&pools[kind].lock);
    return n;
}
