// The producer client: what a simulated application uses to send records.
//
// Kafka's semantics kept here: the default partitioner (murmur2 of the key; sticky for null
// keys), acks, retries of retriable errors after retry.backoff.ms, request.timeout.ms per
// attempt, and delivery.timeout.ms as the bound on a send's whole life. Every send ends in
// exactly one of: acknowledged (with its offset), failed (definitely not written), or
// unknown (timed out: it may or may not be in the log).
//
// Foundation scope: one record per Produce request, no idempotence, no batching (batch.size
// only moves the sticky partition). The client owns correlation ids; an application node
// hosts one client. Not thread-safe (one node, one thread).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/client/metadata.h"
#include "engine/env/env.h"

namespace logsim::engine {

struct ProducerConfig {
  std::vector<NodeId> bootstrap_servers;     // bootstrap.servers
  std::int16_t acks = -1;                    // acks: -1 (all), 1, 0
  std::int32_t retries = 2147483647;         // retries
  std::int32_t retry_backoff_ms = 100;       // retry.backoff.ms
  std::int32_t request_timeout_ms = 30000;   // request.timeout.ms
  std::int32_t delivery_timeout_ms = 120000; // delivery.timeout.ms
  std::int32_t batch_size = 16384;           // batch.size (bytes before the sticky partition moves)
};

enum class SendOutcome : std::uint8_t { kAcknowledged, kFailed, kUnknown };

struct SendResult {
  SendOutcome outcome = SendOutcome::kUnknown;
  PartitionId partition{-1};
  Offset offset{-1};  // when acknowledged (acks=0: -1, the client cannot know)
  ErrorCode error = ErrorCode::NONE;
};

using SendCallback = std::function<void(const SendResult&)>;

class Producer {
 public:
  Producer(Env& env, ProducerConfig config);

  // Fetches metadata; sends issued before it arrives wait for it.
  void start();
  // Sends one record to `topic`, to `partition` if given, else to the partitioner's choice.
  void send(const std::string& topic, Record record, std::optional<PartitionId> partition, SendCallback done);

  // Route a message or timer to the client; false when it is not the client's.
  bool on_message(NodeId from, const Message& msg);
  bool on_timer(TimerId id, std::uint64_t tag);
  // The connection to a broker broke: attempts in flight to it fail (maybe written) and retry.
  void on_disconnect(NodeId peer);

  std::size_t in_flight() const { return sends_.size(); }

 private:
  struct PendingSend {
    std::string topic;
    Record record;
    std::optional<PartitionId> partition;  // fixed once chosen
    SendCallback done;
    Nanos deadline = 0;          // delivery.timeout.ms from the send
    std::int32_t attempts = 0;
    CorrelationId correlation = 0;  // of the attempt in flight, 0 if none
    NodeId target{-1};              // where the attempt in flight went
    TimerId timer = 0;              // request timeout or retry backoff
    bool waiting_backoff = false;
    bool asked_metadata = false;  // waited for one metadata refresh already
    bool maybe_written = false;   // an attempt may have reached the log
  };

  void request_metadata();
  void try_send(std::uint64_t id);
  PartitionId choose_partition(PendingSend& s);
  void on_produce_response(const ProduceResponse& resp);
  void retry_or_finish(std::uint64_t id, ErrorCode error, bool ambiguous);
  void finish(std::uint64_t id, SendResult result);

  Env& env_;
  ProducerConfig config_;
  MetadataCache metadata_;
  CorrelationId next_correlation_ = 0;
  CorrelationId metadata_correlation_ = 0;  // of the Metadata request in flight
  NodeId metadata_target_{-1};
  TimerId metadata_timer_ = 0;
  Nanos last_metadata_request_ = -1;
  std::uint64_t next_send_ = 0;
  std::map<std::uint64_t, PendingSend> sends_;               // by send id, ordered
  std::map<CorrelationId, std::uint64_t> by_correlation_;    // attempt -> send id
  std::map<TimerId, std::uint64_t> by_timer_;                // timer -> send id
  std::map<std::string, std::int32_t> sticky_partition_;     // null-key partition per topic
  std::map<std::string, std::int64_t> sticky_bytes_;
};

}  // namespace logsim::engine
