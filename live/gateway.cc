// The gateway between a real client's wire requests and the engine's messages (see gateway.h).
#include "live/gateway.h"

#include <algorithm>
#include <set>

#include "engine/base/assert.h"
#include "wire/request.h"

namespace logsim::live {

namespace {

constexpr std::uint64_t kFinishTag = 1;  // a zero-delay timer: finish a fetch after this turn's answers

std::span<const std::uint8_t> bytes_of(std::string_view s) {
  return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}

std::int16_t code(ErrorCode e) { return static_cast<std::int16_t>(e); }

}  // namespace

// One wire request: its header, the response being assembled, and how many engine answers it
// still waits for. `on_answer` folds one engine answer into the response.
struct Gateway::Pending {
  wire::RequestHeader header;
  std::optional<wire::ResponseBody> response;  // none: nothing to send (acks=0)
  std::optional<std::string> raw;              // a whole frame made elsewhere (UNSUPPORTED_VERSION)
  std::size_t outstanding = 0;
  bool done = false;
  std::vector<CorrelationId> correlations;  // its engine requests, forgotten when it is done
  std::function<void(Pending&, const Message&)> on_answer;
  // A fetch: the first round asks without waiting; when nothing has records the second round
  // waits (max_wait_ms), and its first answer with records finishes it.
  std::int32_t fetch_round = 0;
  bool finishing = false;
  wire::FetchRequest fetch;
};

// The per-API translations, as free functions with access to the gateway.
struct GatewayApis {
  static void produce(Gateway& g, Gateway::Pending& p, const wire::ProduceRequest& req);
  static void fetch_round(Gateway& g, Gateway::Pending& p, bool wait);
  static void fetch_answer(Gateway& g, Gateway::Pending& p, const FetchResponse& r);
  static void list_offsets(Gateway& g, Gateway::Pending& p, const wire::ListOffsetsRequest& req);
  static void metadata(Gateway& g, Gateway::Pending& p, const wire::MetadataRequest& req);
  static void metadata_answer(Gateway& g, Gateway::Pending& p, const wire::MetadataRequest& req, const MetadataResponse& r);
  static CorrelationId ask(Gateway& g, Gateway::Pending& p, NodeId to, Message msg);
};

Gateway::Gateway(Env& env, NodeId broker, std::shared_ptr<const GatewayConfig> config, Output out)
    : env_(env), broker_(broker), config_(std::move(config)), out_(std::move(out)) {}

Gateway::~Gateway() = default;

CorrelationId GatewayApis::ask(Gateway& g, Gateway::Pending& p, NodeId to, Message msg) {
  const CorrelationId id = ++g.next_correlation_;
  std::visit([id](auto& m) {
    if constexpr (requires { m.correlation_id; }) m.correlation_id = id;
  }, msg);
  g.by_correlation_[id] = &p;
  p.correlations.push_back(id);
  ++p.outstanding;
  g.env_.send(to, std::move(msg));
  return id;
}

void Gateway::on_frame(std::string_view frame) {
  if (closed_) return;
  ++requests_;
  wire::DecodedRequest decoded;
  try {
    decoded = wire::decode_request(bytes_of(frame));
  } catch (const wire::DecodeError& e) {
    return fail(std::string("a request that does not decode: ") + e.what());
  }
  if (decoded.support != wire::Support::kSupported) {
    if (auto answer = wire::unsupported_version_response(decoded.header)) {
      auto p = std::make_unique<Pending>();
      p->header = decoded.header;
      p->raw = std::move(*answer);
      p->done = true;
      pending_.push_back(std::move(p));
      return flush();
    }
    return fail(wire::api_name(decoded.header.api_key) + " v" + std::to_string(decoded.header.api_version) +
                " is not supported (see ApiVersions)");
  }
  auto owned = std::make_unique<Pending>();
  Pending& p = *owned;
  p.header = decoded.header;
  pending_.push_back(std::move(owned));
  std::visit(
      [&](const auto& req) {
        using T = std::decay_t<decltype(req)>;
        if constexpr (std::is_same_v<T, wire::ApiVersionsRequest>) {
          p.response = wire::advertised_api_versions();
          p.done = true;
        } else if constexpr (std::is_same_v<T, wire::ProduceRequest>) {
          GatewayApis::produce(*this, p, req);
        } else if constexpr (std::is_same_v<T, wire::FetchRequest>) {
          p.fetch = req;
          GatewayApis::fetch_round(*this, p, false);
        } else if constexpr (std::is_same_v<T, wire::ListOffsetsRequest>) {
          GatewayApis::list_offsets(*this, p, req);
        } else if constexpr (std::is_same_v<T, wire::MetadataRequest>) {
          GatewayApis::metadata(*this, p, req);
        }
      },
      *decoded.body);
  flush();
}

void Gateway::on_message(NodeId, const Message& msg) {
  const CorrelationId id = std::visit([](const auto& m) -> CorrelationId {
    if constexpr (requires { m.correlation_id; }) return m.correlation_id;
    return 0;
  }, msg);
  const auto it = by_correlation_.find(id);
  if (it == by_correlation_.end()) return;  // an answer the request no longer waits for
  Pending& p = *it->second;
  by_correlation_.erase(it);
  if (p.done) return;
  --p.outstanding;
  p.on_answer(p, msg);
  if (p.outstanding == 0 && !p.finishing) p.done = true;
  flush();
}

void Gateway::on_timer(TimerId, std::uint64_t tag) {
  if (tag != kFinishTag) return;
  for (auto& p : pending_) {
    if (p->finishing && !p->done) p->done = true;
  }
  flush();
}

void Gateway::on_disconnect(NodeId peer) {
  if (peer == broker_) fail("the broker's process went away");
}

void Gateway::fail(std::string why) {
  if (closed_) return;
  closed_ = true;
  out_.close(std::move(why));
}

// Writes out every finished request at the front, in request order.
void Gateway::flush() {
  while (!closed_ && !pending_.empty() && pending_.front()->done) {
    std::unique_ptr<Pending> p = std::move(pending_.front());
    pending_.pop_front();
    for (const CorrelationId id : p->correlations) by_correlation_.erase(id);
    if (p->raw) out_.write(std::move(*p->raw));
    else if (p->response) out_.write(wire::encode_response(p->header, *p->response));
  }
}

// ---- Produce: one engine request per partition's batch; acks=0 answers nothing.

void GatewayApis::produce(Gateway& g, Gateway::Pending& p, const wire::ProduceRequest& req) {
  wire::ProduceResponse resp;
  for (const auto& t : req.topic_data) {
    auto& topic = resp.responses.emplace_back();
    topic.name = t.name;
    for (const auto& part : t.partition_data) {
      auto& out = topic.partition_responses.emplace_back();
      out.index = part.index;
      out.base_offset = -1;
      if (!part.records || part.records->empty()) {
        out.error_code = code(ErrorCode::CORRUPT_MESSAGE);
        continue;
      }
      ask(g, p, g.broker_,
          ProduceRequest{0, t.name, PartitionId(part.index), req.acks, req.timeout_ms, SharedBytes(*part.records)});
    }
  }
  if (req.acks == 0) {
    p.done = true;  // Kafka sends no response; the broker sends none either
    p.outstanding = 0;
    return;
  }
  p.response = std::move(resp);
  p.on_answer = [](Gateway::Pending& pending, const Message& msg) {
    const auto* r = std::get_if<ProduceResponse>(&msg);
    if (r == nullptr) return;
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
      ask(g, p, g.broker_, std::move(req));
    }
  }
  if (p.outstanding == 0) p.done = true;
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
      part.last_stable_offset = r.high_watermark.value();
      part.log_start_offset = r.log_start_offset.value();
      if (!r.records.empty()) {
        std::string bytes;
        bytes.reserve(r.records.size());
        for (const auto& s : r.records.slices()) bytes.append(s.view());
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

void GatewayApis::list_offsets(Gateway& g, Gateway::Pending& p, const wire::ListOffsetsRequest& req) {
  wire::ListOffsetsResponse resp;
  for (const auto& t : req.topics) {
    auto& topic = resp.topics.emplace_back();
    topic.name = t.name;
    for (const auto& part : t.partitions) {
      auto& out = topic.partitions.emplace_back();
      out.partition_index = part.partition_index;
      ask(g, p, g.broker_, ListOffsetsRequest{0, t.name, PartitionId(part.partition_index), part.timestamp});
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

void GatewayApis::metadata(Gateway& g, Gateway::Pending& p, const wire::MetadataRequest& req) {
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
      for (const NodeId n : pm.replicas) part.replica_nodes.push_back(n.value());
      for (const NodeId n : pm.isr) part.isr_nodes.push_back(n.value());
    }
  }
  p.response = std::move(resp);
}

}  // namespace logsim::live
