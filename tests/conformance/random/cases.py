# random: xoroshiro128+ draws from numba-cuda's host-made states (its
# init_xoroshiro128p_states_cpu, as create_xoroshiro128p_states runs it).
# The states after the draws are compared too. Bit-exact: normal draws
# call the same libdevice functions.
N = 128

case("draws.uniform_f32", [xoroshiro_states(N, 1234), zeros("float32", (N, 8))], grid=2)
case("draws.uniform_f64", [xoroshiro_states(N, 99), zeros("float64", (N, 8))], grid=2)
case("draws.normal_f32", [xoroshiro_states(N, 7), zeros("float32", (N, 8))], grid=2)
case("draws.normal_f64", [xoroshiro_states(N, 8, subsequence_start=3), zeros("float64", (N, 8))], grid=2)
case("draws.monte_carlo_pi", [xoroshiro_states(N, 42), np.int64(300), zeros("float32", N)], grid=2)
case("draws.mixed_draws", [xoroshiro_states(N, 5), zeros("float64", (N, 4))], grid=2)
