# operator: the operator module's functions, each the operator it names.
N = 256


def nonzero(t):
    return Spec(lambda rng: np.where(rng.random(N) < 0.5, -1, 1).astype(t) * rng.integers(1, 50, N).astype(t), "nonzero")


case("functions.int_ops", [ints("int32", N, -1000, 1000), nonzero("int32"), zeros("int64", (N, 15))], grid=4)
case("functions.compare_ops", [specials("float64", N), floats("float64", N), ints("int32", N, 0, 5), zeros("int64", (N, 10))], grid=4)
case("functions.float_ops", [specials("float64", N), floats("float64", N, -3, 3), zeros("float64", (N, 7))], grid=4, tol=ulp(1))
case("functions.inplace_ops", [ints("int32", N, -1000, 1000), nonzero("int32"), specials("float64", N), zeros("int64", (N, 11)), zeros("float64", (N, 3))], grid=4)
