# devfunc: device functions (typed, untyped, inline options, tuple
# results, array arguments) and self-recursion.
N = 256

case("functions.calls", [specials("float64", N), specials("float32", N), normal("float64", (5, 7)), zeros("float64", (N, 6))], grid=4, tol=ulp(1))
case("recursion.recursion_typed", [ints("int64", 64, 0, 100), zeros("int64", 64)])
case("recursion.recursion_implicit", [ints("int64", 64, 0, 100), zeros("int64", 64)])
