/*
 * arena.c - one bump allocator per compilation unit.
 *
 * Every node, token and string of a compilation is allocated here, zeroed,
 * and released in one call at the end. arena_alloc is the single allocation
 * hook of the compiler: the unit tests make its Nth call fail to check that
 * a failure is reported, and -DPYKC_ARENA_MALLOC turns each allocation into
 * its own malloc so AddressSanitizer sees every overrun.
 */
#include "pykc.h"

#include <stdlib.h>
#include <string.h>

enum { ARENA_ALIGN = 16 };
#define ARENA_BLOCK_SIZE ((size_t)64 * 1024)
#define ARENA_MAX_BLOCK_SIZE ((size_t)32 * 1024 * 1024)

struct ArenaBlock {
    ArenaBlock *next;
    void *adopted;          /* a malloc'd buffer to free with the arena */
    size_t size, used;
    _Alignas(ARENA_ALIGN) unsigned char data[];
};

static long fail_countdown;

void arena_fail_after(long n) { fail_countdown = n; }

static bool injected_failure(void) {
    return fail_countdown > 0 && --fail_countdown == 0;
}

/* Blocks grow with the arena (a quarter of what it holds, up to 32 MiB), so
 * that a 10 MB source is a few dozen blocks, not thousands. They come from
 * calloc, which knows that memory fresh from the system is zero already, so
 * large blocks cost no memset. */
static ArenaBlock *new_block(const Arena *a, size_t min_size) {
#ifdef PYKC_ARENA_MALLOC
    (void)a;
    size_t size = min_size;
#else
    size_t grow = a->used_bytes / 4;
    if (grow > ARENA_MAX_BLOCK_SIZE) grow = ARENA_MAX_BLOCK_SIZE;
    if (grow < ARENA_BLOCK_SIZE) grow = ARENA_BLOCK_SIZE;
    size_t size = min_size > grow ? min_size : grow;
#endif
    ArenaBlock *b = calloc(1, sizeof(ArenaBlock) + size);
    if (!b) return NULL;
    b->next = NULL;
    b->adopted = NULL;
    b->size = size;
    b->used = 0;
    return b;
}

void *arena_alloc(Arena *a, size_t size) {
    if (injected_failure()) ice("out of memory (injected failure)");
    size = (size + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
    if (size == 0) size = ARENA_ALIGN;
#ifdef PYKC_ARENA_MALLOC
    ArenaBlock *b = new_block(a, size);
    if (!b) ice("out of memory allocating %zu bytes", size);
    b->size = b->used = size;
    b->next = a->blocks;
    a->blocks = b;
    a->used_bytes += size;
    return b->data;
#else
    ArenaBlock *b = a->blocks;
    if (!b || b->size - b->used < size) {
        b = new_block(a, size);
        if (!b) ice("out of memory allocating %zu bytes", size);
        if (a->blocks && b->size == size) {
            /* A block of its own, behind the one being filled, whose room
             * is not abandoned for it. */
            b->used = size;
            b->next = a->blocks->next;
            a->blocks->next = b;
            a->used_bytes += size;
            return b->data;
        }
        b->next = a->blocks;
        a->blocks = b;
    }
    void *p = b->data + b->used;
    b->used += size;
    a->used_bytes += size;
    return p; /* zero: blocks are calloc'd and never reused */
#endif
}

char *arena_strndup(Arena *a, const char *s, size_t n) {
    char *p = arena_alloc(a, n + 1);
    memcpy(p, s, n);
    return p;
}

char *arena_strdup(Arena *a, const char *s) { return arena_strndup(a, s, strlen(s)); }

char *arena_printf(Arena *a, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *p = arena_alloc(a, (size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(p, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return p;
}

/* The adopted buffer rides on an empty block, placed second in the list so
 * that the block being filled stays first. */
void arena_adopt(Arena *a, void *p) {
    ArenaBlock *b = malloc(sizeof(ArenaBlock));
    if (!b) ice("out of memory adopting a buffer");
    *b = (ArenaBlock){.adopted = p};
    if (a->blocks) {
        b->next = a->blocks->next;
        a->blocks->next = b;
    } else {
        a->blocks = b;
    }
}

void arena_release(Arena *a) {
    for (ArenaBlock *b = a->blocks, *next; b; b = next) {
        next = b->next;
        free(b->adopted);
        free(b);
    }
    a->blocks = NULL;
    a->used_bytes = 0;
}

void *arena_grow(Arena *a, void *items, int count, int *cap, size_t item_size, int first) {
    if (count < *cap) return items;
    int grown_cap = *cap ? *cap * 2 : first;
    void *grown = arena_alloc(a, item_size * (size_t)grown_cap);
    if (count) memcpy(grown, items, item_size * (size_t)count);
    *cap = grown_cap;
    return grown;
}

void vec_push(Arena *a, Vec *v, void *item) {
    ARENA_GROW(a, v->items, v->len, v->cap, 4);
    v->items[v->len++] = item;
}
