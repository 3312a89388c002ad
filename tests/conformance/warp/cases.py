# warp: shuffles of every dtype, votes, ballot, match, activemask, lanemask_lt.
# Exact (a shuffle moves bits). Not in the simulator where it lacks the
# function or models divergence differently.
N = 128


def lanes(rng):
    return rng.integers(0, 32, N).astype(np.int32)


case("warp.shfl_i32", [full_range("int32", N), zeros("int32", (N, 5)), Spec(lanes, "lanes")], grid=2)
case("warp.shfl_i64", [full_range("int64", N), zeros("int64", (N, 4)), Spec(lanes, "lanes")], grid=2)
case("warp.shfl_f32", [specials("float32", N), zeros("float32", (N, 4)), Spec(lanes, "lanes")], grid=2)
case("warp.shfl_f64", [specials("float64", N), zeros("float64", (N, 4)), Spec(lanes, "lanes")], grid=2)
case("warp.warp_reduce", [Spec(lambda rng: rng.integers(-100, 100, N) / 8, "eighths"), zeros("float64", N)], grid=2)
case("warp.partial_mask", [ints("int32", N), zeros("int32", (N, 3))], grid=2, sim=False)
case("warp.votes", [Spec(lambda rng: np.concatenate([np.ones(32), -np.ones(32), rng.integers(-5, 5, N - 64)]).astype(np.int32), "warps"), zeros("uint32", (N, 10))], grid=2, sim=False)
case("warp.match", [Spec(lambda rng: rng.integers(0, 4, N).astype(np.int32) * 1000 + np.repeat([0, 500], N // 2).astype(np.int32), "groups"), Spec(lambda rng: rng.integers(0, 3, N) * 0.5, "halves"), zeros("int32", (N, 6))], grid=2, sim=False)
case("warp.divergent_active", [ints("int32", N), zeros("uint32", N)], grid=2, sim=False)
