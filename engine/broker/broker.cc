// The broker's startup (log recovery) and its API registry.
#include "engine/broker/broker.h"

namespace logsim::engine {

PartitionLog* BrokerState::find(const std::string& topic, PartitionId p) {
  auto it = logs.find({topic, p.value()});
  return it == logs.end() ? nullptr : it->second.get();
}

Broker::Broker(Env& env, BrokerConfig config) : state_{env, std::move(config), {}, {}} {}

void Broker::on_start() {
  for (const TopicSpec& t : state_.config.topics) {
    for (std::int32_t p = 0; p < t.partitions; ++p) {
      auto log = std::make_unique<PartitionLog>(state_.env.disk(), t.name + "-" + std::to_string(p) + "/00000000000000000000.log");
      log->recover();
      state_.logs[{t.name, p}] = std::move(log);
    }
  }
}

namespace {
constexpr std::uint64_t kFetchWaitTag = 1;
// A bound on held fetches per partition (STYLE.md: every queue has one). Past it a fetch is
// answered at once, empty, which a client treats like an expired wait.
constexpr std::size_t kMaxParkedFetchesPerPartition = 4096;
}  // namespace

void Broker::on_message(NodeId from, const Message& msg) {
  Env& env = state_.env;
  if (const auto* produce = std::get_if<ProduceRequest>(&msg)) {
    ProduceResponse resp = handle_produce(state_, *produce);
    const bool appended = resp.error == ErrorCode::NONE;
    if (produce->acks != 0) env.send(from, std::move(resp));
    if (appended) wake(produce->topic, produce->partition);
  } else if (const auto* fetch = std::get_if<FetchRequest>(&msg)) {
    on_fetch(from, *fetch);
  } else if (const auto* list = std::get_if<ListOffsetsRequest>(&msg)) {
    env.send(from, handle_list_offsets(state_, *list));
  } else if (const auto* meta = std::get_if<MetadataRequest>(&msg)) {
    env.send(from, handle_metadata(state_, *meta));
  }
  // Responses addressed to a broker are not expected; they are ignored.
}

void Broker::on_fetch(NodeId from, const FetchRequest& req) {
  FetchResponse resp = handle_fetch(state_, req);
  auto& parked = state_.parked[{req.topic, req.partition.value()}];
  if (resp.error != ErrorCode::NONE || !resp.records.empty() || req.max_wait_ms <= 0 ||
      parked.size() >= kMaxParkedFetchesPerPartition) {
    state_.env.send(from, std::move(resp));
    return;
  }
  // Nothing to return yet: hold the request until records arrive or the wait ends.
  const TimerId timer = state_.env.set_timer(millis(req.max_wait_ms), kFetchWaitTag);
  parked.push_back(ParkedFetch{from, req, timer});
}

void Broker::wake(const std::string& topic, PartitionId p) {
  auto it = state_.parked.find({topic, p.value()});
  if (it == state_.parked.end()) return;
  std::vector<ParkedFetch> waiting = std::move(it->second);
  state_.parked.erase(it);
  for (auto& w : waiting) {
    state_.env.cancel_timer(w.timer);
    state_.env.send(w.from, handle_fetch(state_, w.request));
  }
}

void Broker::on_timer(TimerId id, std::uint64_t tag) {
  if (tag != kFetchWaitTag) return;
  for (auto& [key, waiting] : state_.parked) {
    for (auto w = waiting.begin(); w != waiting.end(); ++w) {
      if (w->timer != id) continue;
      ParkedFetch done = std::move(*w);
      waiting.erase(w);
      state_.env.send(done.from, handle_fetch(state_, done.request));
      return;
    }
  }
}

}  // namespace logsim::engine
