// The logsim executable: the command line with no applications of a user's.
#include "cli/logsim_main.h"

int main(int argc, char** argv) { return logsim::main(argc, argv); }
