# memory: shared (static, dynamic, aliasing, alignment), local and constant arrays.
N = 256

case("memory.shared_reverse", [normal("float32", N), zeros("float32", N)], grid=4)
case("memory.shared_transpose", [normal("float64", (37, 50)), zeros("float64", (50, 37))], grid=(4, 3), block=(16, 16))
case("memory.shared_reduce", [full_range("int64", N), zeros("int64", 4)], grid=4)
case("memory.dynamic_shared", [normal("float32", N), zeros("float32", N)], grid=4, shared=64 * 4)
case("memory.dynamic_aliasing", [full_range("int32", N), zeros("int32", (N, 2))], grid=4, shared=64 * 4)
case("memory.static_and_dynamic", [normal("float32", N), zeros("float32", N)], grid=4, shared=64 * 4)
case("memory.shared_aligned", [zeros("int64", 4)], grid=4, sim=False)
case("memory.local_sort", [normal("float32", (100, 13)), zeros("float32", (100, 13))], grid=2)
case("memory.local_2d", [zeros("int64", (N, 2))], grid=4, sim=False)
case("memory.const_arrays", [specials("float64", N), zeros("float64", (N, 3))], grid=4)
case("memory.global_constants", [specials("float64", N), zeros("float64", N)], grid=4)
