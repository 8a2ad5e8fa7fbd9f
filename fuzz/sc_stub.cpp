// Debian's SystemC library holds a main() that calls sc_main(), and so needs one to link. The fuzz
// executables have their own main (libFuzzer's, or replay_main.cpp's) and never elaborate a
// SystemC design (the harnesses run the functional mode), so this sc_main is never called.
extern "C" int sc_main(int, char**) { return 0; }  // declared extern "C" by <systemc>
