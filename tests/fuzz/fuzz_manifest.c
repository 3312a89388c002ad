/*
 * fuzz_manifest.c - libFuzzer target over the manifest reader.
 *
 * Any bytes go to pk_manifest_parse, which must either return a manifest
 * (then freed) or a status with a message, never crash, leak or overrun.
 * Built with clang-14 -fsanitize=fuzzer,address,undefined by
 * `make fuzz-manifest`; `make test` replays the seeds through
 * tests/runtime/fuzz_replay.c with the normal compiler.
 */
#include <stddef.h>
#include <stdint.h>

#include "runtime.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pk_manifest *m = NULL;
    pk_fail(PYKRT_SUCCESS, "%s", ""); /* so a failure's message is its own */
    if (pk_manifest_parse((const char *)data, size, "fuzz.yaml", &m) == PYKRT_SUCCESS)
        pk_manifest_free(m);
    else if (!pk_message()[0])
        __builtin_trap(); /* every failure must say why */
    return 0;
}
