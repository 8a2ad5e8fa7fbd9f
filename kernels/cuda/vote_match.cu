// Warp vote and match intrinsics; the launch must cover whole warps. out[k*n+i] for k:
//   0 __ballot_sync(all, v > 0)          1 __any_sync(all, v > 900)   2 __all_sync(all, v > -900)
//   3 __match_any_sync(all, v & 3)
//   4 __match_all_sync(all, key, &pred) with key = 7 in even warps, v & 1 in odd warps; 7 pred
//   5 warp sum of (v & 0xff): __reduce_add_sync on sm_80+, __shfl_xor_sync before
//   6 a ballot under divergence: odd lanes vote v > 0 with mask 0xaaaaaaaa, even lanes v < 0 with
//     mask 0x55555555
#define FULL 0xffffffffu

extern "C" __global__ void vote_match(const int* __restrict__ in, unsigned* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x & 31;
  int v = i < n ? in[i] : 0;
  unsigned ballot = __ballot_sync(FULL, v > 0);
  unsigned any = __any_sync(FULL, v > 900);
  unsigned all = __all_sync(FULL, v > -900);
  unsigned match = __match_any_sync(FULL, v & 3);
  int key = ((i >> 5) & 1) == 0 ? 7 : (v & 1);
  int pred = 0;
  unsigned match_all = __match_all_sync(FULL, key, &pred);
  unsigned byte = (unsigned)v & 0xffu;
#if __CUDA_ARCH__ >= 800
  unsigned sum = __reduce_add_sync(FULL, byte);
#else
  unsigned sum = byte;
  for (int m = 16; m > 0; m >>= 1) sum += __shfl_xor_sync(FULL, sum, m);
#endif
  unsigned divergent;
  if (lane & 1)
    divergent = __ballot_sync(0xaaaaaaaau, v > 0);
  else
    divergent = __ballot_sync(0x55555555u, v < 0);
  if (i < n) {
    out[0 * n + i] = ballot;
    out[1 * n + i] = any;
    out[2 * n + i] = all;
    out[3 * n + i] = match;
    out[4 * n + i] = match_all;
    out[5 * n + i] = sum;
    out[6 * n + i] = divergent;
    out[7 * n + i] = (unsigned)pred;
  }
}
