/*
 * fuzz_backend.c - libFuzzer target over pykc's whole pipeline.
 *
 * Any bytes are a .pyk source. Each input goes through lex, parse, sema and
 * the IR builder (cg_module, which ends in LLVMVerifyModule) for the NVPTX
 * target; one input in BACK_HALF_EVERY also goes on through libdevice, the
 * optimiser, PTX (or IR text) and the manifest, as main.c's compile_arch
 * and generate run them. The pipeline must end in diagnostics or in code,
 * never in a crash, a hang, an overrun, a leak or an internal error: the
 * fuzz build defines PYKC_ICE_ABORTS, so that ice() aborts and libFuzzer
 * reports it with its stack. Built with clang-14
 * -fsanitize=fuzzer,address,undefined over every src/ file but main.c,
 * linked with LLVM's static archives (tests/fuzz/fuzz.mk); only pykc's own
 * code is instrumented, so coverage guides the fuzzer through pykc, not
 * through LLVM.
 *
 * The options (-O level, --arch, --fastmath, -g or --lineinfo, --emit, the
 * back half or not) come from a hash of the input, so that one input always
 * runs the same way and an artifact replays as it failed; with
 * PYKC_FUZZ_VERBOSE set in the environment, each run prints them as pykc's
 * command line, with its diagnostics, on stderr.
 */
#include "pykc.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* One input in this many runs the back half too: it costs milliseconds
 * where the front half costs tens of microseconds. */
#define BACK_HALF_EVERY 8

/* A place where no import can be found, so that a fuzzed `import x` reads
 * no file from wherever the fuzzer runs. */
#define FUZZ_INPUT "/nonexistent-pykc-fuzz/fuzz.pyk"

static FILE *sink;
static bool verbose;

static uint64_t fnv1a(const uint8_t *data, size_t size) {
    uint64_t h = 0xcbf29ce484222325u;
    for (size_t i = 0; i < size; i++) h = (h ^ data[i]) * 0x100000001b3u;
    return h;
}

/* The options of one run, from the hash of its input. */
static bool choose_options(uint64_t h, Options *o) {
    static const char *const archs[] = {"sm_75", "sm_80", "sm_90"};
    *o = (Options){.input = FUZZ_INPUT, .output = "fuzz.ptx", .target = target_find(NULL), .error_limit = 20};
    o->opt_level = (int)(h & 3);
    o->archs[0] = archs[(h >> 2) % 3];
    o->arch_count = 1;
    o->fastmath = (h >> 4) & 1;
    o->debug_info = ((h >> 5) & 3) == 1;
    o->lineinfo = ((h >> 5) & 3) == 2;
    o->emit = (h >> 7) & 1 ? EMIT_LLVM : EMIT_PTX;
    bool back_half = (h >> 8) % BACK_HALF_EVERY == 0;
    if (verbose)
        fprintf(stderr, "fuzz_backend: pykc -O%d --arch %s%s%s%s --emit %s%s\n", o->opt_level, o->archs[0],
                o->fastmath ? " --fastmath" : "", o->debug_info ? " -g" : "", o->lineinfo ? " --lineinfo" : "",
                o->emit == EMIT_LLVM ? "llvm" : "ptx", back_half ? "" : " (IR built only)");
    return back_half;
}

/* main.c's compile_arch and generate, for one arch, keeping nothing. */
static void run_back_half(Unit *u, const Options *o, IrModule *ir) {
    Code code = {0};
    bool ok = target_link(ir, u->diag) && target_optimize(ir, u->diag) && target_emit(ir, o->emit, &code, u->diag);
    if (ok && o->emit == EMIT_PTX) {
        char digest[25];
        digest_fnv1a64(code.bytes, code.len, digest);
        ManifestTarget t = {o->archs[0], code.version, "ptx", "fuzz.ptx", digest};
        Manifest m = {.source_path = "fuzz.pyk", .source_digest = digest, .targets = &t, .target_count = 1};
        abi_describe_module(u, &m);
        size_t len;
        free(manifest_render(&m, &len, u->diag));
    }
    free(code.bytes);
}

/* The passes in main.c's order: a pass written later goes here too. */
static void run_pipeline(const uint8_t *data, size_t size) {
    Options opts;
    bool back_half = choose_options(fnv1a(data, size), &opts);
    Diag diag;
    diag_init(&diag, verbose ? stderr : sink);
    diag.error_limit = opts.error_limit;
    int file = diag_add_source(&diag, FUZZ_INPUT, (const char *)data, size);
    Arena arena = {0};
    TokenArray toks = lex_file(&arena, &diag, file);
    Node *module = parse_module(&arena, &diag, file, &toks);
    Unit unit = {.arena = &arena, .diag = &diag, .opts = &opts, .module = module};
    if (diag.error_count == 0) sema_module(&unit);
    if (diag.error_count == 0) {
        TargetConfig cfg = {.target = opts.target, .arch = opts.archs[0], .opt_level = opts.opt_level,
                            .debug_info = opts.debug_info || opts.lineinfo};
        IrModule *ir = cg_module(&unit, &cfg);
        if (ir && back_half) run_back_half(&unit, &opts, ir);
        ir_module_free(ir);
    }
    arena_release(&arena);
    diag_free(&diag);
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    sink = fopen("/dev/null", "w");
    verbose = getenv("PYKC_FUZZ_VERBOSE") != NULL;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    run_pipeline(data, size);
    return 0;
}
