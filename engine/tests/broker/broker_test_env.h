// What the broker tests share: a fake Env that records what the broker sends and the timers
// it arms, a SimDisk whose fsyncs the test completes, and helpers to build produce batches and
// read fetch answers.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "engine/broker/broker.h"
#include "engine/env/env.h"
#include "engine/protocol/record_batch.h"
#include "engine/env/rng.h"
#include "sim/disk.h"

namespace logsim::engine::brokertest {

inline const NodeId kBroker(1);
inline const NodeId kClient(100);

struct Sent {
  NodeId to;
  Message msg;
};

class FakeEnv final : public Env {
 public:
  explicit FakeEnv(Disk& disk) : disk_(disk) {}

  NodeId self() const override { return kBroker; }
  Nanos now() const override { return now_; }
  TimerId set_timer(Nanos delay, std::uint64_t tag) override {
    timers.push_back({++last_timer_, now_ + delay, tag, false});
    return last_timer_;
  }
  void cancel_timer(TimerId id) override {
    for (Timer& t : timers) {
      if (t.id == id) t.cancelled = true;
    }
  }
  void send(NodeId to, Message msg) override { sent.push_back({to, std::move(msg)}); }
  Disk& disk() override { return disk_; }
  Rng& rng() override { return rng_; }

  void set_now(Nanos t) { now_ = t; }

  struct Timer {
    TimerId id;
    Nanos deadline;
    std::uint64_t tag;
    bool cancelled;
  };
  // The armed timers not yet cancelled.
  std::vector<Timer> live_timers() const {
    std::vector<Timer> out;
    for (const Timer& t : timers) {
      if (!t.cancelled) out.push_back(t);
    }
    return out;
  }

  std::vector<Sent> sent;
  std::vector<Timer> timers;

 private:
  Disk& disk_;
  Nanos now_ = 0;
  TimerId last_timer_ = 0;
  Rng rng_{42};
};

// A SimDisk whose fsync completions wait until the test fires them (the broker does not fsync
// yet; tests stand in for a background flush with sync_all).
struct TestDisk {
  explicit TestDisk(sim::SimDiskOptions options = {}, std::uint64_t seed = 7)
      : disk(options, Rng(seed), [this](Nanos, std::uint64_t, std::function<void()> c) {
          completions.push_back(std::move(c));
        }) {}

  // Makes every file's current contents durable.
  void sync_all() {
    for (const std::string& name : disk.list()) disk.fsync(name, 0);
    std::vector<std::function<void()>> batch = std::move(completions);
    completions.clear();
    for (auto& c : batch) c();
  }

  std::vector<std::function<void()>> completions;  // declared first: the sink captures it
  sim::SimDisk disk;
};

// The FetchResponses among `sent`, in order.
inline std::vector<Sent> fetch_responses(const std::vector<Sent>& sent) {
  std::vector<Sent> out;
  for (const Sent& s : sent) {
    if (std::holds_alternative<FetchResponse>(s.msg)) out.push_back(s);
  }
  return out;
}

// The one message of type T among `sent` (fails the test if there is not exactly one).
template <typename T>
inline Sent only(const std::vector<Sent>& sent) {
  std::vector<Sent> found;
  for (const Sent& s : sent) {
    if (std::holds_alternative<T>(s.msg)) found.push_back(s);
  }
  EXPECT_EQ(found.size(), 1u);
  return found.empty() ? Sent{NodeId(-1), T{}} : found.front();
}


// Delivers a request to `broker` from kClient and returns the one response it caused, sent
// back to the client (failing the test if there is not exactly one of type Response).
template <typename Response>
inline Response call_broker(Broker& broker, FakeEnv& env, Message request) {
  const std::size_t before = env.sent.size();
  broker.on_message(kClient, request);
  EXPECT_EQ(env.sent.size(), before + 1) << "expected exactly one response";
  if (env.sent.size() != before + 1) return Response{};
  const Sent& s = env.sent.back();
  EXPECT_EQ(s.to, kClient);
  const auto* resp = std::get_if<Response>(&s.msg);
  EXPECT_NE(resp, nullptr) << "response of the wrong type: " << message_name(s.msg);
  return resp != nullptr ? *resp : Response{};
}

inline Record rec(std::string key, std::string value, std::int64_t ts = 0) {
  return Record{std::move(key), std::move(value), ts};
}

// The records as the one batch a producer sends (idempotent when `producer` names an id).
inline SharedBytes batch(const std::vector<Record>& records, ProducerBatchInfo producer = {}) {
  if (records.empty()) return SharedBytes();
  return SharedBytes(encode_batch(
      records, BatchMeta{Offset(0), LeaderEpoch(-1), producer.producer_id, producer.producer_epoch, producer.base_sequence}));
}

// A FetchResponse with its batches decoded from the offset fetched on, as a consumer hands
// them out: what the tests look at.
struct Fetched {
  CorrelationId correlation_id = 0;
  std::string topic;
  PartitionId partition;
  ErrorCode error = ErrorCode::NONE;
  Offset high_watermark{-1};
  Offset log_start_offset{-1};
  std::vector<StoredRecord> records;
};

inline Fetched decoded(const FetchResponse& r, Offset from) {
  const BatchScan scan = scan_batch_headers(r.records);
  EXPECT_TRUE(scan.complete) << "a malformed batch";
  if (!scan.batches.empty()) {
    EXPECT_GE(scan.batches.front().last_offset(), from) << "a batch wholly below the fetch";
  }
  return Fetched{r.correlation_id, r.topic, r.partition, r.error, r.high_watermark, r.log_start_offset,
                 decode_batches(r.records, from)};
}


// The controller, as tests that play it send from.
inline const NodeId kControllerNode(50);

}  // namespace logsim::engine::brokertest
