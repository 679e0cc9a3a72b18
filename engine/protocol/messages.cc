// Digests and names of the engine's messages.
#include "engine/protocol/messages.h"

#include "engine/protocol/record_batch.h"

namespace logsim {
namespace {

// Record batches fold as their headers: the fields outside the CRC (base offset, length,
// leader epoch) and the CRC, which stands for every byte after it. A batch's bytes are made by
// the same deterministic code in every run, so any divergence in them shows in the CRC; this
// keeps a message's digest independent of its payload's size. Bytes that are not a whole
// batch (none of ours send such) fold whole.
void fold_batches(Digest& d, const SharedBytes& batches) {
  d.add(batches.size());
  const BatchScan scan = visit_batch_headers(batches, [&d](const BatchHeader& h) {
    d.add(h.base_offset).add(h.batch_length).add(h.leader_epoch).add(static_cast<std::uint64_t>(h.crc));
  });
  if (!scan.complete) {
    std::string scratch;
    d.add(batches.contiguous(scratch).substr(static_cast<std::size_t>(scan.valid_bytes)));
  }
}

}  // namespace

void ProduceRequest::fold(Digest& d) const {
  d.add(correlation_id).add(topic).add(partition).add(acks).add(timeout_ms);
  fold_batches(d, records);
}

void ProduceResponse::fold(Digest& d) const {
  d.add(correlation_id).add(topic).add(partition).add(error).add(base_offset);
}

void FetchRequest::fold(Digest& d) const {
  d.add(correlation_id).add(topic).add(partition).add(fetch_offset).add(max_records).add(max_wait_ms);
  d.add(replica_id).add(current_leader_epoch);
  // Folded only when it is not the default, as the transaction fields of the answer below:
  // runs without transactions keep the trace hashes they had before transactions existed.
  if (isolation_level != IsolationLevel::kReadUncommitted) d.add(isolation_level);
}

void FetchResponse::fold(Digest& d) const {
  d.add(correlation_id).add(topic).add(partition).add(error).add(high_watermark).add(log_start_offset);
  fold_batches(d, records);
  if (last_stable_offset != high_watermark) d.add(last_stable_offset);
  if (!aborted_transactions.empty()) {
    d.add(static_cast<std::uint64_t>(aborted_transactions.size()));
    for (const AbortedTransaction& a : aborted_transactions) d.add(a.producer_id).add(a.first_offset);
  }
}

void WriteTxnMarkersRequest::fold(Digest& d) const {
  d.add(correlation_id).add(producer_id).add(producer_epoch).add(committed).add(coordinator_epoch);
  d.add(static_cast<std::uint64_t>(partitions.size()));
  for (const TopicPartition& tp : partitions) d.add(tp.topic).add(tp.partition);
}

void WriteTxnMarkersResponse::fold(Digest& d) const {
  d.add(correlation_id).add(producer_id).add(static_cast<std::uint64_t>(partitions.size()));
  for (const PartitionResult& r : partitions) d.add(r.tp.topic).add(r.tp.partition).add(r.error);
}

void ListOffsetsRequest::fold(Digest& d) const {
  d.add(correlation_id).add(topic).add(partition).add(timestamp_ms);
  if (isolation_level != IsolationLevel::kReadUncommitted) d.add(isolation_level);  // as Fetch's
}

void ListOffsetsResponse::fold(Digest& d) const {
  d.add(correlation_id).add(topic).add(partition).add(error).add(offset);
}

void MetadataRequest::fold(Digest& d) const {
  d.add(correlation_id).add(static_cast<std::uint64_t>(topics.size()));
  for (const auto& t : topics) d.add(t);
}

void MetadataResponse::fold(Digest& d) const {
  // Every list is preceded by its length, so different shapes never digest alike.
  d.add(correlation_id).add(static_cast<std::uint64_t>(brokers.size()));
  for (auto b : brokers) d.add(b);
  d.add(static_cast<std::uint64_t>(topics.size()));
  for (const auto& t : topics) {
    // (topic_id is not folded: the controller's history, folded in its own messages, decides it.)
    d.add(t.name).add(t.error).add(static_cast<std::uint64_t>(t.partitions.size()));
    for (const auto& p : t.partitions) {
      d.add(p.partition).add(p.error).add(p.leader).add(p.leader_epoch);
      d.add(static_cast<std::uint64_t>(p.replicas.size()));
      for (auto r : p.replicas) d.add(r);
      d.add(static_cast<std::uint64_t>(p.isr.size()));
      for (auto r : p.isr) d.add(r);
    }
  }
}

namespace {
void fold_ids(Digest& d, const std::vector<NodeId>& ids) {
  d.add(static_cast<std::uint64_t>(ids.size()));
  for (auto id : ids) d.add(id);
}
}  // namespace

void PartitionState::fold(Digest& d) const {
  d.add(topic).add(partition).add(topic_id).add(leader).add(leader_epoch).add(partition_epoch).add(min_insync_replicas);
  fold_ids(d, replicas);
  fold_ids(d, isr);
}

void TopicConfig::fold(Digest& d) const {
  d.add(topic).add(log.segment_bytes).add(log.segment_ms).add(log.retention_ms).add(log.retention_bytes);
  d.add(log.cleanup_policy).add(log.delete_retention_ms).add(log.min_compaction_lag_ms).add(log.flush_messages);
  d.add(log.flush_ms).add(log.timestamp_type).add(log.index_interval_bytes);
}

void LeaderAndIsrRequest::fold(Digest& d) const {
  d.add(controller_epoch).add(version);
  fold_ids(d, live_brokers);
  d.add(static_cast<std::uint64_t>(partitions.size()));
  for (const auto& p : partitions) p.fold(d);
  d.add(static_cast<std::uint64_t>(topic_configs.size()));
  for (const auto& t : topic_configs) t.fold(d);
}

void AlterPartitionRequest::fold(Digest& d) const {
  d.add(correlation_id).add(broker_id).add(topic).add(partition).add(leader_epoch).add(partition_epoch);
  fold_ids(d, new_isr);
}

void AlterPartitionResponse::fold(Digest& d) const {
  d.add(correlation_id).add(error);
  state.fold(d);
}

void OffsetsForLeaderEpochRequest::fold(Digest& d) const {
  d.add(correlation_id).add(topic).add(partition).add(current_leader_epoch).add(leader_epoch);
}

void OffsetsForLeaderEpochResponse::fold(Digest& d) const {
  d.add(correlation_id).add(topic).add(partition).add(error).add(leader_epoch).add(end_offset);
}

namespace {

struct Namer {
  std::string_view operator()(const ProduceRequest&) const { return "Produce"; }
  std::string_view operator()(const ProduceResponse&) const { return "ProduceResponse"; }
  std::string_view operator()(const FetchRequest&) const { return "Fetch"; }
  std::string_view operator()(const FetchResponse&) const { return "FetchResponse"; }
  std::string_view operator()(const ListOffsetsRequest&) const { return "ListOffsets"; }
  std::string_view operator()(const ListOffsetsResponse&) const { return "ListOffsetsResponse"; }
  std::string_view operator()(const MetadataRequest&) const { return "Metadata"; }
  std::string_view operator()(const MetadataResponse&) const { return "MetadataResponse"; }
  std::string_view operator()(const BrokerRegistrationRequest&) const { return "BrokerRegistration"; }
  std::string_view operator()(const BrokerRegistrationResponse&) const { return "BrokerRegistrationResponse"; }
  std::string_view operator()(const BrokerHeartbeatRequest&) const { return "BrokerHeartbeat"; }
  std::string_view operator()(const BrokerHeartbeatResponse&) const { return "BrokerHeartbeatResponse"; }
  std::string_view operator()(const LeaderAndIsrRequest&) const { return "LeaderAndIsr"; }
  std::string_view operator()(const AlterPartitionRequest&) const { return "AlterPartition"; }
  std::string_view operator()(const AlterPartitionResponse&) const { return "AlterPartitionResponse"; }
  std::string_view operator()(const OffsetsForLeaderEpochRequest&) const { return "OffsetsForLeaderEpoch"; }
  std::string_view operator()(const OffsetsForLeaderEpochResponse&) const { return "OffsetsForLeaderEpochResponse"; }
  std::string_view operator()(const InitProducerIdRequest&) const { return "InitProducerId"; }
  std::string_view operator()(const InitProducerIdResponse&) const { return "InitProducerIdResponse"; }
  std::string_view operator()(const CreateTopicsRequest&) const { return "CreateTopics"; }
  std::string_view operator()(const CreateTopicsResponse&) const { return "CreateTopicsResponse"; }
  std::string_view operator()(const DeleteTopicsRequest&) const { return "DeleteTopics"; }
  std::string_view operator()(const DeleteTopicsResponse&) const { return "DeleteTopicsResponse"; }
  std::string_view operator()(const CreatePartitionsRequest&) const { return "CreatePartitions"; }
  std::string_view operator()(const CreatePartitionsResponse&) const { return "CreatePartitionsResponse"; }
  std::string_view operator()(const IncrementalAlterConfigsRequest&) const { return "IncrementalAlterConfigs"; }
  std::string_view operator()(const IncrementalAlterConfigsResponse&) const { return "IncrementalAlterConfigsResponse"; }
  std::string_view operator()(const DescribeConfigsRequest&) const { return "DescribeConfigs"; }
  std::string_view operator()(const DescribeConfigsResponse&) const { return "DescribeConfigsResponse"; }
  std::string_view operator()(const WriteTxnMarkersRequest&) const { return "WriteTxnMarkers"; }
  std::string_view operator()(const WriteTxnMarkersResponse&) const { return "WriteTxnMarkersResponse"; }
  // The group messages name themselves.
  template <typename M>
  std::string_view operator()(const M&) const {
    return M::kApi;
  }
};

}  // namespace

std::string_view message_name(const Message& msg) {
  return std::visit(Namer{}, msg);
}

std::uint64_t message_digest(const Message& msg) {
  Digest d;
  d.add(static_cast<std::uint64_t>(msg.index()));
  std::visit([&d](const auto& m) { m.fold(d); }, msg);
  return d.value();
}

std::optional<CorrelationId> message_correlation(const Message& msg) {
  return std::visit(
      [](const auto& m) -> std::optional<CorrelationId> {
        if constexpr (requires { m.correlation_id; }) {
          return m.correlation_id;
        } else {
          return std::nullopt;
        }
      },
      msg);
}

bool message_is_response(const Message& msg) { return message_name(msg).ends_with("Response"); }

bool message_expects_response(const Message& msg) {
  if (message_is_response(msg) || !message_correlation(msg)) return false;
  const auto* produce = std::get_if<ProduceRequest>(&msg);
  return produce == nullptr || produce->acks != 0;
}

}  // namespace logsim
