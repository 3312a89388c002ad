/* unit.h - chibicc-style assertions for the C unit tests: each check prints
 * the expression that failed and counts, so one run reports every failure. */
#ifndef PYKC_UNIT_H
#define PYKC_UNIT_H

#include <stdio.h>
#include <string.h>

extern int unit_passed, unit_failed;

#define ASSERT(cond)                                                           \
    do {                                                                       \
        if (cond) {                                                            \
            unit_passed++;                                                     \
        } else {                                                               \
            unit_failed++;                                                     \
            fprintf(stderr, "%s:%d: assertion failed: %s\n", __FILE__,         \
                    __LINE__, #cond);                                          \
        }                                                                      \
    } while (0)

#define ASSERT_STR(want, got) ASSERT(strcmp((want), (got)) == 0)

/* Each test file defines one entry point listed in unit_main.c. */
void test_arena(void);
void test_lexer(void);
void test_parser(void);
void test_types(void);
void test_diag(void);
void test_manifest(void);
void test_target(void);
void test_output(void);

#endif
