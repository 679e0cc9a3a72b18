// The group coordinator tests' fixture: a FakeHost standing for the broker (appends wait until
// the test completes or fails them, so tests can check that answers wait for the log) and a
// Coordinator on the clients' FakeEnv (timers fired by hand, sent messages recorded).
#pragma once

#include <gtest/gtest.h>

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/coordinator/group.h"
#include "engine/coordinator/group_coordinator.h"
#include "engine/coordinator/offsets_records.h"
#include "engine/base/assert.h"
#include "engine/tests/client/client_fake_env.h"

namespace logsim::engine::coordtest {

using clienttest::FakeEnv;

// The broker's side: appends are held until the test completes them; completed ones enter
// the partition's log (which read_all returns) before their callback runs.
class FakeHost final : public InternalTopicHost {
 public:
  struct Append {
    PartitionId partition;
    std::vector<Record> records;
    std::int32_t timeout_ms;
    AppendDone done;
    std::optional<TxnWriter> writer;  // a transactional append's producer
  };

  void append(PartitionId partition, std::vector<Record> records, std::int32_t timeout_ms, AppendDone done) override {
    pending.push_back({partition, std::move(records), timeout_ms, std::move(done), std::nullopt});
  }
  void append_transactional(PartitionId partition, std::vector<Record> records, TxnWriter writer,
                            std::int32_t timeout_ms, AppendDone done) override {
    pending.push_back({partition, std::move(records), timeout_ms, std::move(done), writer});
  }
  std::vector<StoredRecord> read_all(PartitionId partition) override { return logs[partition.value()]; }
  std::vector<LoggedMarker> read_markers(PartitionId partition) override { return markers[partition.value()]; }

  // Completes the oldest pending append.
  void complete_next(ErrorCode error = ErrorCode::NONE) {
    ASSERT_FALSE(pending.empty());
    Append a = std::move(pending.front());
    pending.pop_front();
    Offset base{-1};
    if (error == ErrorCode::NONE) {
      base = log_end(a.partition.value());
      auto& log = logs[a.partition.value()];
      for (Record& r : a.records) {
        StoredRecord s;
        s.offset = log_end(a.partition.value());
        s.record = std::move(r);
        if (a.writer) {
          s.producer_id = a.writer->producer_id;
          s.producer_epoch = a.writer->producer_epoch;
        }
        log.push_back(std::move(s));
      }
    }
    a.done(error, base);
  }
  void complete_all(ErrorCode error = ErrorCode::NONE) {
    while (!pending.empty()) complete_next(error);
  }
  // Writes a transaction's marker at the partition's log end (as the broker's WriteTxnMarkers).
  void write_marker(std::int32_t partition, ProducerId producer_id, bool commit) {
    markers[partition].push_back({log_end(partition), producer_id, commit});
  }
  // Records and markers share the offsets of one log.
  Offset log_end(std::int32_t partition) {
    return Offset(static_cast<std::int64_t>(logs[partition].size() + markers[partition].size()));
  }

  std::map<std::int32_t, std::vector<StoredRecord>> logs;
  std::map<std::int32_t, std::vector<LoggedMarker>> markers;
  std::deque<Append> pending;
};

inline const NodeId kA(1);
inline const NodeId kB(2);
inline const NodeId kC(3);
inline const NodeId kAdmin(9);
inline constexpr std::int32_t kPartitions = 4;
inline const std::string kGroup = "g";

inline JoinGroupProtocol range(std::string metadata = "sub") { return {"range", std::move(metadata)}; }

// One coordinator on a FakeEnv and FakeHost, leading every __consumer_offsets partition.
class Coordinator {
 public:
  explicit Coordinator(GroupCoordinatorConfig config = {}, bool lead_all = true)
      : coord(env, mux, config, host) {
    if (lead_all) coord.on_leadership({0, 1, 2, 3}, kPartitions);
  }

  // The first message of type T sent to `to`, removed from what was sent; nullopt if none.
  template <typename T>
  std::optional<T> take(NodeId to) {
    for (auto it = env.sent.begin(); it != env.sent.end(); ++it) {
      if (it->to != to || !std::holds_alternative<T>(it->msg)) continue;
      T out = std::get<T>(std::move(it->msg));
      env.sent.erase(it);
      return out;
    }
    return std::nullopt;
  }
  template <typename T>
  T expect(NodeId to) {
    std::optional<T> r = take<T>(to);
    EXPECT_TRUE(r.has_value()) << "no " << T::kApi << " sent to " << to;
    return r.value_or(T{});
  }

  // Fires every timer due within `ms`, each at its own deadline.
  void advance_ms(std::int64_t ms) {
    const Nanos until = env.now() + millis(ms);
    while (auto t = env.pop_due(until)) {
      env.set_now(t->deadline);
      EXPECT_TRUE(mux.on_timer(t->id, t->tag));
    }
    env.set_now(until);
  }

  JoinGroupRequest join_request(std::string member_id, std::optional<std::string> instance_id = std::nullopt,
                                std::vector<JoinGroupProtocol> protocols = {range()}) {
    JoinGroupRequest r;
    r.correlation_id = next_correlation++;
    r.group_id = kGroup;
    r.session_timeout_ms = 30000;
    r.rebalance_timeout_ms = 60000;
    r.member_id = std::move(member_id);
    r.group_instance_id = std::move(instance_id);
    r.client_id = "client";
    r.protocols = std::move(protocols);
    return r;
  }
  // A dynamic member's first JoinGroup (answered MEMBER_ID_REQUIRED) and its rejoin (held).
  std::string join_new_member(NodeId from, std::vector<JoinGroupProtocol> protocols = {range()}) {
    coord.handle(from, join_request("", std::nullopt, protocols));
    const JoinGroupResponse first = expect<JoinGroupResponse>(from);
    EXPECT_EQ(first.error, ErrorCode::MEMBER_ID_REQUIRED);
    coord.handle(from, join_request(first.member_id, std::nullopt, protocols));
    return first.member_id;
  }
  void rejoin(NodeId from, const std::string& member_id) { coord.handle(from, join_request(member_id)); }

  void sync(NodeId from, const std::string& member_id, std::int32_t generation,
            std::vector<SyncGroupAssignment> assignments = {}, std::optional<std::string> instance_id = std::nullopt) {
    SyncGroupRequest r;
    r.correlation_id = next_correlation++;
    r.group_id = kGroup;
    r.generation_id = generation;
    r.member_id = member_id;
    r.group_instance_id = std::move(instance_id);
    r.assignments = std::move(assignments);
    coord.handle(from, r);
  }
  ErrorCode heartbeat(NodeId from, const std::string& member_id, std::int32_t generation,
                      std::optional<std::string> instance_id = std::nullopt) {
    coord.handle(from, HeartbeatRequest{next_correlation++, kGroup, generation, member_id, std::move(instance_id)});
    return expect<HeartbeatResponse>(from).error;
  }
  void commit(NodeId from, const std::string& member_id, std::int32_t generation, std::int64_t offset,
              std::string topic = "t", std::int32_t partition = 0) {
    OffsetCommitRequest r;
    r.correlation_id = next_correlation++;
    r.group_id = kGroup;
    r.generation_id = generation;
    r.member_id = member_id;
    r.partitions.push_back({std::move(topic), PartitionId(partition), Offset(offset), "md"});
    coord.handle(from, r);
  }
  ErrorCode commit_error(NodeId from) {
    const OffsetCommitResponse r = expect<OffsetCommitResponse>(from);
    EXPECT_EQ(r.partitions.size(), 1u);
    return r.partitions.empty() ? ErrorCode::UNKNOWN_SERVER_ERROR : r.partitions[0].error;
  }
  // The committed offset of t-0 (or another partition); -1 if none.
  std::int64_t fetch(std::string topic = "t", std::int32_t partition = 0) {
    OffsetFetchRequest r;
    r.correlation_id = next_correlation++;
    r.group_id = kGroup;
    r.partitions = std::vector<OffsetFetchPartitionRef>{{std::move(topic), PartitionId(partition)}};
    coord.handle(kAdmin, r);
    const OffsetFetchResponse resp = expect<OffsetFetchResponse>(kAdmin);
    EXPECT_EQ(resp.error, ErrorCode::NONE);
    EXPECT_EQ(resp.partitions.size(), 1u);
    return resp.partitions.empty() ? -2 : resp.partitions[0].committed_offset.value();
  }
  std::vector<ErrorCode> leave(NodeId from, std::vector<LeaveGroupMember> members) {
    coord.handle(from, LeaveGroupRequest{next_correlation++, kGroup, std::move(members)});
    const LeaveGroupResponse r = expect<LeaveGroupResponse>(from);
    EXPECT_EQ(r.error, ErrorCode::NONE);
    return r.member_errors;
  }

  // Two dynamic members a (the leader) and b, synced in generation 1 with assignments "pa"/"pb".
  std::pair<std::string, std::string> stable_group_of_two() {
    const std::string a = join_new_member(kA);
    const std::string b = join_new_member(kB);
    advance_ms(6000);
    EXPECT_EQ(expect<JoinGroupResponse>(kA).generation_id, 1);
    EXPECT_EQ(expect<JoinGroupResponse>(kB).generation_id, 1);
    sync(kB, b, 1);
    sync(kA, a, 1, {{a, "pa"}, {b, "pb"}});
    host.complete_all();
    EXPECT_EQ(expect<SyncGroupResponse>(kA).assignment, "pa");
    EXPECT_EQ(expect<SyncGroupResponse>(kB).assignment, "pb");
    EXPECT_EQ(coord.group_state(kGroup), "Stable");
    return {a, b};
  }

  FakeEnv env;
  FakeHost host;
  TimerMux mux{env};
  GroupCoordinator coord;
  CorrelationId next_correlation = 1;
};

}  // namespace logsim::engine::coordtest
