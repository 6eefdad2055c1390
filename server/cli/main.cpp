// Entry point of the `wafer` binary.
#include "server/cli/run.h"

int main(int argc, char** argv) { return wafer::wafer_main(argc, argv); }
