// The admin steps, their requests, and their outcomes in the history.
#include "scenarios/apps/admin_app.h"

#include "engine/controller/topic_config.h"

namespace logsim::scenarios {
namespace {
constexpr std::uint64_t kStepTagBase = 5000;  // + the step's index
}  // namespace

AdminApp::AdminApp(Env& env, std::vector<const TimelineStep*> steps, const BrokerSettings& defaults,
                   RunContext& ctx, NodeId controller, std::vector<NodeId> bootstrap)
    : env_(env), steps_(std::move(steps)), defaults_(defaults), ctx_(ctx), timers_(env), client_(env, timers_, [controller] {
        engine::AdminConfig c;
        c.controller = controller;
        return c;
      }()),
      groups_(env, timers_, [&bootstrap] {
        engine::GroupAdminConfig c;
        c.bootstrap_servers = std::move(bootstrap);
        return c;
      }()) {}

void AdminApp::on_start() {
  // Steps still ahead (after a restart, those behind are done or lost with the old process).
  for (std::size_t i = 0; i < steps_.size(); ++i) {
    if (steps_[i]->at >= ctx_.world.now()) env_.set_timer(steps_[i]->at - ctx_.world.now(), kStepTagBase + i);
  }
}

void AdminApp::on_timer(TimerId id, std::uint64_t tag) {
  if (timers_.on_timer(id, tag)) return;
  if (tag >= kStepTagBase && tag - kStepTagBase < steps_.size()) run(*steps_[tag - kStepTagBase]);
}

void AdminApp::run(const TimelineStep& step) {
  if (step.is_group_admin()) {
    run_group(step);
    return;
  }
  auto done = [this, &step](const engine::AdminResult& r) { record(step, r); };
  if (step.action == "create-topic") {
    const TopicSpec& t = *step.create;
    CreateTopicsRequest req;
    req.name = t.name;
    req.num_partitions = t.partitions;
    req.replication_factor = t.replication_factor;
    // The configs that differ from the cluster's defaults, as a user would pass them.
    const engine::TopicConfigs wanted{t.min_insync_replicas,
                                      t.unclean_leader_election.value_or(defaults_.unclean_leader_election_enable), t.log};
    const engine::TopicConfigs cluster{defaults_.min_insync_replicas, defaults_.unclean_leader_election_enable, LogConfig{}};
    for (const auto& c : engine::describe_topic_configs(wanted, cluster)) {
      if (!c.is_default) req.configs.push_back(ConfigEntry{c.name, c.value});
    }
    client_.create_topic(std::move(req), done);
  } else if (step.action == "delete-topic") {
    client_.delete_topic(step.topic, done);
  } else if (step.action == "add-partitions") {
    client_.create_partitions(step.topic, step.partitions, done);
  } else if (step.action == "alter-config") {
    client_.alter_configs(step.topic, step.configs, done);
  }
}

void AdminApp::run_group(const TimelineStep& step) {
  if (step.action == "delete-group") {
    groups_.delete_group(step.group, [this, &step](const engine::DeleteGroupResult& r) {
      record_group(step, r.error, r.error == ErrorCode::NONE ? "done" : r.message);
    });
  } else if (step.action == "describe-group") {
    groups_.describe_group(step.group, [this, &step](const engine::DescribeGroupResult& r) {
      if (r.error != ErrorCode::NONE) {
        record_group(step, r.error, r.message);
        return;
      }
      // As kafka-consumer-groups --describe prints it, on one line.
      std::string out = "state " + r.state + ", generation " + std::to_string(r.generation_id) + ", " +
                        std::to_string(r.members.size()) + " member(s)";
      for (const auto& row : r.rows) {
        out += "; " + row.topic + "/" + std::to_string(row.partition.value()) + " committed " +
               std::to_string(row.committed.value()) + " end " + std::to_string(row.log_end.value()) + " lag " +
               std::to_string(row.lag) + (row.member_id.empty() ? "" : " " + row.member_id);
      }
      record_group(step, ErrorCode::NONE, out);
    });
  } else if (step.action == "delete-offsets") {
    std::vector<TopicPartition> partitions;
    for (std::int32_t p = 0; p < step.partitions; ++p) partitions.push_back(TopicPartition{step.topic, PartitionId(p)});
    groups_.delete_offsets(step.group, std::move(partitions), [this, &step](const engine::DeleteOffsetsResult& r) {
      if (r.error == ErrorCode::NONE) {
        // The group's committed offsets of these partitions are gone: its next members start
        // where auto.offset.reset puts them. A seek aimed at the group, with no offset.
        for (const auto& [tp, error] : r.partitions) {
          auto seek = ctx_.event(properties::OpKind::kSeek, "admin");
          seek.group = step.group;
          seek.topic = tp.topic;
          seek.partition = tp.partition.value();
          seek.offset = -1;
          seek.note = "delete-offsets";
          ctx_.history.append(std::move(seek));
        }
      }
      record_group(step, r.error, r.error == ErrorCode::NONE ? "done" : r.message);
    });
  } else if (step.action == "reset-offsets") {
    groups_.reset_offsets(*step.reset, [this, &step](const engine::ResetOffsetsResult& r) {
      std::string out = r.executed ? "executed" : (step.reset->execute ? "not executed" : "dry run");
      for (const auto& row : r.rows) {
        out += "; " + row.topic + "/" + std::to_string(row.partition.value()) + " " + std::to_string(row.previous.value()) +
               " -> " + std::to_string(row.new_offset.value());
        if (r.executed) {
          auto seek = ctx_.event(properties::OpKind::kSeek, "admin");
          seek.group = step.group;
          seek.topic = row.topic;
          seek.partition = row.partition.value();
          seek.offset = row.new_offset.value();
          seek.note = "reset-offsets " + std::string(engine::reset_mode_name(step.reset->mode));
          ctx_.history.append(std::move(seek));
        }
      }
      record_group(step, r.error, r.error == ErrorCode::NONE ? out : r.message);
    });
  }
}

void AdminApp::record_group(const TimelineStep& step, ErrorCode error, const std::string& outcome) {
  auto e = ctx_.event(properties::OpKind::kAdmin, "admin");
  e.group = step.group;
  e.topic = step.topic;
  e.error = std::string(error_name(error));
  e.note = step.action + " " + step.group;
  if (step.reset) {
    e.note += " " + std::string(engine::reset_mode_name(step.reset->mode));
    if (step.reset->mode != engine::ResetMode::kToEarliest && step.reset->mode != engine::ResetMode::kToLatest &&
        step.reset->mode != engine::ResetMode::kToCurrent) {
      e.note += " " + std::to_string(step.reset->value);
    }
    if (!step.topic.empty()) e.note += " " + step.topic;
  }
  e.note += error == ErrorCode::NONE ? ": " + outcome : ": " + e.error + " " + outcome;
  ctx_.history.append(std::move(e));
}

void AdminApp::record(const TimelineStep& step, const engine::AdminResult& result) {
  auto e = ctx_.event(properties::OpKind::kAdmin, "admin");
  e.topic = step.topic;
  e.error = std::string(error_name(result.error));
  e.note = step.action + " " + step.topic;
  if (step.action == "add-partitions") e.note += " to " + std::to_string(step.partitions) + " partitions";
  for (const auto& c : step.configs) {
    e.note += c.op == AlterConfigOp::kDelete ? " " + c.name + "=(default)" : " " + c.name + "=" + c.value;
  }
  e.note += result.error == ErrorCode::NONE ? ": done" : ": " + e.error + " " + result.message;
  ctx_.history.append(std::move(e));
}

}  // namespace logsim::scenarios
