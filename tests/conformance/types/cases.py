# types: tuples, named tuples, enums, records.
N = 256

PACKED = np.dtype([("x", np.float32), ("y", np.int32), ("flag", np.bool_), ("tag", np.int8)])
ALIGNED = np.dtype([("w", np.float64), ("k", np.int8), ("v", np.float32, (3,)), ("p", PACKED)], align=True)


def packed(n):
    return records(PACKED, n, x=normal("float32", n), y=ints("int32", n, -1000, 1000), tag=ints("int8", n))


def aligned(n):
    def make(rng):
        b = np.zeros(n, ALIGNED)
        b["w"] = rng.standard_normal(n)
        b["k"] = rng.integers(-100, 100, n)
        b["v"] = rng.standard_normal((n, 3)).astype(np.float32)
        b["p"] = packed(n)(rng)
        return b
    return Spec(make, "aligned")


case("tuples.tuple_basics", [ints("int64", N), specials("float64", N), zeros("float64", (N, 10))], grid=4, tol=ulp(1))
case("tuples.tuple_param", [(np.int64(3), np.int64(-5), np.int64(7)), (np.float64(0.25), np.int32(9)), zeros("float64", N)], grid=4)
case("tuples.swap_unpack", [ints("int32", N), ints("int32", N)], grid=4)
case("tuples.named_tuples", [specials("float64", N), ints("int64", N), zeros("float64", (N, 5))], grid=4)
case("tuples.enums", [ints("int64", N, 0, 4), zeros("int64", (N, 8))], grid=4)
case("records.packed_fields", [packed(N), zeros("float64", N)], grid=4)
case("records.aligned_fields", [aligned(N), zeros("float64", N)], grid=4, tol=ulp(1), sim=False)
case("records.field_arrays", [packed(N), zeros("float64", N)], grid=4)
