# intdiv: floor division and modulo of every sign combination, by zero and
# INT_MIN // -1, divmod(), shifts of signed, unsigned and narrow integers
# (shift counts below 64: larger ones are undefined in both compilers).
N = 512


def divisors(t, lo=-13, hi=14):
    def make(rng):
        b = rng.integers(lo, hi, N).astype(t)
        b[:8] = 0
        b[8:12] = -1 if lo < 0 else 1
        return b
    return Spec(make, f"divisors({t})")


case("divmod.floordiv_mod_i64", [full_range("int64", N), divisors("int64"), zeros("int64", N), zeros("int64", N)], grid=blocks(N))
case("divmod.floordiv_mod_i64", [ints("int64", N, -1000, 1000), divisors("int64"), zeros("int64", N), zeros("int64", N)], grid=blocks(N), label="small")
case("divmod.floordiv_mod_i32", [full_range("int32", N), divisors("int32"), zeros("int64", N), zeros("int64", N)], grid=blocks(N))
case("divmod.floordiv_mod_i8", [full_range("int8", N), divisors("int8"), zeros("int8", N), zeros("int8", N)], grid=blocks(N))
case("divmod.floordiv_mod_u64", [full_range("uint64", N), divisors("uint64", 0, 1 << 40), zeros("uint64", N), zeros("uint64", N)], grid=blocks(N))
case("divmod.floordiv_mod_u32", [full_range("uint32", N), divisors("uint32", 0, 100), zeros("uint64", N), zeros("uint64", N)], grid=blocks(N))
case("divmod.floordiv_mixed_sign", [ints("int64", N, -10**6, 10**6), divisors("uint32", 0, 50), zeros("int64", N), zeros("int64", N)], grid=blocks(N))
case("divmod.divmod_builtin", [ints("int64", N, -1000, 1000), divisors("int64"), specials("float64", N), specials("float64", N, -3, 3), zeros("int64", (N, 2)), zeros("float64", (N, 2))], grid=blocks(N))
case("divmod.divide_by_literal", [full_range("int64", N), zeros("int64", (N, 8))], grid=blocks(N))
case("divmod.shifts_signed", [full_range("int32", N), ints("int64", N, 0, 64), zeros("int64", (N, 5))], grid=blocks(N))
case("divmod.shifts_unsigned", [full_range("uint32", N), full_range("uint64", N), ints("uint32", N, 0, 64), zeros("uint64", (N, 5))], grid=blocks(N))
case("divmod.shifts_narrow", [full_range("int8", N), full_range("uint8", N), ints("int16", N, 0, 64), zeros("int8", (N, 2)), zeros("int64", (N, 3))], grid=blocks(N))
