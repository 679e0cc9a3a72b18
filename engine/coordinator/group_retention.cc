// Offsets retention (offsets.retention.minutes, KIP-211): the coordinator's periodic expiry of
// committed offsets. (The rules are at expire_offsets in group_coordinator_impl.h.)
//
// Where logsim simplifies Kafka: a group with members keeps all its offsets. Kafka (2.1+) also
// expires, in a Stable consumer group, the offsets of topics the group no longer subscribes
// to; logsim's coordinator does not read subscriptions (they are opaque metadata to it).
#include <string>
#include <vector>

#include "engine/coordinator/group_coordinator_impl.h"

namespace logsim::engine {

void GroupCoordinator::Impl::on_retention_check() {
  arm(static_cast<std::int32_t>(config.offsets_retention_check_interval_ms), {CoordinatorTimer::kOffsetsRetention, "", 0, ""});
  const std::int64_t now = now_ms();
  std::vector<std::string> ids;  // expire_offsets may delete a group: collect the ids first
  for (const auto& [id, g] : groups) ids.push_back(id);
  for (const std::string& id : ids) {
    if (Group* g = find_group(id); g != nullptr && leads(id)) expire_offsets(*g, now);
  }
}

void GroupCoordinator::Impl::expire_offsets(Group& g, std::int64_t now) {
  if (!g.is(GroupState::kEmpty)) return;
  const std::int64_t retention_ms = std::int64_t{config.offsets_retention_minutes} * 60 * 1000;
  const bool had_members = !g.protocol_type().empty();
  std::vector<TopicPartition> expired;
  for (const auto& [tp, committed] : g.offsets()) {
    // A commit on its way decides, as does a transaction's pending commit.
    if (g.pending_commits().count(tp) != 0 || g.has_pending_txn_offset(tp)) continue;
    const std::int64_t since = had_members ? g.empty_since_ms() : committed.commit_timestamp_ms;
    if (now - since >= retention_ms) expired.push_back(tp);
  }
  if (expired.empty()) return;
  std::vector<Record> records;
  for (const TopicPartition& tp : expired) {
    records.push_back(offset_commit_record({g.group_id(), tp.topic, tp.partition}, std::nullopt, now));
    g.offsets().erase(tp);
  }
  const bool dead = g.offsets().empty() && g.pending_commits().empty() && g.pending_txn_offsets().empty() &&
                    g.pending_members().empty();
  if (dead) {
    records.push_back(group_metadata_record(GroupMetadataKey{g.group_id()}, std::nullopt, now));
    g.transition_to(GroupState::kDead);
  }
  append(g, std::move(records), [this, dead](const AppendContext& ctx, ErrorCode) {
    if (dead && group_of(ctx) != nullptr) groups.erase(ctx.group_id);
  });
}

}  // namespace logsim::engine
