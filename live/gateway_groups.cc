// The gateway's consumer-group and offset APIs (see gateway.h): each goes to the connection's
// broker, whose group coordinator answers (or says NOT_COORDINATOR), one to one; DescribeGroups
// and DeleteGroups ask once per group.
#include <algorithm>

#include "live/gateway_apis.h"

namespace logsim::live {

namespace {

// Kafka's client_host of a member, as its DescribeGroups shows it.
constexpr std::string_view kClientHost = "/127.0.0.1";

template <class Topic>
Topic& topic_named(std::vector<Topic>& topics, const std::string& name) {
  const auto it = std::find_if(topics.begin(), topics.end(), [&](const Topic& t) { return t.name == name; });
  if (it != topics.end()) return *it;
  topics.push_back(Topic{name, {}});
  return topics.back();
}

}  // namespace

void GatewayApis::start(Gateway& g, Gateway::Pending& p, const wire::FindCoordinatorRequest& req) {
  FindCoordinatorRequest ask{0, req.key, static_cast<CoordinatorKeyType>(req.key_type)};
  ask_one<FindCoordinatorResponse>(g, p, broker(g), std::move(ask), [&g](const FindCoordinatorResponse& r) {
    wire::FindCoordinatorResponse out;
    out.error_code = code(r.error);
    out.node_id = r.node_id.value();
    if (const BrokerAddress* at = r.error == ErrorCode::NONE ? address(g, r.node_id) : nullptr) {
      out.host = at->host;
      out.port = at->port;
    } else {
      out.node_id = -1;
      out.port = -1;
      if (r.error == ErrorCode::NONE) out.error_code = code(ErrorCode::COORDINATOR_NOT_AVAILABLE);
    }
    return wire::ResponseBody(std::move(out));
  });
}

void GatewayApis::start(Gateway& g, Gateway::Pending& p, const wire::JoinGroupRequest& req) {
  JoinGroupRequest ask;
  ask.group_id = req.group_id;
  ask.session_timeout_ms = req.session_timeout_ms;
  ask.rebalance_timeout_ms = req.rebalance_timeout_ms >= 0 ? req.rebalance_timeout_ms : req.session_timeout_ms;  // v0 has none
  ask.member_id = req.member_id;
  ask.group_instance_id = req.group_instance_id;
  ask.require_known_member_id = p.header.api_version >= 4;  // Kafka's rule (KIP-394)
  ask.client_id = p.header.client_id.value_or("");
  ask.protocol_type = req.protocol_type;
  for (const auto& proto : req.protocols) ask.protocols.push_back({proto.name, proto.metadata});
  ask_one<JoinGroupResponse>(g, p, broker(g), std::move(ask), [](const JoinGroupResponse& r) {
    wire::JoinGroupResponse out;
    out.error_code = code(r.error);
    out.generation_id = r.generation_id;
    out.protocol_name = r.protocol_name;
    out.leader = r.leader;
    out.member_id = r.member_id;
    for (const auto& m : r.members) out.members.push_back({m.member_id, m.group_instance_id, m.metadata});
    return wire::ResponseBody(std::move(out));
  });
}

void GatewayApis::start(Gateway& g, Gateway::Pending& p, const wire::SyncGroupRequest& req) {
  SyncGroupRequest ask{0, req.group_id, req.generation_id, req.member_id, req.group_instance_id, {}};
  for (const auto& a : req.assignments) ask.assignments.push_back({a.member_id, a.assignment});
  ask_one<SyncGroupResponse>(g, p, broker(g), std::move(ask),
                             [&g, group = req.group_id, generation = req.generation_id, member = req.member_id,
                              client = p.header.client_id.value_or("")](const SyncGroupResponse& r) {
    if (GatewayObserver* o = observer(g); o != nullptr && r.error == ErrorCode::NONE) {
      o->assigned(group, generation, member, client, r.assignment);
    }
    wire::SyncGroupResponse out;
    out.error_code = code(r.error);
    out.assignment = r.assignment;
    return wire::ResponseBody(std::move(out));
  });
}

void GatewayApis::start(Gateway& g, Gateway::Pending& p, const wire::HeartbeatRequest& req) {
  ask_one<HeartbeatResponse>(g, p, broker(g), HeartbeatRequest{0, req.group_id, req.generation_id, req.member_id, req.group_instance_id},
                             [](const HeartbeatResponse& r) {
                               wire::HeartbeatResponse out;
                               out.error_code = code(r.error);
                               return wire::ResponseBody(out);
                             });
}

void GatewayApis::start(Gateway& g, Gateway::Pending& p, const wire::LeaveGroupRequest& req) {
  LeaveGroupRequest ask{0, req.group_id, {}};
  if (p.header.api_version >= 3) {
    for (const auto& m : req.members) ask.members.push_back({m.member_id, m.group_instance_id, ""});
  } else {
    ask.members.push_back({req.member_id, std::nullopt, ""});
  }
  ask_one<LeaveGroupResponse>(g, p, broker(g), ask, [ask](const LeaveGroupResponse& r) {
    wire::LeaveGroupResponse out;
    out.error_code = code(r.error);
    for (std::size_t i = 0; i < ask.members.size(); ++i) {
      const ErrorCode e = i < r.member_errors.size() ? r.member_errors[i] : r.error;
      out.members.push_back({ask.members[i].member_id, ask.members[i].group_instance_id, code(e)});
    }
    return wire::ResponseBody(std::move(out));
  });
}

void GatewayApis::start(Gateway& g, Gateway::Pending& p, const wire::OffsetCommitRequest& req) {
  OffsetCommitRequest ask{0, req.group_id, req.generation_id, req.member_id, req.group_instance_id, {}};
  for (const auto& t : req.topics) {
    for (const auto& part : t.partitions) {
      ask.partitions.push_back({t.name, PartitionId(part.partition_index), Offset(part.committed_offset),
                                part.committed_metadata.value_or("")});
    }
  }
  const OffsetCommitRequest sent = ask;
  const CorrelationId id = ask_one<OffsetCommitResponse>(g, p, broker(g), std::move(ask), [&g](const OffsetCommitResponse& r) {
    if (GatewayObserver* o = observer(g)) o->commit_answered(token(g, r.correlation_id), r);
    wire::OffsetCommitResponse out;
    for (const auto& part : r.partitions) topic_named(out.topics, part.topic).partitions.push_back({part.partition.value(), code(part.error)});
    return wire::ResponseBody(std::move(out));
  });
  if (GatewayObserver* o = observer(g)) o->commit_sent(token(g, id), sent);
}

void GatewayApis::start(Gateway& g, Gateway::Pending& p, const wire::OffsetFetchRequest& req) {
  OffsetFetchRequest ask{0, req.group_id, std::nullopt, req.require_stable};
  if (req.topics) {
    ask.partitions.emplace();
    for (const auto& t : *req.topics) {
      for (const std::int32_t i : t.partition_indexes) ask.partitions->push_back({t.name, PartitionId(i)});
    }
  }
  const bool v1 = p.header.api_version < 2;
  ask_one<OffsetFetchResponse>(g, p, broker(g), std::move(ask), [v1](const OffsetFetchResponse& r) {
    wire::OffsetFetchResponse out;
    out.error_code = code(r.error);
    for (const auto& part : r.partitions) {
      wire::OffsetFetchResponse::Partition x;
      x.partition_index = part.partition.value();
      x.committed_offset = part.committed_offset.value();
      x.metadata = part.metadata;
      x.error_code = code(v1 && r.error != ErrorCode::NONE ? r.error : part.error);  // v1 has no group error
      topic_named(out.topics, part.topic).partitions.push_back(std::move(x));
    }
    return wire::ResponseBody(std::move(out));
  });
}

void GatewayApis::start(Gateway& g, Gateway::Pending& p, const wire::OffsetDeleteRequest& req) {
  OffsetDeleteRequest ask{0, req.group_id, {}};
  for (const auto& t : req.topics) {
    for (const auto& part : t.partitions) ask.partitions.push_back({t.name, PartitionId(part.partition_index)});
  }
  ask_one<OffsetDeleteResponse>(g, p, broker(g), std::move(ask), [](const OffsetDeleteResponse& r) {
    wire::OffsetDeleteResponse out;
    out.error_code = code(r.error);
    for (const auto& part : r.partitions) topic_named(out.topics, part.topic).partitions.push_back({part.partition.value(), code(part.error)});
    return wire::ResponseBody(std::move(out));
  });
}

void GatewayApis::start(Gateway& g, Gateway::Pending& p, const wire::ListGroupsRequest&) {
  ask_one<ListGroupsResponse>(g, p, broker(g), ListGroupsRequest{0}, [](const ListGroupsResponse& r) {
    wire::ListGroupsResponse out;
    out.error_code = code(r.error);
    for (const auto& group : r.groups) out.groups.push_back({group.group_id, group.protocol_type});
    return wire::ResponseBody(std::move(out));
  });
}

void GatewayApis::start(Gateway& g, Gateway::Pending& p, const wire::DescribeGroupsRequest& req) {
  wire::DescribeGroupsResponse resp;
  for (const auto& id : req.groups) {
    auto& group = resp.groups.emplace_back();
    group.group_id = id;
    group.group_state = "Dead";
    ask(g, p, broker(g), DescribeGroupsRequest{0, id});
  }
  p.response = std::move(resp);
  p.on_answer = [](Gateway::Pending& pending, const Message& msg) {
    const auto* r = std::get_if<DescribeGroupsResponse>(&msg);
    if (r == nullptr) return;
    for (auto& group : std::get<wire::DescribeGroupsResponse>(*pending.response).groups) {
      if (group.group_id != r->group_id) continue;
      group.error_code = code(r->error);
      group.group_state = r->state;
      group.protocol_type = r->protocol_type;
      group.protocol_data = r->protocol_name;
      group.members.clear();
      for (const auto& m : r->members) {
        group.members.push_back({m.member_id, m.client_id, std::string(kClientHost), m.metadata, m.assignment});
      }
    }
  };
  if (p.outstanding == 0) p.done = true;
}

void GatewayApis::start(Gateway& g, Gateway::Pending& p, const wire::DeleteGroupsRequest& req) {
  wire::DeleteGroupsResponse resp;
  for (const auto& id : req.groups_names) {
    resp.results.push_back({id, 0});
    ask(g, p, broker(g), DeleteGroupsRequest{0, id});
  }
  p.response = std::move(resp);
  p.on_answer = [](Gateway::Pending& pending, const Message& msg) {
    const auto* r = std::get_if<DeleteGroupsResponse>(&msg);
    if (r == nullptr) return;
    for (auto& result : std::get<wire::DeleteGroupsResponse>(*pending.response).results) {
      if (result.group_id == r->group_id) result.error_code = code(r->error);
    }
  };
  if (p.outstanding == 0) p.done = true;
}

}  // namespace logsim::live
