// Field lists of the admin APIs (admin_messages.h), in Kafka's order and with the versions each
// field exists in, coded both ways by message_io.h.
#include "wire/admin_messages.h"

#include "wire/message_io.h"

namespace logsim::wire {

template <class Io>
void describe(Io& io, Like<CreateTopicsRequest> auto& m) {
  io.array(m.topics, [](auto& io2, auto& t) {
    io2.string(t.name);
    io2.i32(t.num_partitions);
    io2.i16(t.replication_factor);
    io2.array(t.assignments, [](auto& io3, auto& a) {
      io3.i32(a.partition_index);
      io3.int32_array(a.broker_ids);
    });
    io2.array(t.configs, [](auto& io3, auto& c) {
      io3.string(c.name);
      io3.nullable_string(c.value);
    });
  });
  io.i32(m.timeout_ms);
  if (io.v >= 1) io.boolean(m.validate_only);
}

template <class Io>
void describe(Io& io, Like<CreateTopicsResponse> auto& m) {
  if (io.v >= 2) io.i32(m.throttle_time_ms);
  io.array(m.topics, [](auto& io2, auto& t) {
    io2.string(t.name);
    io2.i16(t.error_code);
    if (io2.v >= 1) io2.nullable_string(t.error_message);
  });
}

template <class Io>
void describe(Io& io, Like<DeleteTopicsRequest> auto& m) {
  io.string_array(m.topic_names);
  io.i32(m.timeout_ms);
}

template <class Io>
void describe(Io& io, Like<DeleteTopicsResponse> auto& m) {
  if (io.v >= 1) io.i32(m.throttle_time_ms);
  io.array(m.responses, [](auto& io2, auto& r) {
    io2.string(r.name);
    io2.i16(r.error_code);
  });
}

template <class Io>
void describe(Io& io, Like<CreatePartitionsRequest> auto& m) {
  io.array(m.topics, [](auto& io2, auto& t) {
    io2.string(t.name);
    io2.i32(t.count);
    io2.nullable_array(t.assignments, [](auto& io3, auto& a) { io3.int32_array(a.broker_ids); });
  });
  io.i32(m.timeout_ms);
  io.boolean(m.validate_only);
}

template <class Io>
void describe(Io& io, Like<CreatePartitionsResponse> auto& m) {
  io.i32(m.throttle_time_ms);
  io.array(m.results, [](auto& io2, auto& r) {
    io2.string(r.name);
    io2.i16(r.error_code);
    io2.nullable_string(r.error_message);
  });
}

template <class Io>
void describe(Io& io, Like<DescribeConfigsRequest> auto& m) {
  io.array(m.resources, [](auto& io2, auto& r) {
    io2.i8(r.resource_type);
    io2.string(r.resource_name);
    io2.nullable_string_array(r.configuration_keys);
  });
  if (io.v >= 1) io.boolean(m.include_synonyms);
}

template <class Io>
void describe_config(Io& io, auto& c) {
  io.string(c.name);
  io.nullable_string(c.value);
  io.boolean(c.read_only);
  if (io.v == 0) io.boolean(c.is_default);
  if (io.v >= 1) io.i8(c.config_source);
  io.boolean(c.is_sensitive);
  if (io.v >= 1) {
    io.array(c.synonyms, [](auto& io2, auto& s) {
      io2.string(s.name);
      io2.nullable_string(s.value);
      io2.i8(s.source);
    });
  }
}

template <class Io>
void describe(Io& io, Like<DescribeConfigsResponse> auto& m) {
  io.i32(m.throttle_time_ms);
  io.array(m.results, [](auto& io2, auto& r) {
    io2.i16(r.error_code);
    io2.nullable_string(r.error_message);
    io2.i8(r.resource_type);
    io2.string(r.resource_name);
    io2.array(r.configs, [](auto& io3, auto& c) { describe_config(io3, c); });
  });
}

template <class Io>
void describe(Io& io, Like<InitProducerIdRequest> auto& m) {
  io.nullable_string(m.transactional_id);
  io.i32(m.transaction_timeout_ms);
}

template <class Io>
void describe(Io& io, Like<InitProducerIdResponse> auto& m) {
  io.i32(m.throttle_time_ms);
  io.i16(m.error_code);
  io.i64(m.producer_id);
  io.i16(m.producer_epoch);
}

LOGSIM_WIRE_DEFINE_CODECS(create_topics, CreateTopicsRequest, CreateTopicsResponse)
LOGSIM_WIRE_DEFINE_CODECS(delete_topics, DeleteTopicsRequest, DeleteTopicsResponse)
LOGSIM_WIRE_DEFINE_CODECS(create_partitions, CreatePartitionsRequest, CreatePartitionsResponse)
LOGSIM_WIRE_DEFINE_CODECS(describe_configs, DescribeConfigsRequest, DescribeConfigsResponse)
LOGSIM_WIRE_DEFINE_CODECS(init_producer_id, InitProducerIdRequest, InitProducerIdResponse)

}  // namespace logsim::wire
