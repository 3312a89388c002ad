/*
 * loops.c - a function's blocks in layout order, its loops and its
 * dominators, for the passes that run after the optimiser (sregs.c,
 * nounroll.c); and positions found by address (balance.c too).
 *
 * LLVM's C API has no loop analysis. After the optimiser a loop's header
 * is laid out before its latch (loop rotation keeps that order), so a
 * loop is a back edge: a branch from `latch` to a `header` at or before
 * it that the header reaches again through the blocks between them.
 */
#include "backend.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void *grab(size_t bytes) {
    void *p = malloc(bytes ? bytes : 1);
    if (!p) ice("out of memory finding a function's loops");
    return p;
}

static int by_address(const void *a, const void *b) {
    uintptr_t x = (uintptr_t)((const Placed *)a)->key, y = (uintptr_t)((const Placed *)b)->key;
    return (x > y) - (x < y);
}

void places_sort(Placed *places, int n) { qsort(places, (size_t)n, sizeof *places, by_address); }

int place_of(const Placed *places, int n, const void *key) {
    Placed probe = {key, 0};
    const Placed *p = bsearch(&probe, places, (size_t)n, sizeof probe, by_address);
    return p ? p->at : -1;
}

int layout_position(const Layout *l, LLVMBasicBlockRef block) { return place_of(l->by_block, l->count, block); }

/* Whether block position `to` is reached from `from` through blocks
 * between them: a branch back to a block is a loop's only then (a return
 * block laid out early is branched back to by no loop). */
static bool reaches_within(const Layout *l, int from, int to) {
    bool *seen = calloc((size_t)l->count, sizeof *seen);
    int *stack = grab(sizeof *stack * (size_t)l->count);
    if (!seen) ice("out of memory finding a function's loops");
    int top = 0;
    bool found = false;
    stack[top++] = from;
    seen[from] = true;
    while (top && !found) {
        LLVMValueRef term = LLVMGetBasicBlockTerminator(l->blocks[stack[--top]]);
        for (unsigned k = 0; term && k < LLVMGetNumSuccessors(term); k++) {
            int next = layout_position(l, LLVMGetSuccessor(term, k));
            if (next < from || next > to || seen[next]) continue;
            found |= next == to;
            seen[next] = true;
            stack[top++] = next;
        }
    }
    free(seen);
    free(stack);
    return found || from == to;
}

static void find_loops(Layout *l) {
    size_t edges = 0;
    for (int i = 0; i < l->count; i++) {
        LLVMValueRef term = LLVMGetBasicBlockTerminator(l->blocks[i]);
        edges += term ? LLVMGetNumSuccessors(term) : 0;
    }
    l->latch = grab(sizeof *l->latch * edges);
    l->header = grab(sizeof *l->header * edges);
    for (int i = 0; i < l->count; i++) {
        LLVMValueRef term = LLVMGetBasicBlockTerminator(l->blocks[i]);
        for (unsigned k = 0; term && k < LLVMGetNumSuccessors(term); k++) {
            int to = layout_position(l, LLVMGetSuccessor(term, k));
            if (to >= 0 && to <= i && reaches_within(l, to, i)) {
                l->latch[l->loop_count] = i;
                l->header[l->loop_count++] = to;
            }
        }
    }
}

/* Each block's position in a depth-first postorder from the entry (-1
 * where the entry does not reach it), into post; the blocks in that
 * order into order. Returns how many the entry reaches. */
static int postorder(const Layout *l, int *post, int *order) {
    int *stack = grab(sizeof *stack * (size_t)l->count);
    unsigned *next = calloc((size_t)l->count, sizeof *next);
    if (!next) ice("out of memory finding a function's dominators");
    for (int i = 0; i < l->count; i++) post[i] = -2; /* unvisited */
    int top = 0, done = 0;
    stack[top++] = 0;
    post[0] = -1;
    while (top) {
        int b = stack[top - 1];
        LLVMValueRef term = LLVMGetBasicBlockTerminator(l->blocks[b]);
        unsigned n = term ? LLVMGetNumSuccessors(term) : 0;
        if (next[b] < n) {
            int s = layout_position(l, LLVMGetSuccessor(term, next[b]++));
            if (s >= 0 && post[s] == -2) {
                post[s] = -1;
                stack[top++] = s;
            }
            continue;
        }
        order[done] = b;
        post[b] = done++;
        top--;
    }
    for (int i = 0; i < l->count; i++)
        if (post[i] == -2) post[i] = -1;
    free(stack);
    free(next);
    return done;
}

static int common_dominator(const int *idom, const int *post, int a, int b) {
    while (a != b) {
        while (post[a] < post[b]) a = idom[a];
        while (post[b] < post[a]) b = idom[b];
    }
    return a;
}

/* Each block's predecessors: those of block b are from[first[b]] up to
 * from[first[b + 1]]. */
typedef struct Preds {
    int *first, *from;
    int *fill; /* while they are placed: where each block's next goes */
} Preds;

/* Calls visit(from, to, p) for each edge between two blocks of l. */
static void each_edge(const Layout *l, void (*visit)(int from, int to, Preds *p), Preds *p) {
    for (int b = 0; b < l->count; b++) {
        LLVMValueRef term = LLVMGetBasicBlockTerminator(l->blocks[b]);
        for (unsigned k = 0; term && k < LLVMGetNumSuccessors(term); k++) {
            int s = layout_position(l, LLVMGetSuccessor(term, k));
            if (s >= 0) visit(b, s, p);
        }
    }
}

static void count_edge(int from, int to, Preds *p) { p->first[to + 1]++; }

static void place_edge(int from, int to, Preds *p) { p->from[p->fill[to]++] = from; }

static Preds predecessors(const Layout *l) {
    Preds p = {calloc((size_t)l->count + 1, sizeof(int)), NULL, NULL};
    if (!p.first) ice("out of memory finding a function's dominators");
    each_edge(l, count_edge, &p);
    for (int b = 0; b < l->count; b++) p.first[b + 1] += p.first[b];
    p.from = grab(sizeof *p.from * (size_t)p.first[l->count]);
    p.fill = grab(sizeof *p.fill * (size_t)l->count);
    memcpy(p.fill, p.first, sizeof *p.fill * (size_t)l->count);
    each_edge(l, place_edge, &p);
    free(p.fill);
    return p;
}

/* Immediate dominators by Cooper, Harvey and Kennedy's iteration over
 * reverse postorder: idom[entry] is the entry, -1 where unreached. */
static void find_dominators(Layout *l) {
    int *post = grab(sizeof *post * (size_t)l->count), *order = grab(sizeof *order * (size_t)l->count);
    l->idom = grab(sizeof *l->idom * (size_t)l->count);
    int reached = postorder(l, post, order);
    Preds preds = predecessors(l);
    for (int i = 0; i < l->count; i++) l->idom[i] = -1;
    l->idom[0] = 0;
    for (bool changed = true; changed;) {
        changed = false;
        for (int k = reached - 2; k >= 0; k--) { /* reverse postorder, the entry (last) left out */
            int b = order[k], idom = -1;
            for (int j = preds.first[b]; j < preds.first[b + 1]; j++) {
                int p = preds.from[j];
                if (l->idom[p] >= 0) idom = idom < 0 ? p : common_dominator(l->idom, post, p, idom);
            }
            if (idom != l->idom[b]) {
                l->idom[b] = idom;
                changed = true;
            }
        }
    }
    free(preds.first);
    free(preds.from);
    free(post);
    free(order);
}

Layout layout_of(LLVMValueRef fn) {
    Layout l = {0};
    l.count = (int)LLVMCountBasicBlocks(fn);
    l.blocks = grab(sizeof *l.blocks * (size_t)l.count);
    LLVMGetBasicBlocks(fn, l.blocks);
    l.by_block = grab(sizeof *l.by_block * (size_t)l.count);
    for (int i = 0; i < l.count; i++) l.by_block[i] = (Placed){l.blocks[i], i};
    places_sort(l.by_block, l.count);
    find_loops(&l);
    find_dominators(&l);
    return l;
}

void layout_free(Layout *l) {
    free(l->blocks);
    free(l->by_block);
    free(l->latch);
    free(l->header);
    free(l->idom);
}
