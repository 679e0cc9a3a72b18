// A fake Env for unit tests of the client state machines (producer, consumer): it records
// what the client sends and the timers it arms, keeps a settable clock, and fails the test if
// the client touches the disk. Tests answer requests by hand and fire due timers with pop_due.
#pragma once

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/env/env.h"
#include "engine/protocol/record_batch.h"
#include "engine/env/rng.h"

namespace logsim::engine::clienttest {

// The node id the fake Env reports for the client's application.
inline const NodeId kApp(100);

// A MetadataResponse naming `brokers` and one topic with one partition per entry of `leaders`,
// each replicated on its leader alone.
inline MetadataResponse metadata_response(CorrelationId correlation_id, const std::string& topic,
                                          const std::vector<NodeId>& leaders, std::vector<NodeId> brokers) {
  MetadataResponse resp;
  resp.correlation_id = correlation_id;
  resp.brokers = std::move(brokers);
  TopicMetadata tm{topic, ErrorCode::NONE, {}};
  for (std::size_t i = 0; i < leaders.size(); ++i) {
    tm.partitions.push_back(PartitionMetadata{PartitionId(static_cast<std::int32_t>(i)), ErrorCode::NONE, leaders[i],
                                              LeaderEpoch(0), {leaders[i]}, {leaders[i]}});
  }
  resp.topics.push_back(std::move(tm));
  return resp;
}

// Stored records as a fetch carries them: one record batch each, at their offsets.
inline SharedBytes batches_of(const std::vector<StoredRecord>& records) {
  std::string out;
  for (const StoredRecord& r : records) encode_stored_batch(std::span<const StoredRecord>(&r, 1), out);
  return SharedBytes(std::move(out));
}

// The clients never touch the disk; a test fails if they do.
class NoDisk final : public Disk {
 public:
  bool exists(std::string_view) const override { return touched(); }
  std::uint64_t size(std::string_view) const override { return touched() ? 1 : 0; }
  std::string read(std::string_view, std::uint64_t, std::uint64_t) const override {
    touched();
    return {};
  }
  std::vector<std::string> list() const override {
    touched();
    return {};
  }
  void append(std::string_view, std::string_view) override { touched(); }
  void truncate(std::string_view, std::uint64_t) override { touched(); }
  void rename(std::string_view, std::string_view) override { touched(); }
  void remove(std::string_view) override { touched(); }
  void fsync(std::string_view, std::uint64_t) override { touched(); }

 private:
  static bool touched() {
    ADD_FAILURE() << "a client touched the disk";
    return false;
  }
};

struct Sent {
  NodeId to;
  Message msg;
  Nanos at;
};

class FakeEnv final : public Env {
 public:
  NodeId self() const override { return kApp; }
  Nanos now() const override { return now_; }
  TimerId set_timer(Nanos delay, std::uint64_t tag) override {
    EXPECT_GE(delay, 0);
    timers.push_back({++last_timer_, now_ + delay, tag, false});
    return last_timer_;
  }
  void cancel_timer(TimerId id) override {
    for (Timer& t : timers) {
      if (t.id == id) t.cancelled = true;
    }
  }
  void send(NodeId to, Message msg) override { sent.push_back({to, std::move(msg), now_}); }
  Disk& disk() override { return disk_; }
  Rng& rng() override { return rng_; }

  void set_now(Nanos t) { now_ = t; }

  struct Timer {
    TimerId id;
    Nanos deadline;
    std::uint64_t tag;
    bool cancelled;  // or fired
  };
  // The earliest live timer due at or before `until`, marked fired; nullopt if none.
  std::optional<Timer> pop_due(Nanos until) {
    Timer* best = nullptr;
    for (Timer& t : timers) {
      if (t.cancelled || t.deadline > until) continue;
      if (best == nullptr || t.deadline < best->deadline) best = &t;
    }
    if (best == nullptr) return std::nullopt;
    best->cancelled = true;
    return *best;
  }

  std::vector<Sent> sent;
  std::vector<Timer> timers;

 private:
  NoDisk disk_;
  Nanos now_ = 0;
  TimerId last_timer_ = 0;
  Rng rng_{42};
};

}  // namespace logsim::engine::clienttest
