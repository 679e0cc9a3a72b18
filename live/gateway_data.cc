// The gateway's data-plane APIs (see gateway.h): Produce, Fetch, ListOffsets and Metadata.
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "engine/protocol/record_batch.h"
#include "live/gateway_apis.h"

namespace logsim::live {

namespace {

// A record's content: a 64-bit hash of its key and value bytes (a null key or value hashes
// apart from an empty one, and each field's length is mixed in), eight bytes a step: serve
// hashes every record it is sent and every record it serves, and a byte-at-a-time FNV-1a of
// a 100-byte record was a tenth of its CPU.
std::uint64_t content_of(const RecordView& r) {
  constexpr std::uint64_t kMul = 0x9e3779b97f4a7c15ULL;
  std::uint64_t h = 0xcbf29ce484222325ULL;
  // Each word is mixed on its own before it joins the state (MurmurHash64A's step): joined
  // raw, a change in a word's top bit passed through the multiply unchanged and the next word
  // could cancel it (three flipped bits made two 22-byte values collide).
  const auto mix = [&h](std::uint64_t w) {
    w *= kMul;
    w ^= w >> 47;
    w *= kMul;
    h = (h ^ w) * kMul;
  };
  const auto add = [&mix](const std::optional<std::string_view>& bytes) {
    if (!bytes) {
      mix(1);
      return;
    }
    const std::size_t n = bytes->size();
    mix(2 + (std::uint64_t{n} << 2));
    const char* d = bytes->data();
    std::size_t i = 0;
    for (; i + 8 <= n; i += 8) {
      std::uint64_t w;
      std::memcpy(&w, d + i, 8);
      mix(w);
    }
    if (i < n) {
      std::uint64_t w = 0;
      std::memcpy(&w, d + i, n - i);
      mix(w);
    }
  };
  add(r.key);
  add(r.value);
  h ^= h >> 32;
  h *= 0xff51afd7ed558ccdULL;
  return h ^ (h >> 29);
}

}  // namespace

std::vector<SeenRecord> seen_records(std::string_view batches, Offset from, bool verify_records) {
  std::vector<SeenRecord> out;
  const BatchScan scan = scan_batches(batches, verify_records);
  if (!scan.complete || scan.batches.empty()) return out;
  std::size_t at = 0;
  for (const BatchHeader& h : scan.batches) {
    const std::string_view batch = batches.substr(at, static_cast<std::size_t>(h.size_bytes()));
    at += static_cast<std::size_t>(h.size_bytes());
    if (h.last_offset() < from) continue;
    out.reserve(out.size() + static_cast<std::size_t>(h.record_count));
    for_each_record_view(batch, [&out, from](const RecordView& r) {
      if (r.offset < from) return;
      out.push_back({r.key ? std::optional<std::string>(*r.key) : std::nullopt, content_of(r), r.offset, r.producer_id,
                     r.producer_epoch, r.sequence, !r.value});
    });
  }
  return out;
}

std::vector<SeenRecord> produced_records(std::string_view batches, bool& idempotent) {
  const std::optional<BatchHeader> header = parse_batch_header(batches);
  idempotent = header && header->idempotent();
  std::vector<SeenRecord> records = seen_records(batches, Offset(0), true);
  if (header) {
    for (auto& r : records) r.offset = Offset(r.offset.value() - header->base_offset.value());
  }
  return records;
}

// ---- Produce: one engine request per partition's batch; acks=0 answers nothing.

void GatewayApis::start(Gateway& g, Gateway::Pending& p, wire::ProduceRequest& req) {
  wire::ProduceResponse resp;
  for (auto& t : req.topic_data) {
    auto& topic = resp.responses.emplace_back();
    topic.name = t.name;
    for (auto& part : t.partition_data) {
      auto& out = topic.partition_responses.emplace_back();
      out.index = part.index;
      out.base_offset = -1;
      if (!part.records || part.records->empty()) {
        out.error_code = code(ErrorCode::CORRUPT_MESSAGE);
        continue;
      }
      // The batches move on to the broker as they came (the decoded request is not used again).
      const SharedBytes batches(std::move(*part.records));
      const CorrelationId id = ask(g, p, g.broker_, ProduceRequest{0, t.name, PartitionId(part.index), req.acks, req.timeout_ms, batches});
      if (GatewayObserver* o = observer(g)) {
        o->produce_sent(token(g, id), p.header.client_id.value_or(""), g.broker_, t.name, PartitionId(part.index), batches);
      }
    }
  }
  if (req.acks == 0) {
    p.done = true;  // Kafka sends no response; the broker sends none either
    p.outstanding = 0;
    return;
  }
  p.response = std::move(resp);
  p.on_answer = [&g](Gateway::Pending& pending, const Message& msg) {
    const auto* r = std::get_if<ProduceResponse>(&msg);
    if (r == nullptr) return;
    if (GatewayObserver* o = observer(g)) o->produce_answered(token(g, r->correlation_id), r->error, r->base_offset);
    for (auto& topic : std::get<wire::ProduceResponse>(*pending.response).responses) {
      if (topic.name != r->topic) continue;
      for (auto& part : topic.partition_responses) {
        if (part.index != r->partition.value()) continue;
        part.error_code = code(r->error);
        part.base_offset = r->error == ErrorCode::NONE ? r->base_offset.value() : -1;
      }
    }
  };
  if (p.outstanding == 0) p.done = true;
}

// ---- Fetch

void GatewayApis::start(Gateway& g, Gateway::Pending& p, const wire::FetchRequest& req) {
  p.fetch = req;
  fetch_round(g, p, false);
}

void GatewayApis::fetch_round(Gateway& g, Gateway::Pending& p, bool wait) {
  ++p.fetch_round;
  if (p.fetch_round == 1) {
    wire::FetchResponse resp;
    for (const auto& t : p.fetch.topics) {
      auto& topic = resp.responses.emplace_back();
      topic.topic = t.topic;
      for (const auto& part : t.partitions) {
        auto& out = topic.partitions.emplace_back();
        out.partition_index = part.partition;
        out.high_watermark = -1;
        out.records.emplace();  // empty, not null: librdkafka refuses a null record set
        if (p.fetch.isolation_level == 1) out.aborted_transactions.emplace();
      }
    }
    p.response = std::move(resp);
    p.on_answer = [&g](Gateway::Pending& pending, const Message& msg) {
      if (const auto* r = std::get_if<FetchResponse>(&msg)) fetch_answer(g, pending, *r);
    };
  }
  const std::int32_t max_wait = wait ? std::max(0, p.fetch.max_wait_ms) : 0;
  for (const auto& t : p.fetch.topics) {
    for (const auto& part : t.partitions) {
      FetchRequest req{0, t.topic, PartitionId(part.partition), Offset(part.fetch_offset)};
      req.max_wait_ms = max_wait;
      req.current_leader_epoch = LeaderEpoch(part.current_leader_epoch);
      if (p.fetch.isolation_level == 1) req.isolation_level = IsolationLevel::kReadCommitted;
      ask(g, p, g.broker_, std::move(req));
    }
  }
  if (p.outstanding == 0) p.done = true;
}

// The offset the client asked for in partition r of its fetch.
Offset GatewayApis::fetch_offset(const Gateway::Pending& p, const FetchResponse& r) {
  for (const auto& t : p.fetch.topics) {
    if (t.topic != r.topic) continue;
    for (const auto& part : t.partitions) {
      if (part.partition == r.partition.value()) return Offset(part.fetch_offset);
    }
  }
  return Offset(0);
}

void GatewayApis::fetch_answer(Gateway& g, Gateway::Pending& p, const FetchResponse& r) {
  auto& resp = std::get<wire::FetchResponse>(*p.response);
  bool news = r.error != ErrorCode::NONE || !r.records.empty();
  for (auto& topic : resp.responses) {
    if (topic.topic != r.topic) continue;
    for (auto& part : topic.partitions) {
      if (part.partition_index != r.partition.value()) continue;
      part.error_code = code(r.error);
      part.high_watermark = r.high_watermark.value();
      part.last_stable_offset = r.last_stable_offset.value();
      if (part.aborted_transactions) {
        for (const AbortedTransaction& a : r.aborted_transactions) {
          part.aborted_transactions->push_back({a.producer_id.value(), a.first_offset.value()});
        }
      }
      part.log_start_offset = r.log_start_offset.value();
      if (!r.records.empty()) {
        std::string bytes;
        bytes.reserve(r.records.size());
        for (const auto& s : r.records.slices()) bytes.append(s.view());
        if (GatewayObserver* o = observer(g)) {
          o->served(reader(g, p), r.topic, r.partition,
                    {r.records, fetch_offset(p, r), p.fetch.isolation_level == 1, r.aborted_transactions});
        }
        part.records = std::move(bytes);
      }
    }
  }
  if (news && !p.finishing) {
    // Finish after this turn: answers the broker already sent in the same turn come along.
    p.finishing = true;
    g.env_.set_timer(0, kFinishTag);
    return;
  }
  if (p.outstanding == 0 && !p.finishing) {
    if (p.fetch_round == 1 && p.fetch.max_wait_ms > 0 && p.fetch.min_bytes > 0) {
      fetch_round(g, p, true);  // nothing yet: wait for records, as the client asked
    } else {
      p.done = true;
    }
  }
}

// ---- ListOffsets

void GatewayApis::start(Gateway& g, Gateway::Pending& p, const wire::ListOffsetsRequest& req) {
  wire::ListOffsetsResponse resp;
  for (const auto& t : req.topics) {
    auto& topic = resp.topics.emplace_back();
    topic.name = t.name;
    for (const auto& part : t.partitions) {
      auto& out = topic.partitions.emplace_back();
      out.partition_index = part.partition_index;
      const IsolationLevel isolation =
          req.isolation_level == 1 ? IsolationLevel::kReadCommitted : IsolationLevel::kReadUncommitted;
      ask(g, p, g.broker_, ListOffsetsRequest{0, t.name, PartitionId(part.partition_index), part.timestamp, isolation});
    }
  }
  p.response = std::move(resp);
  p.on_answer = [](Gateway::Pending& pending, const Message& msg) {
    const auto* r = std::get_if<ListOffsetsResponse>(&msg);
    if (r == nullptr) return;
    for (auto& topic : std::get<wire::ListOffsetsResponse>(*pending.response).topics) {
      if (topic.name != r->topic) continue;
      for (auto& part : topic.partitions) {
        if (part.partition_index != r->partition.value()) continue;
        part.error_code = code(r->error);
        part.offset = r->offset.value();
      }
    }
  };
  if (p.outstanding == 0) p.done = true;
}

// ---- Metadata

void GatewayApis::start(Gateway& g, Gateway::Pending& p, const wire::MetadataRequest& req) {
  MetadataRequest ask_broker;
  if (req.topics) {
    for (const auto& t : *req.topics) ask_broker.topics.push_back(t.name);
  }
  // v1+ with an empty list asks for no topics; the engine's empty list means all of them, so
  // the answer's topics are dropped below.
  p.on_answer = [&g, req](Gateway::Pending& pending, const Message& msg) {
    if (const auto* r = std::get_if<MetadataResponse>(&msg)) metadata_answer(g, pending, req, *r);
  };
  ask(g, p, g.broker_, std::move(ask_broker));
}

void GatewayApis::metadata_answer(Gateway& g, Gateway::Pending& p, const wire::MetadataRequest& req, const MetadataResponse& r) {
  const GatewayConfig& config = *g.config_;
  wire::MetadataResponse resp;
  resp.cluster_id = config.cluster_id;
  for (const NodeId b : r.brokers) {
    const auto at = std::find_if(config.brokers.begin(), config.brokers.end(), [b](const BrokerAddress& a) { return a.node == b; });
    if (at == config.brokers.end()) continue;
    resp.brokers.push_back({b.value(), at->host, at->port, std::nullopt});
    // Admin requests sent to the controller id reach the engine's controller through any broker.
    if (resp.controller_id < 0 || b.value() < resp.controller_id) resp.controller_id = b.value();
  }
  const bool none = req.topics && req.topics->empty() && p.header.api_version >= 1;
  for (const TopicMetadata& t : r.topics) {
    if (none) break;
    auto& topic = resp.topics.emplace_back();
    topic.name = t.name;
    topic.error_code = code(t.error);
    topic.is_internal = t.name == "__consumer_offsets";
    const bool create = t.error == ErrorCode::UNKNOWN_TOPIC_OR_PARTITION && config.auto_create_topics &&
                        req.allow_auto_topic_creation && req.topics && !req.topics->empty() && config.controller.value() >= 0;
    if (create) {
      // Kafka creates it (num.partitions, default.replication.factor) and answers
      // LEADER_NOT_AVAILABLE until it has leaders; the client asks again.
      CreateTopicsRequest c{++g.next_correlation_, t.name, -1, -1, {}, false};
      g.env_.send(config.controller, std::move(c));
      topic.error_code = code(ErrorCode::LEADER_NOT_AVAILABLE);
    }
    for (const PartitionMetadata& pm : t.partitions) {
      auto& part = topic.partitions.emplace_back();
      part.error_code = code(pm.error);
      part.partition_index = pm.partition.value();
      part.leader_id = pm.leader.value();
      part.leader_epoch = pm.leader_epoch.value();
      for (const NodeId n : pm.replicas) part.replica_nodes.push_back(n.value());
      for (const NodeId n : pm.isr) part.isr_nodes.push_back(n.value());
    }
  }
  if (GatewayObserver* o = observer(g)) {
    std::vector<GatewayObserver::Leader> leaders;
    for (const auto& t : resp.topics) {
      for (const auto& part : t.partitions) leaders.push_back({t.name, PartitionId(part.partition_index), NodeId(part.leader_id)});
    }
    if (!leaders.empty()) o->leaders_told(p.header.client_id.value_or(""), std::move(leaders));
  }
  p.response = std::move(resp);
}

}  // namespace logsim::live
