// Proof that the harness finds bugs: for every planted bug, `logsim fuzz` with the bug planted
// finds it within its campaign's bound of seeds, names the anomaly the bug is known by, and
// shrinks it to a smaller scenario that replays to the same trace; the same campaign without
// the bug finds nothing.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "fuzz/fuzz.h"
#include "fuzz/plant_campaigns.h"
#include "scenarios/loader.h"

namespace logsim::fuzz {
namespace {

FuzzOptions options_for(const PlantCampaign& c) {
  FuzzOptions o;
  std::ifstream in(std::string(LOGSIM_SOURCE_DIR) + "/" + std::string(c.template_file));
  std::stringstream s;
  s << in.rdbuf();
  o.template_doc = nlohmann::json::parse(s.str());
  o.shape.kinds = fault_kinds(c.faults);
  o.seeds = c.max_seeds;
  o.shrink_max_runs = 80;
  o.confirm_every = 0;
  return o;
}

class PlantCampaigns : public ::testing::TestWithParam<PlantCampaign> {};

TEST_P(PlantCampaigns, FuzzFindsThePlantedBugAndShrinksIt) {
  const PlantCampaign& c = GetParam();
  const PlantInfo* info = nullptr;
  for (const auto& p : all_plants()) {
    if (p.plant == c.plant) info = &p;
  }
  ASSERT_NE(info, nullptr);
  FuzzOptions o = options_for(c);
  o.plants = {std::string(info->name)};
  const FuzzReport r = fuzz(o);
  ASSERT_TRUE(r.failure.has_value()) << campaign_command(c) << " found nothing in " << c.max_seeds << " seeds";
  const FuzzFailure& f = *r.failure;
  EXPECT_TRUE(info->found_as(f.anomaly)) << "seed " << f.seed << " showed " << f.anomaly << ", not " << info->anomaly;
  EXPECT_LE(f.shrunk_size.timeline_steps, f.original_size.timeline_steps);
  EXPECT_LE(f.shrunk_size.records, f.original_size.records);
  EXPECT_GT(f.shrink_steps, 0) << "nothing could be taken away";
  const scenarios::Scenario s = scenarios::parse_scenario(f.shrunk.dump(), "shrunk.json");
  ASSERT_TRUE(s.found.has_value());
  const RunOutput again = run_doc(f.shrunk, "shrunk.json");
  EXPECT_EQ(fmt::format("{:016x}", again.result.trace_hash), s.found->trace_hash) << "the shrunk scenario replays";
  std::cout << "  " << info->name << ": seed " << f.seed << ", " << f.anomaly << "; shrunk to " << f.shrunk_size.text() << "\n";
}

TEST_P(PlantCampaigns, WithoutThePlantTheSameCampaignFindsNothing) {
  const PlantCampaign& c = GetParam();
  FuzzOptions o = options_for(c);
  o.shrink = false;
  const FuzzReport r = fuzz(o);
  EXPECT_EQ(r.seeds_run, c.max_seeds);
  EXPECT_TRUE(r.failing_seeds.empty()) << campaign_command(c) << " without the plant failed at seed "
                                       << (r.failing_seeds.empty() ? 0 : r.failing_seeds.front()) << ": "
                                       << (r.failure ? r.failure->anomaly : "");
}

std::string campaign_name(const ::testing::TestParamInfo<PlantCampaign>& info) {
  std::string name;
  for (const auto& p : all_plants()) {
    if (p.plant == info.param.plant) name = p.name;
  }
  for (auto& ch : name) {
    if (ch == '-') ch = '_';
  }
  return name;
}

// A scenario may name any plant: the schema's list of them (scenarios/schema.json, "plant")
// is every plant, in the order --list-plants gives them.
TEST(Plants, TheSchemaListsEveryPlant) {
  std::ifstream in(std::string(LOGSIM_SOURCE_DIR) + "/scenarios/schema.json");
  const nlohmann::json schema = nlohmann::json::parse(in);
  std::vector<std::string> listed;
  for (const auto& name : schema.at("properties").at("plant").at("items").at("enum")) {
    listed.push_back(name.get<std::string>());
  }
  std::vector<std::string> plants;
  for (const auto& p : all_plants()) plants.emplace_back(p.name);
  EXPECT_EQ(listed, plants);
}

INSTANTIATE_TEST_SUITE_P(EveryPlant, PlantCampaigns, ::testing::ValuesIn(plant_campaigns().begin(), plant_campaigns().end()),
                         campaign_name);

}  // namespace
}  // namespace logsim::fuzz
