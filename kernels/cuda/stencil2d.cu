// One Jacobi-style step of a 5-point stencil on a row-major width x height grid:
//   out = c0 * centre + c1 * (west + east + north + south); boundary cells are copied.
// Block (16,16), grid (ceil(width/16), ceil(height/16)). The host ping-pongs two buffers.
extern "C" __global__ void stencil2d(const float* __restrict__ in, float* __restrict__ out, int width,
                                     int height, float c0, float c1) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  int idx = y * width + x;
  if (x == 0 || y == 0 || x == width - 1 || y == height - 1) {
    out[idx] = in[idx];
    return;
  }
  out[idx] = c0 * in[idx] + c1 * (in[idx - 1] + in[idx + 1] + in[idx - width] + in[idx + width]);
}
