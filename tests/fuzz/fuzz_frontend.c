/*
 * fuzz_frontend.c - libFuzzer target over pykc's front end.
 *
 * Any bytes are a .pyk source. The front end must end in diagnostics (or
 * success), never in a crash, a hang, an overrun, a leak or an internal
 * error; sanitizers and libFuzzer judge that. Built with clang-14
 * -fsanitize=fuzzer,address,undefined by tests/fuzz/fuzz.mk: `make fuzz`
 * runs it an hour, `make test` fifteen seconds over the committed corpus
 * (tests/fuzz/corpus, built from the lit tests by make-corpus.sh).
 *
 * run_front_end is the one place that lists the passes, in main.c's order:
 * a pass written later goes there and the fuzzer covers it.
 */
#include "pykc.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

static FILE *sink;

/* A place where no import can be found, so that a fuzzed `import x` reads
 * no file from wherever the fuzzer runs. */
#define FUZZ_INPUT "/nonexistent-pykc-fuzz/fuzz.pyk"

static void run_front_end(const char *text, size_t size) {
    Diag diag;
    diag_init(&diag, sink);
    Options opts = {.input = FUZZ_INPUT, .opt_level = 3, .archs = {"sm_75"}, .arch_count = 1, .error_limit = 20};
    diag.error_limit = opts.error_limit;
    int file = diag_add_source(&diag, FUZZ_INPUT, text, size);
    Arena arena = {0};
    TokenArray toks = lex_file(&arena, &diag, file);
    Node *module = parse_module(&arena, &diag, file, &toks);
    if (diag.error_count == 0) ast_dump(sink, &diag, module);
    Unit unit = {.arena = &arena, .diag = &diag, .opts = &opts, .module = module};
    if (diag.error_count == 0) sema_module(&unit);
    if (diag.error_count == 0) sema_dump_types(sink, &unit);
    arena_release(&arena);
    diag_free(&diag);
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    sink = fopen("/dev/null", "w");
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    run_front_end((const char *)data, size);
    return 0;
}
