/*
 * sregs.c - special registers read again in the blocks that use them.
 *
 * The optimiser merges every read of %tid.x (and %ctaid.x, %ntid.x ...)
 * into one at the kernel's entry, with its widening to 64 bits. A read
 * used both before and after a loop then stays live across the loop, in
 * two registers once widened, and ptxas does not read the register again
 * to spare them: reduce_tree_f64's index into its shared array, used after
 * its grid-stride loop, took it to 34 registers, so 6 blocks of 256
 * threads on a multiprocessor where 32 let 8. After the optimiser, each
 * block that uses such a read, or its widening, past a loop that the read
 * precedes gets a read of its own: a special register's read (S2R, or a
 * constant load for the dimensions) costs less than a register held
 * through a loop. Blocks with no loop between them and the read keep it.
 */
#include "backend.h"

#include <llvm-c/Core.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char sreg_prefix[] = "llvm.nvvm.read.ptx.sreg.";

/* The special register that v reads (tid.x, ctaid.y, ntid.z, nctaid.x,
 * laneid), or NULL. */
static const char *special_read(LLVMValueRef v) {
    if (!LLVMIsACallInst(v)) return NULL;
    LLVMValueRef callee = LLVMGetCalledValue(v);
    size_t len;
    const char *name = callee ? LLVMGetValueName2(callee, &len) : "";
    if (strncmp(name, sreg_prefix, sizeof sreg_prefix - 1) != 0) return NULL;
    name += sizeof sreg_prefix - 1;
    static const char *const regs[] = {"tid.", "ctaid.", "ntid.", "nctaid.", "laneid"};
    for (size_t i = 0; i < sizeof regs / sizeof regs[0]; i++)
        if (strncmp(name, regs[i], strlen(regs[i])) == 0) return name;
    return NULL;
}

static bool is_widening(LLVMValueRef v) {
    if (!LLVMIsAInstruction(v)) return false;
    LLVMOpcode op = LLVMGetInstructionOpcode(v);
    return op == LLVMZExt || op == LLVMSExt;
}

static void *grab(size_t bytes) {
    void *p = malloc(bytes ? bytes : 1);
    if (!p) ice("out of memory rematerialising special registers");
    return p;
}

/* The users of v, collected before any is changed. */
static LLVMValueRef *users_of(LLVMValueRef v, int *n) {
    int count = 0;
    for (LLVMUseRef u = LLVMGetFirstUse(v); u; u = LLVMGetNextUse(u)) count++;
    LLVMValueRef *users = grab(sizeof *users * (size_t)count);
    count = 0;
    for (LLVMUseRef u = LLVMGetFirstUse(v); u; u = LLVMGetNextUse(u)) users[count++] = LLVMGetUser(u);
    *n = count;
    return users;
}

/* Copies made again (of a read, or of its widening), by block. One made
 * at a block's start serves the whole block; one made before its
 * terminator (a loop's preheader) only that. */
typedef struct Copy {
    LLVMBasicBlockRef block;
    bool at_start;
    LLVMValueRef value;
} Copy;

typedef struct Remade {
    Copy *copies;
    int count, capacity;
} Remade;

static LLVMValueRef remade_before(const Remade *made, LLVMValueRef at) {
    LLVMBasicBlockRef block = LLVMGetInstructionParent(at);
    bool at_end = LLVMIsATerminatorInst(at) != NULL;
    for (int k = 0; k < made->count; k++)
        if (made->copies[k].block == block && (made->copies[k].at_start || at_end)) return made->copies[k].value;
    return NULL;
}

static void remember(Remade *made, LLVMValueRef at, LLVMValueRef copy) {
    if (made->count == made->capacity) {
        made->capacity = made->capacity ? 2 * made->capacity : 4;
        made->copies = realloc(made->copies, sizeof *made->copies * (size_t)made->capacity);
        if (!made->copies) ice("out of memory rematerialising special registers");
    }
    made->copies[made->count++] = (Copy){LLVMGetInstructionParent(at), !LLVMIsATerminatorInst(at), copy};
}

/* read made again before `at`, or the copy made earlier that serves
 * there. The read again is a `mov` of inline PTX: the back end's machine
 * CSE would merge a second call of the intrinsic into the first. */
static LLVMValueRef plain_read_at(LLVMBuilderRef b, Remade *made, LLVMValueRef at, LLVMValueRef read) {
    LLVMValueRef copy = remade_before(made, at);
    if (copy) return copy;
    LLVMPositionBuilderBefore(b, at);
    char text[64];
    snprintf(text, sizeof text, "mov.u32 $0, %%%s;", special_read(read));
    LLVMTypeRef type = LLVMFunctionType(LLVMTypeOf(read), NULL, 0, false);
    LLVMValueRef mov = LLVMGetInlineAsm(type, text, strlen(text), "=r", 2, false, false, LLVMInlineAsmDialectATT, false);
    copy = LLVMBuildCall2(b, type, mov, NULL, 0, "");
    remember(made, at, copy);
    return copy;
}

/* The widening `wide` of read made again before `at`, right after the
 * read made again that serves there, or the copy made earlier that does. */
static LLVMValueRef wide_at(LLVMBuilderRef b, Remade *wides, Remade *reads, LLVMValueRef at, LLVMValueRef read,
                            LLVMValueRef wide) {
    LLVMValueRef copy = remade_before(wides, at);
    if (copy) return copy;
    LLVMValueRef plain = plain_read_at(b, reads, at, read);
    copy = LLVMInstructionClone(wide);
    LLVMSetOperand(copy, 0, plain);
    LLVMPositionBuilderBefore(b, LLVMGetNextInstruction(plain));
    LLVMInsertIntoBuilder(b, copy);
    remember(wides, at, copy);
    return copy;
}

/* Whether a loop lies between block positions `from` and `to`: it begins
 * after the one and branches back before the other. */
static bool loop_between(const Layout *l, int from, int to) {
    for (int i = 0; i < l->loop_count; i++)
        if (l->header[i] > from && l->latch[i] < to) return true;
    return false;
}

/* The one predecessor of the loop that begins at block position header
 * from outside it, or -1. */
static int preheader(const Layout *l, int header) {
    int found = -1;
    for (int i = 0; i < header; i++) {
        LLVMValueRef term = LLVMGetBasicBlockTerminator(l->blocks[i]);
        for (unsigned k = 0; term && k < LLVMGetNumSuccessors(term); k++)
            if (LLVMGetSuccessor(term, k) == l->blocks[header]) {
                if (found >= 0 && found != i) return -1;
                found = i;
            }
    }
    return found;
}

static LLVMValueRef block_start(LLVMBasicBlockRef block) {
    LLVMValueRef first = LLVMGetFirstInstruction(block);
    while (first && LLVMIsAPHINode(first)) first = LLVMGetNextInstruction(first);
    return first;
}

/* The highest block that dominates block position `at` with a loop
 * between home and it and none between it and at: one read there serves
 * every use below it, as far as the next loop. */
static int highest_after_loop(const Layout *l, int home, int at) {
    int d = at;
    for (int up = l->idom[d]; up >= 0 && up != d; d = up, up = l->idom[d])
        if (up > at || !loop_between(l, home, up) || loop_between(l, up, at)) break;
    return d;
}

/* Where a use in block position `at` reads again what block position
 * `home` read: at the start of the highest block past the loop that
 * dominates the use, or, for a use inside a loop that begins after home,
 * before the end of the loop's preheader (or at the start of a block
 * above it), so that the loop reads it once; NULL where no loop lies
 * between home and that place. */
static LLVMValueRef read_place(const Layout *l, int home, int at) {
    int header = -1;
    for (int i = 0; i < l->loop_count; i++)
        if (l->header[i] > home && l->header[i] <= at && at <= l->latch[i] && (header < 0 || l->header[i] < header))
            header = l->header[i];
    int before = header >= 0 ? preheader(l, header) : -1;
    int place = before >= 0 ? before : at;
    if (!loop_between(l, home, place)) return NULL;
    int d = highest_after_loop(l, home, place);
    if (d == before) return LLVMGetBasicBlockTerminator(l->blocks[before]);
    return block_start(l->blocks[d]);
}

/* Gives each user of v (read itself, or its widening `wide`) past a loop
 * that v precedes a copy made in a block that dominates it or its loop's
 * preheader, one a place. A phi's use belongs to its incoming edge: it is
 * left as it is. */
static void localise(LLVMBuilderRef b, const Layout *l, Remade *reads, LLVMValueRef v, LLVMValueRef read,
                     LLVMValueRef wide) {
    int n;
    LLVMValueRef *users = users_of(v, &n);
    int home = layout_position(l, LLVMGetInstructionParent(v));
    Remade wides = {0};
    for (int i = 0; i < n; i++) {
        if (LLVMIsAPHINode(users[i]) || (!wide && is_widening(users[i]))) continue;
        LLVMValueRef at = read_place(l, home, layout_position(l, LLVMGetInstructionParent(users[i])));
        if (!at) continue;
        LLVMValueRef copy = wide ? wide_at(b, &wides, reads, at, read, wide) : plain_read_at(b, reads, at, read);
        for (int op = 0; op < LLVMGetNumOperands(users[i]); op++)
            if (LLVMGetOperand(users[i], (unsigned)op) == v) LLVMSetOperand(users[i], (unsigned)op, copy);
    }
    free(users);
    free(wides.copies);
}

static void remat_reads(LLVMBuilderRef b, const Layout *l, LLVMValueRef read) {
    int n;
    LLVMValueRef *users = users_of(read, &n);
    Remade remade = {0};
    for (int i = 0; i < n; i++)
        if (is_widening(users[i])) localise(b, l, &remade, users[i], read, users[i]);
    free(users);
    localise(b, l, &remade, read, read, NULL);
    free(remade.copies);
}

void remat_special_registers(LLVMModuleRef m) {
    LLVMBuilderRef b = LLVMCreateBuilderInContext(LLVMGetModuleContext(m));
    for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn; fn = LLVMGetNextFunction(fn)) {
        int n = 0;
        for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
            for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i)) n += special_read(i) != NULL;
        Layout l = n ? layout_of(fn) : (Layout){0};
        if (!l.loop_count) {
            layout_free(&l);
            continue;
        }
        LLVMValueRef *reads = grab(sizeof *reads * (size_t)n);
        n = 0;
        for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
            for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i))
                if (special_read(i)) reads[n++] = i;
        for (int k = 0; k < n; k++) remat_reads(b, &l, reads[k]);
        free(reads);
        layout_free(&l);
    }
    LLVMDisposeBuilder(b);
}
