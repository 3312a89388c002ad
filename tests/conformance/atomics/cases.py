# atomics: every cuda.atomic.* on every dtype numba-cuda allows, with an
# integer index into a 1-d array, a tuple index into 2-d and 3-d arrays, and
# an index into shared memory. Contended atomics are compared by their final
# values (order-independent: float inputs are multiples of 1/4, so every
# order of the additions gives the same sum); uncontended ones (a slot per
# thread) by the old values they return. All bit-exact.

N = 256


def vals(t):
    if t.startswith("float"):
        return Spec(lambda rng: (rng.integers(-100, 100, N) / 4).astype(t), f"quarters({t})")
    return ints(t, N, 0 if t.startswith("u") else -100, 100)


def inits(t, shape):
    if t.startswith("float"):
        return Spec(lambda rng: (rng.integers(-40, 40, shape) / 4).astype(t), f"quarters({t})")
    return ints(t, shape, 0 if t.startswith("u") else -40, 40)


case("arith_i32.add_i32", [vals("int32"), inits("int32", 16), inits("int32", (4, 3)), fortran(inits("int32", (2, 3, 2))), inits("int32", N), zeros("int32", N), zeros("int32", 32)], grid=4, block=64)
case("arith_i32.sub_i32", [vals("int32"), inits("int32", 16), inits("int32", (4, 3)), fortran(inits("int32", (2, 3, 2))), inits("int32", N), zeros("int32", N), zeros("int32", 32)], grid=4, block=64)
case("arith_i32.max_i32", [vals("int32"), inits("int32", 16), inits("int32", (4, 3)), fortran(inits("int32", (2, 3, 2))), inits("int32", N), zeros("int32", N), zeros("int32", 32)], grid=4, block=64)
case("arith_i32.min_i32", [vals("int32"), inits("int32", 16), inits("int32", (4, 3)), fortran(inits("int32", (2, 3, 2))), inits("int32", N), zeros("int32", N), zeros("int32", 32)], grid=4, block=64)
case("arith_i32.nanmax_i32", [vals("int32"), inits("int32", 16), inits("int32", (4, 3)), fortran(inits("int32", (2, 3, 2))), inits("int32", N), zeros("int32", N), zeros("int32", 32)], grid=4, block=64)
case("arith_i32.nanmin_i32", [vals("int32"), inits("int32", 16), inits("int32", (4, 3)), fortran(inits("int32", (2, 3, 2))), inits("int32", N), zeros("int32", N), zeros("int32", 32)], grid=4, block=64)
case("arith_u32.add_u32", [vals("uint32"), inits("uint32", 16), inits("uint32", (4, 3)), fortran(inits("uint32", (2, 3, 2))), inits("uint32", N), zeros("uint32", N), zeros("uint32", 32)], grid=4, block=64)
case("arith_u32.sub_u32", [vals("uint32"), inits("uint32", 16), inits("uint32", (4, 3)), fortran(inits("uint32", (2, 3, 2))), inits("uint32", N), zeros("uint32", N), zeros("uint32", 32)], grid=4, block=64)
case("arith_u32.max_u32", [vals("uint32"), inits("uint32", 16), inits("uint32", (4, 3)), fortran(inits("uint32", (2, 3, 2))), inits("uint32", N), zeros("uint32", N), zeros("uint32", 32)], grid=4, block=64)
case("arith_u32.min_u32", [vals("uint32"), inits("uint32", 16), inits("uint32", (4, 3)), fortran(inits("uint32", (2, 3, 2))), inits("uint32", N), zeros("uint32", N), zeros("uint32", 32)], grid=4, block=64)
case("arith_u32.nanmax_u32", [vals("uint32"), inits("uint32", 16), inits("uint32", (4, 3)), fortran(inits("uint32", (2, 3, 2))), inits("uint32", N), zeros("uint32", N), zeros("uint32", 32)], grid=4, block=64)
case("arith_u32.nanmin_u32", [vals("uint32"), inits("uint32", 16), inits("uint32", (4, 3)), fortran(inits("uint32", (2, 3, 2))), inits("uint32", N), zeros("uint32", N), zeros("uint32", 32)], grid=4, block=64)
case("arith_i64.add_i64", [vals("int64"), inits("int64", 16), inits("int64", (4, 3)), fortran(inits("int64", (2, 3, 2))), inits("int64", N), zeros("int64", N), zeros("int64", 32)], grid=4, block=64)
case("arith_i64.sub_i64", [vals("int64"), inits("int64", 16), inits("int64", (4, 3)), fortran(inits("int64", (2, 3, 2))), inits("int64", N), zeros("int64", N), zeros("int64", 32)], grid=4, block=64)
case("arith_i64.max_i64", [vals("int64"), inits("int64", 16), inits("int64", (4, 3)), fortran(inits("int64", (2, 3, 2))), inits("int64", N), zeros("int64", N), zeros("int64", 32)], grid=4, block=64)
case("arith_i64.min_i64", [vals("int64"), inits("int64", 16), inits("int64", (4, 3)), fortran(inits("int64", (2, 3, 2))), inits("int64", N), zeros("int64", N), zeros("int64", 32)], grid=4, block=64)
case("arith_i64.nanmax_i64", [vals("int64"), inits("int64", 16), inits("int64", (4, 3)), fortran(inits("int64", (2, 3, 2))), inits("int64", N), zeros("int64", N), zeros("int64", 32)], grid=4, block=64)
case("arith_i64.nanmin_i64", [vals("int64"), inits("int64", 16), inits("int64", (4, 3)), fortran(inits("int64", (2, 3, 2))), inits("int64", N), zeros("int64", N), zeros("int64", 32)], grid=4, block=64)
case("arith_u64.add_u64", [vals("uint64"), inits("uint64", 16), inits("uint64", (4, 3)), fortran(inits("uint64", (2, 3, 2))), inits("uint64", N), zeros("uint64", N), zeros("uint64", 32)], grid=4, block=64)
case("arith_u64.sub_u64", [vals("uint64"), inits("uint64", 16), inits("uint64", (4, 3)), fortran(inits("uint64", (2, 3, 2))), inits("uint64", N), zeros("uint64", N), zeros("uint64", 32)], grid=4, block=64)
case("arith_u64.max_u64", [vals("uint64"), inits("uint64", 16), inits("uint64", (4, 3)), fortran(inits("uint64", (2, 3, 2))), inits("uint64", N), zeros("uint64", N), zeros("uint64", 32)], grid=4, block=64)
case("arith_u64.min_u64", [vals("uint64"), inits("uint64", 16), inits("uint64", (4, 3)), fortran(inits("uint64", (2, 3, 2))), inits("uint64", N), zeros("uint64", N), zeros("uint64", 32)], grid=4, block=64)
case("arith_u64.nanmax_u64", [vals("uint64"), inits("uint64", 16), inits("uint64", (4, 3)), fortran(inits("uint64", (2, 3, 2))), inits("uint64", N), zeros("uint64", N), zeros("uint64", 32)], grid=4, block=64)
case("arith_u64.nanmin_u64", [vals("uint64"), inits("uint64", 16), inits("uint64", (4, 3)), fortran(inits("uint64", (2, 3, 2))), inits("uint64", N), zeros("uint64", N), zeros("uint64", 32)], grid=4, block=64)
case("arith_f32.add_f32", [vals("float32"), inits("float32", 16), inits("float32", (4, 3)), fortran(inits("float32", (2, 3, 2))), inits("float32", N), zeros("float32", N), zeros("float32", 32)], grid=4, block=64)
case("arith_f32.sub_f32", [vals("float32"), inits("float32", 16), inits("float32", (4, 3)), fortran(inits("float32", (2, 3, 2))), inits("float32", N), zeros("float32", N), zeros("float32", 32)], grid=4, block=64)
case("arith_f32.max_f32", [vals("float32"), inits("float32", 16), inits("float32", (4, 3)), fortran(inits("float32", (2, 3, 2))), inits("float32", N), zeros("float32", N), zeros("float32", 32)], grid=4, block=64)
case("arith_f32.min_f32", [vals("float32"), inits("float32", 16), inits("float32", (4, 3)), fortran(inits("float32", (2, 3, 2))), inits("float32", N), zeros("float32", N), zeros("float32", 32)], grid=4, block=64)
case("arith_f32.nanmax_f32", [vals("float32"), inits("float32", 16), inits("float32", (4, 3)), fortran(inits("float32", (2, 3, 2))), inits("float32", N), zeros("float32", N), zeros("float32", 32)], grid=4, block=64)
case("arith_f32.nanmin_f32", [vals("float32"), inits("float32", 16), inits("float32", (4, 3)), fortran(inits("float32", (2, 3, 2))), inits("float32", N), zeros("float32", N), zeros("float32", 32)], grid=4, block=64)
case("arith_f32.nanmax_f32", [specials("float32", N, -25, 25), specials("float32", 16), inits("float32", (4, 3)), fortran(inits("float32", (2, 3, 2))), specials("float32", N), zeros("float32", N), zeros("float32", 32)], grid=4, block=64, label="NaN")
case("arith_f32.nanmin_f32", [specials("float32", N, -25, 25), specials("float32", 16), inits("float32", (4, 3)), fortran(inits("float32", (2, 3, 2))), specials("float32", N), zeros("float32", N), zeros("float32", 32)], grid=4, block=64, label="NaN")
case("arith_f64.add_f64", [vals("float64"), inits("float64", 16), inits("float64", (4, 3)), fortran(inits("float64", (2, 3, 2))), inits("float64", N), zeros("float64", N), zeros("float64", 32)], grid=4, block=64)
case("arith_f64.sub_f64", [vals("float64"), inits("float64", 16), inits("float64", (4, 3)), fortran(inits("float64", (2, 3, 2))), inits("float64", N), zeros("float64", N), zeros("float64", 32)], grid=4, block=64)
case("arith_f64.max_f64", [vals("float64"), inits("float64", 16), inits("float64", (4, 3)), fortran(inits("float64", (2, 3, 2))), inits("float64", N), zeros("float64", N), zeros("float64", 32)], grid=4, block=64)
case("arith_f64.min_f64", [vals("float64"), inits("float64", 16), inits("float64", (4, 3)), fortran(inits("float64", (2, 3, 2))), inits("float64", N), zeros("float64", N), zeros("float64", 32)], grid=4, block=64)
case("arith_f64.nanmax_f64", [vals("float64"), inits("float64", 16), inits("float64", (4, 3)), fortran(inits("float64", (2, 3, 2))), inits("float64", N), zeros("float64", N), zeros("float64", 32)], grid=4, block=64)
case("arith_f64.nanmin_f64", [vals("float64"), inits("float64", 16), inits("float64", (4, 3)), fortran(inits("float64", (2, 3, 2))), inits("float64", N), zeros("float64", N), zeros("float64", 32)], grid=4, block=64)
case("arith_f64.nanmax_f64", [specials("float64", N, -25, 25), specials("float64", 16), inits("float64", (4, 3)), fortran(inits("float64", (2, 3, 2))), specials("float64", N), zeros("float64", N), zeros("float64", 32)], grid=4, block=64, label="NaN")
case("arith_f64.nanmin_f64", [specials("float64", N, -25, 25), specials("float64", 16), inits("float64", (4, 3)), fortran(inits("float64", (2, 3, 2))), specials("float64", N), zeros("float64", N), zeros("float64", 32)], grid=4, block=64, label="NaN")
case("bitwise_i32.and_i32", [full_range("int32", N), inits("int32", 16), inits("int32", (4, 3)), fortran(inits("int32", (2, 3, 2))), inits("int32", N), zeros("int32", N), zeros("int32", 32)], grid=4, block=64)
case("bitwise_i32.or_i32", [full_range("int32", N), inits("int32", 16), inits("int32", (4, 3)), fortran(inits("int32", (2, 3, 2))), inits("int32", N), zeros("int32", N), zeros("int32", 32)], grid=4, block=64)
case("bitwise_i32.xor_i32", [full_range("int32", N), inits("int32", 16), inits("int32", (4, 3)), fortran(inits("int32", (2, 3, 2))), inits("int32", N), zeros("int32", N), zeros("int32", 32)], grid=4, block=64)
case("bitwise_i32.exch_i32", [vals("int32"), inits("int32", 16), inits("int32", (4, 3)), fortran(inits("int32", (2, 3, 2))), inits("int32", N), zeros("int32", N), zeros("int32", 32)], grid=4, block=64)
case("bitwise_u32.and_u32", [full_range("uint32", N), inits("uint32", 16), inits("uint32", (4, 3)), fortran(inits("uint32", (2, 3, 2))), inits("uint32", N), zeros("uint32", N), zeros("uint32", 32)], grid=4, block=64)
case("bitwise_u32.or_u32", [full_range("uint32", N), inits("uint32", 16), inits("uint32", (4, 3)), fortran(inits("uint32", (2, 3, 2))), inits("uint32", N), zeros("uint32", N), zeros("uint32", 32)], grid=4, block=64)
case("bitwise_u32.xor_u32", [full_range("uint32", N), inits("uint32", 16), inits("uint32", (4, 3)), fortran(inits("uint32", (2, 3, 2))), inits("uint32", N), zeros("uint32", N), zeros("uint32", 32)], grid=4, block=64)
case("bitwise_u32.exch_u32", [vals("uint32"), inits("uint32", 16), inits("uint32", (4, 3)), fortran(inits("uint32", (2, 3, 2))), inits("uint32", N), zeros("uint32", N), zeros("uint32", 32)], grid=4, block=64)
case("bitwise_i64.and_i64", [full_range("int64", N), inits("int64", 16), inits("int64", (4, 3)), fortran(inits("int64", (2, 3, 2))), inits("int64", N), zeros("int64", N), zeros("int64", 32)], grid=4, block=64)
case("bitwise_i64.or_i64", [full_range("int64", N), inits("int64", 16), inits("int64", (4, 3)), fortran(inits("int64", (2, 3, 2))), inits("int64", N), zeros("int64", N), zeros("int64", 32)], grid=4, block=64)
case("bitwise_i64.xor_i64", [full_range("int64", N), inits("int64", 16), inits("int64", (4, 3)), fortran(inits("int64", (2, 3, 2))), inits("int64", N), zeros("int64", N), zeros("int64", 32)], grid=4, block=64)
case("bitwise_i64.exch_i64", [vals("int64"), inits("int64", 16), inits("int64", (4, 3)), fortran(inits("int64", (2, 3, 2))), inits("int64", N), zeros("int64", N), zeros("int64", 32)], grid=4, block=64)
case("bitwise_u64.and_u64", [full_range("uint64", N), inits("uint64", 16), inits("uint64", (4, 3)), fortran(inits("uint64", (2, 3, 2))), inits("uint64", N), zeros("uint64", N), zeros("uint64", 32)], grid=4, block=64)
case("bitwise_u64.or_u64", [full_range("uint64", N), inits("uint64", 16), inits("uint64", (4, 3)), fortran(inits("uint64", (2, 3, 2))), inits("uint64", N), zeros("uint64", N), zeros("uint64", 32)], grid=4, block=64)
case("bitwise_u64.xor_u64", [full_range("uint64", N), inits("uint64", 16), inits("uint64", (4, 3)), fortran(inits("uint64", (2, 3, 2))), inits("uint64", N), zeros("uint64", N), zeros("uint64", 32)], grid=4, block=64)
case("bitwise_u64.exch_u64", [vals("uint64"), inits("uint64", 16), inits("uint64", (4, 3)), fortran(inits("uint64", (2, 3, 2))), inits("uint64", N), zeros("uint64", N), zeros("uint64", 32)], grid=4, block=64)
case("incdec_u32.inc_u32", [ints("uint32", N, 0, 50), ints("uint32", 8, 0, 60), ints("uint32", (2, 3), 0, 2000), ints("uint32", N, 0, 60), zeros("uint32", N), zeros("uint32", 16)], grid=4, block=64)
case("incdec_u32.dec_u32", [ints("uint32", N, 0, 50), ints("uint32", 8, 0, 60), ints("uint32", (2, 3), 0, 2000), ints("uint32", N, 0, 60), zeros("uint32", N), zeros("uint32", 16)], grid=4, block=64)
case("incdec_u64.inc_u64", [ints("uint64", N, 0, 50), ints("uint64", 8, 0, 60), ints("uint64", (2, 3), 0, 2000), ints("uint64", N, 0, 60), zeros("uint64", N), zeros("uint64", 16)], grid=4, block=64)
case("incdec_u64.dec_u64", [ints("uint64", N, 0, 50), ints("uint64", 8, 0, 60), ints("uint64", (2, 3), 0, 2000), ints("uint64", N, 0, 60), zeros("uint64", N), zeros("uint64", 16)], grid=4, block=64)
case("cas.cas_i32", [ints("int32", N, 0, 4), Spec(lambda rng: np.where(rng.random(N) < 0.5, 0, 1).astype("int32"), "half"), ints("int32", N, 0, 100), zeros("int32", N), zeros("int32", 1), zeros("int32", (2, 3)), zeros("int32", 4)], grid=4, block=64)
case("cas.compare_and_swap_i32", [ints("int32", N, 0, 2), zeros("int32", 1), zeros("int32", N)], grid=4, block=64)
case("cas.cas_u32", [ints("uint32", N, 0, 4), Spec(lambda rng: np.where(rng.random(N) < 0.5, 0, 1).astype("uint32"), "half"), ints("uint32", N, 0, 100), zeros("uint32", N), zeros("uint32", 1), zeros("uint32", (2, 3)), zeros("uint32", 4)], grid=4, block=64)
case("cas.compare_and_swap_u32", [ints("uint32", N, 0, 2), zeros("uint32", 1), zeros("uint32", N)], grid=4, block=64)
case("cas.cas_i64", [ints("int64", N, 0, 4), Spec(lambda rng: np.where(rng.random(N) < 0.5, 0, 1).astype("int64"), "half"), ints("int64", N, 0, 100), zeros("int64", N), zeros("int64", 1), zeros("int64", (2, 3)), zeros("int64", 4)], grid=4, block=64)
case("cas.compare_and_swap_i64", [ints("int64", N, 0, 2), zeros("int64", 1), zeros("int64", N)], grid=4, block=64)
case("cas.cas_u64", [ints("uint64", N, 0, 4), Spec(lambda rng: np.where(rng.random(N) < 0.5, 0, 1).astype("uint64"), "half"), ints("uint64", N, 0, 100), zeros("uint64", N), zeros("uint64", 1), zeros("uint64", (2, 3)), zeros("uint64", 4)], grid=4, block=64)
case("cas.compare_and_swap_u64", [ints("uint64", N, 0, 2), zeros("uint64", 1), zeros("uint64", N)], grid=4, block=64)
