// GoogleTest under SystemC: sc_main runs the tests. A SystemC design elaborates once per process,
// so ctest runs every test in a process of its own (gtest_discover_tests).
#include <gtest/gtest.h>

#include "tlm/sc_entry.h"

int sc_main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}

SCGPU_SYSTEMC_MAIN
