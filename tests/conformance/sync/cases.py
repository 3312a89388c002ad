# sync: barriers with predicates, syncwarp, fences, a grid-wide sync.
N = 256

case("sync.predicates", [Spec(lambda rng: np.concatenate([np.ones(64), -np.ones(64), rng.integers(-3, 4, N - 128)]).astype(np.int32), "blocks"), zeros("int32", (N, 6))], grid=4)
case("sync.syncwarp_exchange", [normal("float32", N), zeros("float32", N)], grid=4)
case("sync.fences", [ints("int64", N), zeros("int32", 1), zeros("int64", N)], grid=4)
case("sync.grid_sync", [ints("int64", N), zeros("int64", N)], grid=4, sim=False)
