// The producer tests' fixture: a fake Env that records what the producer sends and the timers
// it arms, scripted broker answers, and advance_to(), which fires the due timers in (deadline,
// id) order. Shared by producer_test.cc and producer_idempotence_test.cc.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "engine/client/producer.h"
#include "engine/env/env.h"
#include "engine/protocol/record_batch.h"
#include "engine/env/rng.h"
#include "engine/tests/client/client_fake_env.h"

namespace logsim::engine::producer_testing {

inline const NodeId kB1(1);
inline const NodeId kB2(2);
inline const NodeId kB3(3);
inline const std::string kTopic = "t";

using clienttest::FakeEnv;
using clienttest::kApp;
using clienttest::metadata_response;
using clienttest::Sent;

inline Record rec(std::string value, std::optional<std::string> key = std::nullopt) {
  Record r;
  r.key = std::move(key);
  r.value = std::move(value);
  return r;
}

// A ProduceRequest with its record batch read back: what the tests look at.
struct Produced {
  Produced(const ProduceRequest& req)  // NOLINT(google-explicit-constructor): a view of the request
      : correlation_id(req.correlation_id), topic(req.topic), partition(req.partition), acks(req.acks) {
    std::string scratch;
    const std::string_view bytes = req.records.contiguous(scratch);
    const std::optional<BatchHeader> h = parse_batch_header(bytes);
    EXPECT_TRUE(h && h->size_bytes() == bytes.size() && batch_is_valid(bytes, true)) << "not one valid batch";
    if (!h) return;
    EXPECT_EQ(h->base_offset, Offset(0)) << "the leader assigns offsets";
    producer_id = h->producer_id;
    producer_epoch = h->producer_epoch;
    base_sequence = h->base_sequence;
    for (StoredRecord& r : decode_batches(req.records)) records.push_back(std::move(r.record));
  }
  CorrelationId correlation_id = 0;
  std::string topic;
  PartitionId partition;
  std::int16_t acks = -1;
  ProducerId producer_id{-1};
  ProducerEpoch producer_epoch{-1};
  Sequence base_sequence{-1};
  std::vector<Record> records;
};

struct Result {
  std::string value;
  SendResult result;
  Nanos at;
};

class ProducerTest : public ::testing::Test {
 protected:
  static ProducerConfig base_config() {
    ProducerConfig c;
    c.bootstrap_servers = {kB1};  // one server: the producer's choice of it draws nothing
    c.enable_idempotence = false;
    c.retry_backoff_ms = 100;
    return c;
  }

  void make(ProducerConfig c) { producer.emplace(env, mux, std::move(c)); }

  // Starts a producer and answers its Metadata (and InitProducerId when idempotent).
  void start_ready(ProducerConfig c, std::vector<NodeId> leaders = {kB1}) {
    const bool idempotent = c.enable_idempotence;
    make(std::move(c));
    producer->start();
    answer_metadata(leaders);
    if (idempotent) answer_init(ProducerId(7), ProducerEpoch(3));
    env.sent.clear();
  }

  // The requests of type T sent so far, in order.
  template <typename T>
  std::vector<T> sent_of() const {
    std::vector<T> out;
    for (const Sent& s : env.sent) {
      if (const auto* m = std::get_if<T>(&s.msg)) out.push_back(*m);
    }
    return out;
  }
  template <typename T>
  std::vector<Sent> sent_with() const {
    std::vector<Sent> out;
    for (const Sent& s : env.sent) {
      if (std::holds_alternative<T>(s.msg)) out.push_back(s);
    }
    return out;
  }
  std::vector<Produced> produces() const {
    std::vector<Produced> out;
    for (const ProduceRequest& r : sent_of<ProduceRequest>()) out.emplace_back(r);
    return out;
  }

  // Answers the latest MetadataRequest: topic kTopic with one partition per entry of `leaders`.
  void answer_metadata(const std::vector<NodeId>& leaders) {
    const auto reqs = sent_of<MetadataRequest>();
    ASSERT_FALSE(reqs.empty()) << "no MetadataRequest was sent";
    EXPECT_TRUE(producer->on_message(kB1, metadata_response(reqs.back().correlation_id, kTopic, leaders, {kB1, kB2, kB3})));
  }

  void answer_init(ProducerId pid, ProducerEpoch epoch) {
    const auto reqs = sent_of<InitProducerIdRequest>();
    ASSERT_FALSE(reqs.empty()) << "no InitProducerIdRequest was sent";
    InitProducerIdResponse resp;
    resp.correlation_id = reqs.back().correlation_id;
    resp.producer_id = pid;
    resp.producer_epoch = epoch;
    EXPECT_TRUE(producer->on_message(kB1, resp));
  }

  // Answers one ProduceRequest; returns whether the producer took the answer as its own.
  bool respond(const Produced& req, ErrorCode error, std::int64_t base_offset = -1, NodeId from = kB1) {
    ProduceResponse resp;
    resp.correlation_id = req.correlation_id;
    resp.topic = req.topic;
    resp.partition = req.partition;
    resp.error = error;
    resp.base_offset = Offset(error == ErrorCode::NONE ? base_offset : -1);
    if (error == ErrorCode::DUPLICATE_SEQUENCE_NUMBER) resp.base_offset = Offset(base_offset);
    return producer->on_message(from, resp);
  }

  // Moves the clock to `t`, firing every timer due by then in deadline order. Bounded, so a
  // client that re-arms a timer for "now" forever fails the test instead of hanging it.
  void advance_to(Nanos t) {
    ASSERT_GE(t, env.now());
    constexpr int kFiringsMax = 10000;
    int firings = 0;
    while (auto timer = env.pop_due(t)) {
      ASSERT_LT(++firings, kFiringsMax) << "timers keep firing at " << env.now() << " ns";
      env.set_now(timer->deadline);
      mux.on_timer(timer->id, timer->tag);
    }
    env.set_now(t);
  }

  void send(std::string value, std::optional<PartitionId> partition = std::nullopt,
            std::optional<std::string> key = std::nullopt) {
    producer->send(kTopic, rec(value, std::move(key)), partition, [this, value](const SendResult& r) {
      results.push_back({value, r, env.now()});
    });
  }

  const Result* result_of(const std::string& value) const {
    for (const Result& r : results) {
      if (r.value == value) return &r;
    }
    return nullptr;
  }

  static std::vector<std::string> values(const Produced& req) {
    std::vector<std::string> out;
    for (const Record& r : req.records) out.push_back(r.value.value_or("<null>"));
    return out;
  }

  FakeEnv env;
  TimerMux mux{env};
  std::optional<Producer> producer;
  std::vector<Result> results;
};

using Strings = std::vector<std::string>;

}  // namespace logsim::engine::producer_testing
