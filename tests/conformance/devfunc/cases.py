# devfunc: device functions (typed, untyped, inline options, tuple
# results, array arguments) and self-recursion.
import math

N = 256


def fact_ref(n, o):
    o[:] = [math.factorial(int(x) % 21) for x in n]


def fib_ref(n, o):
    fib = [0, 1]
    while len(fib) < 15:
        fib.append(fib[-1] + fib[-2])
    o[:] = [fib[int(x) % 15] for x in n]


# the simulator's cuda.jit takes no forceinline
case("functions.calls", [specials("float64", N), specials("float32", N), normal("float64", (5, 7)), zeros("float64", (N, 6))], grid=4, tol=ulp(1), sim=False)
case("recursion.recursion_typed", [ints("int64", 64, 0, 100), zeros("int64", 64)], reference=fact_ref)
case("recursion.recursion_implicit", [ints("int64", 64, 0, 100), zeros("int64", 64)], reference=fib_ref)
