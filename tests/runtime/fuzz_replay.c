/*
 * fuzz_replay.c - a main() for tests/fuzz/fuzz_manifest.c without
 * libFuzzer: feeds each file named on the command line, whole and in
 * every prefix and with each byte flipped in turn (a cheap, deterministic
 * mutation), so `make test` exercises the harness with the usual compiler
 * and sanitizers.
 */
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

static unsigned char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    unsigned char *buf = malloc(cap);
    while (buf && (n += fread(buf + n, 1, cap - n, f)) == cap) {
        unsigned char *grown = realloc(buf, cap *= 2);
        if (!grown)
            free(buf);
        buf = grown;
    }
    fclose(f);
    *len = n;
    return buf;
}

int main(int argc, char **argv)
{
    long runs = 0;
    for (int i = 1; i < argc; i++) {
        size_t len = 0;
        unsigned char *data = slurp(argv[i], &len);
        if (!data) {
            fprintf(stderr, "fuzz_replay: cannot read %s\n", argv[i]);
            return 1;
        }
        for (size_t n = 0; n <= len; n++, runs++)
            LLVMFuzzerTestOneInput(data, n);
        for (size_t at = 0; at < len; at++, runs++) {
            data[at] ^= 0x20;
            LLVMFuzzerTestOneInput(data, len);
            data[at] ^= 0x20;
        }
        free(data);
    }
    printf("fuzz_replay: %ld inputs\n", runs);
    return 0;
}
