// The gateway: one real client's connection to one broker, as a node of the live world.
//
// It speaks Kafka's wire protocol (wire/) on one side and the engine's typed messages
// (engine/protocol/) on the other, so the broker that serves a kafkajs or librdkafka client is
// the very engine the simulator runs; the broker never learns that a socket is involved. The
// gateway holds no Asio: it is a Node on an Env, and its connection hands it whole request
// frames (on_frame) and takes back whole response frames (Output::write).
//
// What it does per API:
// - ApiVersions: answered here, from wire/'s table of implemented versions (byte for byte what
//   is implemented); an unknown API or version gets UNSUPPORTED_VERSION (35).
// - Produce, Fetch, ListOffsets: split per partition into the engine's one-partition requests
//   to this broker, gathered back into one response. A Fetch is answered as soon as one of its
//   partitions has records or an error (the partitions that answered in the same turn come
//   along), or when all have answered; answers that come later are dropped (the client fetches
//   again from where it is). acks=0 produces get no response, as in Kafka.
// - Metadata: the broker's answer with each node's advertised host:port, the cluster id and a
//   controller id (a live broker: admin requests sent there reach the engine's controller). A
//   named topic the cluster lacks is created (auto.create.topics.enable, num.partitions) and
//   answered LEADER_NOT_AVAILABLE until it exists, as Kafka does.
// - The group APIs go to this broker one to one (its coordinator answers, or says
//   NOT_COORDINATOR), and so do InitProducerId and the transactional APIs (AddPartitionsToTxn,
//   AddOffsetsToTxn, EndTxn to its transaction coordinator, TxnOffsetCommit to its group
//   coordinator); the admin APIs go to the engine's controller.
// Responses leave in request order, as a Kafka broker sends them.
//
// Bad input: a frame that does not decode closes the connection (Output::close, with the
// reason); nothing is sent to the broker. When the broker's process goes away (on_disconnect)
// the connection is closed, as the client's socket would be reset.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/env/env.h"

namespace logsim::live {

struct BrokerAddress {
  NodeId node;            // the engine's broker node; also its node id on the wire
  std::string host = "127.0.0.1";
  std::uint16_t port = 0;
};

// A record as the gateway saw it pass: its key, a 64-bit hash of its key and value bytes, its
// offset (for a produce: its delta in the batch), and, from an idempotent producer, the
// producer id, epoch and sequence number that make it unique (-1 otherwise).
struct SeenRecord {
  std::optional<std::string> key;
  std::uint64_t content = 0;
  Offset offset;
  ProducerId producer_id{-1};
  ProducerEpoch producer_epoch{-1};
  Sequence sequence{-1};
  bool tombstone = false;  // a null value
};

// The records of `batches` from offset `from` on, read in place; none unless the bytes are
// whole, valid batches (the broker refuses others). verify_records: check each batch's records
// and CRC (what a client sent), not only the headers (what the broker's own log served).
std::vector<SeenRecord> seen_records(std::string_view batches, Offset from, bool verify_records);
// A producer's batches as the broker will see them: the records with offsets as deltas from the
// first batch's base offset (the broker assigns the real ones), and whether the first batch
// is an idempotent producer's.
std::vector<SeenRecord> produced_records(std::string_view batches, bool& idempotent);

// What the gateways saw, for a broker-side history (logsim serve records it; docs/live.md). A
// produce is identified by a token unique in the run; its answer names the same token. Called
// on the io_context's thread, between the gateway's own steps. The gateway hands over the
// record bytes as it has them (shared, never copied) rather than decoded: an observer decodes
// them (seen_records, produced_records) when it records them, which may be later, when the
// server is idle; the bytes never change.
class GatewayObserver {
 public:
  virtual ~GatewayObserver() = default;
  // A producer's batches for one partition arrived at `broker`.
  virtual void produce_sent(std::uint64_t token, const std::string& client, NodeId broker, const std::string& topic,
                            PartitionId partition, SharedBytes batches) = 0;
  // The broker answered it: the error, and the first record's offset when there was none.
  virtual void produce_answered(std::uint64_t token, ErrorCode error, Offset base_offset) = 0;
  // The batches of one partition a fetch response served to a client, of which the records at
  // or above `from` (the offset it asked for) count. `reader` names the client and its
  // connection. A read_committed fetch also names the aborted transactions among the batches
  // (whose records the client drops, as Kafka's consumer does).
  struct Fetched {
    SharedBytes batches;
    Offset from;
    bool read_committed = false;
    std::vector<AbortedTransaction> aborted;
  };
  virtual void served(const std::string& reader, const std::string& topic, PartitionId partition, Fetched fetched) = 0;
  // A Metadata answer told a client which broker leads each partition it names (a negative
  // leader: none).
  struct Leader {
    std::string topic;
    PartitionId partition;
    NodeId leader;
  };
  virtual void leaders_told(const std::string& client, std::vector<Leader> leaders) = 0;
  // A SyncGroup answer handed a member of `group` its assignment in `generation`: the bytes the
  // group's leader wrote for it (wire/consumer_protocol.h for a consumer group's).
  virtual void assigned(const std::string& group, std::int32_t generation, const std::string& member_id,
                        const std::string& client, const std::string& assignment) = 0;
  // A group member's OffsetCommit, and the coordinator's answer per partition.
  virtual void commit_sent(std::uint64_t token, const OffsetCommitRequest& request) = 0;
  virtual void commit_answered(std::uint64_t token, const OffsetCommitResponse& response) = 0;
  // A transactional producer's steps, by its transactional.id, producer id and epoch: its
  // InitProducerId answered (kInit, error NONE), a partition or a group's offsets joining its
  // transaction (kAdd, when the coordinator took it), and EndTxn sent (kEndSent, committed:
  // COMMIT or ABORT) and answered (kEndAnswered, the same token, with the error).
  struct TxnStep {
    enum Kind { kInit, kAdd, kEndSent, kEndAnswered } kind = kInit;
    std::uint64_t token = 0;
    std::string transactional_id;
    ProducerId producer_id{-1};
    ProducerEpoch producer_epoch{-1};
    bool committed = false;
    ErrorCode error = ErrorCode::NONE;
  };
  virtual void txn(const TxnStep& step) = 0;
};

// Faults on client connections (a scenario's client-faults steps): while the world's clock is
// before `until`, each request to `broker` (none: any broker) is answered `delay` late, has its
// answer lost with probability `drop` (the broker did the work; the client never hears, and
// as a Kafka broker answers a connection's requests in order, nothing after it is answered
// either), has its connection reset with probability `reset`, or is answered `error` on every
// partition it names, without reaching the broker, with probability `error_share` (Produce,
// Fetch and ListOffsets; a coordinator error answers the group and transaction-coordinator APIs
// instead; Metadata and the rest pass).
struct ClientFaultRule {
  std::optional<NodeId> broker;
  Nanos until = 0;
  Nanos delay = 0;
  double drop = 0;
  double reset = 0;
  ErrorCode error = ErrorCode::NONE;
  double error_share = 0;
};
// Shared by every gateway of a run and changed by the timeline as it goes.
struct ClientFaults {
  std::vector<ClientFaultRule> rules;
  // What the gateways did to requests under the rules.
  std::uint64_t delayed = 0, lost = 0, resets = 0, errors = 0;
};

struct GatewayConfig {
  std::vector<BrokerAddress> brokers;
  NodeId controller{-1};              // the engine's controller node
  bool auto_create_topics = true;     // auto.create.topics.enable
  std::string cluster_id = "logsim";
  std::int32_t max_request_bytes = 104857600;  // socket.request.max.bytes
  std::shared_ptr<GatewayObserver> observer;   // none: nothing is recorded
  std::shared_ptr<ClientFaults> faults;        // none: no client faults
};

class Gateway final : public Node {
 public:
  struct Output {
    std::function<void(std::string frame)> write;    // one whole response, with its size prefix
    std::function<void(std::string why)> close;      // close the connection
  };

  Gateway(Env& env, NodeId broker, std::shared_ptr<const GatewayConfig> config, Output out);
  ~Gateway() override;

  // One request, without its 4-byte size.
  void on_frame(std::string_view frame);

  void on_start() override {}
  void on_message(NodeId from, const Message& msg) override;
  void on_timer(TimerId id, std::uint64_t tag) override;
  void on_disconnect(NodeId peer) override;

  std::uint64_t requests() const { return requests_; }

  struct Pending;  // one wire request waiting for its engine answers (gateway.cc)

 private:
  friend struct GatewayApis;
  void flush();
  void fail(std::string why);

  Env& env_;
  NodeId broker_;
  std::shared_ptr<const GatewayConfig> config_;
  Output out_;
  std::deque<std::unique_ptr<Pending>> pending_;          // in request order
  std::map<CorrelationId, Pending*> by_correlation_;      // engine correlation id -> its request
  CorrelationId next_correlation_ = 0;
  std::uint64_t requests_ = 0;
  bool closed_ = false;
};

}  // namespace logsim::live
