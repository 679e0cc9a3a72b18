// The application API's registry and its thin wrappers: each forwards to the node that hosts
// the App (app_node.cc), which holds the engine's clients.
#include "api/app.h"

#include <algorithm>
#include <mutex>
#include <utility>

#include "api/app_node.h"
#include "api/checker.h"
#include "api/app_registry.h"
#include "properties/assertion_checker.h"
#include "scenarios/apps/app_history.h"

namespace logsim {
namespace {

// The registry: names in order (a std::map), so every listing and every run's map of factories
// is the same whatever order the registrations came in.
struct Registry {
  std::mutex mutex;
  std::map<std::string, AppFactory> apps;
  std::map<std::string, PropertyFactory> checkers;
};

Registry& registry() {
  static Registry r;  // the API's one global: registrations, read when a run begins
  return r;
}

}  // namespace

void register_app(const std::string& name, AppFactory factory) {
  Registry& r = registry();
  const std::lock_guard lock(r.mutex);
  r.apps[name] = std::move(factory);
}

void unregister_app(const std::string& name) {
  Registry& r = registry();
  const std::lock_guard lock(r.mutex);
  r.apps.erase(name);
}

std::vector<std::string> registered_apps() {
  Registry& r = registry();
  const std::lock_guard lock(r.mutex);
  std::vector<std::string> names;
  for (const auto& [name, factory] : r.apps) names.push_back(name);
  return names;
}

void register_checker(const std::string& name, PropertyFactory factory) {
  Registry& r = registry();
  const std::lock_guard lock(r.mutex);
  r.checkers[name] = std::move(factory);
}

void unregister_checker(const std::string& name) {
  Registry& r = registry();
  const std::lock_guard lock(r.mutex);
  r.checkers.erase(name);
}

std::vector<std::string> registered_checkers() {
  Registry& r = registry();
  const std::lock_guard lock(r.mutex);
  std::vector<std::string> names;
  for (const auto& [name, factory] : r.checkers) names.push_back(name);
  return names;
}

namespace detail {

scenarios::UserCode registered_user_code() {
  scenarios::UserCode user;
  user.apps = registered_app_nodes();
  Registry& r = registry();
  const std::lock_guard lock(r.mutex);
  for (const auto& [name, factory] : r.checkers) {
    user.checkers.push_back([factory]() -> std::unique_ptr<properties::Checker> { return factory(); });
  }
  return user;
}

scenarios::AppFactories registered_app_nodes() {
  Registry& r = registry();
  const std::lock_guard lock(r.mutex);
  std::map<std::string, scenarios::AppNodeFactory> out;
  for (const auto& [name, factory] : r.apps) out.emplace(name, app_node_factory(factory));
  return out;
}

}  // namespace detail

// ---- Producer

void Producer::send(const std::string& topic, std::optional<std::string> key, std::optional<std::string> value,
                    std::vector<RecordHeader> headers, std::function<void(const SendResult&)> done) {
  detail::AppNode& node = node_;
  scenarios::RunContext& run = node.run();
  engine::Producer& client = node.producer();
  const std::uint64_t value_id = ++run.last_value_id;
  const bool tombstone = !value.has_value();
  Record record{std::move(key), std::move(value), to_millis(node.env().now()), std::move(headers)};
  // The harness's id travels in its own header, so the value reaches consumers as sent.
  record.headers.push_back(RecordHeader{std::string(scenarios::kValueIdHeader), std::to_string(value_id)});

  auto invoke = node.event(properties::OpKind::kSendInvoke);
  invoke.group.clear();
  invoke.generation.reset();
  invoke.topic = topic;
  invoke.key = record.key;
  invoke.value_id = value_id;
  // A transactional producer is idempotent whatever the scenario's config says (transactional_producer()).
  invoke.idempotent = client.transactional() || (node.site().producer ? node.site().producer->config.enable_idempotence : true);
  invoke.tombstone = tombstone;
  std::optional<std::string> sent_key = record.key;
  run.history.append(std::move(invoke));

  const std::string process = node.site().node;
  client.send(topic, std::move(record), std::nullopt,
              [&run, process, topic, key = std::move(sent_key), value_id, done = std::move(done)](const engine::SendResult& r) {
                run.history.append(scenarios::send_outcome_event(run, process, topic, key, value_id, r));
                if (!done) return;
                SendResult out;
                out.outcome = r.outcome == engine::SendOutcome::kAcknowledged ? SendResult::Outcome::kAcknowledged
                              : r.outcome == engine::SendOutcome::kFailed     ? SendResult::Outcome::kFailed
                                                                              : SendResult::Outcome::kUnknown;
                out.topic = topic;
                out.partition = r.partition;
                out.offset = r.offset;
                if (r.error != ErrorCode::NONE) out.error = std::string(error_name(r.error));
                done(out);
              });
}

std::size_t Producer::in_flight() const { return node_.producer().in_flight(); }

// ---- Consumer

void Consumer::subscribe(std::vector<std::string> topics, RebalanceCallbacks callbacks) {
  node_.subscribe(std::move(topics), std::move(callbacks));
}

std::vector<ConsumedRecord> Consumer::poll() { return node_.poll(); }

void Consumer::processed(const ConsumedRecord& r, const std::string& note) {
  scenarios::record_processed(r.topic_partition(), r.offset, r.key, r.value_id, node_.consumer().read_committed(), note,
                              [this](properties::OpKind kind) { return node_.event(kind); }, node_.run().history);
}

void Consumer::commit_sync(CommitCallback done) { node_.commit(std::nullopt, true, std::move(done)); }
void Consumer::commit_sync(std::map<TopicPartition, Offset> offsets, CommitCallback done) {
  node_.commit(std::move(offsets), true, std::move(done));
}
void Consumer::commit_async(CommitCallback done) { node_.commit(std::nullopt, false, std::move(done)); }
void Consumer::commit_async(std::map<TopicPartition, Offset> offsets, CommitCallback done) {
  node_.commit(std::move(offsets), false, std::move(done));
}

bool Consumer::seek(const TopicPartition& tp, Offset offset) {
  const auto& assigned = node_.consumer().assignment();
  if (std::find(assigned.begin(), assigned.end(), tp) == assigned.end()) return false;
  node_.consumer().seek(tp, offset);
  auto e = node_.event(properties::OpKind::kSeek);
  e.topic = tp.topic;
  e.partition = tp.partition;
  e.offset = offset;
  e.note = "seek by the application";
  node_.run().history.append(std::move(e));
  return true;
}

namespace {
bool all_assigned(const std::vector<TopicPartition>& assigned, const std::vector<TopicPartition>& partitions) {
  return std::all_of(partitions.begin(), partitions.end(), [&](const TopicPartition& tp) {
    return std::find(assigned.begin(), assigned.end(), tp) != assigned.end();
  });
}
}  // namespace

bool Consumer::pause(const std::vector<TopicPartition>& partitions) {
  if (!all_assigned(node_.consumer().assignment(), partitions)) return false;
  node_.consumer().pause(partitions);
  return true;
}

bool Consumer::resume(const std::vector<TopicPartition>& partitions) {
  if (!all_assigned(node_.consumer().assignment(), partitions)) return false;
  node_.consumer().resume(partitions);
  return true;
}

std::vector<TopicPartition> Consumer::paused() const { return node_.consumer().paused(); }

const std::vector<TopicPartition>& Consumer::assignment() const { return node_.consumer().assignment(); }
std::int32_t Consumer::generation() const { return node_.consumer().generation(); }
void Consumer::close() { node_.close_consumer(); }
void Consumer::run_each_message(MessageHandler handler, RunConfig config) {
  LOGSIM_ASSERT(handler != nullptr, "run_each_message without a handler");
  node_.run_loop([handler = std::move(handler)](const std::vector<ConsumedRecord>& unit, std::function<void()> done) {
    handler(unit.front(), std::move(done));
  }, true, config);
}
void Consumer::run_each_batch(BatchHandler handler, RunConfig config) {
  LOGSIM_ASSERT(handler != nullptr, "run_each_batch without a handler");
  node_.run_loop(std::move(handler), false, config);
}

// ---- Admin

void Admin::create_topic(const std::string& name, std::int32_t partitions, std::int32_t replication_factor,
                         std::map<std::string, std::string> configs, AdminCallback done) {
  CreateTopicsRequest req;
  req.name = name;
  req.num_partitions = partitions;
  req.replication_factor = replication_factor;
  // The note lists the configs, so a checker of the history alone knows a compacted topic.
  std::string what = "create-topic " + name;
  for (auto& [key, value] : configs) {
    what += " " + key + "=" + value;
    req.configs.push_back(ConfigEntry{key, std::move(value)});
  }
  detail::AppNode& node = node_;
  node.admin().create_topic(std::move(req), [&node, name, what, done = std::move(done)](const engine::AdminResult& r) {
    node.record_admin(name, "", what, r.error, r.message);
    if (done) done(r.error == ErrorCode::NONE ? std::string() : std::string(error_name(r.error)));
  });
}

void Admin::delete_topic(const std::string& name, AdminCallback done) {
  detail::AppNode& node = node_;
  node.admin().delete_topic(name, [&node, name, done = std::move(done)](const engine::AdminResult& r) {
    node.record_admin(name, "", "delete-topic " + name, r.error, r.message);
    if (done) done(r.error == ErrorCode::NONE ? std::string() : std::string(error_name(r.error)));
  });
}

void Admin::create_partitions(const std::string& topic, std::int32_t count, AdminCallback done) {
  detail::AppNode& node = node_;
  node.admin().create_partitions(topic, count, [&node, topic, count, done = std::move(done)](const engine::AdminResult& r) {
    node.record_admin(topic, "", "add-partitions " + topic + " to " + std::to_string(count) + " partitions", r.error, r.message);
    if (done) done(r.error == ErrorCode::NONE ? std::string() : std::string(error_name(r.error)));
  });
}

void Admin::describe_group(const std::string& group, std::function<void(const GroupDescription&)> done) {
  detail::AppNode& node = node_;
  node.group_admin().describe_group(group, [&node, group, done = std::move(done)](const engine::DescribeGroupResult& r) {
    node.record_admin("", group, "describe-group " + group, r.error,
                      r.error == ErrorCode::NONE ? "state " + r.state + ", generation " + std::to_string(r.generation_id) : r.message);
    if (done) done(r);
  });
}

// ---- AppContext

Nanos AppContext::now() const { return node_.env().now(); }
TimerId AppContext::set_timer(Nanos delay, TimerCallback fn) { return node_.set_timer(delay, std::move(fn)); }
void AppContext::cancel_timer(TimerId id) { node_.cancel_timer(id); }
Rng& AppContext::rng() { return node_.env().rng(); }
const std::string& AppContext::name() const { return node_.site().node; }
const std::vector<std::string>& AppContext::topics() const { return node_.topics(); }
const std::string& AppContext::group_id() const { return node_.group_id(); }
Producer& AppContext::producer() {
  node_.producer();  // made now: its metadata requests start at once
  return producer_;
}
Consumer& AppContext::consumer() {
  node_.consumer();
  return consumer_;
}
bool AppContext::has_consumer() const { return node_.has_consumer(); }
Store& AppContext::store() { return node_.store(); }
Admin& AppContext::admin() { return admin_; }
properties::HistoryEvent AppContext::event(properties::OpKind kind) const { return node_.event(kind); }

void AppContext::always(bool condition, const std::string& message) {
  if (!condition) assertion(properties::kAlwaysFailed, message);
}

void AppContext::sometimes(bool condition, const std::string& message) {
  assertion(properties::kSometimesReached, message);
  if (condition) assertion(properties::kSometimesHeld, message);
}

void AppContext::assertion(std::string_view what, const std::string& message) {
  if (!node_.run().assertions_recorded.insert(std::string(what) + "\n" + message).second) return;
  properties::HistoryEvent e = event(properties::OpKind::kAssert);
  e.note = message;
  e.error = std::string(what);
  record(std::move(e));
}
void AppContext::record(properties::HistoryEvent event) { node_.run().history.append(std::move(event)); }

}  // namespace logsim
