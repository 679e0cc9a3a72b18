// logsim's whole command line (run, fuzz, replay, check, report, merge, partition, serve) as a
// function, for a user's own binary: the applications it registered (api/app.h) are the ones a
// scenario's "app" keys may name, in every command.
//
//   #include "api/app.h"
//   #include "cli/logsim_main.h"
//
//   int main(int argc, char** argv) {
//     logsim::register_app("billing", [] { return std::make_unique<Billing>(); });
//     return logsim::main(argc, argv);  // my-sim run billing.json --seeds 100, my-sim fuzz ...
//   }
//
// Link logsim::cli (find_package(logsim)). logsim's own binary is this with no apps.
#pragma once

namespace logsim {

// Parses the arguments as `logsim` does and runs the command; returns its exit code (DESIGN.md:
// 0 pass, 1 violated, 2 bad input, 3 nondeterminism, 4 liveness, 70 internal).
int main(int argc, char** argv);

}  // namespace logsim
