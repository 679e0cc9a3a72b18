// Digests and names of the engine's messages.
#include "engine/env/messages.h"

namespace logsim {

void ProduceRequest::fold(Digest& d) const {
  d.add(correlation_id).add(topic).add(partition).add(acks).add(timeout_ms);
  d.add(static_cast<std::uint64_t>(records.size()));
  for (const auto& r : records) r.fold(d);
}

void ProduceResponse::fold(Digest& d) const {
  d.add(correlation_id).add(topic).add(partition).add(error).add(base_offset);
}

void FetchRequest::fold(Digest& d) const {
  d.add(correlation_id).add(topic).add(partition).add(fetch_offset).add(max_records).add(max_wait_ms);
}

void FetchResponse::fold(Digest& d) const {
  d.add(correlation_id).add(topic).add(partition).add(error).add(high_watermark).add(log_start_offset);
  d.add(static_cast<std::uint64_t>(records.size()));
  for (const auto& r : records) r.fold(d);
}

void ListOffsetsRequest::fold(Digest& d) const {
  d.add(correlation_id).add(topic).add(partition).add(timestamp_ms);
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

std::string_view message_name(const Message& msg) {
  struct Namer {
    std::string_view operator()(const ProduceRequest&) const { return "Produce"; }
    std::string_view operator()(const ProduceResponse&) const { return "ProduceResponse"; }
    std::string_view operator()(const FetchRequest&) const { return "Fetch"; }
    std::string_view operator()(const FetchResponse&) const { return "FetchResponse"; }
    std::string_view operator()(const ListOffsetsRequest&) const { return "ListOffsets"; }
    std::string_view operator()(const ListOffsetsResponse&) const { return "ListOffsetsResponse"; }
    std::string_view operator()(const MetadataRequest&) const { return "Metadata"; }
    std::string_view operator()(const MetadataResponse&) const { return "MetadataResponse"; }
  };
  return std::visit(Namer{}, msg);
}

std::uint64_t message_digest(const Message& msg) {
  Digest d;
  d.add(static_cast<std::uint64_t>(msg.index()));
  std::visit([&d](const auto& m) { m.fold(d); }, msg);
  return d.value();
}

}  // namespace logsim
