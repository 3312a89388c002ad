/*
 * loops.c - a function's blocks in layout order and its loops, for the
 * passes that run after the optimiser (sregs.c, nounroll.c).
 *
 * LLVM's C API has no loop analysis. After the optimiser a loop's header
 * is laid out before its latch (loop rotation keeps that order), so a
 * loop is a back edge: a branch from `latch` to a `header` at or before
 * it that the header reaches again through the blocks between them.
 */
#include "backend.h"

#include <stdint.h>
#include <stdlib.h>

static void *grab(size_t bytes) {
    void *p = malloc(bytes ? bytes : 1);
    if (!p) ice("out of memory finding a function's loops");
    return p;
}

static int by_address(const void *a, const void *b) {
    uintptr_t x = (uintptr_t)((const BlockAt *)a)->block, y = (uintptr_t)((const BlockAt *)b)->block;
    return (x > y) - (x < y);
}

int layout_position(const Layout *l, LLVMBasicBlockRef block) {
    BlockAt key = {block, 0};
    const BlockAt *p = bsearch(&key, l->by_block, (size_t)l->count, sizeof key, by_address);
    return p ? p->at : -1;
}

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

Layout layout_of(LLVMValueRef fn) {
    Layout l = {0};
    l.count = (int)LLVMCountBasicBlocks(fn);
    l.blocks = grab(sizeof *l.blocks * (size_t)l.count);
    LLVMGetBasicBlocks(fn, l.blocks);
    l.by_block = grab(sizeof *l.by_block * (size_t)l.count);
    for (int i = 0; i < l.count; i++) l.by_block[i] = (BlockAt){l.blocks[i], i};
    qsort(l.by_block, (size_t)l.count, sizeof *l.by_block, by_address);
    find_loops(&l);
    return l;
}

void layout_free(Layout *l) {
    free(l->blocks);
    free(l->by_block);
    free(l->latch);
    free(l->header);
}
