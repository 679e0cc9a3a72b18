// The table of planted bugs.
#include "engine/env/plants.h"

#include <array>

namespace logsim {
namespace {
constexpr std::array<PlantInfo, 2> kPlants{{
    {Plant::kAcceptStaleCommit, "accept-stale-commit",
     "the group coordinator accepts an offset commit from a stale generation (a fenced zombie's)", "stale-commit-accepted"},
    {Plant::kAutoCommitFetchedOnRebalance, "auto-commit-fetched-on-rebalance",
     "KAFKA-14196: the auto-commit before a rebalance commits what was fetched, not what poll() returned", "lost-commit"},
}};
}  // namespace

std::span<const PlantInfo> all_plants() { return kPlants; }

std::optional<Plant> plant_by_name(std::string_view name) {
  for (const auto& p : kPlants) {
    if (p.name == name) return p.plant;
  }
  return std::nullopt;
}

}  // namespace logsim
