# closures: functions defined inside kernels and device functions, lambdas,
# what they capture (read where they are called), defaults, functions
# passed to and returned from other inner functions, iterators they share.
N = 256

case("closures.inner_defs", [ints("int64", N, -1000, 1000), zeros("int64", (N, 7))], grid=4)
case("closures.lambdas", [ints("int64", N, -50, 50), zeros("int64", (N, 6))], grid=4)
case("closures.late_binding", [ints("int64", N, -1000, 1000), zeros("int64", (N, 4))], grid=4)
case("closures.higher_order", [ints("int64", N, -1000, 1000), zeros("int64", (N, 5))], grid=4)
case("closures.arrays", [ints("int64", N, 0, 1000), zeros("int64", (N, 3)), zeros("int64", 4)], grid=4)
case("closures.floats", [specials("float32", N), zeros("float64", (N, 7))], grid=4)
case("closures.iterators", [ints("int64", N, -1000, 1000), zeros("int64", (N, 5))], grid=4)
