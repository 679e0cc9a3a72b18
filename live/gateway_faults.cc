// The gateway's client faults (see ClientFaultRule in gateway.h): a delayed, lost or refused
// answer, or a reset connection, drawn from the gateway node's own random stream.
#include <type_traits>

#include "live/gateway_apis.h"

namespace logsim::live {

namespace {

// The response that answers `req` with `error` on every partition (or group) it names, without
// asking the broker; none for an API the faults leave alone.
// A coordinator error (NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE) answers the group APIs
// (TxnOffsetCommit among them) and the transaction coordinator's (a transactional
// InitProducerId, AddPartitionsToTxn, AddOffsetsToTxn, EndTxn);
// any other answers Produce, Fetch and ListOffsets, on every partition. Metadata is never
// refused: a broker answers it with the cluster as it is.
std::optional<wire::ResponseBody> error_response(const wire::RequestBody& body, ErrorCode code_of_error) {
  const std::int16_t error = code(code_of_error);
  const bool group = is_coordinator_error(code_of_error);
  return std::visit(
      [&](const auto& req) -> std::optional<wire::ResponseBody> {
        using T = std::decay_t<decltype(req)>;
        constexpr bool data = std::is_same_v<T, wire::ProduceRequest> || std::is_same_v<T, wire::FetchRequest> ||
                              std::is_same_v<T, wire::ListOffsetsRequest>;
        if (data == group) return std::nullopt;
        if constexpr (std::is_same_v<T, wire::ProduceRequest>) {
          wire::ProduceResponse r;
          for (const auto& t : req.topic_data) {
            auto& topic = r.responses.emplace_back();
            topic.name = t.name;
            for (const auto& p : t.partition_data) topic.partition_responses.push_back({p.index, error, -1, -1, -1});
          }
          return r;
        } else if constexpr (std::is_same_v<T, wire::FetchRequest>) {
          wire::FetchResponse r;
          for (const auto& t : req.topics) {
            auto& topic = r.responses.emplace_back();
            topic.topic = t.topic;
            for (const auto& p : t.partitions) {
              auto& out = topic.partitions.emplace_back();
              out.partition_index = p.partition;
              out.error_code = error;
              out.high_watermark = -1;
              out.records.emplace();
            }
          }
          return r;
        } else if constexpr (std::is_same_v<T, wire::ListOffsetsRequest>) {
          wire::ListOffsetsResponse r;
          for (const auto& t : req.topics) {
            auto& topic = r.topics.emplace_back();
            topic.name = t.name;
            for (const auto& p : t.partitions) topic.partitions.push_back({p.partition_index, error, -1, -1});
          }
          return r;
        } else if constexpr (std::is_same_v<T, wire::FindCoordinatorRequest>) {
          wire::FindCoordinatorResponse r;
          r.error_code = error;
          r.node_id = -1;
          r.port = -1;
          return r;
        } else if constexpr (std::is_same_v<T, wire::JoinGroupRequest> || std::is_same_v<T, wire::SyncGroupRequest> ||
                             std::is_same_v<T, wire::HeartbeatRequest>) {
          using Response = std::conditional_t<std::is_same_v<T, wire::JoinGroupRequest>, wire::JoinGroupResponse,
                                              std::conditional_t<std::is_same_v<T, wire::SyncGroupRequest>, wire::SyncGroupResponse,
                                                                 wire::HeartbeatResponse>>;
          Response r;
          r.error_code = error;
          if constexpr (std::is_same_v<T, wire::JoinGroupRequest>) r.member_id = req.member_id;
          return r;
        } else if constexpr (std::is_same_v<T, wire::OffsetCommitRequest>) {
          wire::OffsetCommitResponse r;
          for (const auto& t : req.topics) {
            auto& topic = r.topics.emplace_back();
            topic.name = t.name;
            for (const auto& p : t.partitions) topic.partitions.push_back({p.partition_index, error});
          }
          return r;
        } else if constexpr (std::is_same_v<T, wire::OffsetFetchRequest>) {
          wire::OffsetFetchResponse r;
          r.error_code = error;
          if (req.topics) {
            for (const auto& t : *req.topics) {
              auto& topic = r.topics.emplace_back();
              topic.name = t.name;
              for (const std::int32_t i : t.partition_indexes) {
                wire::OffsetFetchResponse::Partition p;
                p.partition_index = i;
                p.error_code = error;
                topic.partitions.push_back(p);
              }
            }
          }
          return r;
        } else if constexpr (std::is_same_v<T, wire::AddOffsetsToTxnRequest> || std::is_same_v<T, wire::EndTxnRequest>) {
          using Response = std::conditional_t<std::is_same_v<T, wire::EndTxnRequest>, wire::EndTxnResponse, wire::AddOffsetsToTxnResponse>;
          return Response{0, error};
        } else if constexpr (std::is_same_v<T, wire::InitProducerIdRequest>) {
          if (!req.transactional_id) return std::nullopt;  // any broker answers an idempotent producer
          wire::InitProducerIdResponse r;
          r.error_code = error;
          return r;
        } else if constexpr (std::is_same_v<T, wire::TxnOffsetCommitRequest>) {
          wire::TxnOffsetCommitResponse r;
          for (const auto& t : req.topics) {
            auto& topic = r.topics.emplace_back();
            topic.name = t.name;
            for (const auto& part : t.partitions) topic.partitions.push_back({part.partition_index, error});
          }
          return r;
        } else if constexpr (std::is_same_v<T, wire::AddPartitionsToTxnRequest>) {
          wire::AddPartitionsToTxnResponse r;
          for (const auto& t : req.topics) {
            auto& topic = r.results.emplace_back();
            topic.name = t.name;
            for (const std::int32_t i : t.partitions) topic.partitions.push_back({i, error});
          }
          return r;
        } else {
          return std::nullopt;
        }
      },
      body);
}

}  // namespace

const ClientFaultRule* GatewayApis::fault_rule(const Gateway& g) {
  const auto& faults = g.config_->faults;
  if (faults == nullptr) return nullptr;
  const ClientFaultRule* found = nullptr;
  for (const ClientFaultRule& r : faults->rules) {
    if (r.until > g.env_.now() && (!r.broker || *r.broker == g.broker_)) found = &r;  // the latest step wins
  }
  return found;
}

bool GatewayApis::inject(Gateway& g, Gateway::Pending& p, const wire::RequestBody& req) {
  if (std::holds_alternative<wire::ApiVersionsRequest>(req)) return false;  // the handshake stays whole
  const ClientFaultRule* rule = fault_rule(g);
  if (rule == nullptr) return false;
  ClientFaults& counts = *g.config_->faults;
  Rng& rng = g.env_.rng();
  if (rule->reset > 0 && rng.uniform_real() < rule->reset) {
    ++counts.resets;
    g.fail("client-faults: connection reset");
    return true;
  }
  if (rule->drop > 0 && rng.uniform_real() < rule->drop) {
    ++counts.lost;
    p.lost = true;
  }
  if (rule->delay > 0) {
    ++counts.delayed;
    p.ready_at = g.env_.now() + rule->delay;
  }
  if (rule->error_share > 0 && rng.uniform_real() < rule->error_share) {
    if (auto response = error_response(req, rule->error)) {
      ++counts.errors;
      p.response = std::move(response);
      p.done = true;
      return true;
    }
  }
  return false;
}

}  // namespace logsim::live
