// The gateway's inside (see gateway.h): a wire request waiting for its engine answers, and the
// per-API translations, which gateway_data.cc (Produce, Fetch, ListOffsets, Metadata),
// gateway_groups.cc (the group and offset APIs), gateway_admin.cc (the admin APIs) and
// gateway_txn.cc (InitProducerId and the transactional APIs) implement. Private to live/.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "live/gateway.h"
#include "wire/request.h"

namespace logsim::live {

inline constexpr std::uint64_t kFinishTag = 1;  // a zero-delay timer: finish a fetch after this turn's answers
inline constexpr std::uint64_t kFlushTag = 2;   // a delayed answer's time has come

inline std::int16_t code(ErrorCode e) { return static_cast<std::int16_t>(e); }

// One wire request: its header, the response being assembled, and how many engine answers it
// still waits for. `on_answer` folds one engine answer into the response.
struct Gateway::Pending {
  wire::RequestHeader header;
  std::optional<wire::ResponseBody> response;  // none: nothing to send (acks=0)
  std::optional<std::string> raw;              // a whole frame made elsewhere (UNSUPPORTED_VERSION)
  Nanos ready_at = 0;                          // client-faults' delay: not written before this
  bool lost = false;                           // client-faults' drop: never written (nor anything after it)
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

// The per-API translations. start() is called once per decoded request; it sends the engine
// requests (ask) and sets the response and how answers fold into it.
struct GatewayApis {
  static const GatewayConfig& config(const Gateway& g) { return *g.config_; }
  static NodeId broker(const Gateway& g) { return g.broker_; }
  static Env& env(Gateway& g) { return g.env_; }
  static NodeId controller(const Gateway& g) { return g.config_->controller; }
  // The wire address of an engine broker (null when the config does not know it).
  static const BrokerAddress* address(const Gateway& g, NodeId node);
  // Sends one engine request that is the whole of `p`: its answer, of type Answer, converted,
  // is the response.
  template <class Answer>
  static CorrelationId ask_one(Gateway& g, Gateway::Pending& p, NodeId to, Message msg,
                               std::function<wire::ResponseBody(const Answer&)> convert);

  // Client faults (gateway_faults.cc): the rule in force for this connection now, if any, and
  // what it does to a decoded request; true when the request is dealt with there (its
  // connection reset, or answered with the injected error without reaching the broker).
  static const ClientFaultRule* fault_rule(const Gateway& g);
  static bool inject(Gateway& g, Gateway::Pending& p, const wire::RequestBody& req);

  static void start(Gateway& g, Gateway::Pending& p, const wire::ApiVersionsRequest& req);
  static void start(Gateway& g, Gateway::Pending& p, wire::ProduceRequest& req);  // takes its records
  static void start(Gateway& g, Gateway::Pending& p, const wire::FetchRequest& req);
  static void start(Gateway& g, Gateway::Pending& p, const wire::ListOffsetsRequest& req);
  static void start(Gateway& g, Gateway::Pending& p, const wire::MetadataRequest& req);
  static void start(Gateway& g, Gateway::Pending& p, const wire::FindCoordinatorRequest& req);
  static void start(Gateway& g, Gateway::Pending& p, const wire::JoinGroupRequest& req);
  static void start(Gateway& g, Gateway::Pending& p, const wire::SyncGroupRequest& req);
  static void start(Gateway& g, Gateway::Pending& p, const wire::HeartbeatRequest& req);
  static void start(Gateway& g, Gateway::Pending& p, const wire::LeaveGroupRequest& req);
  static void start(Gateway& g, Gateway::Pending& p, const wire::OffsetCommitRequest& req);
  static void start(Gateway& g, Gateway::Pending& p, const wire::OffsetFetchRequest& req);
  static void start(Gateway& g, Gateway::Pending& p, const wire::OffsetDeleteRequest& req);
  static void start(Gateway& g, Gateway::Pending& p, const wire::DescribeGroupsRequest& req);
  static void start(Gateway& g, Gateway::Pending& p, const wire::ListGroupsRequest& req);
  static void start(Gateway& g, Gateway::Pending& p, const wire::DeleteGroupsRequest& req);
  static void start(Gateway& g, Gateway::Pending& p, const wire::CreateTopicsRequest& req);
  static void start(Gateway& g, Gateway::Pending& p, const wire::DeleteTopicsRequest& req);
  static void start(Gateway& g, Gateway::Pending& p, const wire::CreatePartitionsRequest& req);
  static void start(Gateway& g, Gateway::Pending& p, const wire::DescribeConfigsRequest& req);
  static void start(Gateway& g, Gateway::Pending& p, const wire::InitProducerIdRequest& req);
  static void start(Gateway& g, Gateway::Pending& p, const wire::AddPartitionsToTxnRequest& req);
  static void start(Gateway& g, Gateway::Pending& p, const wire::AddOffsetsToTxnRequest& req);
  static void start(Gateway& g, Gateway::Pending& p, const wire::EndTxnRequest& req);
  static void start(Gateway& g, Gateway::Pending& p, const wire::TxnOffsetCommitRequest& req);

  static void fetch_round(Gateway& g, Gateway::Pending& p, bool wait);
  static void fetch_answer(Gateway& g, Gateway::Pending& p, const FetchResponse& r);
  static Offset fetch_offset(const Gateway::Pending& p, const FetchResponse& r);
  static void metadata_answer(Gateway& g, Gateway::Pending& p, const wire::MetadataRequest& req, const MetadataResponse& r);
  static CorrelationId ask(Gateway& g, Gateway::Pending& p, NodeId to, Message msg);
  // The observer of the run, if any, and a token for an engine request of this gateway.
  static GatewayObserver* observer(const Gateway& g) { return g.config_->observer.get(); }
  static std::uint64_t token(const Gateway& g, CorrelationId id) {
    return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(g.env_.self().value())) << 32) | static_cast<std::uint32_t>(id);
  }
  // "client_id#N": a client's connection, as the history names the reader.
  static std::string reader(const Gateway& g, const Gateway::Pending& p) {
    return p.header.client_id.value_or("client") + "#" + std::to_string(g.env_.self().value());
  }
};


template <class Answer>
CorrelationId GatewayApis::ask_one(Gateway& g, Gateway::Pending& p, NodeId to, Message msg,
                                   std::function<wire::ResponseBody(const Answer&)> convert) {
  p.on_answer = [convert = std::move(convert)](Gateway::Pending& pending, const Message& answer) {
    if (const auto* a = std::get_if<Answer>(&answer)) pending.response = convert(*a);
  };
  return ask(g, p, to, std::move(msg));
}

}  // namespace logsim::live
