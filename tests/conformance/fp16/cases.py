# fp16: float16 operators, cuda.fp16.* and the math overloads on float16.
# Arithmetic exact; approximate functions (hsin ... hrcp, the math
# overloads) are hardware instructions in both: exact as well.
N = 256

case("half.operators", [specials("float16", N), floats("float16", N, -4, 4), zeros("float16", (N, 6)), zeros("float32", (N, 5))], grid=4)
case("half.arith_functions", [specials("float16", N), floats("float16", N, -4, 4), floats("float16", N), zeros("float16", (N, 9)), zeros("float32", (N, 6))], grid=4)
case("half.math_functions", [specials("float16", N, -4, 10), zeros("float16", (N, 17))], grid=4, sim=False,
     host_xfail="cuda_fp16.hpp's half functions are the GPU's approximate instructions (ex2.approx.f16 ...) with "
                "fix-ups; the host computes the float32 function and rounds it")
case("half.math_overloads", [specials("float16", N, -4, 10), zeros("float16", (N, 13))], grid=4)
case("half.conversions", [specials("float32", N, -70000, 70000), zeros("float16", N), zeros("float32", N)], grid=4)
