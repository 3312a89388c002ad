# floats: special values (signed zeros, infinities, NaN, subnormals, the
# largest values) through the operators, comparisons, min/max, conversions.
# Bit-exact: each result is one IEEE operation.
N = 512


def pairs(t):
    """Every pairing of the specials with each other, then random values."""
    def make(rng):
        fi = np.finfo(t)
        sp = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, fi.max, fi.tiny, 2.5, -3.0], dtype=t)
        x = np.repeat(sp, len(sp))
        y = np.tile(sp, len(sp))
        rx = (rng.standard_normal(N - x.size) * 10).astype(t)
        return np.concatenate([x, rx]).astype(t), np.concatenate([y, np.flip(rx)]).astype(t)
    return make


def first(t):
    return Spec(lambda rng: pairs(t)(np.random.default_rng(7))[0], "specials x")


def second(t):
    return Spec(lambda rng: pairs(t)(np.random.default_rng(7))[1], "specials y")


case("special.arith_f32", [first("float32"), second("float32"), zeros("float32", (N, 8))], grid=blocks(N))
case("special.arith_f64", [first("float64"), second("float64"), zeros("float64", (N, 8))], grid=blocks(N))
case("special.compare_nan", [first("float64"), second("float64"), zeros("bool", (N, 9))], grid=blocks(N))
case("special.min_max_nan", [first("float32"), second("float32"), zeros("float32", (N, 5))], grid=blocks(N))
case("special.to_int", [floats("float64", N, -1e6, 1e6), floats("float32", N, -1e4, 1e4), zeros("int64", (N, 5)), zeros("uint8", N)], grid=blocks(N))
case("special.narrowing", [Spec(lambda rng: np.concatenate([np.array([1e300, -1e300, 1e-300, 65504.0, 65520.0, 1e-8, 3.4e38, 3.5e38, np.nan, -0.0]), rng.standard_normal(N - 10) * 10.0 ** rng.integers(-40, 40, N - 10)]), "wide"), zeros("float32", N), zeros("float16", N), zeros("float64", (N, 3))], grid=blocks(N))
case("special.subnormal_arith", [specials("float32", N), zeros("float32", (N, 3))], grid=blocks(N))
