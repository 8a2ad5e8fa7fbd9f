// CHECK(call): a CUDA runtime call that must succeed; otherwise the file, line, call and CUDA's
// message go to stderr and the program exits with status 1. Shared by the H100 runners here.
#pragma once
#include <cstdio>
#include <cstdlib>

#define CHECK(x)                                                                                  \
  do {                                                                                            \
    cudaError_t e = (x);                                                                          \
    if (e != cudaSuccess) {                                                                       \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e));    \
      std::exit(1);                                                                               \
    }                                                                                             \
  } while (0)
