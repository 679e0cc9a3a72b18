// The admin steps, their requests, and their outcomes in the history.
#include "scenarios/apps/admin_app.h"

#include "engine/base/assert.h"
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
  const Nanos now = ctx_.now();
  for (std::size_t i = 0; i < steps_.size(); ++i) {
    if (steps_[i]->at >= now) env_.set_timer(steps_[i]->at - now, kStepTagBase + i);
  }
}

void AdminApp::on_timer(TimerId id, std::uint64_t tag) {
  if (timers_.on_timer(id, tag)) return;
  if (tag >= kStepTagBase && tag - kStepTagBase < steps_.size()) run(*steps_[tag - kStepTagBase]);
}

void AdminApp::run(const TimelineStep& step) {
  std::visit(overloaded{
                 [this](const steps::DeleteTopic& s) {
                   client_.delete_topic(s.topic, [this, &s](const engine::AdminResult& r) {
                     record(s.topic, "delete-topic " + s.topic, r);
                   });
                 },
                 [this](const steps::AddPartitions& s) {
                   client_.create_partitions(s.topic, s.partitions, [this, &s](const engine::AdminResult& r) {
                     record(s.topic, "add-partitions " + s.topic + " to " + std::to_string(s.partitions) + " partitions", r);
                   });
                 },
                 [this](const steps::AlterConfig& s) {
                   client_.alter_configs(s.topic, s.configs, [this, &s](const engine::AdminResult& r) {
                     std::string what = "alter-config " + s.topic;
                     for (const auto& c : s.configs) {
                       what += c.op == AlterConfigOp::kDelete ? " " + c.name + "=(default)" : " " + c.name + "=" + c.value;
                     }
                     record(s.topic, what, r);
                   });
                 },
                 [this](const steps::RemoveStaticMembers& s) {
                   std::string what = "remove-static-members " + s.group;
                   for (const std::string& id : s.instances) what += " " + id;
                   groups_.remove_members(s.group, s.instances, [this, &s, what](const engine::RemoveMembersResult& r) {
                     record_group(s.group, "", what, r.error, r.error == ErrorCode::NONE ? "done" : r.message);
                   });
                 },
                 [this](const steps::DeleteGroup& s) {
                   groups_.delete_group(s.group, [this, &s](const engine::DeleteGroupResult& r) {
                     record_group(s.group, "", "delete-group " + s.group, r.error, r.error == ErrorCode::NONE ? "done" : r.message);
                   });
                 },
                 [this](const auto& s) {
                   if constexpr (requires { run(s); }) run(s);
                   else LOGSIM_ASSERT(false, std::string(s.kName) + " is not an admin step");
                 },
             },
             step.action);
}

void AdminApp::run(const steps::CreateTopic& step) {
  const TopicSpec& t = step.topic;
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
  // The note names a compacted topic's policy and tombstone retention, so a checker of the
  // history alone knows them.
  const std::string what = "create-topic " + t.name +
                           (t.log.compacts() ? " cleanup.policy=compact delete.retention.ms=" + std::to_string(t.log.delete_retention_ms) : "");
  client_.create_topic(std::move(req), [this, &t, what](const engine::AdminResult& r) { record(t.name, what, r); });
}

void AdminApp::run(const steps::DescribeGroup& step) {
  groups_.describe_group(step.group, [this, &step](const engine::DescribeGroupResult& r) {
    const std::string what = "describe-group " + step.group;
    if (r.error != ErrorCode::NONE) {
      record_group(step.group, "", what, r.error, r.message);
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
    record_group(step.group, "", what, ErrorCode::NONE, out);
  });
}

void AdminApp::run(const steps::DeleteOffsets& step) {
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
        seek.partition = tp.partition;  // no offset: the group has none
        seek.note = "delete-offsets";
        ctx_.history.append(std::move(seek));
      }
    }
    record_group(step.group, step.topic, "delete-offsets " + step.group, r.error, r.error == ErrorCode::NONE ? "done" : r.message);
  });
}

void AdminApp::run(const steps::ResetOffsets& step) {
  const engine::ResetOffsetsRequest& req = step.request;
  std::string what = "reset-offsets " + step.group + " " + std::string(engine::reset_mode_name(req.mode));
  if (req.mode != engine::ResetMode::kToEarliest && req.mode != engine::ResetMode::kToLatest &&
      req.mode != engine::ResetMode::kToCurrent) {
    what += " " + std::to_string(req.value);
  }
  if (!step.topic().empty()) what += " " + step.topic();
  groups_.reset_offsets(req, [this, &step, what](const engine::ResetOffsetsResult& r) {
    std::string out = r.executed ? "executed" : (step.request.execute ? "not executed" : "dry run");
    for (const auto& row : r.rows) {
      out += "; " + row.topic + "/" + std::to_string(row.partition.value()) + " " + std::to_string(row.previous.value()) +
             " -> " + std::to_string(row.new_offset.value());
      if (r.executed) {
        auto seek = ctx_.event(properties::OpKind::kSeek, "admin");
        seek.group = step.group;
        seek.topic = row.topic;
        seek.partition = row.partition;
        seek.offset = row.new_offset;
        seek.note = "reset-offsets " + std::string(engine::reset_mode_name(step.request.mode));
        ctx_.history.append(std::move(seek));
      }
    }
    record_group(step.group, step.topic(), what, r.error, r.error == ErrorCode::NONE ? out : r.message);
  });
}

void AdminApp::record_group(const std::string& group, const std::string& topic, const std::string& what, ErrorCode error,
                            const std::string& outcome) {
  auto e = ctx_.event(properties::OpKind::kAdmin, "admin");
  e.group = group;
  e.topic = topic;
  e.error = std::string(error_name(error));
  e.note = what + (error == ErrorCode::NONE ? ": " + outcome : ": " + e.error + " " + outcome);
  ctx_.history.append(std::move(e));
}

void AdminApp::record(const std::string& topic, const std::string& what, const engine::AdminResult& result) {
  auto e = ctx_.event(properties::OpKind::kAdmin, "admin");
  e.topic = topic;
  e.error = std::string(error_name(result.error));
  e.note = what + (result.error == ErrorCode::NONE ? ": done" : ": " + e.error + " " + result.message);
  ctx_.history.append(std::move(e));
}

}  // namespace logsim::scenarios
