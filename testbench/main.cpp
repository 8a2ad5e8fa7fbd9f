// GoogleTest under SystemC: SystemC's library provides main() and calls sc_main, which runs the
// tests. A SystemC design elaborates once per process, so ctest runs every test in a process of
// its own (gtest_discover_tests).
#include <gtest/gtest.h>

#include <systemc>

int sc_main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
