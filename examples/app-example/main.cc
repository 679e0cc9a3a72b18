// The ledger's simulation binary: logsim's whole command line (run, fuzz, replay, ...) with the
// ledger registered, so scenario files can say "app": "ledger". Built twice: ledger-sim with
// the ledger as first written, ledger-sim-fixed with the fix (LEDGER_FIXED).
#include "cli/logsim_main.h"
#include "ledger.h"

int main(int argc, char** argv) {
#ifdef LEDGER_FIXED
  ledger::register_ledger(ledger::Commit::kAfterPosting);
#else
  ledger::register_ledger(ledger::Commit::kOnPoll);
#endif
  return logsim::main(argc, argv);
}
