// For loader tests: the error a scenario text is refused with (a test failure if it loads).
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "scenarios/loader.h"

namespace logsim::scenarios {

inline ScenarioError error_of(const std::string& text, const std::string& file = "mem.json") {
  try {
    parse_scenario(text, file);
  } catch (const ScenarioError& e) {
    return e;
  }
  ADD_FAILURE() << "no error for: " << text;
  return ScenarioError("", "", "", "");
}

}  // namespace logsim::scenarios
