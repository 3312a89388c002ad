# bits: popc, clz, ffs, brev. Exact.
N = 256

case("bits.popc_clz_int8", [full_range("int8", N), zeros("int64", (N, 2))], grid=4)
case("bits.popc_clz_uint8", [full_range("uint8", N), zeros("int64", (N, 2))], grid=4)
case("bits.popc_clz_int16", [full_range("int16", N), zeros("int64", (N, 2))], grid=4)
case("bits.popc_clz_uint16", [full_range("uint16", N), zeros("int64", (N, 2))], grid=4)
case("bits.popc_clz_int32", [full_range("int32", N), zeros("int64", (N, 2))], grid=4)
case("bits.popc_clz_uint32", [full_range("uint32", N), zeros("int64", (N, 2))], grid=4)
case("bits.popc_clz_int64", [full_range("int64", N), zeros("int64", (N, 2))], grid=4)
case("bits.popc_clz_uint64", [full_range("uint64", N), zeros("int64", (N, 2))], grid=4)
case("bits.ffs_uint32", [full_range("uint32", N), zeros("int64", N)], grid=4)
case("bits.ffs_int32", [full_range("int32", N), zeros("int64", N)], grid=4)
case("bits.ffs_uint64", [full_range("uint64", N), zeros("int64", N)], grid=4)
case("bits.ffs_int64", [full_range("int64", N), zeros("int64", N)], grid=4)
case("bits.brev_uint32", [full_range("uint32", N), zeros("uint32", N)], grid=4)
case("bits.brev_uint64", [full_range("uint64", N), zeros("uint64", N)], grid=4)
