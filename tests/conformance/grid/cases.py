# grid: thread and block indices, grid() and gridsize() in 1-3 dimensions.
case("grid.registers_3d", [zeros("int32", (2 * 3 * 2 * 4 * 4 * 2, 8))], grid=(2, 3, 2), block=(4, 4, 2))
case("grid.grid_1d", [zeros("int64", (300, 2))], grid=5, block=64)
case("grid.grid_2d", [zeros("int64", (20, 30, 2))], grid=(3, 4), block=(8, 8))
case("grid.grid_3d", [zeros("int64", (9, 7, 5, 2))], grid=(2, 2, 3), block=(5, 4, 2))
case("grid.grid_stride", [normal("float32", 5000), zeros("float32", 5000)], grid=3, block=64)
case("grid.register_types", [zeros("int64", (256, 4))], grid=4)
