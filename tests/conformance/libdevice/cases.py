# libdevice: every numba.cuda.libdevice function, on special values and
# ranges. Both compilers call the same __nv_ function: exact.
N = 128

# On the host, the functions that round through the GPU's approximate
# instructions (rcp.approx.ftz.f64, ex2.approx ...) get the exact value
# there: within four ulps of their own type (the float32 results are kept
# as float64: 2**29 float64 ulps to a float32 one). The fast_ functions
# are the approximations themselves, which are no function of the exact
# value outside their accurate range (fast_cosf of 1e30, fast_sinf of
# FLT_MIN flushed to 0).
HOST_F64 = ulp(8)
HOST_F32 = ulp(4 << 29)
FAST = "the fast_ functions are the GPU's approximate instructions, whose results the host does not reproduce"


def arg(t):
    if t.startswith("float"):
        return specials(t, N, -10, 10)
    return ints(t, N, -40, 40)


case("functions.sig_d_d_0", [arg("float64"), zeros("float64", (N, 12))], grid=2)
case("functions.sig_d_d_1", [arg("float64"), zeros("float64", (N, 12))], grid=2)
case("functions.sig_d_d_2", [arg("float64"), zeros("float64", (N, 12))], grid=2, host_tol=HOST_F64)
case("functions.sig_d_d_3", [arg("float64"), zeros("float64", (N, 12))], grid=2, host_tol=HOST_F64)
# y0 and y1 are long float64 polynomials whose a*b+c LLVM and NVVM fuse a
# little differently: within an ulp
case("functions.sig_d_d_4", [arg("float64"), zeros("float64", (N, 7))], grid=2, tol=ulp(1))
case("functions.sig_d_dPd_0", [arg("float64"), zeros("float64", (N, 2))], grid=2)
case("functions.sig_d_dPi_0", [arg("float64"), zeros("float64", (N, 2))], grid=2)
case("functions.sig_d_dd_0", [arg("float64"), arg("float64"), zeros("float64", (N, 12))], grid=2)
case("functions.sig_d_dd_1", [arg("float64"), arg("float64"), zeros("float64", (N, 10))], grid=2, host_tol=HOST_F64)
case("functions.sig_d_ddPi_0", [arg("float64"), arg("float64"), zeros("float64", (N, 2))], grid=2)
case("functions.sig_d_ddd_0", [arg("float64"), arg("float64"), arg("float64"), zeros("float64", (N, 5))], grid=2)
case("functions.sig_d_di_0", [arg("float64"), arg("int32"), zeros("float64", (N, 3))], grid=2)
case("functions.sig_d_i_0", [arg("int32"), zeros("float64", (N, 2))], grid=2)
case("functions.sig_d_id_0", [arg("int32"), arg("float64"), zeros("float64", (N, 2))], grid=2)
case("functions.sig_d_ii_0", [arg("int32"), arg("int32"), zeros("float64", (N, 1))], grid=2)
case("functions.sig_d_l_0", [arg("int64"), zeros("float64", (N, 9))], grid=2)
case("functions.sig_f_d_0", [arg("float64"), zeros("float64", (N, 4))], grid=2)
case("functions.sig_f_f_0", [arg("float32"), zeros("float64", (N, 12))], grid=2, host_tol=HOST_F32)
case("functions.sig_f_f_1", [arg("float32"), zeros("float64", (N, 12))], grid=2, host_xfail=FAST)
case("functions.sig_f_f_2", [arg("float32"), zeros("float64", (N, 12))], grid=2, host_tol=HOST_F32, host_xfail=FAST)
case("functions.sig_f_f_3", [arg("float32"), zeros("float64", (N, 12))], grid=2, host_tol=HOST_F32)
case("functions.sig_f_f_4", [arg("float32"), zeros("float64", (N, 12))], grid=2, host_tol=HOST_F32)
case("functions.sig_f_f_5", [arg("float32"), zeros("float64", (N, 5))], grid=2, host_tol=HOST_F32)
case("functions.sig_f_fPf_0", [arg("float32"), zeros("float64", (N, 2))], grid=2)
case("functions.sig_f_fPi_0", [arg("float32"), zeros("float64", (N, 2))], grid=2)
case("functions.sig_f_ff_0", [arg("float32"), arg("float32"), zeros("float64", (N, 12))], grid=2, host_xfail=FAST)
case("functions.sig_f_ff_1", [arg("float32"), arg("float32"), zeros("float64", (N, 12))], grid=2)
case("functions.sig_f_ff_2", [arg("float32"), arg("float32"), zeros("float64", (N, 4))], grid=2)
case("functions.sig_f_ffPi_0", [arg("float32"), arg("float32"), zeros("float64", (N, 2))], grid=2)
case("functions.sig_f_fff_0", [arg("float32"), arg("float32"), arg("float32"), zeros("float64", (N, 5))], grid=2)
case("functions.sig_f_fi_0", [arg("float32"), arg("int32"), zeros("float64", (N, 3))], grid=2)
case("functions.sig_f_h_0", [arg("int16"), zeros("float64", (N, 1))], grid=2)
case("functions.sig_f_i_0", [arg("int32"), zeros("float64", (N, 9))], grid=2)
case("functions.sig_f_if_0", [arg("int32"), arg("float32"), zeros("float64", (N, 2))], grid=2)
case("functions.sig_f_l_0", [arg("int64"), zeros("float64", (N, 8))], grid=2)
case("functions.sig_h_f_0", [arg("float32"), zeros("float64", (N, 1))], grid=2)
case("functions.sig_i_d_0", [arg("float64"), zeros("float64", (N, 12))], grid=2)
case("functions.sig_i_d_1", [arg("float64"), zeros("float64", (N, 3))], grid=2)
case("functions.sig_i_f_0", [arg("float32"), zeros("float64", (N, 12))], grid=2)
case("functions.sig_i_f_1", [arg("float32"), zeros("float64", (N, 2))], grid=2)
case("functions.sig_i_i_0", [arg("int32"), zeros("float64", (N, 5))], grid=2)
case("functions.sig_i_ii_0", [arg("int32"), arg("int32"), zeros("float64", (N, 12))], grid=2)
case("functions.sig_i_iii_0", [arg("int32"), arg("int32"), arg("int32"), zeros("float64", (N, 3))], grid=2)
case("functions.sig_i_l_0", [arg("int64"), zeros("float64", (N, 3))], grid=2)
case("functions.sig_l_d_0", [arg("float64"), zeros("float64", (N, 11))], grid=2)
case("functions.sig_l_f_0", [arg("float32"), zeros("float64", (N, 10))], grid=2)
case("functions.sig_l_l_0", [arg("int64"), zeros("float64", (N, 2))], grid=2)
case("functions.sig_l_ll_0", [arg("int64"), arg("int64"), zeros("float64", (N, 6))], grid=2)
case("functions.sig_v_dPdPd_0", [arg("float64"), zeros("float64", (N, 4))], grid=2)
case("functions.sig_v_fPfPf_0", [arg("float32"), zeros("float64", (N, 6))], grid=2, host_xfail=FAST)
