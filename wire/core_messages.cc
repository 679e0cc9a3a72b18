// Field lists of ApiVersions, Metadata, Produce, Fetch and ListOffsets, in Kafka's order and
// with the versions each field exists in (Kafka's message specs), coded both ways by
// message_io.h.
#include "wire/core_messages.h"

#include "wire/message_io.h"

namespace logsim::wire {

template <class Io>
void describe(Io& io, Like<ApiVersionsRequest> auto& m) {
  if (io.v >= 3) {
    io.string(m.client_software_name);
    io.string(m.client_software_version);
  }
}

template <class Io>
void describe(Io& io, Like<ApiVersionsResponse> auto& m) {
  io.i16(m.error_code);
  io.array(m.api_keys, [](auto& io2, auto& k) {
    io2.i16(k.api_key);
    io2.i16(k.min_version);
    io2.i16(k.max_version);
  });
  if (io.v >= 1) io.i32(m.throttle_time_ms);
}

template <class Io>
void describe(Io& io, Like<MetadataRequest> auto& m) {
  auto topic = [](auto& io2, auto& t) { io2.string(t.name); };
  if (io.v >= 1) {
    io.nullable_array(m.topics, topic);
  } else {
    io.array(m.topics, topic);
  }
  if (io.v >= 4) io.boolean(m.allow_auto_topic_creation);
  if (io.v >= 8) {
    io.boolean(m.include_cluster_authorized_operations);
    io.boolean(m.include_topic_authorized_operations);
  }
}

template <class Io>
void describe(Io& io, Like<MetadataResponse> auto& m) {
  if (io.v >= 3) io.i32(m.throttle_time_ms);
  io.array(m.brokers, [](auto& io2, auto& b) {
    io2.i32(b.node_id);
    io2.string(b.host);
    io2.i32(b.port);
    if (io2.v >= 1) io2.nullable_string(b.rack);
  });
  if (io.v >= 2) io.nullable_string(m.cluster_id);
  if (io.v >= 1) io.i32(m.controller_id);
  io.array(m.topics, [](auto& io2, auto& t) {
    io2.i16(t.error_code);
    io2.string(t.name);
    if (io2.v >= 1) io2.boolean(t.is_internal);
    io2.array(t.partitions, [](auto& io3, auto& p) {
      io3.i16(p.error_code);
      io3.i32(p.partition_index);
      io3.i32(p.leader_id);
      if (io3.v >= 7) io3.i32(p.leader_epoch);
      io3.int32_array(p.replica_nodes);
      io3.int32_array(p.isr_nodes);
      if (io3.v >= 5) io3.int32_array(p.offline_replicas);
    });
    if (io2.v >= 8) io2.i32(t.topic_authorized_operations);
  });
  if (io.v >= 8) io.i32(m.cluster_authorized_operations);
}

template <class Io>
void describe(Io& io, Like<ProduceRequest> auto& m) {
  io.nullable_string(m.transactional_id);  // every supported version (v3+)
  io.i16(m.acks);
  io.i32(m.timeout_ms);
  using T = ProduceRequest::Topic;
  topics(io, m.topic_data, &T::name, &T::partition_data, [](auto& io2, auto& p) {
    io2.i32(p.index);
    io2.nullable_bytes(p.records);
  });
}

template <class Io>
void describe(Io& io, Like<ProduceResponse> auto& m) {
  using T = ProduceResponse::Topic;
  topics(io, m.responses, &T::name, &T::partition_responses, [](auto& io2, auto& p) {
    io2.i32(p.index);
    io2.i16(p.error_code);
    io2.i64(p.base_offset);
    io2.i64(p.log_append_time_ms);  // v2+: every supported version
    if (io2.v >= 5) io2.i64(p.log_start_offset);
  });
  io.i32(m.throttle_time_ms);  // v1+: every supported version
}

template <class Io>
void describe(Io& io, Like<FetchRequest> auto& m) {
  io.i32(m.replica_id);
  io.i32(m.max_wait_ms);
  io.i32(m.min_bytes);
  io.i32(m.max_bytes);        // v3+
  io.i8(m.isolation_level);  // v4+
  if (io.v >= 7) {
    io.i32(m.session_id);
    io.i32(m.session_epoch);
  }
  using T = FetchRequest::Topic;
  topics(io, m.topics, &T::topic, &T::partitions, [](auto& io2, auto& p) {
    io2.i32(p.partition);
    if (io2.v >= 9) io2.i32(p.current_leader_epoch);
    io2.i64(p.fetch_offset);
    if (io2.v >= 5) io2.i64(p.log_start_offset);
    io2.i32(p.partition_max_bytes);
  });
  if (io.v >= 7) {
    io.array(m.forgotten_topics_data, [](auto& io2, auto& t) {
      io2.string(t.topic);
      io2.int32_array(t.partitions);
    });
  }
  if (io.v >= 11) io.string(m.rack_id);
}

template <class Io>
void describe(Io& io, Like<FetchResponse> auto& m) {
  io.i32(m.throttle_time_ms);  // v1+
  if (io.v >= 7) {
    io.i16(m.error_code);
    io.i32(m.session_id);
  }
  using T = FetchResponse::Topic;
  topics(io, m.responses, &T::topic, &T::partitions, [](auto& io2, auto& p) {
    io2.i32(p.partition_index);
    io2.i16(p.error_code);
    io2.i64(p.high_watermark);
    io2.i64(p.last_stable_offset);  // v4+
    if (io2.v >= 5) io2.i64(p.log_start_offset);
    io2.nullable_array(p.aborted_transactions, [](auto& io3, auto& a) {  // v4+
      io3.i64(a.producer_id);
      io3.i64(a.first_offset);
    });
    if (io2.v >= 11) io2.i32(p.preferred_read_replica);
    io2.nullable_bytes(p.records);
  });
}

template <class Io>
void describe(Io& io, Like<ListOffsetsRequest> auto& m) {
  io.i32(m.replica_id);
  if (io.v >= 2) io.i8(m.isolation_level);
  using T = ListOffsetsRequest::Topic;
  topics(io, m.topics, &T::name, &T::partitions, [](auto& io2, auto& p) {
    io2.i32(p.partition_index);
    io2.i64(p.timestamp);
  });
}

template <class Io>
void describe(Io& io, Like<ListOffsetsResponse> auto& m) {
  if (io.v >= 2) io.i32(m.throttle_time_ms);
  using T = ListOffsetsResponse::Topic;
  topics(io, m.topics, &T::name, &T::partitions, [](auto& io2, auto& p) {
    io2.i32(p.partition_index);
    io2.i16(p.error_code);
    io2.i64(p.timestamp);  // v1+: every supported version
    io2.i64(p.offset);
  });
}

LOGSIM_WIRE_DEFINE_CODECS(api_versions, ApiVersionsRequest, ApiVersionsResponse)
LOGSIM_WIRE_DEFINE_CODECS(metadata, MetadataRequest, MetadataResponse)
LOGSIM_WIRE_DEFINE_CODECS(produce, ProduceRequest, ProduceResponse)
LOGSIM_WIRE_DEFINE_CODECS(fetch, FetchRequest, FetchResponse)
LOGSIM_WIRE_DEFINE_CODECS(list_offsets, ListOffsetsRequest, ListOffsetsResponse)

ApiVersionsResponse advertised_api_versions() {
  ApiVersionsResponse r;
  for (const ApiRange& a : supported_apis()) {
    r.api_keys.push_back({static_cast<std::int16_t>(a.key), a.min_version, a.max_version});
  }
  return r;
}

}  // namespace logsim::wire
