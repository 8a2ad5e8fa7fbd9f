// The scgpu command line; everything lives in tlm/cli/.
#include "tlm/cli/cli.h"

int main(int argc, char** argv) { return scgpu::cli::main(argc, argv); }
