// The scgpu command line; everything lives in app/.
#include "app/cli.h"
#include "tlm/sc_entry.h"

int sc_main(int argc, char** argv) { return scgpu::cli::main(argc, argv); }

SCGPU_SYSTEMC_MAIN
