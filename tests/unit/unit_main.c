/* unit_main.c - runs every C unit test and records the counts. */
#include "unit.h"

#include <stdlib.h>

int unit_passed, unit_failed;

int main(int argc, char **argv) {
    test_arena();
    test_diag();
    test_lexer();
    test_parser();
    test_types();
    test_manifest();
    test_target();
    test_output();
    printf("unit: %d passed, %d failed\n", unit_passed, unit_failed);
    if (argc > 1) {
        char cmd[4096];
        snprintf(cmd, sizeof cmd, "sh tests/record.sh '%s' unit %d %d", argv[1], unit_passed, unit_failed);
        return system(cmd) == 0 ? 0 : 1;
    }
    return unit_failed != 0;
}
