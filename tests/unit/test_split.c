/* test_split.c - kernels compiled on several threads: how split_kernels cuts
 * runs, and split_compile joining the PTX of modules built here (a module
 * constant that two pieces share is written once; internal names of later
 * pieces get their suffix; two different definitions of one external name
 * are refused as a clash, for the caller to compile the module whole);
 * how much work a kernel is, and cutting a module down to some kernels. */
#include "pykc.h"
#include "unit.h"

#include <llvm-c/Analysis.h>
#include <llvm-c/Core.h>

#include <stdlib.h>

static bool same_runs(const int *got, int count, const int *want, int want_count) {
    if (count != want_count) return false;
    for (int i = 0; i < count; i++)
        if (got[i] != want[i]) return false;
    return true;
}

static void test_cuts(void) {
    int firsts[SPLIT_MAX_PIECES];
    int even[] = {10, 10, 10, 10};
    ASSERT(same_runs(firsts, split_kernels(even, 4, 2, firsts), (int[]){0, 2}, 2));
    ASSERT(same_runs(firsts, split_kernels(even, 4, 4, firsts), (int[]){0, 1, 2, 3}, 4));
    ASSERT(same_runs(firsts, split_kernels(even, 4, 9, firsts), (int[]){0, 1, 2, 3}, 4)); /* a kernel a piece at most */
    ASSERT(same_runs(firsts, split_kernels(even, 4, 0, firsts), (int[]){0}, 1));
    ASSERT(same_runs(firsts, split_kernels(even, 4, 1, firsts), (int[]){0}, 1));
    int big_first[] = {100, 10, 10, 10};
    ASSERT(same_runs(firsts, split_kernels(big_first, 4, 2, firsts), (int[]){0, 1}, 2));
    int big_last[] = {10, 10, 10, 100};
    ASSERT(same_runs(firsts, split_kernels(big_last, 4, 2, firsts), (int[]){0, 3}, 2));
    /* three pieces, none left empty even when the first holds most */
    int skewed[] = {1000, 1, 1};
    ASSERT(same_runs(firsts, split_kernels(skewed, 3, 3, firsts), (int[]){0, 1, 2}, 3));
}

/* A module with one kernel `name` that stores the external constant TABLE
 * (initialised to table_value) and the internal global `local` into its
 * argument. */
static LLVMModuleRef piece_module(LLVMContextRef ctx, const char *name, int table_value) {
    TargetConfig cfg = {.arch = "sm_75", .opt_level = 3};
    LLVMModuleRef m = LLVMModuleCreateWithNameInContext("piece", ctx);
    Diag d;
    diag_init(&d, stderr);
    target_prepare_module(m, &cfg, &d);
    diag_free(&d);
    LLVMTypeRef i32 = LLVMInt32TypeInContext(ctx);
    LLVMValueRef table = LLVMAddGlobalInAddressSpace(m, i32, "TABLE", 4);
    LLVMSetInitializer(table, LLVMConstInt(i32, (unsigned long long)table_value, false));
    LLVMSetGlobalConstant(table, true);
    LLVMValueRef local = LLVMAddGlobalInAddressSpace(m, i32, "local", 1);
    LLVMSetInitializer(local, LLVMConstInt(i32, 7, false));
    LLVMSetLinkage(local, LLVMInternalLinkage);
    LLVMTypeRef ptr = LLVMPointerTypeInContext(ctx, 1);
    LLVMValueRef k = LLVMAddFunction(m, name, LLVMFunctionType(LLVMVoidTypeInContext(ctx), &ptr, 1, false));
    LLVMSetFunctionCallConv(k, LLVMPTXKernelCallConv);
    LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
    LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(ctx, k, "entry"));
    LLVMValueRef l = LLVMBuildLoad2(b, i32, local, "l");
    LLVMSetVolatile(l, true);
    LLVMValueRef sum = LLVMBuildAdd(b, LLVMBuildLoad2(b, i32, table, "t"), l, "s");
    LLVMSetVolatile(LLVMBuildStore(b, sum, LLVMGetParam(k, 0)), true);
    LLVMBuildRetVoid(b);
    LLVMDisposeBuilder(b);
    return m;
}

static void count_run(void *arg) { ++*(int *)arg; }

/* Builds the second piece's module, as codegen builds a run's: on the
 * thread that compiles it. Fails, with an error, when table_value is 0. */
typedef struct SecondPiece {
    int table_value, builds, piece;
    Diag *d;
} SecondPiece;

static LLVMModuleRef build_second(void *arg, int piece) {
    SecondPiece *s = arg;
    s->builds++;
    s->piece = piece;
    if (s->table_value == 0) {
        diag_plain(s->d, DIAG_ERROR, "the second piece does not build");
        return NULL;
    }
    return piece_module(LLVMContextCreate(), "second", s->table_value);
}

static SplitResult compile_pieces(int table0, int table1, char **ptx) {
    TargetConfig cfg = {.arch = "sm_75", .opt_level = 3};
    LLVMModuleRef modules[2] = {piece_module(LLVMContextCreate(), "first", table0), NULL};
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    Diag d;
    diag_init(&d, out);
    size_t ptx_len = 0;
    char version[8];
    *ptx = NULL;
    TargetConfig cfgs[2] = {cfg, cfg};
    /* the second goes first: the join keeps module order all the same */
    int runs = 0;
    IdleTask idle = {count_run, &runs, false};
    SecondPiece second = {.table_value = table1, .d = &d};
    ModuleBuilder builder = {build_second, &second};
    SplitResult r = split_compile(modules, &builder, cfgs, (long[]){1, 2}, 2, 2, &idle, ptx, &ptx_len, version, &d);
    ASSERT(runs == 1 && idle.done);                 /* the idle task ran, once */
    ASSERT(second.builds == 1 && second.piece == 1); /* the module left out was built */
    int errors = d.error_count;
    diag_free(&d);
    fclose(out);
    if (table1 == 0) {
        /* its error given once, counted once */
        ASSERT(r == SPLIT_FAILED && errors == 1 && text && strstr(text, "does not build"));
    } else {
        ASSERT(len == 0); /* no diagnostics */
    }
    free(text);
    if (r == SPLIT_OK) ASSERT(*ptx && strlen(*ptx) == ptx_len && strcmp(version, "6.3") == 0);
    return r;
}

static int count_of(const char *text, const char *s) {
    int n = 0;
    for (const char *p = text; (p = strstr(p, s)); p += strlen(s)) n++;
    return n;
}

/* The pieces go out the most work first, ties in index order. */
static void test_order(void) {
    int order[5];
    split_order((long[]){3, 9, 3, 12, 1}, 5, order);
    ASSERT(order[0] == 3 && order[1] == 1 && order[2] == 0 && order[3] == 2 && order[4] == 4);
    split_order((long[]){4}, 1, order);
    ASSERT(order[0] == 0);
}

static void test_join(void) {
    char *ptx;
    ASSERT(compile_pieces(5, 5, &ptx) == SPLIT_OK);
    if (ptx) {
        ASSERT(count_of(ptx, ".version") == 1 && count_of(ptx, ".target sm_75") == 1);
        ASSERT(count_of(ptx, ".visible .entry first(") == 1 && count_of(ptx, ".visible .entry second(") == 1);
        ASSERT(count_of(ptx, ".visible .const .align 4 .u32 TABLE = 5;") == 1);
        ASSERT(count_of(ptx, ".global .align 4 .u32 local = 7;") == 1);
        ASSERT(count_of(ptx, ".global .align 4 .u32 local$p1 = 7;") == 1);
        ASSERT(strstr(ptx, ".entry first(") < strstr(ptx, ".entry second(")); /* in order */
    }
    free(ptx);
    ASSERT(compile_pieces(5, 6, &ptx) == SPLIT_CLASH); /* TABLE = 5 and TABLE = 6 */
    ASSERT(ptx == NULL);
    ASSERT(compile_pieces(5, 0, &ptx) == SPLIT_FAILED);
    ASSERT(ptx == NULL);
}

/* fn's entry block, with `adds` additions of its first parameter, then a
 * call of each callee with that value, then the return. */
static void fill(LLVMContextRef ctx, LLVMValueRef fn, int adds, LLVMValueRef *callees, int n) {
    LLVMTypeRef i32 = LLVMInt32TypeInContext(ctx);
    LLVMTypeRef callee_type = LLVMFunctionType(i32, &i32, 1, false);
    LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
    LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(ctx, fn, "entry"));
    LLVMValueRef v = LLVMGetParam(fn, 0);
    for (int i = 0; i < adds; i++) v = LLVMBuildAdd(b, v, LLVMGetParam(fn, 0), "");
    for (int i = 0; i < n; i++) v = LLVMBuildCall2(b, callee_type, callees[i], &v, 1, "");
    if (LLVMGetReturnType(LLVMGlobalGetValueType(fn)) == i32) LLVMBuildRet(b, v);
    else LLVMBuildRetVoid(b);
    LLVMDisposeBuilder(b);
}

/* How big a kernel is, with what it calls, and cutting a module down to
 * some of its kernels: a kernel `small` that calls device function `helper`
 * twice over and libdevice's __nv_sinf, beside a kernel `big`. */
static void test_sizes_and_drops(void) {
    LLVMContextRef ctx = LLVMContextCreate();
    LLVMModuleRef m = LLVMModuleCreateWithNameInContext("sizes", ctx);
    LLVMTypeRef i32 = LLVMInt32TypeInContext(ctx);
    LLVMTypeRef fn_type = LLVMFunctionType(i32, &i32, 1, false);
    LLVMTypeRef kernel_type = LLVMFunctionType(LLVMVoidTypeInContext(ctx), &i32, 1, false);
    LLVMValueRef sinf = LLVMAddFunction(m, "__nv_sinf", fn_type);
    LLVMValueRef helper = LLVMAddFunction(m, "helper", fn_type);
    LLVMSetLinkage(helper, LLVMInternalLinkage);
    fill(ctx, helper, 3, &sinf, 1); /* 3 adds, a call, a ret */
    LLVMValueRef small = LLVMAddFunction(m, "small", kernel_type);
    fill(ctx, small, 1, (LLVMValueRef[]){helper, helper}, 2); /* 1 add, 2 calls, a ret */
    LLVMValueRef big = LLVMAddFunction(m, "big", kernel_type);
    fill(ctx, big, 40, NULL, 0);
    ASSERT(split_kernel_size(small) == 4 + 5 + 100); /* helper once, libdevice as a typical function */
    ASSERT(split_kernel_size(big) == 41);
    split_drop_kernels(m, &small, 1);
    ASSERT(LLVMGetNamedFunction(m, "small") == NULL);
    ASSERT(LLVMGetNamedFunction(m, "helper") == NULL);
    ASSERT(LLVMGetNamedFunction(m, "__nv_sinf") == NULL); /* libdevice is not linked for nothing */
    ASSERT(LLVMGetNamedFunction(m, "big") == big);
    char *msg = NULL;
    ASSERT(!LLVMVerifyModule(m, LLVMReturnStatusAction, &msg));
    LLVMDisposeMessage(msg);
    LLVMDisposeModule(m);
    LLVMContextDispose(ctx);
}

void test_split(void) {
    test_cuts();
    test_order();
    test_join();
    test_sizes_and_drops();
}
