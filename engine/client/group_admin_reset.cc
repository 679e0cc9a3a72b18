// The group admin client's reset_offsets: `kafka-consumer-groups --reset-offsets` as a sequence
// of steps (group_admin.h): the group must be inactive (DescribeGroups), its committed offsets
// (OffsetFetch), the partitions to reset (Metadata), the log offsets each mode needs
// (ListOffsets to each leader), the plan by Kafka's rules (ResetMode), and with execute one
// OffsetCommit of the whole plan.
#include <algorithm>
#include <limits>
#include <set>

#include "engine/client/group_admin.h"

namespace logsim::engine {
namespace {

std::string partition_name(const TopicPartition& tp) {
  return tp.topic + "-" + std::to_string(tp.partition.value());  // Kafka's TopicPartition.toString
}

// Kafka's checkOffsetsRange: above the log end -> the log end; below the log start -> the log start.
Offset clamp(Offset requested, Offset earliest, Offset latest) {
  if (requested > latest) return latest;
  if (requested < earliest) return earliest;
  return requested;
}

// base + n without overflow (shift-by takes any long, as Kafka's option does).
Offset shifted(Offset base, std::int64_t n) {
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
  if (n > 0 && base.value() > kMax - n) return Offset(kMax);
  if (n < 0 && base.value() < kMin - n) return Offset(kMin);
  return base + n;
}

}  // namespace

std::string_view reset_mode_name(ResetMode mode) {
  switch (mode) {
    case ResetMode::kToEarliest: return "to-earliest";
    case ResetMode::kToLatest: return "to-latest";
    case ResetMode::kToOffset: return "to-offset";
    case ResetMode::kShiftBy: return "shift-by";
    case ResetMode::kToDatetime: return "to-datetime";
    case ResetMode::kByDuration: return "by-duration";
    case ResetMode::kToCurrent: return "to-current";
  }
  return "unknown";
}

struct GroupAdmin::ResetOp {
  CallId call = 0;
  ResetOffsetsRequest request;
  ResetOffsetsCallback done;
  std::map<TopicPartition, Offset> committed;  // the group's committed offsets before the reset
  std::vector<TopicPartition> partitions;      // to reset, sorted
  std::int64_t timestamp_ms = 0;               // to-datetime, by-duration: T
  // ListOffsets answers by partition and the timestamp asked (earliest, latest or T).
  std::map<std::pair<TopicPartition, std::int64_t>, Offset> log_offsets;
  std::size_t waiting = 0;  // ListOffsets not yet answered
  std::vector<ResetOffsetsRow> rows;

  std::optional<Offset> previous(const TopicPartition& tp) const {
    auto it = committed.find(tp);
    return it == committed.end() ? std::nullopt : std::optional<Offset>(it->second);
  }
  Offset log_offset(const TopicPartition& tp, std::int64_t spec) const { return log_offsets.at({tp, spec}); }

  // The ListOffsets timestamps a partition's new offset needs, by mode.
  std::vector<std::int64_t> specs(const TopicPartition& tp) const {
    switch (request.mode) {
      case ResetMode::kToEarliest: return {kListOffsetsEarliest};
      case ResetMode::kToLatest: return {kListOffsetsLatest};
      case ResetMode::kToOffset:
      case ResetMode::kShiftBy: return {kListOffsetsEarliest, kListOffsetsLatest};
      case ResetMode::kToDatetime:
      case ResetMode::kByDuration: return {timestamp_ms, kListOffsetsLatest};
      case ResetMode::kToCurrent:
        if (previous(tp)) return {};
        return {kListOffsetsLatest};
    }
    return {};
  }

  // Kafka's rule for each mode (see ResetMode).
  Offset new_offset(const TopicPartition& tp) const {
    const std::int64_t n = request.value;
    switch (request.mode) {
      case ResetMode::kToEarliest: return log_offset(tp, kListOffsetsEarliest);
      case ResetMode::kToLatest: return log_offset(tp, kListOffsetsLatest);
      case ResetMode::kToOffset:
        return clamp(Offset(n), log_offset(tp, kListOffsetsEarliest), log_offset(tp, kListOffsetsLatest));
      case ResetMode::kShiftBy: {
        const Offset base = previous(tp).value_or(log_offset(tp, kListOffsetsEarliest));
        return clamp(shifted(base, n), log_offset(tp, kListOffsetsEarliest), log_offset(tp, kListOffsetsLatest));
      }
      case ResetMode::kToDatetime:
      case ResetMode::kByDuration: {
        const Offset at = log_offset(tp, timestamp_ms);
        return at.value() >= 0 ? at : log_offset(tp, kListOffsetsLatest);
      }
      case ResetMode::kToCurrent:
        if (auto current = previous(tp)) return *current;
        return log_offset(tp, kListOffsetsLatest);
    }
    return Offset(-1);
  }
};

void GroupAdmin::reset_offsets(ResetOffsetsRequest request, ResetOffsetsCallback done) {
  auto op = std::make_shared<ResetOp>();
  op->request = std::move(request);
  op->done = std::move(done);
  if (op->request.mode == ResetMode::kToDatetime) op->timestamp_ms = std::max<std::int64_t>(op->request.value, 0);
  if (op->request.mode == ResetMode::kByDuration) {
    op->timestamp_ms = std::max<std::int64_t>(to_millis(env_.now()) - op->request.value, 0);
  }
  op->call = begin_call("resetOffsets", op->request.group_id, [op](ErrorCode e, const std::string& m) {
    op->done(ResetOffsetsResult{e, m, {}, false});
  });
  reset_check_state(op);
}

// Kafka's tool resets only an inactive group: Empty, or Dead (it does not exist).
void GroupAdmin::reset_check_state(const std::shared_ptr<ResetOp>& op) {
  describe_step(op->call, op->request.group_id, [this, op](const DescribeGroupsResponse& resp) {
    const std::string& group = op->request.group_id;
    if (resp.state != "Empty" && resp.state != "Dead") {
      return fail_call(op->call, ErrorCode::NON_EMPTY_GROUP,
                       "Assignments can only be reset if the group '" + group +
                           "' is inactive, but the current state is " + resp.state + ".");
    }
    reset_fetch_offsets(op);
  });
}

void GroupAdmin::reset_fetch_offsets(const std::shared_ptr<ResetOp>& op) {
  committed_step(op->call, op->request.group_id, [this, op](Committed committed) {
    op->committed = std::move(committed);
    reset_resolve_partitions(op);
  });
}

// Which partitions to reset: those named, every partition of a named topic (from Metadata),
// or, with no topics named (--all-topics), every partition with a committed offset. All must
// exist; the metadata also gives the leaders that ListOffsets goes to.
void GroupAdmin::reset_resolve_partitions(const std::shared_ptr<ResetOp>& op) {
  std::set<std::string> topics;
  for (const ResetTopic& t : op->request.topics) topics.insert(t.topic);
  if (op->request.topics.empty()) {
    for (const auto& [tp, offset] : op->committed) topics.insert(tp.topic);
  }
  if (topics.empty()) return reset_plan(op);  // nothing to reset
  Call& call = calls_.at(op->call);
  call.metadata_topics.assign(topics.begin(), topics.end());
  request<MetadataResponse>(
      op->call, Destination::any_broker(), MetadataRequest{0, call.metadata_topics},
      [this, op](const MetadataResponse& resp) {
        MetadataCache& metadata = calls_.at(op->call).metadata;
        metadata.update(resp);
        std::set<TopicPartition> wanted;
        if (op->request.topics.empty()) {
          for (const auto& [tp, offset] : op->committed) wanted.insert(tp);
        }
        for (const ResetTopic& t : op->request.topics) {
          if (!metadata.knows(t.topic)) {
            return fail_call(op->call, ErrorCode::UNKNOWN_TOPIC_OR_PARTITION,
                             "The topic \"" + t.topic + "\" does not exist");
          }
          for (const PartitionId p : t.partitions) wanted.insert({t.topic, p});
          if (t.partitions.empty()) {
            for (std::int32_t p = 0; p < metadata.partition_count(t.topic); ++p) wanted.insert({t.topic, PartitionId(p)});
          }
        }
        std::string missing;  // Kafka's check: "The partitions \"t-7,u-0\" do not exist"
        for (const TopicPartition& tp : wanted) {
          if (tp.partition.value() < 0 || tp.partition.value() >= metadata.partition_count(tp.topic)) {
            missing += (missing.empty() ? "" : ",") + partition_name(tp);
          }
        }
        if (!missing.empty()) {
          return fail_call(op->call, ErrorCode::UNKNOWN_TOPIC_OR_PARTITION, "The partitions \"" + missing + "\" do not exist");
        }
        op->partitions.assign(wanted.begin(), wanted.end());
        reset_list_offsets(op);
      });
}

// ListOffsets to each partition's leader for what its mode needs, all in parallel.
void GroupAdmin::reset_list_offsets(const std::shared_ptr<ResetOp>& op) {
  std::vector<std::pair<TopicPartition, std::int64_t>> queries;
  for (const TopicPartition& tp : op->partitions) {
    for (const std::int64_t spec : op->specs(tp)) queries.emplace_back(tp, spec);
  }
  op->waiting = queries.size();
  if (queries.empty()) return reset_plan(op);
  for (const auto& [tp, spec] : queries) {
    request<ListOffsetsResponse>(
        op->call, Destination::leader(tp), ListOffsetsRequest{0, tp.topic, tp.partition, spec},
        [this, op, tp = tp, spec = spec](const ListOffsetsResponse& resp) {
          if (resp.error != ErrorCode::NONE) {
            return fail_call(op->call, resp.error,
                             "Error getting offsets of topic partition " + partition_name(tp) + ": " +
                                 std::string(error_name(resp.error)));
          }
          op->log_offsets[{tp, spec}] = resp.offset;
          if (--op->waiting == 0) reset_plan(op);
        });
  }
}

void GroupAdmin::reset_plan(const std::shared_ptr<ResetOp>& op) {
  for (const TopicPartition& tp : op->partitions) {
    op->rows.push_back(ResetOffsetsRow{tp.topic, tp.partition, op->previous(tp).value_or(Offset(-1)),
                                       op->new_offset(tp), ErrorCode::NONE});
  }
  if (op->request.execute && !op->rows.empty()) return reset_commit(op);
  // A dry run commits nothing; an empty plan has nothing to commit (vacuously executed).
  ResetOffsetsResult result{ErrorCode::NONE, "", op->rows, op->request.execute};
  end_call(op->call);
  op->done(result);
}

// One OffsetCommit of the whole plan, as an admin: generation -1 and no member id, which the
// coordinator accepts only while the group is Empty (else UNKNOWN_MEMBER_ID per partition).
void GroupAdmin::reset_commit(const std::shared_ptr<ResetOp>& op) {
  OffsetCommitRequest commit{0, op->request.group_id, -1, "", std::nullopt, {}};
  for (const ResetOffsetsRow& row : op->rows) commit.partitions.push_back({row.topic, row.partition, row.new_offset, ""});
  request<OffsetCommitResponse>(
      op->call, Destination::coordinator(), std::move(commit), [this, op](const OffsetCommitResponse& resp) {
        ResetOffsetsResult result{ErrorCode::NONE, "", op->rows, false};
        for (const OffsetCommitPartitionResult& p : resp.partitions) {
          for (ResetOffsetsRow& row : result.rows) {
            if (row.topic == p.topic && row.partition == p.partition) row.error = p.error;
          }
          if (p.error != ErrorCode::NONE && result.error == ErrorCode::NONE) {
            result.error = p.error;
            result.message = "Failed to commit the offset of " + partition_name({p.topic, p.partition}) +
                             " for group '" + op->request.group_id + "': " + std::string(error_name(p.error));
          }
        }
        result.executed = result.error == ErrorCode::NONE;
        end_call(op->call);
        op->done(result);
      });
}

}  // namespace logsim::engine
