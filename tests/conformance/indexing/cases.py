# indexing: layouts, ranks, views, negative and tuple indices, attributes.
N = 300

case("layouts.copy_1d_c", [normal("float32", N), zeros("float32", N)], grid=blocks(N))
case("layouts.copy_1d_any", [view(normal("float64", 3 * N), np.s_[::3]), view(zeros("float64", 2 * N), np.s_[1::2])],
     grid=blocks(N), label="strided views")
case("layouts.copy_1d_any", [normal("float64", N), zeros("float64", N)], grid=blocks(N))
case("layouts.rows_2d_c", [ints("int32", (70, 13)), zeros("int64", 70)], grid=2)
case("layouts.cols_2d_f", [fortran(ints("int32", (13, 70))), zeros("int64", 70)], grid=2)
case("layouts.grid_2d_any", [fortran(normal("float32", (33, 17))), zeros("float32", (33, 17))], grid=(3, 3), block=(16, 8))
case("layouts.grid_2d_any", [view(normal("float32", (40, 40)), np.s_[3:37:2, 1::3]), view(zeros("float32", (40, 40)), np.s_[:34:2, 0:39:3])],
     grid=(2, 2), block=(16, 8), label="strided 2-d views")
case("layouts.index_3d", [view(ints("int16", (6, 7, 10)), np.s_[:, 1:, ::2]), zeros("int64", (6, 6, 5))], grid=(1, 1, 1), block=(8, 8, 8))
case("layouts.negative_index", [arange("int64", 64, 7, 3), ints("int64", (3, 5)), zeros("int64", 64)])
case("layouts.tuple_index", [fortran(normal("float64", (9, 11))), Spec(lambda rng: np.stack([rng.permutation(99) // 11, rng.permutation(99) % 11], axis=1)[:64].astype(np.int64), "distinct"), zeros("float64", 64)],
     host_xfail="the two permutations pair up some (i, j) twice: a thread's load races another's store of -1, "
                "which a GPU's converged warp orders loads first")
case("layouts.attributes", [view(zeros("float32", (10, 12)), np.s_[1:9:2, ::3]), zeros("uint8", (3, 4, 5)), zeros("int64", 16)])
case("layouts.unsigned_index", [normal("float32", 256), ints("uint8", 100, 0, 256), zeros("float32", 100)], grid=2)
case("layouts.int32_index", [normal("float32", 200), zeros("float32", 200)], grid=4)
case("layouts.store_converts", [floats("float64", N, -300, 300), zeros("int16", N), zeros("uint8", N), zeros("float32", N)], grid=blocks(N))
