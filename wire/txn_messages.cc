// Field lists of the transactional APIs (txn_messages.h), in Kafka's order and with the
// versions each field exists in, coded both ways by message_io.h.
#include "wire/txn_messages.h"

#include "wire/message_io.h"

namespace logsim::wire {

namespace {

// The producer's identity, in the order every transactional request but TxnOffsetCommit has it.
template <class Io>
void producer(Io& io, auto& m) {
  io.string(m.transactional_id);
  io.i64(m.producer_id);
  io.i16(m.producer_epoch);
}

template <class Io>
void partition_errors(Io& io, auto& topics_) {
  using T = NamedTopic<PartitionError>;
  topics(io, topics_, &T::name, &T::partitions, [](auto& io2, auto& p) {
    io2.i32(p.partition_index);
    io2.i16(p.error_code);
  });
}

}  // namespace

template <class Io>
void describe(Io& io, Like<AddPartitionsToTxnRequest> auto& m) {
  producer(io, m);
  io.array(m.topics, [](auto& io2, auto& t) {
    io2.string(t.name);
    io2.int32_array(t.partitions);
  });
}

template <class Io>
void describe(Io& io, Like<AddPartitionsToTxnResponse> auto& m) {
  io.i32(m.throttle_time_ms);
  partition_errors(io, m.results);
}

template <class Io>
void describe(Io& io, Like<AddOffsetsToTxnRequest> auto& m) {
  producer(io, m);
  io.string(m.group_id);
}

template <class Io>
void describe(Io& io, Like<AddOffsetsToTxnResponse> auto& m) {
  io.i32(m.throttle_time_ms);
  io.i16(m.error_code);
}

template <class Io>
void describe(Io& io, Like<EndTxnRequest> auto& m) {
  producer(io, m);
  io.boolean(m.committed);
}

template <class Io>
void describe(Io& io, Like<EndTxnResponse> auto& m) {
  io.i32(m.throttle_time_ms);
  io.i16(m.error_code);
}

template <class Io>
void describe(Io& io, Like<TxnOffsetCommitRequest> auto& m) {
  io.string(m.transactional_id);
  io.string(m.group_id);
  io.i64(m.producer_id);
  io.i16(m.producer_epoch);
  if (io.v >= 3) {
    io.i32(m.generation_id);
    io.string(m.member_id);
    io.nullable_string(m.group_instance_id);
  }
  using T = TxnOffsetCommitRequest::Topic;
  topics(io, m.topics, &T::name, &T::partitions, [](auto& io2, auto& p) {
    io2.i32(p.partition_index);
    io2.i64(p.committed_offset);
    if (io2.v >= 2) io2.i32(p.committed_leader_epoch);
    io2.nullable_string(p.committed_metadata);
  });
}

template <class Io>
void describe(Io& io, Like<TxnOffsetCommitResponse> auto& m) {
  io.i32(m.throttle_time_ms);
  partition_errors(io, m.topics);
}

LOGSIM_WIRE_DEFINE_CODECS(add_partitions_to_txn, AddPartitionsToTxnRequest, AddPartitionsToTxnResponse)
LOGSIM_WIRE_DEFINE_CODECS(add_offsets_to_txn, AddOffsetsToTxnRequest, AddOffsetsToTxnResponse)
LOGSIM_WIRE_DEFINE_CODECS(end_txn, EndTxnRequest, EndTxnResponse)
LOGSIM_WIRE_DEFINE_CODECS(txn_offset_commit, TxnOffsetCommitRequest, TxnOffsetCommitResponse)

}  // namespace logsim::wire
