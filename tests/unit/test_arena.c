/* test_arena.c - the arena hands out zeroed, aligned memory and grows. */
#include "pykc.h"
#include "unit.h"

#include <stdint.h>

/* ARENA_GROW keeps the items, doubles from `first`, and leaves a
 * non-full array where it is. */
static void test_grow(Arena *a) {
    long *items = NULL;
    int count = 0, cap = 0;
    for (long i = 0; i < 100; i++) {
        ARENA_GROW(a, items, count, cap, 4);
        items[count++] = i * i;
    }
    bool kept = true;
    for (int i = 0; i < count; i++) kept = kept && items[i] == (long)i * i;
    ASSERT(kept);
    ASSERT(cap == 128);
    long *before = items;
    count = 50;
    ARENA_GROW(a, items, count, cap, 4);
    ASSERT(items == before && cap == 128);
}

void test_arena(void) {
    Arena a = {0};
    test_grow(&a);
    unsigned char *p = arena_alloc(&a, 10);
    ASSERT(p != NULL);
    ASSERT(((uintptr_t)p & 15) == 0);
    int zeros = 0;
    for (int i = 0; i < 10; i++) zeros += p[i] == 0;
    ASSERT(zeros == 10);
    char *big = arena_alloc(&a, 1 << 20);
    ASSERT(big != NULL && big[(1 << 20) - 1] == 0);
    ASSERT_STR("abc", arena_strndup(&a, "abcdef", 3));
    ASSERT_STR("x=42", arena_printf(&a, "x=%d", 42));
    Vec v = {0};
    int items[100];
    for (int i = 0; i < 100; i++) vec_push(&a, &v, &items[i]);
    ASSERT(v.len == 100 && v.items[99] == &items[99] && v.items[0] == &items[0]);
    ASSERT(a.used_bytes >= (1 << 20));
    arena_release(&a);
    ASSERT(a.blocks == NULL && a.used_bytes == 0);
}
