// Digests of the transactional producer's messages.
#include "engine/protocol/txn_messages.h"

namespace logsim {
namespace {
void fold_size(Digest& d, std::size_t n) { d.add(static_cast<std::uint64_t>(n)); }
void fold_results(Digest& d, const std::vector<TxnPartitionResult>& results) {
  fold_size(d, results.size());
  for (const TxnPartitionResult& r : results) d.add(r.tp.topic).add(r.tp.partition).add(r.error);
}
}  // namespace

void AddPartitionsToTxnRequest::fold(Digest& d) const {
  d.add(correlation_id).add(transactional_id).add(producer_id).add(producer_epoch);
  fold_size(d, partitions.size());
  for (const TopicPartition& tp : partitions) d.add(tp.topic).add(tp.partition);
}

void AddPartitionsToTxnResponse::fold(Digest& d) const {
  d.add(correlation_id);
  fold_results(d, results);
}

void AddOffsetsToTxnRequest::fold(Digest& d) const {
  d.add(correlation_id).add(transactional_id).add(producer_id).add(producer_epoch).add(group_id);
}

void AddOffsetsToTxnResponse::fold(Digest& d) const { d.add(correlation_id).add(error); }

void EndTxnRequest::fold(Digest& d) const {
  d.add(correlation_id).add(transactional_id).add(producer_id).add(producer_epoch).add(committed);
}

void EndTxnResponse::fold(Digest& d) const { d.add(correlation_id).add(error); }

void TxnOffsetCommitRequest::fold(Digest& d) const {
  d.add(correlation_id).add(transactional_id).add(group_id).add(producer_id).add(producer_epoch);
  d.add(generation_id).add(member_id).add(group_instance_id);
  fold_size(d, partitions.size());
  for (const auto& p : partitions) d.add(p.tp.topic).add(p.tp.partition).add(p.committed_offset).add(p.metadata);
}

void TxnOffsetCommitResponse::fold(Digest& d) const {
  d.add(correlation_id);
  fold_results(d, results);
}

}  // namespace logsim
