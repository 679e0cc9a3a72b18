// Building the world from a scenario, applying its timeline, and gathering the result.
#include "scenarios/runner.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "engine/broker/broker.h"
#include "engine/controller/controller.h"
#include "engine/base/assert.h"
#include "properties/checker.h"
#include "properties/group_checkers.h"
#include "scenarios/cluster.h"
#include "scenarios/apps/admin_app.h"
#include "scenarios/apps/consumer_app.h"
#include "scenarios/apps/group_member_app.h"
#include "scenarios/apps/producer_app.h"
#include "sim/world.h"

namespace logsim::scenarios {
namespace {

// Applies one timeline step to the world, and notes it in the history for context (the
// step's name, its targets, and what it did).
void apply_step(sim::World& world, RunContext& ctx, const TimelineStep& step) {
  auto id = [&](const std::string& name) { return *world.find(name); };
  std::string detail;
  std::visit(overloaded{
                 [&](const steps::Heal&) { world.network_fault("heal", [](sim::Network& n) { n.heal(); }); },
                 [&](const steps::Partition& p) {
                   std::vector<std::vector<NodeId>> groups;
                   for (const auto& g : p.groups) {
                     groups.emplace_back();
                     for (const auto& n : g) groups.back().push_back(id(n));
                   }
                   if (!p.one_way) {
                     world.network_fault("partition", [&](sim::Network& n) { n.partition(groups); });
                     return;
                   }
                   detail = " (one-way: only from the first group)";
                   world.network_fault("partition one-way", [&](sim::Network& n) {
                     for (const NodeId from : groups.front()) {
                       for (std::size_t g = 1; g < groups.size(); ++g) {
                         for (const NodeId to : groups[g]) n.cut_one_way(from, to);
                       }
                     }
                   });
                 },
                 [&](const steps::SetNetwork& s) {
                   detail = " latency_min " + std::to_string(to_millis(s.network.latency_min_ns)) + "ms loss " +
                            std::to_string(s.network.loss_probability);
                   if (!s.target) {
                     world.network_fault("set-network", [&](sim::Network& n) { n.set_default(s.network); });
                     return;
                   }
                   const NodeId target = id(*s.target);
                   world.network_fault("set-network " + *s.target, [&](sim::Network& n) {
                     for (std::size_t i = 0; i < world.node_count(); ++i) {
                       const NodeId other(static_cast<std::int32_t>(i));
                       if (other == target) continue;
                       n.set_link(target, other, s.network);
                       n.set_link(other, target, s.network);
                     }
                   });
                 },
                 [&](const steps::Clog& s) {
                   const NodeId n = id(s.target);
                   const Nanos until = world.now() + s.length;
                   world.network_fault("clog " + s.target, [&](sim::Network& net) { net.clog_node(n, until); });
                   detail = " for " + std::to_string(to_millis(s.length)) + "ms";
                 },
                 [&](const steps::ClockSkew& s) {
                   world.set_clock(id(s.target), s.offset, s.drift_ppm);
                   detail = " offset " + std::to_string(to_millis(s.offset)) + "ms drift " + std::to_string(s.drift_ppm) + "ppm";
                 },
                 [&](const steps::Isolate& s) {
                   const NodeId n = id(s.target);
                   world.network_fault("isolate " + s.target, [&](sim::Network& net) { net.isolate(n); });
                 },
                 [&](const steps::Crash& s) { world.crash(id(s.target)); },
                 [&](const steps::PowerLoss& s) { world.power_loss(id(s.target)); },
                 [&](const steps::Stop& s) { world.stop(id(s.target)); },
                 [&](const steps::RemoveMember& s) { world.stop(id(s.target)); },  // close(): LeaveGroup
                 [&](const steps::AddMember& s) { world.start(id(s.target)); },
                 [&](const steps::Restart& s) { world.restart(id(s.target)); },
                 [&](const steps::Pause& s) { world.pause(id(s.target)); },
                 [&](const steps::Resume& s) { world.resume(id(s.target)); },
                 [&](const steps::ClientFaults&) { detail = " (no effect here: logsim serve applies it to real clients)"; },
                 [&](const auto&) {
                   LOGSIM_ASSERT(false, "step " + std::string(step.name()) + " is not the runner's to apply");
                 },
             },
             step.action);
  const std::vector<std::string> targets = step.targets();
  auto e = ctx.event(properties::OpKind::kFault, targets.empty() ? "" : targets.front());
  e.note = step.name();
  for (std::size_t i = 0; i < targets.size(); ++i) e.note += (i ? " | " : " ") + targets[i];
  e.note += detail;
  ctx.history.append(std::move(e));
}

// The label of a step's event in the trace: its name and first target.
std::string step_label(const TimelineStep& step) {
  const std::vector<std::string> targets = step.targets();
  return std::string(step.name()) + " " + (targets.empty() ? "" : targets.front());
}

// The quiet period after the fault phase: faults heal (cuts, and set-network's link options;
// clogs end by themselves, clock skews stay), infrastructure comes back (brokers and the
// controller restart if they are down, paused nodes resume); applications stay as the
// timeline left them.
void begin_quiet_period(sim::World& world, RunContext& ctx, const Scenario& scenario, const std::vector<NodeId>& brokers) {
  // set-network steps are undone too: every link back to the scenario's network options.
  const bool network_changed = std::any_of(scenario.timeline.begin(), scenario.timeline.end(),
                                           [](const TimelineStep& s) { return s.is<steps::SetNetwork>(); });
  world.network_fault("heal", [&](sim::Network& n) {
    n.heal();
    if (!network_changed) return;
    n.set_default(scenario.cluster.network);
    for (std::size_t i = 0; i < world.node_count(); ++i) {
      for (std::size_t j = 0; j < world.node_count(); ++j) {
        if (i != j) n.clear_link(NodeId(static_cast<std::int32_t>(i)), NodeId(static_cast<std::int32_t>(j)));
      }
    }
  });
  std::vector<NodeId> infrastructure = brokers;
  if (auto c = world.find("controller")) infrastructure.push_back(*c);
  for (std::size_t i = 0; i < world.node_count(); ++i) {
    const NodeId id(static_cast<std::int32_t>(i));
    const bool infra = std::find(infrastructure.begin(), infrastructure.end(), id) != infrastructure.end();
    if (world.state(id) == sim::NodeState::kPaused) {
      world.resume(id);
    } else if (infra && (world.state(id) == sim::NodeState::kCrashed || world.state(id) == sim::NodeState::kDown)) {
      world.restart(id);
    }
  }
  auto e = ctx.event(properties::OpKind::kFault, "");
  e.note = "quiesce: faults healed for " + std::to_string(to_millis(scenario.quiesce)) + " ms";
  ctx.history.append(std::move(e));
}

void count_history(const properties::History& h, std::map<std::string, std::int64_t>& stats) {
  using properties::OpKind;
  for (const char* k : {"records.sent", "records.acknowledged", "records.failed", "records.unknown", "faults"}) stats[k] = 0;
  // Counted per group and per process first (a lookup by name, no string built per event); a
  // stat exists only once an event touched it, as it would if counted into `stats` directly.
  struct GroupCounts {
    std::optional<std::int64_t> processed, generation, accepted, rejected;
  };
  std::map<properties::Id, GroupCounts> groups;  // by the history's ids of their names
  std::map<properties::Id, std::int64_t> processed_by;
  const auto bump = [](std::optional<std::int64_t>& n) { n = n.value_or(0) + 1; };
  // Read packed, without decoding each event's strings.
  for (std::size_t i = 0; i < h.size(); ++i) {
    const properties::History::Entry& e = h.entry(i);
    // A commit's outcome is one event per partition, appended together: count the commit once.
    const bool same_commit = i > 0 && h.entry(i - 1).kind == e.kind && h.process(h.entry(i - 1)) == h.process(e) &&
                             h.commit_id(i - 1) == h.commit_id(i);
    if (!h.text(h.group(e)).empty()) {
      GroupCounts& g = groups[h.group(e)];
      if (e.kind == OpKind::kProcess) bump(g.processed);
      if (e.kind == OpKind::kAssign) g.generation = std::max(g.generation.value_or(0), std::int64_t{h.generation(e)});
      if (e.kind == OpKind::kCommitOk && !same_commit) bump(g.accepted);
      if (e.kind == OpKind::kCommitFail && !same_commit) bump(g.rejected);
    }
    switch (e.kind) {
      case OpKind::kSendInvoke: ++stats["records.sent"]; break;
      case OpKind::kSendOk: ++stats["records.acknowledged"]; break;
      case OpKind::kSendFail: ++stats["records.failed"]; break;
      case OpKind::kSendInfo: ++stats["records.unknown"]; break;
      case OpKind::kProcess: ++processed_by[h.process(e)]; break;
      case OpKind::kFault: ++stats["faults"]; break;
      case OpKind::kAdmin: ++stats["admin.operations"]; break;
      case OpKind::kCommitOk: stats["commits.accepted"] += same_commit ? 0 : 1; break;
      case OpKind::kCommitFail: stats["commits.rejected"] += same_commit ? 0 : 1; break;
      case OpKind::kTxnBegin: ++stats["transactions.begun"]; break;
      case OpKind::kTxnCommit: ++stats["transactions.committed"]; break;
      case OpKind::kTxnAbort: ++stats["transactions.aborted"]; break;
      case OpKind::kTxnInfo: ++stats["transactions.unknown"]; break;
      default: break;
    }
  }
  for (const auto& [name, g] : groups) {
    const std::string prefix = "group." + h.text(name) + ".";
    if (g.processed) stats[prefix + "processed"] = *g.processed;
    if (g.generation) stats[prefix + "generation"] = *g.generation;
    if (g.accepted) stats[prefix + "commits.accepted"] = *g.accepted;
    if (g.rejected) stats[prefix + "commits.rejected"] = *g.rejected;
  }
  for (const auto& [process, n] : processed_by) stats["records.processed." + h.text(process)] = n;
}

// Adds the brokers (broker-1..N) and the controller; returns the brokers' ids.
std::vector<NodeId> add_cluster(sim::World& world, const Scenario& scenario) {
  const ClusterIds ids = cluster_ids(scenario);
  const engine::BrokerConfig broker_config = scenarios::broker_config(scenario, ids);
  for (std::int32_t b = 1; b <= scenario.cluster.brokers; ++b) {
    const NodeId id = world.add_node("broker-" + std::to_string(b), [broker_config](Env& env) {
      return std::make_unique<engine::Broker>(env, broker_config);
    }, scenario.cluster.disk);
    LOGSIM_ASSERT(id == ids.brokers[static_cast<std::size_t>(b - 1)], "broker ids out of order");
  }
  const engine::ControllerConfig cc = controller_config(scenario, ids);
  const NodeId id = world.add_node("controller", [cc](Env& env) { return std::make_unique<engine::Controller>(env, cc); },
                                   scenario.cluster.disk);
  LOGSIM_ASSERT(id == ids.controller, "controller id out of order");
  return ids.brokers;
}

char state_letter(sim::NodeState s) {
  switch (s) {
    case sim::NodeState::kUp: return 'U';
    case sim::NodeState::kCrashed: return 'C';
    case sim::NodeState::kPaused: return 'P';
    case sim::NodeState::kDown: return 'D';
  }
  return '?';
}

// Which part each node plays, by name, for the report's lanes.
std::vector<std::string> node_roles(const sim::World& world, const Scenario& scenario) {
  std::map<std::string, std::string> role;
  for (std::int32_t b = 1; b <= scenario.cluster.brokers; ++b) role["broker-" + std::to_string(b)] = "broker";
  role["controller"] = "controller";
  role["admin"] = "admin";
  for (const auto& p : scenario.producers) role[p.name] = "producer";
  for (const auto& c : scenario.consumers) role[c.name] = "consumer";
  for (const auto& g : scenario.groups) {
    for (std::int32_t i = 1; i <= g.member_count(); ++i) role[g.member_name(i)] = "member";
  }
  std::vector<std::string> out;
  for (std::size_t i = 0; i < world.node_count(); ++i) {
    auto it = role.find(world.name(NodeId(static_cast<std::int32_t>(i))));
    out.push_back(it == role.end() ? "other" : it->second);
  }
  return out;
}

// Reads the cluster between two chunks of the run: node states, and each user partition as its
// live leader (the one with the highest epoch, when a deposed leader has not yet heard) sees it.
void take_sample(sim::World& world, const std::vector<NodeId>& brokers, Samples& samples) {
  Sample s;
  s.at = world.now();
  for (std::size_t i = 0; i < world.node_count(); ++i) s.node_states += state_letter(world.state(NodeId(static_cast<std::int32_t>(i))));
  s.partitions.resize(samples.partitions.size());
  for (const NodeId b : brokers) {
    if (world.state(b) != sim::NodeState::kUp && world.state(b) != sim::NodeState::kPaused) continue;
    const auto* broker = dynamic_cast<const engine::Broker*>(world.node(b));
    if (broker == nullptr) continue;
    for (const auto& [key, p] : broker->state().partitions) {
      if (key.topic.rfind("__", 0) == 0 || !p.led_by(b) || !p.log) continue;
      const std::string name = key.topic + "/" + std::to_string(key.partition.value());
      auto it = std::find(samples.partitions.begin(), samples.partitions.end(), name);
      if (it == samples.partitions.end()) {
        samples.partitions.push_back(name);
        s.partitions.emplace_back();
        it = samples.partitions.end() - 1;
      }
      PartitionSample& ps = s.partitions[static_cast<std::size_t>(it - samples.partitions.begin())];
      if (ps.leader >= 0 && ps.leader_epoch >= p.state.leader_epoch.value()) continue;
      ps.leader = b.value();
      ps.leader_epoch = p.state.leader_epoch.value();
      ps.log_end = p.log->log_end_offset().value();
      ps.high_watermark = p.high_watermark.value();
      ps.last_stable = p.last_stable_offset().value();
      ps.isr = static_cast<std::int32_t>(p.state.isr.size());
    }
  }
  samples.samples.push_back(std::move(s));
}

}  // namespace

Nanos sample_interval(Nanos total) {
  const Nanos step = total / 400;
  return std::max<Nanos>(millis(1), step - step % millis(1));
}

bool meets_expectation(const Expectation& expect, const properties::Verdict& verdict, std::string& detail) {
  const std::string got(properties::outcome_name(verdict.outcome));
  if (got != expect.verdict) {
    detail = "expected verdict \"" + expect.verdict + "\", got \"" + got + "\"";
    return false;
  }
  std::set<std::string> found;
  for (const auto& v : verdict.violations) found.insert(v.anomaly);
  const std::set<std::string> wanted(expect.anomalies.begin(), expect.anomalies.end());
  if (!wanted.empty() && found != wanted) {
    detail = "expected anomalies {";
    for (const auto& a : wanted) detail += " " + a;
    detail += " }, found {";
    for (const auto& a : found) detail += " " + a;
    detail += " }";
    return false;
  }
  return true;
}

namespace {

// The steps of one run, by who carries them out. The applications keep pointers into these,
// so they live as long as the world.
struct RunSteps {
  std::vector<TimelineStep> drawn;         // the random fault schedule's, for this seed
  std::vector<TimelineStep> app;           // produce and seek: the timeline's, then the drawn ones
  std::vector<const TimelineStep*> admin;  // the admin node's (topic and group admin steps)
  std::vector<TopicSpec> topics;           // under /topics, and those create-topic steps make
};

RunSteps sort_steps(const Scenario& scenario, sim::World& world) {
  RunSteps steps;
  // The random fault schedule, drawn from its own stream of the seed.
  if (scenario.faults) {
    Rng rng = world.stream("faults");
    steps.drawn = draw_faults(*scenario.faults, scenario, rng);
  }
  const auto is_app_step = [](const TimelineStep& step) { return step.is_app_step(); };
  std::copy_if(scenario.timeline.begin(), scenario.timeline.end(), std::back_inserter(steps.app), is_app_step);
  std::copy_if(steps.drawn.begin(), steps.drawn.end(), std::back_inserter(steps.app), is_app_step);
  steps.topics = scenario.topics;
  for (const auto& step : scenario.timeline) {
    if (!step.is_admin()) continue;
    steps.admin.push_back(&step);
    if (const auto* create = step.as<steps::CreateTopic>()) steps.topics.push_back(create->topic);
  }
  return steps;
}

// The applications: producers, consumers (they assign every partition of their topics, those
// create-topic steps make too, with the partition count they are created with), group
// members (added ones too), and the admin node if there are admin steps.
// A user's application in place of logsim's own on a node (the loader checked its name).
void add_user_app(sim::World& world, const RunOptions& options, AppSite site) {
  const auto it = options.apps.find(site.app);
  LOGSIM_ASSERT(it != options.apps.end(), "no factory for the application \"" + site.app + "\" on " + site.node);
  const std::string node = site.node;
  world.add_node(node, [factory = it->second, site = std::move(site)](Env& env) { return factory(env, site); });
}

void add_applications(sim::World& world, const Scenario& scenario, RunContext& ctx, const RunSteps& steps,
                      const std::vector<NodeId>& bootstrap, const RunOptions& options) {
  for (const auto& p : scenario.producers) {
    ctx.producers.emplace(p.name, ProducerProgress{0, world.stream("workload/" + p.name)});
    if (!p.app.empty()) {
      add_user_app(world, options, AppSite{p.app, p.name, &p, nullptr, &ctx, bootstrap, cluster_ids(scenario).controller});
      continue;
    }
    world.add_node(p.name, [&p, &ctx, &steps, bootstrap](Env& env) {
      return std::make_unique<ProducerApp>(env, p, ctx, bootstrap, steps.app);
    });
  }
  for (const auto& c : scenario.consumers) {
    world.add_node(c.name, [&c, &ctx, &steps, bootstrap](Env& env) {
      return std::make_unique<ConsumerApp>(env, c, steps.topics, ctx, bootstrap, steps.app);
    });
  }
  for (const auto& g : scenario.groups) {
    for (std::int32_t i = 1; i <= g.member_count(); ++i) {
      if (!g.app.empty()) {
        add_user_app(world, options,
                     AppSite{g.app, g.member_name(i), nullptr, &g, &ctx, bootstrap, cluster_ids(scenario).controller, &steps.app});
        continue;
      }
      world.add_node(g.member_name(i), [&g, i, &ctx, &steps, bootstrap](Env& env) {
        return std::make_unique<GroupMemberApp>(env, g, g.member_name(i), ctx, bootstrap, steps.app);
      });
    }
  }
  if (!steps.admin.empty()) {
    const NodeId controller = *world.find("controller");
    world.add_node("admin", [&steps, &scenario, &ctx, controller, bootstrap](Env& env) {
      return std::make_unique<AdminApp>(env, steps.admin, scenario.cluster.config, ctx, controller, bootstrap);
    });
  }
}

// Every node starts now, but a group's members with a "start" (then), and those add-member
// steps start (by their steps).
void start_nodes(sim::World& world, const Scenario& scenario) {
  std::map<NodeId, Nanos> delayed;  // node -> when it starts; -1: by its add-member step
  for (const auto& g : scenario.groups) {
    for (std::int32_t i = 1; i <= g.member_count(); ++i) {
      const NodeId id = *world.find(g.member_name(i));
      if (i > g.members) delayed[id] = -1;
      else if (g.start > 0) delayed[id] = g.start;
    }
  }
  for (std::size_t i = 0; i < world.node_count(); ++i) {
    const NodeId id(static_cast<std::int32_t>(i));
    auto it = delayed.find(id);
    if (it == delayed.end()) world.start(id);
    else if (it->second >= 0) world.schedule(it->second, "start " + world.name(id), [&world, id] { world.start(id); });
  }
}

// The runner's own steps (faults, membership) from the timeline and the drawn schedule, and the
// quiet period.
void schedule_steps(sim::World& world, RunContext& ctx, const Scenario& scenario, const RunSteps& steps,
                    const std::vector<NodeId>& bootstrap) {
  for (const auto& step : scenario.timeline) {
    if (step.is_admin() || step.is_app_step()) continue;  // the admin node, or the target application, carries these out
    world.schedule(step.at, step_label(step), [&world, &ctx, &step] { apply_step(world, ctx, step); });
  }
  for (const auto& step : steps.drawn) {
    if (step.is_app_step()) continue;
    world.schedule(step.at, step_label(step), [&world, &ctx, &step] { apply_step(world, ctx, step); });
  }
  if (scenario.quiesce > 0) {
    world.schedule(scenario.duration, "quiesce", [&world, &ctx, &scenario, &bootstrap] { begin_quiet_period(world, ctx, scenario, bootstrap); });
  }
}

// The run, in chunks: between them the cluster is sampled for the report and progress is told.
// Running to t1 then to t2 runs exactly the events one run to t2 would, in the same order.
void run_in_chunks(sim::World& world, const Scenario& scenario, const RunOptions& options, const std::vector<NodeId>& brokers,
                   Samples& samples) {
  const Nanos end = scenario.duration + scenario.quiesce;
  samples.interval = sample_interval(end);
  for (std::size_t i = 0; i < world.node_count(); ++i) samples.nodes.push_back(world.name(NodeId(static_cast<std::int32_t>(i))));
  samples.node_roles = node_roles(world, scenario);
  take_sample(world, brokers, samples);
  while (world.now() < end) {
    const Nanos next = std::min(end, world.now() + samples.interval);
    if (world.run_until(next) == sim::RunEnd::kEventLimit) break;
    take_sample(world, brokers, samples);
    if (options.progress) options.progress(world.now(), end);
  }
}

}  // namespace

std::vector<std::string> app_names(const AppFactories& apps) {
  std::vector<std::string> names;
  for (const auto& [name, factory] : apps) names.push_back(name);
  return names;
}

RunOutput run_scenario(const Scenario& scenario, const RunOptions& options) {
  RunOutput out;
  sim::WorldOptions wopts;
  wopts.network = scenario.cluster.network;
  wopts.record_trace = options.record_trace;
  sim::World world(options.seed, wopts);
  RunContext ctx{out.history, [&world] { return world.now(); }, {}};
  ctx.poison_salt = world.stream("failures").next_u64();
  ctx.plants = scenario.plants;
  const RunSteps steps = sort_steps(scenario, world);
  ctx.step_begun.assign(steps.app.size(), 0);
  properties::CheckerSet checkers;
  checkers.ignore(scenario.ignored);
  for (auto& c : scenario_checkers(scenario)) checkers.add(std::move(c));
  for (const CheckerFactory& make : options.checkers) checkers.add(make());
  checkers.attach(out.history);
  // The compacted topics the cluster starts with, so that a checker of the history alone
  // (logsim check) knows which topics compaction may have thinned, and how long tombstones stay.
  for (const TopicSpec& t : scenario.topics) {
    if (!t.log.compacts()) continue;
    auto e = ctx.event(properties::OpKind::kAdmin, "admin");
    e.topic = t.name;
    e.error = "NONE";
    e.note = "create-topic " + t.name + " cleanup.policy=compact delete.retention.ms=" + std::to_string(t.log.delete_retention_ms) +
             ": done (at the start)";
    out.history.append(std::move(e));
  }

  const std::vector<NodeId> bootstrap = add_cluster(world, scenario);
  add_applications(world, scenario, ctx, steps, bootstrap, options);
  start_nodes(world, scenario);
  schedule_steps(world, ctx, scenario, steps, bootstrap);
  run_in_chunks(world, scenario, options, bootstrap, out.samples);

  RunResult& r = out.result;
  r.scenario = scenario.name;
  r.file = scenario.file;
  r.seed = options.seed;
  r.trace_hash = world.trace().hash();
  r.trace_events = world.trace().size();
  r.simulated_ns = world.now();
  r.verdict = checkers.finish();
  for (const auto& [name, value] : r.verdict.figures) r.stats[name] = value;
  for (const auto& a : properties::anomaly_names()) {
    if (scenario.ignored.contains(a)) r.ignored.push_back(a);
  }
  out.history.clear_observers();  // the checkers die with this scope; the history goes on to the caller
  r.stats["sim.events"] = static_cast<std::int64_t>(world.events_run());
  count_history(out.history, r.stats);
  r.expectation_met = meets_expectation(scenario.expect, r.verdict, r.expectation_detail);
  out.trace = world.trace();
  return out;
}

properties::CheckerOptions checker_options(const Scenario& scenario) {
  properties::CheckerOptions options;
  options.compacted_topics.emplace();
  for (const auto& t : scenario.topics) {
    if (t.log.compacts()) options.compacted_topics->insert(t.name);
  }
  for (const auto& step : scenario.timeline) {
    const auto* create = step.as<steps::CreateTopic>();
    if (create && create->topic.log.compacts()) options.compacted_topics->insert(create->topic.name);
  }
  options.ignored = scenario.ignored;
  options.max_realtime_lag = scenario.max_realtime_lag;
  options.write_isolation = scenario.write_isolation;
  // Groups owe what was acknowledged during the fault phase only when a quiet period follows it.
  if (scenario.quiesce > 0) options.unseen_required_before = scenario.duration;
  return options;
}

std::vector<std::unique_ptr<properties::Checker>> scenario_checkers(const Scenario& scenario) {
  return properties::default_checker_list(checker_options(scenario));
}

}  // namespace logsim::scenarios
