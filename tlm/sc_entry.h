// The process entry for every scgpu executable. SystemC's library would provide main() and print
// its banner before calling sc_main; scgpu's output stays what the user asked for, so this main
// turns the banner off and hands over to SystemC, which calls the executable's sc_main.
#pragma once

#include <cstdlib>

#include <systemc>

#define SCGPU_SYSTEMC_MAIN                                       \
  int main(int argc, char** argv) {                              \
    setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);         \
    return sc_core::sc_elab_and_sim(argc, argv);                 \
  }
