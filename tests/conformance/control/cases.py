# control: branches, loops with break/continue/else, short-circuit operators.
N = 256

case("flow.branches", [ints("int64", N), zeros("int64", N)], grid=4)
case("flow.while_loops", [ints("int64", N, -100, 100), zeros("int64", (N, 3))], grid=4)
case("flow.for_else", [ints("int64", (N, 9), -5, 100), zeros("int64", (N, 2))], grid=4)
case("flow.short_circuit", [specials("float64", N), ints("int32", N, -5, 25), zeros("int64", (N, 7))], grid=4)
case("flow.nested_loops", [zeros("int64", (N, 2))], grid=4)
case("flow.loop_types", [zeros("float64", N), np.int32(13)], grid=4)
# literal_unroll (numba-cuda's simulator lacks it: sim=False)
case("unroll.mixed", [floats("float32", N), ints("int32", N), zeros("float64", (N, 7))], grid=4, sim=False)
case("unroll.control", [floats("float32", N, -20, 20), ints("int32", N, -30, 30), zeros("int64", (N, 3))], grid=4, sim=False)
case("unroll.constants", [ints("int32", N), zeros("int64", (N, 6))], grid=4, sim=False)
case("unroll.arrays", [floats("float32", N), ints("int32", N), floats("float64", N), zeros("float64", N)], grid=4, sim=False)
case("unroll.with_closure", [floats("float32", N), ints("int32", N), zeros("float64", (N, 3))], grid=4, sim=False)
case("unroll.sources", [zeros("float64", (N, 7)), (np.int32(3), np.float64(2.5), np.int64(-7))], grid=4, sim=False)
case("unroll.with_iterators", [floats("float32", N, -4, 4), ints("int32", N, -30, 30), zeros("float64", (N, 4))], grid=4, sim=False)
