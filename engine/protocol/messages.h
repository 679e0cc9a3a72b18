// The typed messages nodes exchange, shaped like Kafka's APIs so that a wire-protocol gateway
// can later map onto them one to one. Requests carry a correlation id that the response
// echoes, as in Kafka; clients match responses by it.
//
// Every message can fold itself into a Digest (for the trace hash) and names its API.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "engine/protocol/admin_messages.h"
#include "engine/base/digest.h"
#include "engine/protocol/correlation_id.h"
#include "engine/base/shared_bytes.h"
#include "engine/protocol/errors.h"
#include "engine/protocol/group_messages.h"
#include "engine/protocol/log_config.h"
#include "engine/base/topic_partition.h"
#include "engine/base/types.h"
#include "engine/protocol/txn_messages.h"

namespace logsim {

// A record header, as in Kafka (KIP-82): a string key and a nullable value. A record's headers
// are an ordered list; keys may repeat.
struct RecordHeader {
  std::string key;
  std::optional<std::string> value;
  bool operator==(const RecordHeader&) const = default;
};

// One record as a producer sends it. A null value is a tombstone.
struct Record {
  std::optional<std::string> key;
  std::optional<std::string> value;
  std::int64_t timestamp_ms = 0;  // CreateTime, from the producer
  std::vector<RecordHeader> headers{};  // in the producer's order
};

// A record as stored and fetched: with its offset, the leader epoch that appended it, and,
// for an idempotent producer, its producer id, epoch and sequence number.
struct StoredRecord {
  Offset offset;
  Record record;
  LeaderEpoch leader_epoch{0};
  ProducerId producer_id{-1};
  ProducerEpoch producer_epoch{-1};
  Sequence sequence{-1};
};

// Who wrote a batch (all -1: not idempotent); a batch's header carries the same fields.
struct ProducerBatchInfo {
  ProducerId producer_id{-1};
  ProducerEpoch producer_epoch{-1};
  Sequence base_sequence{-1};
};

struct ProduceRequest {
  CorrelationId correlation_id = 0;
  std::string topic;
  PartitionId partition;
  std::int16_t acks = -1;  // -1 = all, 1 = leader, 0 = none (no response is sent)
  std::int32_t timeout_ms = 30000;
  // One record batch (engine/protocol/record_batch.h) as the producer encoded it; its header names
  // an idempotent producer's id, epoch and base sequence (-1 otherwise).
  SharedBytes records;
  void fold(Digest& d) const;
};

struct ProduceResponse {
  CorrelationId correlation_id = 0;
  std::string topic;
  PartitionId partition;
  ErrorCode error = ErrorCode::NONE;
  Offset base_offset{-1};  // offset of the first record of the request, when error == NONE
  void fold(Digest& d) const;
};

// A consumer's isolation.level, with Kafka's numbers.
enum class IsolationLevel : std::int8_t { kReadUncommitted = 0, kReadCommitted = 1 };

struct FetchRequest {
  CorrelationId correlation_id = 0;
  std::string topic;
  PartitionId partition;
  Offset fetch_offset;
  std::int32_t max_records = 500;
  // How long the broker may hold the request when it has nothing to return (fetch.max.wait.ms;
  // fetch.min.bytes is 1: any record answers it at once).
  std::int32_t max_wait_ms = 500;
  // A follower replica fetching for replication names itself; consumers send -1. Followers
  // read up to the log end offset, consumers up to the high watermark.
  NodeId replica_id{-1};
  // The leader epoch the fetcher believes current (-1: do not check), as in KIP-320.
  LeaderEpoch current_leader_epoch{-1};
  // isolation.level: read_committed reads only up to the last stable offset and is told the
  // aborted transactions among what it reads.
  IsolationLevel isolation_level = IsolationLevel::kReadUncommitted;
  void fold(Digest& d) const;
};

// An aborted transaction a read_committed fetch returns records of: the consumer drops the
// producer's transactional records from first_offset until its abort marker.
struct AbortedTransaction {
  ProducerId producer_id{-1};
  Offset first_offset{-1};
  bool operator==(const AbortedTransaction&) const = default;
};

struct FetchResponse {
  CorrelationId correlation_id = 0;
  std::string topic;
  PartitionId partition;
  ErrorCode error = ErrorCode::NONE;
  Offset high_watermark{-1};
  Offset log_start_offset{-1};
  // min(high watermark, the first offset of any transaction not yet decided and replicated).
  Offset last_stable_offset{-1};
  // For read_committed: the aborted transactions overlapping the records returned.
  std::vector<AbortedTransaction> aborted_transactions{};
  // Whole record batches as the leader's log holds them (engine/protocol/record_batch.h), back to
  // back: a consumer decodes them and skips the records below its fetch offset; a follower
  // appends them unchanged, as Kafka's followers append the leader's batches.
  SharedBytes records{};
  void fold(Digest& d) const;
};

// ListOffsets timestamps with special meaning, as in Kafka.
constexpr std::int64_t kListOffsetsLatest = -1;
constexpr std::int64_t kListOffsetsEarliest = -2;

struct ListOffsetsRequest {
  CorrelationId correlation_id = 0;
  std::string topic;
  PartitionId partition;
  std::int64_t timestamp_ms = kListOffsetsLatest;
  // read_committed: "latest" is the last stable offset, not the high watermark.
  IsolationLevel isolation_level = IsolationLevel::kReadUncommitted;
  void fold(Digest& d) const;
};

struct ListOffsetsResponse {
  CorrelationId correlation_id = 0;
  std::string topic;
  PartitionId partition;
  ErrorCode error = ErrorCode::NONE;
  Offset offset{-1};
  void fold(Digest& d) const;
};

struct MetadataRequest {
  CorrelationId correlation_id = 0;
  std::vector<std::string> topics;  // empty = all topics
  void fold(Digest& d) const;
};

struct PartitionMetadata {
  PartitionId partition;
  ErrorCode error = ErrorCode::NONE;
  NodeId leader{-1};
  LeaderEpoch leader_epoch{0};
  std::vector<NodeId> replicas;
  std::vector<NodeId> isr;
};

struct TopicMetadata {
  std::string name;
  ErrorCode error = ErrorCode::NONE;
  std::vector<PartitionMetadata> partitions;
  // Which incarnation of the topic (KIP-516's topic id; 0: unknown): a re-created topic's leader
  // epochs start again, so a client compares epochs only within one incarnation.
  std::int64_t topic_id = 0;
};

struct MetadataResponse {
  CorrelationId correlation_id = 0;
  std::vector<NodeId> brokers;
  std::vector<TopicMetadata> topics;
  void fold(Digest& d) const;
};

// Gets an idempotent producer its id and epoch. A producer that already has an id names it
// with its current epoch to get the next epoch of the same id (KIP-360); -1 for a new producer.
// A transactional producer names its transactional.id and transaction.timeout.ms and asks its
// transaction coordinator, which fences the id's earlier incarnations (KIP-98).
struct InitProducerIdRequest {
  CorrelationId correlation_id = 0;
  ProducerId producer_id{-1};
  ProducerEpoch producer_epoch{-1};
  std::optional<std::string> transactional_id{};
  std::int32_t transaction_timeout_ms = 60000;  // transaction.timeout.ms
  // The transactional fields are folded only when set, so idempotent producers' digests are
  // those they had before transactions.
  void fold(Digest& d) const {
    d.add(correlation_id).add(producer_id).add(producer_epoch);
    if (transactional_id) d.add(*transactional_id).add(transaction_timeout_ms);
  }
};

struct InitProducerIdResponse {
  CorrelationId correlation_id = 0;
  ErrorCode error = ErrorCode::NONE;
  ProducerId producer_id{-1};
  ProducerEpoch producer_epoch{-1};
  void fold(Digest& d) const { d.add(correlation_id).add(error).add(producer_id).add(producer_epoch); }
};

// The transaction coordinator -> a partition leader: write the marker that ends a producer's
// transaction on each partition named (Kafka's WriteTxnMarkers, one marker per request). The
// leader answers for each partition once the marker is committed (acks=all), or with why not.
struct WriteTxnMarkersRequest {
  CorrelationId correlation_id = 0;
  ProducerId producer_id{-1};
  ProducerEpoch producer_epoch{-1};
  bool committed = false;  // Kafka's transactionResult: COMMIT (true) or ABORT
  std::int32_t coordinator_epoch = 0;
  std::vector<TopicPartition> partitions;
  void fold(Digest& d) const;
};

struct WriteTxnMarkersResponse {
  struct PartitionResult {
    TopicPartition tp;
    ErrorCode error = ErrorCode::NONE;
  };
  CorrelationId correlation_id = 0;
  ProducerId producer_id{-1};
  std::vector<PartitionResult> partitions;  // in the request's order
  void fold(Digest& d) const;
};

// ---- Cluster control: brokers and the controller (shaped like KRaft's broker APIs and the
// classic LeaderAndIsr / AlterPartition exchange).

// A broker (re)starting announces itself; the controller answers with a new broker epoch.
struct BrokerRegistrationRequest {
  CorrelationId correlation_id = 0;
  NodeId broker_id;
  void fold(Digest& d) const { d.add(correlation_id).add(broker_id); }
};

struct BrokerRegistrationResponse {
  CorrelationId correlation_id = 0;
  ErrorCode error = ErrorCode::NONE;
  std::int64_t broker_epoch = -1;
  void fold(Digest& d) const { d.add(correlation_id).add(error).add(broker_epoch); }
};

// Sent every broker.heartbeat.interval.ms; a broker silent for broker.session.timeout.ms is
// fenced and its partitions get new leaders.
struct BrokerHeartbeatRequest {
  CorrelationId correlation_id = 0;
  NodeId broker_id;
  std::int64_t broker_epoch = -1;
  // The metadata the broker has (KRaft's CurrentMetadataOffset): the controller epoch and
  // version of the last LeaderAndIsr it applied. A broker behind is sent the metadata again.
  std::int32_t controller_epoch = 0;
  std::int64_t metadata_version = -1;
  void fold(Digest& d) const {
    d.add(correlation_id).add(broker_id).add(broker_epoch).add(controller_epoch).add(metadata_version);
  }
};

struct BrokerHeartbeatResponse {
  CorrelationId correlation_id = 0;
  ErrorCode error = ErrorCode::NONE;  // STALE_BROKER_EPOCH: register again
  void fold(Digest& d) const { d.add(correlation_id).add(error); }
};

// The controller's view of one partition.
struct PartitionState {
  std::string topic;
  PartitionId partition;
  std::int64_t topic_id = 0;   // which incarnation of the topic (a deleted and re-created topic gets a new id)
  NodeId leader{-1};           // -1: offline
  LeaderEpoch leader_epoch{0};
  std::int32_t partition_epoch = 0;  // bumped by every change (leader or ISR)
  std::vector<NodeId> replicas;      // the first is the preferred leader
  std::vector<NodeId> isr;
  std::int32_t min_insync_replicas = 1;  // the topic's min.insync.replicas
  void fold(Digest& d) const;
};

// A topic's log configuration (retention.ms, segment.bytes, cleanup.policy, ...).
struct TopicConfig {
  std::string topic;
  LogConfig log;
  void fold(Digest& d) const;
};

// Controller -> brokers: the whole current state (live brokers, every partition, every topic's
// configuration). A broker applies the entries for partitions it replicates and answers
// Metadata from all of them.
struct LeaderAndIsrRequest {
  std::int32_t controller_epoch = 0;
  std::int64_t version = 0;  // increases with every change; brokers ignore older versions
  std::vector<NodeId> live_brokers;
  std::vector<PartitionState> partitions;
  std::vector<TopicConfig> topic_configs;
  void fold(Digest& d) const;
};

// Leader -> controller: change the ISR (KIP-497). Rejected when the leader epoch or the
// partition epoch is stale.
struct AlterPartitionRequest {
  CorrelationId correlation_id = 0;
  NodeId broker_id;
  std::string topic;
  PartitionId partition;
  LeaderEpoch leader_epoch;
  std::int32_t partition_epoch = 0;
  std::vector<NodeId> new_isr;
  void fold(Digest& d) const;
};

struct AlterPartitionResponse {
  CorrelationId correlation_id = 0;
  ErrorCode error = ErrorCode::NONE;  // FENCED_LEADER_EPOCH, INVALID_UPDATE_VERSION, ...
  PartitionState state;               // the partition as the controller now has it
  void fold(Digest& d) const;
};

// Follower -> leader: where does my latest epoch end in your log? (KIP-101, KIP-279)
struct OffsetsForLeaderEpochRequest {
  CorrelationId correlation_id = 0;
  std::string topic;
  PartitionId partition;
  LeaderEpoch current_leader_epoch;  // fencing, as in KIP-320
  LeaderEpoch leader_epoch;          // the epoch asked about
  void fold(Digest& d) const;
};

struct OffsetsForLeaderEpochResponse {
  CorrelationId correlation_id = 0;
  std::string topic;
  PartitionId partition;
  ErrorCode error = ErrorCode::NONE;
  LeaderEpoch leader_epoch{-1};  // the largest epoch <= the one asked that the leader holds
  Offset end_offset{-1};         // where that epoch ends in the leader's log
  void fold(Digest& d) const;
};

using Message = std::variant<ProduceRequest, ProduceResponse, FetchRequest, FetchResponse,
                             ListOffsetsRequest, ListOffsetsResponse, MetadataRequest,
                             MetadataResponse, BrokerRegistrationRequest, BrokerRegistrationResponse,
                             BrokerHeartbeatRequest, BrokerHeartbeatResponse, LeaderAndIsrRequest,
                             AlterPartitionRequest, AlterPartitionResponse,
                             OffsetsForLeaderEpochRequest, OffsetsForLeaderEpochResponse,
                             InitProducerIdRequest, InitProducerIdResponse, CreateTopicsRequest,
                             CreateTopicsResponse, DeleteTopicsRequest, DeleteTopicsResponse,
                             CreatePartitionsRequest, CreatePartitionsResponse,
                             IncrementalAlterConfigsRequest, IncrementalAlterConfigsResponse,
                             DescribeConfigsRequest, DescribeConfigsResponse, FindCoordinatorRequest,
                             FindCoordinatorResponse, JoinGroupRequest, JoinGroupResponse, SyncGroupRequest,
                             SyncGroupResponse, HeartbeatRequest, HeartbeatResponse, LeaveGroupRequest,
                             LeaveGroupResponse, OffsetCommitRequest, OffsetCommitResponse, OffsetFetchRequest,
                             OffsetFetchResponse, ListGroupsRequest, ListGroupsResponse, DescribeGroupsRequest,
                             DescribeGroupsResponse, DeleteGroupsRequest, DeleteGroupsResponse,
                             OffsetDeleteRequest, OffsetDeleteResponse, WriteTxnMarkersRequest,
                             WriteTxnMarkersResponse, AddPartitionsToTxnRequest,
                             AddPartitionsToTxnResponse, AddOffsetsToTxnRequest, AddOffsetsToTxnResponse,
                             EndTxnRequest, EndTxnResponse, TxnOffsetCommitRequest, TxnOffsetCommitResponse>;

// Kafka's API name of the message, e.g. "Produce" or "FetchResponse".
std::string_view message_name(const Message& msg);
// A 64-bit digest of the message's whole content, for the trace.
std::uint64_t message_digest(const Message& msg);

// The message's correlation id; none for LeaderAndIsr (the controller's push, answered by nothing).
std::optional<CorrelationId> message_correlation(const Message& msg);
// Whether the message answers a request (its API name ends in "Response", as Kafka names them):
// it travels back on the connection the request came in on.
bool message_is_response(const Message& msg);
// Whether a request is answered: every request with a correlation id, but acks=0 Produce.
bool message_expects_response(const Message& msg);

}  // namespace logsim
