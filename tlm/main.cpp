// The scgpu command line; everything lives in tlm/cli/. SystemC's library provides main() and
// calls sc_main, so the timing model's design can be elaborated inside it.
#include <systemc>

#include "tlm/cli/cli.h"

int sc_main(int argc, char** argv) { return scgpu::cli::main(argc, argv); }
