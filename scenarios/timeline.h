// A scenario's timeline steps, typed: one small struct per action (see docs/scenarios.md for
// each action's keys), and a TimelineStep holding one of them with its time and its place in
// the file. The loader makes them; the runner applies the fault steps, the admin node carries
// out the admin steps, and the target application the application steps, each with std::visit
// (or std::get_if) over the action, never by comparing its name.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "engine/base/types.h"
#include "engine/client/group_admin.h"
#include "engine/protocol/admin_messages.h"
#include "scenarios/topic_spec.h"
#include "sim/network.h"

namespace logsim::scenarios {

// Each action's struct names itself as scenario files do (kName) and holds its keys.
namespace steps {

struct Restart;
struct Resume;
struct Heal;

// Node faults, each aimed at one node. A fault that a later step undoes names it as Repair.
struct Crash { static constexpr std::string_view kName = "crash"; using Repair = Restart; std::string target; };
struct PowerLoss { static constexpr std::string_view kName = "power-loss"; using Repair = Restart; std::string target; };  // unflushed writes lost
struct Stop { static constexpr std::string_view kName = "stop"; using Repair = Restart; std::string target; };  // a clean shutdown
struct Restart { static constexpr std::string_view kName = "restart"; std::string target; };
struct Pause { static constexpr std::string_view kName = "pause"; using Repair = Resume; std::string target; };
struct Resume { static constexpr std::string_view kName = "resume"; std::string target; };

// Network and clock faults.
struct Isolate { static constexpr std::string_view kName = "isolate"; using Repair = Heal; std::string target; };
struct Partition {
  static constexpr std::string_view kName = "partition";
  using Repair = Heal;
  std::vector<std::vector<std::string>> groups;  // two or more groups of node names, disjoint
  bool one_way = false;                          // only messages from the first group to the others are cut
};
struct Heal { static constexpr std::string_view kName = "heal"; };  // ends every cut (not clogs, not set-network)
struct Clog {
  static constexpr std::string_view kName = "clog";
  std::string target;
  Nanos length = 0;  // "for": how long messages to and from the target wait
};
struct SetNetwork {
  static constexpr std::string_view kName = "set-network";
  std::optional<std::string> target;  // none: every link's default; a node: the links to and from it
  sim::LinkOptions network;           // the links' new options
};
struct ClockSkew {
  static constexpr std::string_view kName = "clock-skew";
  std::string target;
  Nanos offset = 0;       // the target's clock runs this far ahead (or behind)
  double drift_ppm = 0;   // and drifts this many parts per million
};

// Topic admin steps, carried out by the "admin" node through the admin client.
struct CreateTopic { static constexpr std::string_view kName = "create-topic"; TopicSpec topic; };
struct DeleteTopic { static constexpr std::string_view kName = "delete-topic"; std::string topic; };
struct AddPartitions {
  static constexpr std::string_view kName = "add-partitions";
  std::string topic;
  std::int32_t partitions = 0;  // the new total
};
struct AlterConfig {
  static constexpr std::string_view kName = "alter-config";
  std::string topic;
  std::vector<AlterableConfig> configs;  // Kafka keys and values (kDelete for null)
};

// Group admin steps (kafka-consumer-groups), carried out by the "admin" node too.
struct ResetOffsets {
  static constexpr std::string_view kName = "reset-offsets";
  std::string group;
  engine::ResetOffsetsRequest request;  // group_id filled in; topics: one (--topic) or none (--all-topics)
  std::string topic() const { return request.topics.empty() ? std::string() : request.topics.front().topic; }
};
struct DeleteOffsets {
  static constexpr std::string_view kName = "delete-offsets";
  std::string group;
  std::string topic;
  std::int32_t partitions = 0;  // the topic's partition count at the step's time (the loader works it out)
};
struct DeleteGroup { static constexpr std::string_view kName = "delete-group"; std::string group; };
struct DescribeGroup { static constexpr std::string_view kName = "describe-group"; std::string group; };
// Admin.removeMembersFromConsumerGroup (KIP-345): LeaveGroup naming static members by their
// group.instance.id, so the group rebalances now, not after their session timeouts.
struct RemoveStaticMembers {
  static constexpr std::string_view kName = "remove-static-members";
  std::string group;
  std::vector<std::string> instances;  // group.instance.ids
};

// Application steps: the target application carries them out itself.
struct Produce {
  static constexpr std::string_view kName = "produce";
  std::string target;         // a producer
  std::int64_t count = 0;     // how many records
  double rate_per_sec = 0;    // how fast (0: all at once)
  std::vector<std::string> keys;     // the burst's keys in turn (none: the producer's key choice)
  std::optional<double> tombstones;  // the share of null values (none: the producer's share)
};
struct Seek {
  static constexpr std::string_view kName = "seek";
  std::string target;          // a group member or consumer
  std::string topic;           // one it reads
  std::int32_t partition = -1; // -1: every partition of the topic the target holds
  engine::ResetMode mode = engine::ResetMode::kToEarliest;
  std::int64_t value = 0;      // the mode's argument, as in ResetOffsetsRequest
};

// Faults on real clients' connections to the brokers (logsim serve): for `length`, each request
// to the target broker (none: every broker) is answered `delay` later, dropped unanswered with
// probability `drop`, has its connection reset with probability `reset`, or is answered with
// `error` (on every partition it names) with probability `error_share`. A simulated run has no
// client connections: there the step is a fault event with no effect.
struct ClientFaults {
  static constexpr std::string_view kName = "client-faults";
  std::optional<std::string> target;
  Nanos length = 0;
  Nanos delay = 0;
  double drop = 0;
  double reset = 0;
  ErrorCode error = ErrorCode::NONE;
  double error_share = 0;
};

// Group membership steps, applied by the runner like node faults.
struct AddMember {
  static constexpr std::string_view kName = "add-member";
  std::string group;
  std::string target;  // the new member's name (its group's next one, worked out by the loader)
};
struct RemoveMember { static constexpr std::string_view kName = "remove-member"; std::string target; };  // close(): LeaveGroup

}  // namespace steps

using Action = std::variant<steps::Crash, steps::PowerLoss, steps::Stop, steps::Restart, steps::Pause, steps::Resume,
                            steps::Isolate, steps::Partition, steps::Heal, steps::Clog, steps::SetNetwork,
                            steps::ClockSkew, steps::CreateTopic, steps::DeleteTopic, steps::AddPartitions,
                            steps::AlterConfig, steps::ResetOffsets, steps::DeleteOffsets, steps::DeleteGroup,
                            steps::DescribeGroup, steps::RemoveStaticMembers, steps::Produce, steps::Seek,
                            steps::AddMember, steps::RemoveMember, steps::ClientFaults>;

// The visitor idiom: overloaded{[](const steps::Crash&) {...}, [](const auto&) {...}}.
template <class... Fs>
struct overloaded : Fs... {
  using Fs::operator()...;
};
template <class... Fs>
overloaded(Fs...) -> overloaded<Fs...>;  // clang before 17 deduces no aggregate's arguments

// One timeline step: at `at`, do `action`.
struct TimelineStep {
  Nanos at = 0;
  Action action;
  std::string pointer;  // JSON pointer of the step in its file ("/faults" for drawn ones), for errors

  template <class T>
  const T* as() const { return std::get_if<T>(&action); }
  template <class T>
  bool is() const { return std::holds_alternative<T>(action); }

  // The action's name as scenario files spell it.
  std::string_view name() const;
  // The nodes the step names, as the history notes them: the target, or a partition's groups
  // each comma-joined, or none (heal, admin steps, set-network of every link).
  std::vector<std::string> targets() const;
  // Every node the step names, one by one.
  std::vector<std::string> nodes() const;

  bool is_group_admin() const;  // reset-offsets, delete-offsets, delete-group, describe-group
  bool is_admin() const;        // those and the topic admin steps: the "admin" node's
  bool is_app_step() const;     // produce, seek: the target application's
};

// Every action's name, in the variant's order.
const std::vector<std::string>& action_names();

// By name, for tools that edit scenario files (the shrinker): the action that undoes this one
// (crash, power-loss, stop: restart; pause: resume; isolate, partition: heal), if any; and
// whether an action is such a repair.
std::optional<std::string_view> repair_of(std::string_view action);
bool is_repair(std::string_view action);

}  // namespace logsim::scenarios
