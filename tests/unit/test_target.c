/* test_target.c - the NVPTX back end on a module built here with LLVM's C
 * API, as codegen builds them: a kernel whose a*b+c must fuse into fma, and
 * libdevice calls (sinf, sqrtf) that must be linked, inlined and reflected
 * away. Checks the PTX of each -O level, --fastmath and a few archs, the
 * errors, and, where the CUDA toolkit is installed, the cubin from ptxas.
 * Without libdevice or ptxas those checks are skipped and say so. */
#include "backend.h"
#include "unit.h"

#include <stdlib.h>
#include <unistd.h>

/* The text that diag wrote while a test ran. */
typedef struct Capture {
    Diag d;
    char *text;
    size_t len;
    FILE *out;
} Capture;

static void capture_begin(Capture *c) {
    c->text = NULL;
    c->out = open_memstream(&c->text, &c->len);
    diag_init(&c->d, c->out);
}

static char *capture_end(Capture *c) {
    fclose(c->out);
    diag_free(&c->d);
    return c->text;
}

/* k(out: float32 global*, a, b, c): out[0] = a*b + c (contract);
 * out[1] = out[0] / a; and with libdevice out[2] = sinf(a),
 * out[3] = sqrtf(out[1]). */
static LLVMValueRef store_at(LLVMBuilderRef b, LLVMTypeRef f32, LLVMValueRef out, int i, LLVMValueRef v) {
    LLVMValueRef idx = LLVMConstInt(LLVMInt64TypeInContext(LLVMGetTypeContext(f32)), (unsigned long long)i, false);
    LLVMValueRef p = LLVMBuildGEP2(b, f32, out, &idx, 1, "p");
    return LLVMBuildStore(b, v, p);
}

static LLVMValueRef call_nv(LLVMModuleRef m, LLVMBuilderRef b, LLVMTypeRef f32, const char *name, LLVMValueRef x) {
    LLVMTypeRef fty = LLVMFunctionType(f32, &f32, 1, false);
    LLVMValueRef fn = LLVMGetNamedFunction(m, name);
    if (!fn) fn = LLVMAddFunction(m, name, fty);
    return LLVMBuildCall2(b, fty, fn, &x, 1, name + 5);
}

/* With `fast`, k is of the fast floating-point model, as codegen marks it,
 * and calls libdevice's flush-to-zero copy. */
static bool fast_model;

static void build_kernel(LLVMContextRef ctx, LLVMModuleRef m, bool use_libdevice) {
    LLVMTypeRef f32 = LLVMFloatTypeInContext(ctx);
    LLVMTypeRef params[] = {LLVMPointerTypeInContext(ctx, 1), f32, f32, f32};
    LLVMValueRef k = LLVMAddFunction(m, "k", LLVMFunctionType(LLVMVoidTypeInContext(ctx), params, 4, false));
    LLVMSetFunctionCallConv(k, LLVMPTXKernelCallConv);
    if (fast_model) target_nvptx.mark_fast_model(k);
    LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
    LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(ctx, k, "entry"));
    LLVMValueRef out = LLVMGetParam(k, 0), a = LLVMGetParam(k, 1);
    LLVMValueRef mul = LLVMBuildFMul(b, a, LLVMGetParam(k, 2), "mul");
    LLVMValueRef add = LLVMBuildFAdd(b, mul, LLVMGetParam(k, 3), "add");
    LLVMSetFastMathFlags(mul, LLVMFastMathAllowContract);
    LLVMSetFastMathFlags(add, LLVMFastMathAllowContract);
    store_at(b, f32, out, 0, add);
    LLVMValueRef quo = LLVMBuildFDiv(b, add, a, "quo");
    store_at(b, f32, out, 1, quo);
    if (use_libdevice) {
        store_at(b, f32, out, 2, call_nv(m, b, f32, fast_model ? "__nv_sinf.ftz" : "__nv_sinf", a));
        store_at(b, f32, out, 3, call_nv(m, b, f32, fast_model ? "__nv_sqrtf.ftz" : "__nv_sqrtf", quo));
    }
    LLVMBuildRetVoid(b);
    LLVMDisposeBuilder(b);
}

/* Runs the pipeline as main does; returns the PTX (malloc'd) or NULL. */
static char *compile(TargetConfig *cfg, bool use_libdevice, char version[8], char **diag_text) {
    cfg->target = &target_nvptx;
    Capture c;
    capture_begin(&c);
    Code code = {0};
    IrModule *m = ir_module_new(cfg, "t", &c.d);
    if (m) build_kernel(m->ctx, m->mod, use_libdevice);
    bool ok = m && target_link(m, &c.d) && target_optimize(m, &c.d) && target_emit(m, EMIT_PTX, &code, &c.d);
    ir_module_free(m);
    char *text = capture_end(&c);
    if (diag_text) *diag_text = text;
    else free(text);
    if (ok) {
        ASSERT(code.bytes != NULL && strlen(code.bytes) == code.len);
        memcpy(version, code.version, 8);
    }
    return ok ? code.bytes : NULL;
}

static bool has(const char *ptx, const char *s) { return ptx && strstr(ptx, s) != NULL; }

static bool have_ptxas(void);

/* Whether ptxas takes the PTX (true where there is no ptxas to ask). */
static bool assembles(const char *ptx, const TargetConfig *cfg) {
    if (!ptx || !have_ptxas()) return ptx != NULL;
    Capture c;
    capture_begin(&c);
    Code in = {.bytes = (char *)ptx, .len = strlen(ptx)}, out = {0};
    bool ok = nvptx_assemble_cubin(&in, cfg, &out, &c.d);
    free(capture_end(&c));
    free(out.bytes);
    return ok;
}

static bool have_libdevice(void) {
    const char *home = getenv("CUDA_HOME");
    char path[4096];
    snprintf(path, sizeof path, "%s/nvvm/libdevice/libdevice.10.bc", home && *home ? home : "/usr/local/cuda");
    return access(path, R_OK) == 0 || access("/usr/local/cuda/nvvm/libdevice/libdevice.10.bc", R_OK) == 0;
}

static bool have_ptxas(void) {
    const char *home = getenv("CUDA_HOME");
    char path[4096];
    snprintf(path, sizeof path, "%s/bin/ptxas", home && *home ? home : "/usr/local/cuda");
    return access(path, X_OK) == 0 || access("/usr/local/cuda/bin/ptxas", X_OK) == 0;
}

/* Without libdevice: fusion, versions per arch, the -O levels. */
static void test_plain(void) {
    char v[8];
    TargetConfig cfg = {.arch = "sm_75", .opt_level = 3};
    char *ptx = compile(&cfg, false, v, NULL);
    ASSERT(has(ptx, ".visible .entry k("));
    ASSERT(has(ptx, "fma.rn.f32"));
    ASSERT(has(ptx, "div.rn.f32"));
    ASSERT(!has(ptx, ".ftz"));
    ASSERT_STR("6.3", v);
    free(ptx);
    cfg.opt_level = 0;
    ptx = compile(&cfg, false, v, NULL);
    ASSERT(has(ptx, "fma.rn.f32")); /* contraction does not depend on -O */
    free(ptx);
    cfg = (TargetConfig){.arch = "sm_75", .opt_level = 3, .debug_info = true};
    ptx = compile(&cfg, false, v, NULL);
    ASSERT_STR("7.5", v); /* the first PTX whose ptxas takes DWARF sections */
    free(ptx);
    static const struct { const char *arch, *version; } versions[] = {
        {"sm_80", "7.0"}, {"sm_90", "7.8"}, {"sm_90a", "8.0"},
    };
    for (size_t i = 0; i < sizeof versions / sizeof versions[0]; i++) {
        cfg = (TargetConfig){.arch = versions[i].arch, .opt_level = 3};
        ptx = compile(&cfg, false, v, NULL);
        ASSERT_STR(versions[i].version, v);
        ASSERT(has(ptx, versions[i].arch));
        ASSERT(assembles(ptx, &cfg));
        free(ptx);
    }
}

/* With libdevice: linked, reflected, inlined, the rest dropped. */
static void test_libdevice(void) {
    char v[8];
    TargetConfig cfg = {.arch = "sm_75", .opt_level = 3};
    char *ptx = compile(&cfg, true, v, NULL);
    ASSERT(has(ptx, ".visible .entry k("));
    ASSERT(has(ptx, "fma.rn.f32"));
    ASSERT(has(ptx, "sqrt.rn.f32")); /* __CUDA_PREC_SQRT answered 1 */
    ASSERT(ptx && !has(ptx, "__nvvm_reflect") && !has(ptx, "__nv_") && !has(ptx, ".func"));
    ASSERT(assembles(ptx, &cfg));
    free(ptx);

    fast_model = true;
    ptx = compile(&cfg, true, v, NULL);
    fast_model = false;
    ASSERT(has(ptx, "fma.rn.ftz.f32"));
    ASSERT(has(ptx, "div.approx.ftz.f32"));
    ASSERT(has(ptx, "sqrt.approx.ftz.f32"));
    ASSERT(ptx && !has(ptx, "__nvvm_reflect"));
    ASSERT(assembles(ptx, &cfg));
    free(ptx);

    cfg = (TargetConfig){.arch = "sm_75", .opt_level = 0};
    ptx = compile(&cfg, true, v, NULL);
    ASSERT(ptx && !has(ptx, "__nvvm_reflect") && !has(ptx, "__nv_cosf"));
    ASSERT(assembles(ptx, &cfg));
    free(ptx);
}

static void test_errors(void) {
    char v[8], *text;
    TargetConfig cfg = {.arch = "sm_76", .opt_level = 3};
    ASSERT(compile(&cfg, false, v, &text) == NULL);
    ASSERT(has(text, "error: unsupported architecture 'sm_76'"));
    free(text);
    cfg = (TargetConfig){.arch = "sm_75", .opt_level = 3, .libdevice = "/nonexistent/libdevice.10.bc"};
    ASSERT(compile(&cfg, true, v, &text) == NULL);
    ASSERT(has(text, "libdevice not found at '/nonexistent/libdevice.10.bc'"));
    free(text);
    char *ptx = compile(&cfg, false, v, NULL); /* needs no libdevice: fine */
    ASSERT(ptx != NULL);
    free(ptx);
    char notbc[] = "/tmp/pykc-test-XXXXXX";
    int fd = mkstemp(notbc);
    ASSERT(fd >= 0 && write(fd, "not bitcode\n", 12) == 12);
    close(fd);
    cfg.libdevice = notbc;
    ASSERT(compile(&cfg, true, v, &text) == NULL);
    ASSERT(has(text, "is not valid LLVM bitcode"));
    free(text);
    unlink(notbc);
}

static void test_cubin(void) {
    char v[8];
    TargetConfig cfg = {.arch = "sm_75", .opt_level = 3};
    char *ptx = compile(&cfg, false, v, NULL);
    Capture c;
    capture_begin(&c);
    Code in = {.bytes = ptx, .len = ptx ? strlen(ptx) : 0}, out = {0};
    ASSERT(ptx && nvptx_assemble_cubin(&in, &cfg, &out, &c.d));
    free(capture_end(&c));
    ASSERT(out.bytes && out.len > 4 && memcmp(out.bytes, "\x7f" "ELF", 4) == 0);
    free(out.bytes);
    free(ptx);

    static const char bad[] = ".version 6.3\n.target sm_75\n.address_size 64\n"
                              ".visible .entry k() {\n  bogus.instruction;\n  ret;\n}\n";
    capture_begin(&c);
    in = (Code){.bytes = (char *)bad, .len = sizeof bad - 1};
    out = (Code){0};
    ASSERT(!nvptx_assemble_cubin(&in, &cfg, &out, &c.d));
    char *text = capture_end(&c);
    ASSERT(has(text, "error: ptxas: ") && has(text, "(PTX line 5)"));
    ASSERT(!has(text, "/tmp/pykc-")); /* the temporary file stays out of it */
    free(text);
}

void test_target(void) {
    test_plain();
    test_errors();
    if (have_libdevice()) test_libdevice();
    else printf("unit: libdevice.10.bc not found, its checks skipped\n");
    if (have_ptxas()) test_cubin();
    else printf("unit: ptxas not found, the cubin checks skipped\n");
}
