// The table of planted bugs.
#include "engine/plants.h"

#include <array>

namespace logsim {
namespace {
constexpr std::array<PlantInfo, 15> kPlants{{
    {Plant::kAcceptStaleCommit, "accept-stale-commit",
     "the group coordinator accepts an offset commit from a stale generation (a fenced zombie's)", "stale-commit-accepted"},
    {Plant::kAutoCommitFetchedOnRebalance, "auto-commit-fetched-on-rebalance",
     "KAFKA-14196: the auto-commit before a rebalance commits what was fetched, not what poll() returned", "lost-commit"},
    {Plant::kAdvanceHwWithoutIsr, "advance-hw-without-isr",
     "the leader advances the high watermark without the in-sync replicas (acks=all before replication)", "lost-write",
     "inconsistent-offsets"},
    {Plant::kTruncateToHighWatermark, "truncate-to-hw",
     "KAFKA-1211: a new follower truncates to its own stale high watermark, not the leader epoch's end", "lost-write",
     "inconsistent-offsets"},
    {Plant::kSkipIdempotentDedup, "skip-idempotent-dedup",
     "the broker appends a retried idempotent batch again instead of de-duplicating its sequence", "duplicate"},
    {Plant::kCooperativeDoubleOwnership, "cooperative-double-ownership",
     "KAFKA-12984: the cooperative assignor moves a partition before its old owner revoked it", "double-ownership"},
    {Plant::kFetchAboveHighWatermark, "fetch-above-hw",
     "the leader serves consumer fetches above the high watermark (records a failover may truncate)", "inconsistent-offsets"},
    {Plant::kFetchSkipsRecord, "fetch-skips-record",
     "the leader's answer to a consumer fetch leaves out its second record (the consumer's position passes it)",
     "int-poll-skip", "poll-skip"},
    {Plant::kDeleteSegmentAboveHighWatermark, "delete-segment-above-hw",
     "retention deletes old segments above the high watermark, before the followers have them", "lost-write"},
    {Plant::kFiveBatchProducerState, "five-batch-producer-state",
     "librdkafka #4953: the broker remembers only Kafka's five batches per producer, so a retry it has forgotten "
     "after a failover would be written again under a new epoch",
     "duplicate", "nonmonotonic-send"},
    {Plant::kErrorAfterAppend, "error-after-append",
     "KAFKA-13574's class: produces completed by an ISR shrink are answered NOT_LEADER_OR_FOLLOWER although they "
     "were appended and committed",
     "aborted-read"},
    {Plant::kMarkersBeforeDurable, "markers-before-durable",
     "the transaction coordinator sends a decision's markers before the decision is durable, so partitions end a "
     "transaction the coordinator never decided and the transaction hangs (KIP-664's hanging transactions)",
     "liveness"},
    {Plant::kLsoPastOpenTransaction, "lso-past-open-transaction",
     "the leader's last stable offset ignores open transactions: read_committed consumers read undecided records",
     "precommitted-read", "aborted-read"},
    {Plant::kFencedWriteAccepted, "fenced-write-accepted",
     "KAFKA-17754's class: the leader accepts a produce from a fenced (older) producer epoch into a transaction",
     "zombie-write", "unseen"},
    {Plant::kTxnOffsetsOnAbort, "txn-offsets-on-abort",
     "the group coordinator applies a transaction's offsets when it aborts, so an exactly-once pipeline's committed "
     "positions pass input whose output was aborted",
     "eos-lost"},
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
