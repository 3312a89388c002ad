/* test_types.c - Numba's conversion kinds between scalars, pinned from
 * numba-cuda 0.30.4 (its typing context's can_convert, printed by
 * tests/typing/conversions.py), and overload resolution on them. */
#include "pykc.h"
#include "unit.h"

static Type *const order[] = {
    &ty_bool, &ty_int8, &ty_int16, &ty_int32, &ty_int64, &ty_uint8, &ty_uint16,
    &ty_uint32, &ty_uint64, &ty_float16, &ty_float32, &ty_float64, &ty_complex64, &ty_complex128,
};

/* E exact, P promote, S safe, U unsafe, - none; row: from, column: to */
static const char *const numba_matrix[] = {
        "ESSSSSSSSSSSSS", /* bool */
        "UEPPPUUUUSSSSS", /* int8 */
        "UUEPPUUUUUSSSS", /* int16 */
        "UUUEPUUUUUUSUS", /* int32 */
        "UUUUEUUUUUUSUS", /* int64 */
        "UUSSSEPPPUSSSS", /* uint8 */
        "UUUSSUEPPUUSUS", /* uint16 */
        "UUUUSUUEPUUSUS", /* uint32 */
        "UUUUUUUUEUUSUS", /* uint64 */
        "UUUUUUUUUEPPSS", /* float16 */
        "UUUUUUUUUUEPSS", /* float32 */
        "UUUUUUUUUUUEUS", /* float64 */
        "------------EP", /* complex64 */
        "------------UE", /* complex128 */
};

static char letter(Conversion c) { return "EPSU-"[c]; }

void test_types(void) {
    int mismatches = 0;
    for (int i = 0; i < 14; i++)
        for (int j = 0; j < 14; j++) {
            char got = letter(type_conversion(order[i], order[j]));
            if (got != numba_matrix[i][j]) {
                mismatches++;
                fprintf(stderr, "conversion %d -> %d: pykc %c, numba %c\n", i, j, got, numba_matrix[i][j]);
            }
        }
    ASSERT(mismatches == 0);

    /* int32 + int32 resolves to the (int64, int64) case, as in Numba */
    int n;
    bool unsafe;
    const Sig *cases = operator_cases(OP_ADD, 2, &n, &unsafe);
    Type *args[] = {&ty_int32, &ty_int32};
    int k = resolve_overload(cases, n, args, 2, unsafe);
    ASSERT(k >= 0 && cases[k].ret == &ty_int64);
    Type *mixed[] = {&ty_float32, &ty_int64};
    k = resolve_overload(cases, n, mixed, 2, unsafe);
    ASSERT(k >= 0 && cases[k].ret == &ty_float64);
}
