// Fixtures the loader tests share: the bundled scenarios' directory, a minimal scenario, a
// small scenario to splice sections into, and error_of (load_error.h).
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "scenarios/tests/load_error.h"

namespace logsim::scenarios {

// The bundled scenarios' directory (scenarios/), from the source root the build names.
inline std::string scenarios_dir() { return LOGSIM_SOURCE_DIR "/scenarios/"; }

inline constexpr const char* kMinimal = R"({"name": "m", "topics": [{"name": "t"}]})";

// A scenario with one topic "orders" (3 partitions), a producer "p" and a consumer "c", with
// `extra` spliced in as further top-level members (e.g. a timeline).
inline std::string with(const std::string& extra, const std::string& producer_extra = "",
                        const std::string& consumer_extra = "") {
  return R"({"name": "s", "duration": "10s", "topics": [{"name": "orders", "partitions": 3}],
    "producers": [{"name": "p", "topic": "orders")" + producer_extra + R"(}],
    "consumers": [{"name": "c", "topics": ["orders"])" + consumer_extra + "}]" +
         (extra.empty() ? "" : ", " + extra) + "}";
}

inline bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

#define EXPECT_CONTAINS(haystack, needle) EXPECT_PRED2(contains, haystack, needle)

}  // namespace logsim::scenarios
