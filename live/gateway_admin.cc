// The gateway's admin APIs (see gateway.h): CreateTopics, DeleteTopics, CreatePartitions and
// DescribeConfigs go to the engine's controller, one request per topic.
#include <algorithm>

#include "live/gateway_apis.h"

namespace logsim::live {

namespace {

constexpr std::int8_t kTopicResource = 2;   // DescribeConfigs' resource types
constexpr std::int8_t kBrokerResource = 4;
constexpr std::int16_t kInvalidRequest = 42;
// DescribeConfigs v1+ config sources.
constexpr std::int8_t kDynamicTopicConfig = 1;
constexpr std::int8_t kDefaultConfig = 5;

std::optional<std::string> message_or_null(const std::string& m) {
  return m.empty() ? std::nullopt : std::optional<std::string>(m);
}

}  // namespace

void GatewayApis::start(Gateway& g, Gateway::Pending& p, const wire::CreateTopicsRequest& req) {
  wire::CreateTopicsResponse resp;
  for (const auto& t : req.topics) {
    resp.topics.push_back({t.name, 0, std::nullopt});
    if (!t.assignments.empty()) {
      resp.topics.back().error_code = code(ErrorCode::INVALID_REPLICATION_FACTOR);
      resp.topics.back().error_message = "logsim places replicas itself: manual replica assignments are not supported";
      continue;
    }
    CreateTopicsRequest ask{0, t.name, t.num_partitions, t.replication_factor, {}, req.validate_only};
    for (const auto& c : t.configs) {
      if (c.value) ask.configs.push_back({c.name, *c.value});
    }
    GatewayApis::ask(g, p, controller(g), std::move(ask));
  }
  p.response = std::move(resp);
  p.on_answer = [](Gateway::Pending& pending, const Message& msg) {
    const auto* r = std::get_if<CreateTopicsResponse>(&msg);
    if (r == nullptr) return;
    for (auto& t : std::get<wire::CreateTopicsResponse>(*pending.response).topics) {
      if (t.name != r->name) continue;
      t.error_code = code(r->error);
      t.error_message = message_or_null(r->error_message);
    }
  };
  if (p.outstanding == 0) p.done = true;
}

void GatewayApis::start(Gateway& g, Gateway::Pending& p, const wire::DeleteTopicsRequest& req) {
  wire::DeleteTopicsResponse resp;
  for (const auto& name : req.topic_names) {
    resp.responses.push_back({name, 0});
    GatewayApis::ask(g, p, controller(g), DeleteTopicsRequest{0, name});
  }
  p.response = std::move(resp);
  p.on_answer = [](Gateway::Pending& pending, const Message& msg) {
    const auto* r = std::get_if<DeleteTopicsResponse>(&msg);
    if (r == nullptr) return;
    for (auto& t : std::get<wire::DeleteTopicsResponse>(*pending.response).responses) {
      if (t.name == r->name) t.error_code = code(r->error);
    }
  };
  if (p.outstanding == 0) p.done = true;
}

void GatewayApis::start(Gateway& g, Gateway::Pending& p, const wire::CreatePartitionsRequest& req) {
  wire::CreatePartitionsResponse resp;
  for (const auto& t : req.topics) {
    resp.results.push_back({t.name, 0, std::nullopt});
    if (t.assignments) {
      resp.results.back().error_code = code(ErrorCode::INVALID_REPLICATION_FACTOR);
      resp.results.back().error_message = "logsim places replicas itself: manual replica assignments are not supported";
      continue;
    }
    GatewayApis::ask(g, p, controller(g), CreatePartitionsRequest{0, t.name, t.count, req.validate_only});
  }
  p.response = std::move(resp);
  p.on_answer = [](Gateway::Pending& pending, const Message& msg) {
    const auto* r = std::get_if<CreatePartitionsResponse>(&msg);
    if (r == nullptr) return;
    for (auto& t : std::get<wire::CreatePartitionsResponse>(*pending.response).results) {
      if (t.name != r->name) continue;
      t.error_code = code(r->error);
      t.error_message = message_or_null(r->error_message);
    }
  };
  if (p.outstanding == 0) p.done = true;
}

void GatewayApis::start(Gateway& g, Gateway::Pending& p, const wire::DescribeConfigsRequest& req) {
  wire::DescribeConfigsResponse resp;
  for (const auto& r : req.resources) {
    auto& result = resp.results.emplace_back();
    result.resource_type = r.resource_type;
    result.resource_name = r.resource_name;
    if (r.resource_type == kTopicResource) {
      GatewayApis::ask(g, p, controller(g), DescribeConfigsRequest{0, r.resource_name});
    } else if (r.resource_type != kBrokerResource) {  // a broker's configs: none to show
      result.error_code = kInvalidRequest;
      result.error_message = "logsim describes topic and broker configs only";
    }
  }
  p.response = std::move(resp);
  const bool v0 = p.header.api_version == 0;
  p.on_answer = [req, v0](Gateway::Pending& pending, const Message& msg) {
    const auto* r = std::get_if<DescribeConfigsResponse>(&msg);
    if (r == nullptr) return;
    auto& results = std::get<wire::DescribeConfigsResponse>(*pending.response).results;
    for (std::size_t i = 0; i < results.size(); ++i) {
      auto& result = results[i];
      if (result.resource_type != kTopicResource || result.resource_name != r->topic) continue;
      result.error_code = code(r->error);
      result.error_message = message_or_null(r->error_message);
      const auto& keys = req.resources[i].configuration_keys;
      for (const auto& c : r->configs) {
        if (keys && std::find(keys->begin(), keys->end(), c.name) == keys->end()) continue;
        wire::DescribeConfigsResponse::Config out;
        out.name = c.name;
        out.value = c.value;
        if (v0) out.is_default = c.is_default;
        else out.config_source = c.is_default ? kDefaultConfig : kDynamicTopicConfig;
        result.configs.push_back(std::move(out));
      }
    }
  };
  if (p.outstanding == 0) p.done = true;
}

}  // namespace logsim::live
