// nbody.cu - nbody.pyk in CUDA C: pos is n x 4 (x, y, z, mass), vel n x 3,
// row-major. Differences and the squared distance in float, everything
// from `1.0 / sqrtf(d2)` on in double, as Numba types the .pyk.
extern "C" __global__ void nbody_step(const float *pos, const float *vel, float *new_pos, float *new_vel, float dt,
                                      float eps2, long long n)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float xi = pos[i * 4 + 0];
        float yi = pos[i * 4 + 1];
        float zi = pos[i * 4 + 2];
        double ax = 0.0;
        double ay = 0.0;
        double az = 0.0;
        for (long long j = 0; j < n; j++) {
            float dx = pos[j * 4 + 0] - xi;
            float dy = pos[j * 4 + 1] - yi;
            float dz = pos[j * 4 + 2] - zi;
            float d2 = dx * dx + dy * dy + dz * dz + eps2;
            double inv = 1.0 / sqrtf(d2);
            double s = pos[j * 4 + 3] * inv * inv * inv;
            ax += s * dx;
            ay += s * dy;
            az += s * dz;
        }
        double vx = vel[i * 3 + 0] + ax * dt;
        double vy = vel[i * 3 + 1] + ay * dt;
        double vz = vel[i * 3 + 2] + az * dt;
        new_vel[i * 3 + 0] = (float)vx;
        new_vel[i * 3 + 1] = (float)vy;
        new_vel[i * 3 + 2] = (float)vz;
        new_pos[i * 4 + 0] = (float)(xi + vx * dt);
        new_pos[i * 4 + 1] = (float)(yi + vy * dt);
        new_pos[i * 4 + 2] = (float)(zi + vz * dt);
        new_pos[i * 4 + 3] = pos[i * 4 + 3];
    }
}
