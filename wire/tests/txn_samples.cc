// Samples of the transactional APIs (samples.h). Version conditions restate Kafka's specs:
// TxnOffsetCommit has committed_leader_epoch from v2 and the consumer's generation, member id
// and group.instance.id from v3; the others have the same fields at v0-3.
#include <string>

#include "wire/tests/samples.h"

namespace logsim::wire::samples {

namespace {

RequestBody add_partitions_request(std::int16_t) {
  return AddPartitionsToTxnRequest{"tx-orders", 4001, 7, {{"orders", {0, 5, 2}}, {"audit", {1}}}};
}

ResponseBody add_partitions_response(std::int16_t) {
  return AddPartitionsToTxnResponse{9, {{"orders", {{0, 0}, {5, 51}, {2, 0}}}, {"audit", {{1, 3}}}}};
}

RequestBody add_offsets_request(std::int16_t) { return AddOffsetsToTxnRequest{"tx-orders", 4001, 7, "billing"}; }

ResponseBody add_offsets_response(std::int16_t) { return AddOffsetsToTxnResponse{4, 90}; }

RequestBody end_txn_request(std::int16_t) { return EndTxnRequest{"tx-orders", 4001, 7, true}; }

ResponseBody end_txn_response(std::int16_t) { return EndTxnResponse{2, 47}; }

RequestBody txn_offset_commit_request(std::int16_t v) {
  TxnOffsetCommitRequest m;
  m.transactional_id = "tx-orders";
  m.group_id = "billing";
  m.producer_id = 4001;
  m.producer_epoch = 7;
  if (v >= 3) {
    m.generation_id = 12;
    m.member_id = "billing-1-0c1d";
    m.group_instance_id = "billing-1";
  }
  TxnOffsetCommitRequest::Partition p0{0, 1200, -1, "m"};
  TxnOffsetCommitRequest::Partition p3{3, 77, -1, std::nullopt};
  if (v >= 2) {
    p0.committed_leader_epoch = 4;
    p3.committed_leader_epoch = 5;
  }
  m.topics = {{"orders", {p0, p3}}};
  return m;
}

ResponseBody txn_offset_commit_response(std::int16_t) {
  return TxnOffsetCommitResponse{1, {{"orders", {{0, 0}, {3, 22}}}}};
}

}  // namespace

std::vector<Sample> txn_samples() {
  return {{ApiKey::ADD_PARTITIONS_TO_TXN, add_partitions_request, add_partitions_response},
          {ApiKey::ADD_OFFSETS_TO_TXN, add_offsets_request, add_offsets_response},
          {ApiKey::END_TXN, end_txn_request, end_txn_response},
          {ApiKey::TXN_OFFSET_COMMIT, txn_offset_commit_request, txn_offset_commit_response}};
}

}  // namespace logsim::wire::samples
