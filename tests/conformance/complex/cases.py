# complex: arithmetic (Numba's division and power algorithms), parts, abs,
# construction, comparisons. Division and power within 2 ulp a part.
N = 256

case("ops.arith_c128", [cplx("complex128", N, special=True), cplx("complex128", N), zeros("complex128", (N, 8))], grid=4, tol=ulp(2, atol=1e-15))
case("ops.arith_c128", [cplx("complex128", N), cplx("complex128", N, special=True), zeros("complex128", (N, 8))], grid=4, tol=ulp(2, atol=1e-15), label="special divisors")
case("ops.arith_c64", [cplx("complex64", N, special=True), cplx("complex64", N), zeros("complex64", (N, 8))], grid=4, tol=ulp(2, atol=1e-6))
case("ops.parts_abs", [cplx("complex128", N, special=True), cplx("complex64", N, special=True), zeros("float64", (N, 5)), zeros("bool", (N, 3))], grid=4, tol=ulp(1),
     host_tol=ulp(8))  # abs is libdevice's hypot, which rounds through rcp.approx.ftz.f64 on the GPU
case("ops.construct", [specials("float64", N), specials("float32", N), ints("int32", N), zeros("complex128", (N, 5)), zeros("complex64", N)], grid=4)
case("ops.power", [cplx("complex128", N, special=True), cplx("complex128", N, 0.5), ints("int64", N, -6, 7), zeros("complex128", (N, 5))], grid=4, tol=ulp(4, atol=1e-14),
     host_tol=ulp(4096))  # exp(w log z) magnifies the host's exact rcp (rcp.approx.ftz.f64 in the GPU's atan2, hypot)
case("ops.accumulate", [cplx("complex128", (64, 9)), zeros("complex128", 64)], tol=ulp(2, atol=1e-15))
