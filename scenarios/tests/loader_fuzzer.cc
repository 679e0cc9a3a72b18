// libFuzzer target over the scenario loader: whatever the bytes, loading either returns a
// Scenario or throws ScenarioError (exit 2 in the CLI, with file, JSON pointer and what is
// expected). Any other exception, crash, leak or undefined behaviour is a bug; libFuzzer and
// the sanitizers report it with the input that caused it.
//
//   cmake --preset fuzz && cmake --build --preset fuzz
//   build/fuzz/scenarios/loader_fuzzer -max_total_time=60 -dict=scenarios/tests/loader_fuzzer.dict CORPUS scenarios
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "scenarios/loader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    (void)logsim::scenarios::parse_scenario(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.json");
  } catch (const logsim::scenarios::ScenarioError&) {
    // The one way a scenario may be refused.
  }
  return 0;
}
