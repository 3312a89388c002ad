# misc: fma, cbrt, selp, nanosleep, cache hints, vector types, options,
# eager signatures.
N = 256

case("misc.fma_cbrt_selp", [specials("float32", N), specials("float64", N), zeros("float32", (N, 3)), zeros("float64", (N, 3))], grid=4, tol=ulp(1))
case("misc.sleep", [zeros("int64", 64)])
LOCKSTEP = ("lanes of a warp do not run in lockstep on the host: threads racing on one element (a store and "
            "another lane's load or store) end as the order of the threads says, not as a GPU's converged warp does")
case("misc.cache_hints", [normal("float32", N), ints("int64", N), zeros("float32", N), zeros("int64", N)], grid=4,
     host_xfail=LOCKSTEP)
case("misc.vector_types", [normal("float32", N), ints("int32", N), zeros("float64", (N, 5))], grid=4)
case("options.options", [normal("float64", N), zeros("float64", N)], grid=2, block=128, sim=False)
case("misc.fastmath", [floats("float32", N, 0.5, 10), floats("float32", N, 0.5, 10), zeros("float32", (N, 3))], grid=4, tol=ulp(2))
case("signatures.eager", [normal("float32", 64), zeros("float64", (8, 8)), np.int64(3)])
case("signatures.signatures", [normal("float32", 64), zeros("float32", 64)], label="float32")
case("signatures.signatures", [ints("int64", 64), zeros("int64", 64)], label="int64")
case("misc.untyped_scalar_arith", [normal("float64", N), np.float64(-1.25), np.int64(4), zeros("float64", N)], grid=4, tol=ulp(1))
