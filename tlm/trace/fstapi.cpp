// The FST writer that ships with Verilator's package (GTKWave's fstapi with fastlz and lz4),
// built unchanged as C++ exactly the way Verilator's own verilated_fst_c.cpp builds it; compiled
// with warnings off (tlm/CMakeLists.txt), needs zlib. Not our code: do not edit, do not copy.
#define FST_CONFIG_INCLUDE "fst_config.h"
#include "fastlz.c"
#include "fstapi.c"
#include "lz4.c"
