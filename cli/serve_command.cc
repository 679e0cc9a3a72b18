// logsim serve (see serve_command.h): the scenario's cluster on a live world, one TCP listener
// per broker, the timeline's cluster faults in wall-clock time, a clean stop.
#include "cli/serve_command.h"

#include <fmt/format.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>

#include <malloc.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <functional>
#include <map>
#include <set>
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <stdexcept>

#include "cli/exit_codes.h"
#include "cli/serve_recorder.h"
#include "engine/broker/broker.h"
#include "engine/controller/controller.h"
#include "engine/coordinator/group_coordinator.h"
#include "live/disks.h"
#include "live/live_world.h"
#include "live/server.h"
#include "properties/checker.h"
#include "reports/atomic_file.h"
#include "reports/history_jsonl.h"
#include "reports/run_dir.h"
#include "scenarios/apps/admin_app.h"
#include "scenarios/apps/run_context.h"
#include "scenarios/runner.h"
#include "scenarios/cluster.h"
#include "scenarios/loader.h"

namespace logsim::cli {
namespace {

namespace asio = boost::asio;
using scenarios::Scenario;

// An error in what the user asked for: exit 2 with the message.
struct ServeError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct ListenAt {
  std::string host;
  std::uint16_t port = 0;
};

ListenAt parse_listen(const ServeArgs& args) {
  const auto colon = args.listen.rfind(':');
  if (colon == std::string::npos) throw ServeError("--listen " + args.listen + ": expected HOST:PORT, e.g. 127.0.0.1:9092");
  ListenAt at{args.listen.substr(0, colon), 0};
  const std::string port = args.listen.substr(colon + 1);
  try {
    const int p = std::stoi(port);
    if (p < 0 || p > 65535 || std::to_string(p) != port) throw std::out_of_range(port);
    at.port = static_cast<std::uint16_t>(p);
  } catch (const std::exception&) {
    throw ServeError("--listen " + args.listen + ": the port must be a number from 0 to 65535");
  }
  boost::system::error_code ec;
  const auto address = asio::ip::make_address(at.host, ec);
  if (ec) throw ServeError("--listen " + args.listen + ": '" + at.host + "' is not an IP address (e.g. 127.0.0.1)");
  if (!address.is_loopback() && !args.allow_remote) {
    throw ServeError("--listen " + args.listen + ": not a loopback address. logsim serve has no authentication; "
                     "add --allow-remote to listen there anyway");
  }
  return at;
}

Scenario scenario_for(const ServeArgs& args) {
  Scenario s;
  if (!args.scenario.empty()) {
    s = scenarios::load_scenario_file(args.scenario);
  } else {
    if (args.brokers < 1 || args.brokers > 64) throw ServeError("--brokers must be from 1 to 64");
    s.name = "serve";
    s.cluster.brokers = args.brokers;
    s.cluster.config.offsets_topic_replication_factor = std::min(args.brokers, 3);
    s.cluster.config.default_replication_factor = std::min(args.brokers, 3);
  }
  if (args.num_partitions != -1) {
    if (args.num_partitions < 1) throw ServeError("--num-partitions must be at least 1");
    s.cluster.config.num_partitions = args.num_partitions;
  }
  return s;
}

std::unique_ptr<live::LiveDisk> disk_for(const ServeArgs& args, const std::string& node) {
  if (args.data.empty()) return std::make_unique<live::MemDisk>();
  return std::make_unique<live::FileDisk>(args.data + "/" + node);
}

// The cluster's nodes on the live world, started: broker-1..N, then the controller.
scenarios::ClusterIds add_cluster(live::LiveWorld& world, const Scenario& s, const ServeArgs& args) {
  const scenarios::ClusterIds ids = scenarios::cluster_ids(s);
  const engine::BrokerConfig bc = scenarios::broker_config(s, ids);
  for (std::int32_t b = 1; b <= s.cluster.brokers; ++b) {
    const std::string name = "broker-" + std::to_string(b);
    world.add_node(name, [bc](Env& env) { return std::make_unique<engine::Broker>(env, bc); }, disk_for(args, name));
  }
  const engine::ControllerConfig cc = scenarios::controller_config(s, ids);
  world.add_node("controller", [cc](Env& env) { return std::make_unique<engine::Controller>(env, cc); }, disk_for(args, "controller"));
  for (std::size_t i = 0; i < world.node_count(); ++i) world.start(NodeId(static_cast<std::int32_t>(i)));
  return ids;
}

// Applies one timeline step to the live cluster. Steps about the scenario's own simulated
// clients (producers, groups, seeks) have nothing to act on here: the clients are real.
void apply(live::LiveWorld& world, live::ClientFaults& faults, const scenarios::TimelineStep& step) {
  const auto id = [&](const std::string& name) { return *world.find(name); };
  const auto all = [&world] {
    std::vector<NodeId> out;
    for (std::size_t i = 0; i < world.node_count(); ++i) {
      const NodeId n(static_cast<std::int32_t>(i));
      if (world.state(n) != live::NodeState::kRemoved) out.push_back(n);
    }
    return out;
  };
  using namespace scenarios::steps;
  std::visit(scenarios::overloaded{
                 [&](const Crash& s) { world.crash(id(s.target)); },
                 [&](const PowerLoss& s) { world.power_loss(id(s.target)); },
                 [&](const Stop& s) { world.stop(id(s.target)); },
                 [&](const Restart& s) { world.restart(id(s.target)); },
                 [&](const Pause& s) { world.pause(id(s.target)); },
                 [&](const Resume& s) { world.resume(id(s.target)); },
                 [&](const Heal&) { world.heal(); },
                 [&](const Isolate& s) {
                   const NodeId target = id(s.target);
                   for (const NodeId other : all()) {
                     if (other == target) continue;
                     world.cut(target, other);
                     world.cut(other, target);
                   }
                 },
                 [&](const Partition& p) {
                   for (std::size_t a = 0; a < p.groups.size(); ++a) {
                     for (std::size_t b = 0; b < p.groups.size(); ++b) {
                       if (a == b || (p.one_way && a != 0)) continue;
                       for (const auto& from : p.groups[a]) {
                         for (const auto& to : p.groups[b]) world.cut(id(from), id(to));
                       }
                     }
                   }
                 },
                 [&](const Clog& c) { world.clog(id(c.target), world.now() + c.length); },
                 [&](const SetNetwork& n) {
                   const sim::LinkOptions& o = n.network;
                   world.shape(n.target ? std::optional(id(*n.target)) : std::nullopt,
                               live::LinkShape{o.latency_min_ns, o.latency_mean_ns, o.tail_probability, o.tail_latency_ns_max,
                                               o.loss_probability, o.duplicate_probability, o.reorder});
                 },
                 [&](const ClockSkew& c) { world.set_clock(id(c.target), c.offset, c.drift_ppm); },
                 [&](const ClientFaults& f) {
                   live::ClientFaultRule rule{std::nullopt, world.now() + f.length, f.delay, f.drop, f.reset, f.error, f.error_share};
                   if (f.target) rule.broker = id(*f.target);
                   faults.rules.push_back(rule);
                   if (world.on_fault) {
                     world.on_fault(fmt::format("client-faults {} for {}ms: delay {}ms, drop {}, reset {}, {} {}", f.target.value_or("(every broker)"),
                                                to_millis(f.length), to_millis(f.delay), f.drop, f.reset, error_name(f.error), f.error_share));
                   }
                 },
                 [&](const auto&) {},
             },
             step.action);
}

bool applies_live(const scenarios::TimelineStep& step) {
  using namespace scenarios::steps;
  return step.is<Crash>() || step.is<PowerLoss>() || step.is<Stop>() || step.is<Restart>() || step.is<Pause>() ||
         step.is<Resume>() || step.is<Heal>() || step.is<Isolate>() || step.is<Partition>() || step.is<Clog>() ||
         step.is<ClientFaults>() || step.is<SetNetwork>() || step.is<ClockSkew>();
}

// Asks a broker for a group's coordinator every 20 ms until one is named. The first such
// request makes the cluster create __consumer_offsets (a broker asks the controller, as Kafka's
// does on the first group lookup); a client whose first FindCoordinator found no coordinator
// would wait for its own retry (librdkafka: a second), so serve does this before it lets
// clients in. An endpoint of the world: it leaves no trace in the history.
class CoordinatorWarmup final : public Node {
 public:
  CoordinatorWarmup(Env& env, NodeId broker, bool* found) : env_(env), broker_(broker), found_(found) {}
  void on_start() override { ask(); }
  void on_message(NodeId, const Message& msg) override {
    if (const auto* r = std::get_if<FindCoordinatorResponse>(&msg); r != nullptr && r->error == ErrorCode::NONE) *found_ = true;
  }
  void on_timer(TimerId, std::uint64_t) override { ask(); }
  void on_disconnect(NodeId) override {}

 private:
  void ask() {
    if (*found_) return;
    env_.send(broker_, FindCoordinatorRequest{++next_, "logsim-serve-warmup", CoordinatorKeyType::kGroup});
    env_.set_timer(millis(20), 0);
  }
  Env& env_;
  NodeId broker_;
  bool* found_;
  CorrelationId next_ = 0;
};

// Whether every broker knows every broker as live and a leader for every partition of `topics`:
// then a client's first Metadata request sees the whole cluster.
bool cluster_ready(live::LiveWorld& world, const scenarios::ClusterIds& ids,
                   const std::vector<std::pair<std::string, std::int32_t>>& topics) {
  for (const NodeId b : ids.brokers) {
    const auto* broker = dynamic_cast<const engine::Broker*>(world.node(b));
    if (broker == nullptr) return false;
    const engine::BrokerState& st = broker->state();
    if (st.live_brokers.size() != ids.brokers.size()) return false;
    for (const auto& [topic, partitions] : topics) {
      for (std::int32_t p = 0; p < partitions; ++p) {
        const auto it = st.cluster.find(TopicPartitionView(topic, PartitionId(p)));
        if (it == st.cluster.end() || it->second.leader.value() < 0) return false;
      }
    }
  }
  return true;
}

// Runs the world until `ready()`, or `limit` has passed (then false).
bool run_until(asio::io_context& io, const std::function<bool()>& ready, std::chrono::seconds limit) {
  const auto until = std::chrono::steady_clock::now() + limit;
  while (!ready()) {
    if (std::chrono::steady_clock::now() >= until) return false;
    io.restart();
    io.run_for(std::chrono::milliseconds(10));
  }
  return true;
}

// Runs the world until the cluster is ready, or `limit` has passed (then false).
bool wait_until_ready(asio::io_context& io, live::LiveWorld& world, const scenarios::ClusterIds& ids, const Scenario& s,
                      std::chrono::seconds limit) {
  std::vector<std::pair<std::string, std::int32_t>> topics;
  for (const auto& t : s.topics) topics.emplace_back(t.name, t.partitions);
  return run_until(io, [&] { return cluster_ready(world, ids, topics); }, limit);
}

// Has the cluster create __consumer_offsets and waits until every broker knows a leader for each
// of its partitions, or `limit` has passed (then false: clients' first lookups then wait).
bool warm_up_coordinators(asio::io_context& io, live::LiveWorld& world, const scenarios::ClusterIds& ids, std::chrono::seconds limit) {
  bool found = false;
  const NodeId warmup = world.add_node("coordinator-warmup", [broker = ids.brokers.front(), &found](Env& env) {
    return std::make_unique<CoordinatorWarmup>(env, broker, &found);
  }, std::make_unique<live::MemDisk>(), /*endpoint=*/true);
  world.start(warmup);
  const auto* broker = dynamic_cast<const engine::Broker*>(world.node(ids.brokers.front()));
  const std::int32_t partitions = broker == nullptr ? 0 : broker->state().config.offsets_topic_num_partitions;
  const std::vector<std::pair<std::string, std::int32_t>> offsets{{std::string(engine::kConsumerOffsetsTopic), partitions}};
  const bool ready = run_until(io, [&] { return found && cluster_ready(world, ids, offsets); }, limit);
  world.remove(warmup);
  return ready;
}

// What the user asked for, checked: exit 2 before anything starts when it is wrong.
struct ServePlan {
  Scenario scenario;
  ListenAt at;
  std::optional<Nanos> duration;
};

std::optional<ServePlan> plan(const ServeArgs& args) {
  ServePlan p;
  try {
    if (!args.data.empty() && args.in_memory) throw ServeError("--data and --in-memory: choose one");
    p.at = parse_listen(args);
    p.scenario = scenario_for(args);
    if (!args.duration.empty()) {
      p.duration = scenarios::parse_duration(args.duration);
      if (!p.duration || *p.duration <= 0) throw ServeError("--duration " + args.duration + ": expected a duration such as 30s or 5m");
    }
  } catch (const ServeError& e) {
    std::fprintf(stderr, "logsim serve: %s\n", e.what());
    return std::nullopt;
  }
  if (!asio::ip::make_address(p.at.host).is_loopback()) {
    std::fprintf(stderr, "logsim serve: WARNING: listening on %s, which is not loopback; there is no authentication\n", p.at.host.c_str());
  }
  return p;
}

// The timeline's cluster steps, armed in wall-clock time from now (the others are logged and
// skipped). The timers must outlive the run.
std::vector<std::unique_ptr<asio::steady_timer>> arm_timeline(asio::io_context& io, live::LiveWorld& world, live::ClientFaults& faults,
                                                              const Scenario& s, const std::function<void(std::string_view)>& log) {
  std::vector<std::unique_ptr<asio::steady_timer>> steps;
  for (const auto& step : s.timeline) {
    if (step.is_admin()) continue;  // the admin node's (start_admin)
    if (!applies_live(step)) {
      log("the timeline's " + std::string(step.name()) + " step has no live effect (it acts on the scenario's own clients)");
      continue;
    }
    const std::vector<std::string> named = step.nodes();
    if (const auto gone = std::find_if(named.begin(), named.end(), [&](const std::string& n) { return !world.find(n); });
        gone != named.end()) {
      log("the timeline's " + std::string(step.name()) + " step at " + std::to_string(to_millis(step.at)) + "ms names " + *gone +
          ", one of the scenario's own clients, which do not run in live mode: skipped");
      continue;
    }
    auto t = std::make_unique<asio::steady_timer>(io, std::chrono::nanoseconds(step.at));
    t->async_wait([&world, &faults, &step](const boost::system::error_code& ec) {
      if (!ec) apply(world, faults, step);
    });
    steps.push_back(std::move(t));
  }
  return steps;
}

// The scenario's topic and group admin steps, carried out by an admin client node on the live
// world (the engine's AdminClient and GroupAdmin, as in simulation), each at its time from now.
// What it records (the outcomes, an executed reset's seeks) reaches the history through the
// recorder, in order with the gateways' observations.
struct LiveAdmin {
  std::vector<scenarios::TimelineStep> steps;  // the scenario's admin steps
  properties::History history;                 // what the admin node records, handed to the recorder
  std::unique_ptr<scenarios::RunContext> ctx;
};

std::unique_ptr<LiveAdmin> start_admin(live::LiveWorld& world, const Scenario& s, const scenarios::ClusterIds& ids,
                                       const std::shared_ptr<ServeRecorder>& recorder) {
  auto admin = std::make_unique<LiveAdmin>();
  for (const auto& step : s.timeline) {
    if (step.is_admin()) admin->steps.push_back(step);
  }
  if (admin->steps.empty()) return nullptr;
  admin->history.observe([recorder](const properties::HistoryEvent& e) { recorder->external(e); });
  // The node's clock starts at 0 when it first reads it (in on_start, where it arms the steps), so
  // the timeline's times count from now and a step at 0 is not already behind. The events'
  // times are the recorder's (external), on the world's clock.
  auto clock = [&world, start = std::optional<Nanos>()]() mutable {
    const Nanos now = world.now();
    if (!start) start = now;
    return now - *start;
  };
  admin->ctx.reset(new scenarios::RunContext{admin->history, std::move(clock), {}});
  std::vector<const scenarios::TimelineStep*> steps;
  for (const auto& step : admin->steps) steps.push_back(&step);
  const NodeId node = world.add_node(
      "admin",
      [steps, &s, ctx = admin->ctx.get(), ids](Env& env) {
        return std::make_unique<scenarios::AdminApp>(env, steps, s.cluster.config, *ctx, ids.controller, ids.brokers);
      },
      std::make_unique<live::MemDisk>(), /*endpoint=*/true);
  world.start(node);
  return admin;
}

// How much one turn of the recorder reads when the server is idle (see run_until_stopped): a
// few hundred microseconds of work, so that a request arriving meanwhile hardly waits.
constexpr std::uint64_t kRecordBytesPerTurn = 64 * 1024;
// How long the server must have had nothing to do before the recorder starts its turns: while
// clients keep it busy, the recorder leaves the CPU to them.
constexpr auto kQuietBeforeRecording = std::chrono::milliseconds(2);

// Runs until --duration, SIGINT or SIGTERM; then closes every connection. Once nothing has
// happened for kQuietBeforeRecording, the recorder records what it noted, a turn at a time,
// until a handler is ready again: serving comes first, and the history catches up in the gaps
// (or at the end).
void run_until_stopped(asio::io_context& io, live::Server& server, ServeRecorder& recorder, std::optional<Nanos> duration,
                       const std::function<void(std::string_view)>& log) {
  bool stopped = false;
  const auto stop = [&](std::string_view why) {
    if (stopped) return;
    stopped = true;
    log(why);
    server.close();
    io.stop();
  };
  asio::signal_set signals(io, SIGINT, SIGTERM);
  signals.async_wait([&](const boost::system::error_code& ec, int sig) {
    if (!ec) stop(sig == SIGINT ? "stopping: SIGINT" : "stopping: SIGTERM");
  });
  asio::steady_timer end(io);
  if (duration) {
    end.expires_after(std::chrono::nanoseconds(*duration));
    end.async_wait([&](const boost::system::error_code& ec) {
      if (!ec) stop("stopping: --duration reached");
    });
  }
  bool quiet = false;
  while (!io.stopped()) {
    if (recorder.noted() == 0) {
      if (io.run_one() == 0) break;  // no work left at all
      quiet = false;
    } else if (!quiet) {
      quiet = io.run_one_for(kQuietBeforeRecording) == 0;
    } else if (io.poll() > 0) {
      quiet = false;
    } else {
      recorder.drain(kRecordBytesPerTurn);
    }
  }
}

// The verdict on the broker-side history, the files asked for, and the exit code.
int finish(const ServeArgs& args, const Scenario& s, scenarios::RunOutput& out, properties::CheckerSet& checkers,
           std::vector<std::string> findings, Nanos ran_ns, double wall_ms) {
  scenarios::RunResult& r = out.result;
  r.scenario = s.name;
  r.file = args.scenario.empty() ? "<logsim serve>" : args.scenario;
  r.seed = s.seed;
  r.live = true;
  r.simulated_ns = ran_ns;
  r.verdict = checkers.finish();
  r.findings = std::move(findings);
  out.history.clear_observers();
  for (const auto& a : properties::anomaly_names()) {
    if (s.ignored.contains(a) || broker_side_ignored().contains(a)) r.ignored.push_back(a);
  }
  // Counted by kind from the packed entries (decoding each event would copy its strings).
  std::map<properties::OpKind, std::int64_t> kinds;
  for (std::size_t i = 0; i < out.history.size(); ++i) ++kinds[out.history.entry(i).kind];
  for (const auto& [kind, n] : kinds) r.stats["history." + std::string(properties::op_kind_name(kind))] += n;
  if (!args.history.empty()) {
    const std::string err = reports::write_file_atomically(args.history, reports::history_jsonl(out.history));
    if (!err.empty()) std::fprintf(stderr, "logsim serve: %s\n", err.c_str());
  }
  if (!args.out.empty()) {
    reports::RunDirOptions options;
    options.wall_ms = wall_ms;
    options.junit_suite = "logsim serve";
    const std::string err = reports::write_run_dir(args.out, r, out, options);
    if (!err.empty()) std::fprintf(stderr, "logsim serve: %s\n", err.c_str());
  }
  std::string verdict(properties::outcome_name(r.verdict.outcome));
  for (auto& c : verdict) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  std::fprintf(stderr, "logsim serve: %s (%zu history events)\n", verdict.c_str(), out.history.size());
  for (const auto& v : r.verdict.violations) {
    std::fprintf(stderr, "  VIOLATION  %s (event #%llu): %s\n", v.anomaly.c_str(), static_cast<unsigned long long>(v.first_event),
                 v.explanation.c_str());
  }
  for (const auto& f : r.findings) std::fprintf(stderr, "  FINDING    %s\n", f.c_str());
  return exit_code(r.verdict.outcome);
}

}  // namespace

int serve_command(const ServeArgs& args) {
  const std::optional<ServePlan> p = plan(args);
  if (!p) return kExitBadInput;
#ifdef __GLIBC__
  // Each produce request's records are a fresh buffer of up to a megabyte, freed once the
  // broker has them. glibc would map such buffers afresh, or give the heap's top back to the
  // kernel, and every first touch of the pages again is a page fault (a fifth of serve's CPU
  // under bench_vs_rdkafka): keep freed memory for reuse instead. (Under tcmalloc, which
  // logsim's executable links where it is found, these calls are ignored.)
  mallopt(M_MMAP_THRESHOLD, 32 * 1024 * 1024);
  mallopt(M_TRIM_THRESHOLD, 256 * 1024 * 1024);
#endif
  const Scenario& scenario = p->scenario;
  const auto started = std::chrono::steady_clock::now();

  asio::io_context io;
  live::LiveWorld world(io, live::LiveOptions{scenario.seed});
  scenarios::RunOutput out;
  // The checkers whose every anomaly serve ignores (broker_side_ignored) are not made: they
  // would keep their state for every record served and judge nothing.
  properties::CheckerOptions checker_options = scenarios::checker_options(scenario);
  const std::set<std::string> broker_side = broker_side_ignored();
  checker_options.ignored.insert(broker_side.begin(), broker_side.end());
  properties::CheckerSet checkers = properties::default_checkers(checker_options);
  checkers.attach(out.history);
  auto recorder = std::make_shared<ServeRecorder>(out.history, [&world] { return world.now(); });

  const std::function<void(std::string_view)> log = [&world, &args](std::string_view line) {
    if (!args.quiet) std::fprintf(stderr, "[serve %8.3fs] %.*s\n", static_cast<double>(world.now()) / 1e9, static_cast<int>(line.size()), line.data());
  };
  world.on_fault = [&](std::string_view what) {
    log(what);
    recorder->fault(std::string(what));
  };
  const scenarios::ClusterIds ids = add_cluster(world, scenario, args);

  live::GatewayConfig gc;
  for (std::size_t i = 0; i < ids.brokers.size(); ++i) {
    gc.brokers.push_back({ids.brokers[i], p->at.host, static_cast<std::uint16_t>(p->at.port == 0 ? 0 : p->at.port + i)});
  }
  gc.controller = ids.controller;
  gc.observer = recorder;
  auto faults = std::make_shared<live::ClientFaults>();
  gc.faults = faults;
  live::Server server(world, gc);
  server.log = log;
  try {
    server.listen();
  } catch (const std::runtime_error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return kExitBadInput;
  }
  if (!wait_until_ready(io, world, ids, scenario, std::chrono::seconds(60))) {
    std::fprintf(stderr, "logsim serve: the cluster did not come up within 60s (its brokers never all registered)\n");
    return kExitInternal;
  }
  if (!warm_up_coordinators(io, world, ids, std::chrono::seconds(10))) {
    log("__consumer_offsets did not get leaders within 10s: clients' first group lookups may be refused");
  }
  io.restart();
  std::cout << "bootstrap " << server.bootstrap() << std::endl;
  if (!args.bootstrap_file.empty()) {
    const std::string err = reports::write_file_atomically(args.bootstrap_file, server.bootstrap() + "\n");
    if (!err.empty()) {
      std::fprintf(stderr, "logsim serve: %s\n", err.c_str());
      return kExitBadInput;
    }
  }
  const auto steps = arm_timeline(io, world, *faults, scenario, log);
  const auto admin = start_admin(world, scenario, ids, recorder);
  run_until_stopped(io, server, *recorder, p->duration, log);
  log(fmt::format("served {} connections; client faults: {} answers delayed, {} lost, {} connections reset, {} errors injected",
                  server.accepted(), faults->delayed, faults->lost, faults->resets, faults->errors));
  recorder->finish();
  std::vector<std::string> findings = recorder->findings([&world](NodeId n) { return world.name(n); });
  const double wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  return finish(args, scenario, out, checkers, std::move(findings), world.now(), wall_ms);
}

}  // namespace logsim::cli
