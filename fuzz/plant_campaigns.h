// How to find each planted bug with `logsim fuzz`: a template scenario, the fault kinds, and
// how many seeds the search may take. The test suite proves with these that the fuzzer finds
// every planted bug (and nothing without it); bench/fuzz_bench prints seeds and time to
// detection; `logsim fuzz --list-plants` shows the command for each.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "engine/plants.h"

namespace logsim::fuzz {

struct PlantCampaign {
  Plant plant;
  std::string_view template_file;  // relative to the repository root
  std::string_view faults;         // --faults
  std::int64_t max_seeds;          // the search must find it within this many seeds from seed 1
};

std::span<const PlantCampaign> plant_campaigns();
const PlantCampaign* campaign_for(Plant plant);
// The command line that runs a campaign.
std::string campaign_command(const PlantCampaign& c);

}  // namespace logsim::fuzz
