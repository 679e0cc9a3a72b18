// The consumer application's poll loop and its history records.
#include "scenarios/apps/consumer_app.h"

namespace logsim::scenarios {
namespace {
constexpr std::uint64_t kPollTag = 1000;
}  // namespace

ConsumerApp::ConsumerApp(Env& env, const ConsumerSpec& spec, const std::vector<TopicSpec>& topics,
                         RunContext& ctx, std::vector<NodeId> bootstrap, const std::vector<TimelineStep>& timeline)
    : env_(env), spec_(spec), topics_(topics), ctx_(ctx), timers_(env), consumer_(env, timers_, [&] {
        engine::ConsumerConfig c = spec.config;
        c.bootstrap_servers = std::move(bootstrap);
        return c;
      }()), steps_(timeline, spec.name) {}

void ConsumerApp::on_start() {
  std::vector<TopicPartition> assignment;
  auto e = ctx_.event(properties::OpKind::kAssign, spec_.name);
  for (const auto& name : spec_.topics) {
    for (const auto& t : topics_) {
      if (t.name != name) continue;
      for (std::int32_t p = 0; p < t.partitions; ++p) {
        assignment.push_back({t.name, PartitionId(p)});
        e.assignment.push_back({t.name, PartitionId(p)});
      }
    }
  }
  consumer_.assign(assignment);
  ctx_.history.append(std::move(e));
  env_.set_timer(spec_.poll_interval, kPollTag);
  steps_.arm(env_, ctx_);
}

void ConsumerApp::on_message(NodeId from, const Message& msg) { consumer_.on_message(from, msg); }

void ConsumerApp::on_timer(TimerId id, std::uint64_t tag) {
  if (timers_.on_timer(id, tag)) return;
  const EventMaker event = [this](properties::OpKind kind) { return ctx_.event(kind, spec_.name); };
  if (const auto fired = steps_.fired(tag, ctx_)) {
    seek_step(consumer_, *fired->step, env_.now(), event, ctx_.history);
    return;
  }
  if (tag != kPollTag) return;
  auto records = consumer_.poll();
  record_moves(consumer_, event, ctx_.history);
  if (!records.empty()) record_poll(records.size(), event, ctx_.history);
  for (const auto& r : records) {
    auto e = ctx_.event(properties::OpKind::kProcess, spec_.name);
    e.topic = r.tp.topic;
    e.partition = r.tp.partition;
    e.offset = r.record.offset;
    e.key = r.record.record.key;
    e.value_id = parse_value_id(r.record.record);
    e.read_committed = consumer_.read_committed();
    ctx_.history.append(std::move(e));
  }
  env_.set_timer(spec_.poll_interval, kPollTag);
}

}  // namespace logsim::scenarios
