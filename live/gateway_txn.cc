// The gateway's producer-id and transactional APIs (see gateway.h): InitProducerId,
// AddPartitionsToTxn, AddOffsetsToTxn and EndTxn go to the connection's broker, whose
// transaction coordinator answers (or says NOT_COORDINATOR; an idempotent producer's
// InitProducerId is answered by any broker), and TxnOffsetCommit to its group coordinator; each
// is one engine request. The observer hears of each step of a transaction (GatewayObserver::txn).
#include <algorithm>
#include <memory>

#include "live/gateway_apis.h"

namespace logsim::live {

namespace {

// Per-partition results grouped back into the wire's topics, in the order the topics came.
std::vector<wire::NamedTopic<wire::PartitionError>> by_topic(const std::vector<TxnPartitionResult>& results) {
  std::vector<wire::NamedTopic<wire::PartitionError>> out;
  for (const TxnPartitionResult& r : results) {
    auto it = std::find_if(out.begin(), out.end(), [&](const auto& t) { return t.name == r.tp.topic; });
    if (it == out.end()) it = out.insert(out.end(), {r.tp.topic, {}});
    it->partitions.push_back({r.tp.partition.value(), code(r.error)});
  }
  return out;
}

void tell(Gateway& g, GatewayObserver::TxnStep step) {
  if (GatewayObserver* o = GatewayApis::observer(g)) o->txn(step);
}

}  // namespace

void GatewayApis::start(Gateway& g, Gateway::Pending& p, const wire::InitProducerIdRequest& req) {
  InitProducerIdRequest ask{0, ProducerId(-1), ProducerEpoch(-1), req.transactional_id, req.transaction_timeout_ms};
  if (!req.transactional_id) ask.transaction_timeout_ms = InitProducerIdRequest{}.transaction_timeout_ms;
  ask_one<InitProducerIdResponse>(g, p, broker(g), std::move(ask), [&g, tid = req.transactional_id](const InitProducerIdResponse& r) {
    if (tid && r.error == ErrorCode::NONE) {
      tell(g, {GatewayObserver::TxnStep::kInit, 0, *tid, r.producer_id, r.producer_epoch, false, r.error});
    }
    wire::InitProducerIdResponse out;
    out.error_code = code(r.error);
    out.producer_id = r.producer_id.value();
    out.producer_epoch = r.producer_epoch.value();
    return wire::ResponseBody(out);
  });
}

void GatewayApis::start(Gateway& g, Gateway::Pending& p, const wire::AddPartitionsToTxnRequest& req) {
  AddPartitionsToTxnRequest ask{0, req.transactional_id, ProducerId(req.producer_id), ProducerEpoch(req.producer_epoch), {}};
  for (const auto& t : req.topics) {
    for (const std::int32_t partition : t.partitions) ask.partitions.push_back({t.name, PartitionId(partition)});
  }
  const GatewayObserver::TxnStep added{GatewayObserver::TxnStep::kAdd, 0, req.transactional_id, ask.producer_id, ask.producer_epoch};
  ask_one<AddPartitionsToTxnResponse>(g, p, broker(g), std::move(ask), [&g, added](const AddPartitionsToTxnResponse& r) {
    // The transaction began if the coordinator took a partition (a fenced or refused add did not).
    if (std::any_of(r.results.begin(), r.results.end(), [](const TxnPartitionResult& x) { return x.error == ErrorCode::NONE; })) {
      tell(g, added);
    }
    return wire::ResponseBody(wire::AddPartitionsToTxnResponse{0, by_topic(r.results)});
  });
}

void GatewayApis::start(Gateway& g, Gateway::Pending& p, const wire::AddOffsetsToTxnRequest& req) {
  AddOffsetsToTxnRequest ask{0, req.transactional_id, ProducerId(req.producer_id), ProducerEpoch(req.producer_epoch), req.group_id};
  const GatewayObserver::TxnStep added{GatewayObserver::TxnStep::kAdd, 0, req.transactional_id, ask.producer_id, ask.producer_epoch};
  ask_one<AddOffsetsToTxnResponse>(g, p, broker(g), std::move(ask), [&g, added](const AddOffsetsToTxnResponse& r) {
    if (r.error == ErrorCode::NONE) tell(g, added);
    return wire::ResponseBody(wire::AddOffsetsToTxnResponse{0, code(r.error)});
  });
}

void GatewayApis::start(Gateway& g, Gateway::Pending& p, const wire::EndTxnRequest& req) {
  EndTxnRequest end{0, req.transactional_id, ProducerId(req.producer_id), ProducerEpoch(req.producer_epoch), req.committed};
  // The answer's step names the request's token, known once it is sent.
  auto step = std::make_shared<GatewayObserver::TxnStep>(GatewayObserver::TxnStep{
      GatewayObserver::TxnStep::kEndSent, 0, req.transactional_id, end.producer_id, end.producer_epoch, req.committed});
  p.on_answer = [&g, step](Gateway::Pending& pending, const Message& answer) {
    const auto* r = std::get_if<EndTxnResponse>(&answer);
    if (r == nullptr) return;
    GatewayObserver::TxnStep done = *step;
    done.kind = GatewayObserver::TxnStep::kEndAnswered;
    done.error = r->error;
    tell(g, done);
    pending.response = wire::EndTxnResponse{0, code(r->error)};
  };
  step->token = token(g, ask(g, p, broker(g), std::move(end)));
  tell(g, *step);
}

void GatewayApis::start(Gateway& g, Gateway::Pending& p, const wire::TxnOffsetCommitRequest& req) {
  TxnOffsetCommitRequest ask;
  ask.transactional_id = req.transactional_id;
  ask.group_id = req.group_id;
  ask.producer_id = ProducerId(req.producer_id);
  ask.producer_epoch = ProducerEpoch(req.producer_epoch);
  ask.generation_id = req.generation_id;
  ask.member_id = req.member_id;
  ask.group_instance_id = req.group_instance_id;
  for (const auto& t : req.topics) {
    for (const auto& part : t.partitions) {
      ask.partitions.push_back({{t.name, PartitionId(part.partition_index)}, Offset(part.committed_offset),
                                part.committed_metadata.value_or("")});
    }
  }
  ask_one<TxnOffsetCommitResponse>(g, p, broker(g), std::move(ask), [](const TxnOffsetCommitResponse& r) {
    return wire::ResponseBody(wire::TxnOffsetCommitResponse{0, by_topic(r.results)});
  });
}

}  // namespace logsim::live
