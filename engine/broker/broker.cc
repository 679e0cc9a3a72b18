// The broker's startup (log recovery) and its API registry.
#include "engine/broker/broker.h"

namespace logsim::engine {

PartitionLog* BrokerState::find(const std::string& topic, PartitionId p) {
  auto it = logs.find({topic, p.value()});
  return it == logs.end() ? nullptr : it->second.get();
}

Broker::Broker(Env& env, BrokerConfig config) : state_{env, std::move(config), {}} {}

void Broker::on_start() {
  for (const TopicSpec& t : state_.config.topics) {
    for (std::int32_t p = 0; p < t.partitions; ++p) {
      auto log = std::make_unique<PartitionLog>(state_.env.disk(), t.name + "-" + std::to_string(p) + "/00000000000000000000.log");
      log->recover();
      state_.logs[{t.name, p}] = std::move(log);
    }
  }
}

void Broker::on_message(NodeId from, const Message& msg) {
  Env& env = state_.env;
  if (const auto* produce = std::get_if<ProduceRequest>(&msg)) {
    ProduceResponse resp = handle_produce(state_, *produce);
    if (produce->acks != 0) env.send(from, std::move(resp));
  } else if (const auto* fetch = std::get_if<FetchRequest>(&msg)) {
    env.send(from, handle_fetch(state_, *fetch));
  } else if (const auto* list = std::get_if<ListOffsetsRequest>(&msg)) {
    env.send(from, handle_list_offsets(state_, *list));
  } else if (const auto* meta = std::get_if<MetadataRequest>(&msg)) {
    env.send(from, handle_metadata(state_, *meta));
  }
  // Responses addressed to a broker are not expected; they are ignored.
}

void Broker::on_timer(TimerId, std::uint64_t) {}

}  // namespace logsim::engine
