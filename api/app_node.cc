// The host of a user's App: the node's lifecycle, its clients, its timers, its history.
#include "api/app_node.h"

#include <algorithm>
#include <utility>

#include "engine/base/assert.h"
#include "scenarios/apps/app_history.h"

namespace logsim::detail {
namespace {
constexpr std::uint64_t kAppTimerTag = 0x5a000000;  // the App's own timers (the tag only names them in the trace)
constexpr const char* kStoreFile = "app-store";       // the App's durable store, on the node's disk

std::vector<std::string> site_topics(const scenarios::AppSite& site) {
  if (site.producer != nullptr) return {site.producer->topic};
  return site.group->topics;
}
}  // namespace

AppNode::AppNode(Env& env, const scenarios::AppSite& site, std::unique_ptr<App> app)
    : env_(env), site_(site), topics_(site_topics(site)), group_id_(site.group != nullptr ? site.group->name : ""), timers_(env), context_(*this), app_(std::move(app)) {
  LOGSIM_ASSERT(app_ != nullptr, "the factory of application \"" + site_.app + "\" made no App");
  if (site_.group != nullptr && site_.app_steps != nullptr) seek_steps_.emplace(*site_.app_steps, site_.node);
}

void AppNode::on_start() {
  if (seek_steps_) seek_steps_->arm(env_, run());
  app_->on_start(context_);
}

void AppNode::on_stop() {
  app_->on_stop(context_);
  close_consumer();
}

void AppNode::on_message(NodeId from, const Message& msg) {
  // The admin clients first: they take only answers to their own requests, where the consumer
  // takes every Fetch and ListOffsets answer (and ignores those it did not ask for).
  if (admin_ && admin_->on_message(from, msg)) return;
  if (group_admin_ && group_admin_->on_message(from, msg)) return;
  if (consumer_ && consumer_->on_message(from, msg)) return;
  if (producer_) producer_->on_message(from, msg);
}

void AppNode::on_disconnect(NodeId peer) {
  if (consumer_) consumer_->on_disconnect(peer);
  if (admin_) admin_->on_disconnect(peer);
  if (group_admin_) group_admin_->on_disconnect(peer);
  if (producer_) producer_->on_disconnect(peer);
}

engine::AdminClient& AppNode::admin() {
  if (!admin_) {
    engine::AdminConfig c;
    c.controller = site_.controller;
    admin_ = std::make_unique<engine::AdminClient>(env_, timers_, c);
  }
  return *admin_;
}

engine::GroupAdmin& AppNode::group_admin() {
  if (!group_admin_) {
    engine::GroupAdminConfig c;
    c.bootstrap_servers = site_.bootstrap;
    group_admin_ = std::make_unique<engine::GroupAdmin>(env_, timers_, c);
  }
  return *group_admin_;
}

void AppNode::record_admin(const std::string& topic, const std::string& group, const std::string& what, ErrorCode error,
                           const std::string& message) {
  auto e = event(properties::OpKind::kAdmin);
  e.topic = topic;
  e.group = group;
  e.generation.reset();
  e.error = std::string(error_name(error));
  e.note = what + (error != ErrorCode::NONE ? ": " + e.error + " " + message : message.empty() ? ": done" : ": " + message);
  run().history.append(std::move(e));
}

void AppNode::on_fsync(std::uint64_t token) {
  if (store_) store_->on_fsync(token);
}

Store& AppNode::store() {
  if (!store_) store_ = std::make_unique<Store>(env_.disk(), kStoreFile);
  return *store_;
}

void AppNode::on_timer(TimerId id, std::uint64_t tag) {
  if (timers_.on_timer(id, tag)) return;
  if (seek_steps_) {
    if (const auto fired = seek_steps_->fired(tag, run())) {
      seeks_due_.push_back(fired->step);
      return;
    }
  }
  const auto it = app_timers_.find(id);
  if (it == app_timers_.end()) return;
  TimerCallback fn = std::move(it->second);
  app_timers_.erase(it);
  fn();
}

TimerId AppNode::set_timer(Nanos delay, TimerCallback fn) {
  LOGSIM_ASSERT(delay >= 0, "a negative timer delay from application \"" + site_.app + "\"");
  const TimerId id = env_.set_timer(delay, kAppTimerTag);
  app_timers_.emplace(id, std::move(fn));
  return id;
}

void AppNode::cancel_timer(TimerId id) {
  if (app_timers_.erase(id) > 0) env_.cancel_timer(id);
}

engine::Producer& AppNode::producer() {
  if (!producer_) {
    engine::ProducerConfig c = site_.producer != nullptr ? site_.producer->config : engine::ProducerConfig{};
    c.bootstrap_servers = site_.bootstrap;
    txn_id_ = c.transactional_id.value_or("");
    producer_ = std::make_unique<engine::Producer>(env_, timers_, std::move(c));
    producer_->start();
  }
  return *producer_;
}

engine::Consumer& AppNode::consumer() {
  LOGSIM_ASSERT(site_.group != nullptr, "application \"" + site_.app + "\" on " + site_.node +
                                            " asked for a consumer, but only a group's members have one");
  if (!consumer_) {
    engine::ConsumerConfig c = site_.group->config;
    c.bootstrap_servers = site_.bootstrap;
    c.group_id = site_.group->name;
    c.plants = site_.ctx->plants;
    c.client_id = site_.node;
    c.enable_auto_commit = false;
    if (site_.group->static_membership) c.group_instance_id = site_.node;
    consumer_ = std::make_unique<engine::Consumer>(env_, timers_, std::move(c));
  }
  return *consumer_;
}

properties::HistoryEvent AppNode::event(properties::OpKind kind) const {
  auto e = site_.ctx->event(kind, site_.node);
  if (site_.group != nullptr) {
    e.group = site_.group->name;
    if (consumer_) e.generation = properties::known(GenerationId(consumer_->generation()));
  }
  return e;
}

void AppNode::subscribe(std::vector<std::string> topics, RebalanceCallbacks callbacks) {
  rebalance_ = std::move(callbacks);
  consumer().subscribe(std::move(topics), this);
}

std::vector<ConsumedRecord> AppNode::poll() {
  engine::Consumer& c = consumer();
  if (closed_) return {};
  const scenarios::EventMaker maker = [this](properties::OpKind kind) { return event(kind); };
  for (const auto* step : std::exchange(seeks_due_, {})) scenarios::seek_step(c, *step, env_.now(), maker, run().history);
  std::vector<engine::ConsumerRecord> records = c.poll();
  scenarios::record_moves(c, maker, run().history);
  scenarios::record_poll(records.size(), maker, run().history);
  std::vector<ConsumedRecord> out;
  out.reserve(records.size());
  for (auto& r : records) {
    ConsumedRecord u;
    u.value_id = scenarios::parse_value_id(r.record.record);
    u.topic = std::move(r.tp.topic);
    u.partition = r.tp.partition;
    u.offset = r.record.offset;
    u.key = std::move(r.record.record.key);
    u.value = std::move(r.record.record.value);
    u.timestamp_ms = r.record.record.timestamp_ms;
    u.headers = std::move(r.record.record.headers);
    std::erase_if(u.headers, [](const RecordHeader& h) { return h.key == scenarios::kValueIdHeader; });
    out.push_back(std::move(u));
  }
  return out;
}

void AppNode::commit(std::optional<std::map<TopicPartition, Offset>> offsets, bool sync, CommitCallback done) {
  engine::Consumer& c = consumer();
  std::map<TopicPartition, Offset> what = offsets ? std::move(*offsets) : c.consumed();
  if (what.empty()) {
    // Nothing to commit: done, but later, as a commit's answer always comes.
    if (done) set_timer(0, [done = std::move(done)] { done(""); });
    return;
  }
  c.commit(std::move(what), sync, [done = std::move(done)](ErrorCode error) {
    if (done) done(error == ErrorCode::NONE ? std::string() : std::string(error_name(error)));
  });
}

void AppNode::run_loop(BatchHandler handler, bool per_record, RunConfig config) {
  LOGSIM_ASSERT(!loop_, "application \"" + site_.app + "\" on " + site_.node + " started a second run loop");
  LOGSIM_ASSERT(config.poll_interval > 0, "a run loop's poll_interval must be above zero");
  loop_ = RunLoop{std::move(handler), per_record, config, {}, 0, 0, false};
  set_timer(0, [this] { loop_poll(); });
}

void AppNode::loop_poll() {
  std::vector<ConsumedRecord> got = poll();
  loop_->units.clear();
  loop_->next = 0;
  if (got.empty()) {
    set_timer(loop_->config.poll_interval, [this] { loop_poll(); });
    return;
  }
  // One unit a record, or one a partition (in the order the partitions first appear).
  for (ConsumedRecord& r : got) {
    if (!loop_->per_record) {
      auto same = std::find_if(loop_->units.begin(), loop_->units.end(), [&](const std::vector<ConsumedRecord>& u) {
        return u.front().topic == r.topic && u.front().partition == r.partition;
      });
      if (same != loop_->units.end()) {
        same->push_back(std::move(r));
        continue;
      }
    }
    loop_->units.push_back({std::move(r)});
  }
  loop_next();
}

// Hands out the next unit, or ends the poll's work: commit (autoCommit), then poll again.
void AppNode::loop_next() {
  if (loop_->next < loop_->units.size()) {
    const std::uint64_t unit = ++loop_->handed;
    loop_->awaiting = true;
    loop_->handler(loop_->units[loop_->next], [this, unit] { loop_done(unit); });
    return;
  }
  if (!loop_->config.auto_commit) {
    set_timer(0, [this] { loop_poll(); });
    return;
  }
  std::map<TopicPartition, Offset> upto;
  for (const auto& u : loop_->units) {
    for (const ConsumedRecord& r : u) upto[r.topic_partition()] = Offset(r.offset.value() + 1);
  }
  commit(std::move(upto), true, [this](const std::string&) { loop_poll(); });
}

void AppNode::loop_done(std::uint64_t unit) {
  if (!loop_ || !loop_->awaiting || unit != loop_->handed) return;  // a second call, or a stale one
  loop_->awaiting = false;
  for (const ConsumedRecord& r : loop_->units[loop_->next]) {
    scenarios::record_processed(r.topic_partition(), r.offset, r.key, r.value_id, consumer().read_committed(), "",
                                [this](properties::OpKind kind) { return event(kind); }, run().history);
  }
  ++loop_->next;
  // Not from inside the handler: a handler that calls done() at once must not recurse a batch deep.
  set_timer(0, [this] { loop_next(); });
}

void AppNode::close_consumer() {
  if (!consumer_ || closed_) return;
  closed_ = true;
  consumer_->close();
}

void AppNode::on_partitions_revoked(const std::vector<TopicPartition>& ps) {
  scenarios::record_assignment(*consumer_, "revoked", ps, [this](properties::OpKind k) { return event(k); }, run().history);
  if (rebalance_.revoked) rebalance_.revoked(ps);
}

void AppNode::on_partitions_assigned(const std::vector<TopicPartition>& ps) {
  scenarios::record_assignment(*consumer_, "assigned", {}, [this](properties::OpKind k) { return event(k); }, run().history);
  if (rebalance_.assigned) rebalance_.assigned(ps);
}

void AppNode::on_partitions_lost(const std::vector<TopicPartition>& ps) {
  scenarios::record_assignment(*consumer_, "lost", ps, [this](properties::OpKind k) { return event(k); }, run().history);
  if (rebalance_.lost) rebalance_.lost(ps);
  else if (rebalance_.revoked) rebalance_.revoked(ps);
}

void AppNode::on_commit(const engine::CommitEvent& c) {
  scenarios::record_commit(c, [this](properties::OpKind k) { return event(k); }, run().history);
}

void AppNode::on_fatal(ErrorCode error) {
  auto e = event(properties::OpKind::kFault);
  e.error = std::string(error_name(error));
  e.note = site_.node + " stopped consuming: " + std::string(error_name(error));
  run().history.append(std::move(e));
}

scenarios::AppNodeFactory app_node_factory(AppFactory factory) {
  return [factory = std::move(factory)](Env& env, const scenarios::AppSite& site) -> std::unique_ptr<Node> {
    return std::make_unique<AppNode>(env, site, factory());
  };
}

}  // namespace logsim::detail
