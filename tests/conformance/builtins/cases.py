# builtins: abs min max round int float bool complex divmod pow len range
# enumerate zip iter next bit_count.
N = 256


def nonzero(t):
    return Spec(lambda rng: np.where(rng.random(N) < 0.5, -1, 1).astype(t) * rng.integers(1, 50, N).astype(t), "nonzero")


def halves(t):
    """Ties (k + 0.5), both signs, and random values."""
    return Spec(lambda rng: np.concatenate([np.arange(-8, 8) + 0.5, np.array([0.125, 0.375, -0.625, 1.005, 2.675, -0.0]),
                                           rng.standard_normal(N - 22) * 100]).astype(t), "halves")


case("builtins.abs_min_max", [full_range("int32", N), full_range("int64", N), specials("float32", N), specials("float64", N), zeros("float64", (N, 10))], grid=4)
case("builtins.rounding", [halves("float64"), halves("float32"), zeros("float64", (N, 4)), zeros("int64", (N, 2))], grid=4)
case("builtins.conversions", [floats("float64", N, -1e6, 1e6), full_range("int64", N), full_range("uint32", N), zeros("float64", (N, 5)), zeros("int64", (N, 3)), zeros("bool", (N, 3))], grid=4)
case("builtins.divmod_pow", [ints("int64", N, -1000, 1000), nonzero("int64"), specials("float64", N), zeros("int64", (N, 4)), zeros("float64", (N, 3))], grid=4, tol=ulp(1))
case("builtins.bit_count", [full_range("int64", N), full_range("uint64", N), full_range("int8", N), zeros("int64", (N, 3))], grid=4)
case("builtins.range_forms", [ints("int64", 64, -3, 40), zeros("int64", (64, 7))])
case("builtins.len_enumerate_zip", [normal("float32", (64, 7)), ints("int32", 7), zeros("float64", (64, 7))], tol=ulp(1))
case("iterators.range_values", [ints("int64", 64, -3, 40), zeros("int64", (64, 8))])
case("iterators.nested", [ints("int64", (64, 6), -50, 50), floats("float64", (64, 5), -20, 20), zeros("int64", (64, 7))])
case("iterators.shared", [ints("int64", (64, 6), -50, 50), zeros("int64", (64, 5))])
# the simulator raises StopIteration as Python does; the GPU's thread returns
case("iterators.stop_iteration", [ints("int64", 64, -50, 50), zeros("int64", (64, 2))], sim=False)
