// Field lists of OffsetCommit, OffsetFetch and OffsetDelete (offset_messages.h), in Kafka's
// order and with the versions each field exists in, coded both ways by message_io.h.
#include "wire/offset_messages.h"

#include "wire/message_io.h"

namespace logsim::wire {

template <class Io>
void describe(Io& io, Like<OffsetCommitRequest> auto& m) {
  io.string(m.group_id);
  io.i32(m.generation_id);  // v1+: every supported version
  io.string(m.member_id);   // v1+
  if (io.v >= 7) io.nullable_string(m.group_instance_id);
  if (io.v >= 2 && io.v <= 4) io.i64(m.retention_time_ms);
  using T = OffsetCommitRequest::Topic;
  topics(io, m.topics, &T::name, &T::partitions, [](auto& io2, auto& p) {
    io2.i32(p.partition_index);
    io2.i64(p.committed_offset);
    if (io2.v >= 6) io2.i32(p.committed_leader_epoch);
    if (io2.v == 1) io2.i64(p.commit_timestamp);
    io2.nullable_string(p.committed_metadata);
  });
}

// A partition index and its error code, the partition of OffsetCommit's and OffsetDelete's
// responses.
template <class Io>
void partition_error(Io& io, auto& p) {
  io.i32(p.partition_index);
  io.i16(p.error_code);
}

template <class Io>
void describe(Io& io, Like<OffsetCommitResponse> auto& m) {
  if (io.v >= 3) io.i32(m.throttle_time_ms);
  using T = OffsetCommitResponse::Topic;
  topics(io, m.topics, &T::name, &T::partitions, [](auto& io2, auto& p) { partition_error(io2, p); });
}

template <class Io>
void describe(Io& io, Like<OffsetFetchRequest> auto& m) {
  io.string(m.group_id);
  auto topic = [](auto& io2, auto& t) {
    io2.string(t.name);
    io2.int32_array(t.partition_indexes);
  };
  if (io.v >= 2) {
    io.nullable_array(m.topics, topic);
  } else {
    io.array(m.topics, topic);
  }
  if (io.v >= 7) io.boolean(m.require_stable);
}

template <class Io>
void describe(Io& io, Like<OffsetFetchResponse> auto& m) {
  if (io.v >= 3) io.i32(m.throttle_time_ms);
  using T = OffsetFetchResponse::Topic;
  topics(io, m.topics, &T::name, &T::partitions, [](auto& io2, auto& p) {
    io2.i32(p.partition_index);
    io2.i64(p.committed_offset);
    if (io2.v >= 5) io2.i32(p.committed_leader_epoch);
    io2.nullable_string(p.metadata);
    io2.i16(p.error_code);
  });
  if (io.v >= 2) io.i16(m.error_code);
}

template <class Io>
void describe(Io& io, Like<OffsetDeleteRequest> auto& m) {
  io.string(m.group_id);
  using T = OffsetDeleteRequest::Topic;
  topics(io, m.topics, &T::name, &T::partitions, [](auto& io2, auto& p) { io2.i32(p.partition_index); });
}

template <class Io>
void describe(Io& io, Like<OffsetDeleteResponse> auto& m) {
  io.i16(m.error_code);
  io.i32(m.throttle_time_ms);
  using T = OffsetDeleteResponse::Topic;
  topics(io, m.topics, &T::name, &T::partitions, [](auto& io2, auto& p) { partition_error(io2, p); });
}

LOGSIM_WIRE_DEFINE_CODECS(offset_commit, OffsetCommitRequest, OffsetCommitResponse)
LOGSIM_WIRE_DEFINE_CODECS(offset_fetch, OffsetFetchRequest, OffsetFetchResponse)
LOGSIM_WIRE_DEFINE_CODECS(offset_delete, OffsetDeleteRequest, OffsetDeleteResponse)

}  // namespace logsim::wire
