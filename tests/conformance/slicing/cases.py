# slicing: views inside kernels.
case("slices.slices_1d", [normal("float64", 40), zeros("float64", (32, 8))], tol=ulp(1))
case("slices.slices_2d", [normal("float32", (12, 9)), zeros("float64", (12, 6))], tol=ulp(1))
case("slices.slice_store", [ints("int64", (50, 10)), ints("int64", 50)])
