// The campaigns that find each planted bug (see plant_campaigns.h).
#include "fuzz/plant_campaigns.h"

#include <array>

namespace logsim::fuzz {
namespace {

constexpr std::string_view kMemberFaults = "member-crash,member-stop,member-pause";
constexpr std::string_view kBrokerFaults = "crash,isolate,partition,pause";
// Broker faults, and crashes and pauses of the applications (transactional producers included).
constexpr std::string_view kAppFaults = "crash,isolate,partition,pause,member-crash,member-pause";

// five-batch-producer-state has no campaign: with the producer retrying a partition's first
// unanswered batch alone, as Kafka's does, Kafka's five remembered batches suffice in every
// schedule fuzzed (1,500 seeds of replicated-writes); scenarios/idempotent-failover-five-batch-
// cache.json shows the failover it used to break passing with the plant.
constexpr std::array<PlantCampaign, 14> kCampaigns{{
    {Plant::kAcceptStaleCommit, "scenarios/templates/zombie-members.json", kMemberFaults, 30},
    {Plant::kAutoCommitFetchedOnRebalance, "scenarios/templates/slow-consumers.json", kMemberFaults, 30},
    {Plant::kAdvanceHwWithoutIsr, "scenarios/templates/replicated-writes.json", kBrokerFaults, 30},
    {Plant::kTruncateToHighWatermark, "scenarios/templates/double-failover.json", kBrokerFaults, 30},
    {Plant::kSkipIdempotentDedup, "scenarios/templates/replicated-writes.json", kBrokerFaults, 30},
    {Plant::kCooperativeDoubleOwnership, "scenarios/templates/rebalance-storm.json", kMemberFaults, 150},
    {Plant::kFetchAboveHighWatermark, "scenarios/templates/replicated-writes.json", kBrokerFaults, 60},
    {Plant::kFetchSkipsRecord, "scenarios/templates/slow-consumers.json", kMemberFaults, 10},
    {Plant::kDeleteSegmentAboveHighWatermark, "scenarios/templates/short-retention.json", kBrokerFaults, 30},
    {Plant::kErrorAfterAppend, "scenarios/templates/fail-fast-producers.json", kBrokerFaults, 30},
    {Plant::kMarkersBeforeDurable, "scenarios/templates/transaction-log-under-replicated.json", kBrokerFaults, 100},
    {Plant::kLsoPastOpenTransaction, "scenarios/templates/transactions.json", kBrokerFaults, 30},
    {Plant::kFencedWriteAccepted, "scenarios/templates/zombie-producers.json", kAppFaults, 30},
    {Plant::kTxnOffsetsOnAbort, "scenarios/templates/exactly-once-pipeline.json", kAppFaults, 100},
}};

}  // namespace

std::span<const PlantCampaign> plant_campaigns() { return kCampaigns; }

const PlantCampaign* campaign_for(Plant plant) {
  for (const auto& c : kCampaigns) {
    if (c.plant == plant) return &c;
  }
  return nullptr;
}

std::string campaign_command(const PlantCampaign& c) {
  std::string name;
  for (const auto& p : all_plants()) {
    if (p.plant == c.plant) name = p.name;
  }
  return "logsim fuzz " + std::string(c.template_file) + " --plant " + name + " --faults " + std::string(c.faults) +
         " --seeds " + std::to_string(c.max_seeds);
}

}  // namespace logsim::fuzz
