// The fuzz campaign (see fuzz.h).
#include "fuzz/fuzz.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <concepts>
#include <map>
#include <mutex>
#include <set>

#include "engine/base/assert.h"
#include "fuzz/seed_pool.h"
#include "fuzz/shrink.h"
#include "scenarios/loader.h"

namespace logsim::fuzz {
namespace {

using nlohmann::json;
using fuzz::Case;
using fuzz::FaultKind;
using fuzz::Shape;

std::string ms(std::int64_t v) { return std::to_string(v) + "ms"; }

Nanos duration_of(const json& j, Nanos fallback) {
  if (!j.is_string()) return fallback;
  return scenarios::parse_duration(j.get<std::string>()).value_or(fallback);
}

// Node names the faults can aim at.
struct Targets {
  std::int32_t brokers = 1;
  std::vector<std::string> members;
  std::vector<std::vector<std::string>> member_topics;  // each member's group's topics
};

Targets targets_of(const json& doc) {
  Targets t;
  if (doc.contains("cluster")) t.brokers = doc["cluster"].value("brokers", 1);
  if (doc.contains("groups")) {
    for (const auto& g : doc["groups"]) {
      const std::string name = g.value("name", "");
      const int members = g.value("members", 1);
      const auto topics = g.value("topics", std::vector<std::string>{});
      for (int i = 1; i <= members; ++i) {
        t.members.push_back(name + "-" + std::to_string(i));
        t.member_topics.push_back(topics);
      }
    }
  }
  return t;
}

std::string broker(std::int32_t index, std::int32_t brokers) { return "broker-" + std::to_string(index % brokers + 1); }

json step(std::int64_t at_ms, const std::string& action, const std::string& target = {}) {
  json s{{"at", ms(at_ms)}, {"action", action}};
  if (!target.empty()) s["target"] = target;
  return s;
}

// A fault step as scenario JSON (the steps scenarios::fault_steps makes).
json step_json(const scenarios::TimelineStep& st) {
  namespace steps = scenarios::steps;
  json s = step(to_millis(st.at), std::string(st.name()));
  std::visit(scenarios::overloaded{
                 [&](const steps::Partition& p) { s["groups"] = p.groups; },
                 [&](const steps::Heal&) {},
                 [&](const steps::Clog& c) {
                   s["target"] = c.target;
                   s["for"] = ms(to_millis(c.length));
                 },
                 [&](const steps::Seek& seek) {
                   s["target"] = seek.target;
                   s["topic"] = seek.topic;
                   s["to"] = seek.mode == engine::ResetMode::kToEarliest ? json("earliest")
                             : seek.mode == engine::ResetMode::kToLatest ? json("latest")
                                                                         : json{{"shift_by", seek.value}};
                 },
                 [&](const auto& other) {
                   if constexpr (requires { { other.target } -> std::convertible_to<std::string>; }) s["target"] = other.target;
                   else LOGSIM_ASSERT(false, "a fault makes no " + std::string(other.kName) + " step");
                 },
             },
             st.action);
  return s;
}

void add_fault_steps(json& timeline, const fuzz::PlacedFault& p, const Targets& t) {
  const auto& f = p.fault;
  if (f.kind == FaultKind::kPartition && t.brokers < 2) return;
  std::string target;
  std::vector<std::string> topics;
  if (scenarios::is_member_fault(f.kind)) {
    if (t.members.empty()) return;
    const std::size_t i = static_cast<std::size_t>(f.target) % t.members.size();
    target = t.members[i];
    topics = t.member_topics[i];
  } else {
    target = f.kind == FaultKind::kControllerCrash ? "controller" : broker(f.target, t.brokers);
  }
  std::vector<std::string> brokers;
  for (std::int32_t i = 0; i < t.brokers; ++i) brokers.push_back(broker(i, t.brokers));
  const auto draw = static_cast<std::uint64_t>(f.length_ms) * 7919 + static_cast<std::uint64_t>(f.target);
  for (const auto& st : scenarios::fault_steps(f.kind, target, millis(p.start_ms), millis(p.end_ms), brokers, topics, draw)) {
    timeline.push_back(step_json(st));
  }
}

json generated_base(const Case& c, const Shape& shape, std::uint64_t seed) {
  json cluster{{"brokers", c.brokers},
               {"network", {{"latency_min", "1ms"}, {"latency_mean", "1ms"}}},
               {"config",
                {{"default.replication.factor", 3},
                 {"min.insync.replicas", 2},
                 {"unclean.leader.election.enable", false},
                 {"offsets.topic.num.partitions", c.offsets_partitions},
                 {"replica.lag.time.max.ms", c.replica_lag_time_max_ms},
                 {"broker.session.timeout.ms", 3000},
                 {"broker.heartbeat.interval.ms", 500}}}};
  json producers = json::array();
  for (std::size_t i = 0; i < c.producers.size(); ++i) {
    const auto& p = c.producers[i];
    const std::int64_t count = std::max<std::int64_t>(1, p.rate_per_sec * (shape.faults_until_ms - 1000) / 1000);
    producers.push_back({{"name", "producer-" + std::to_string(i + 1)},
                         {"topic", "events"},
                         {"rate_per_sec", p.rate_per_sec},
                         {"count", count},
                         {"keys", {{"uniform", p.keys}}},
                         {"config",
                          {{"acks", "all"},
                           {"enable.idempotence", p.idempotent},
                           // without idempotence only one request in flight keeps order
                           {"max.in.flight.requests.per.connection", p.idempotent ? p.max_in_flight : 1},
                           {"request.timeout.ms", 2000},
                           {"delivery.timeout.ms", 10000}}}});
  }
  // The quiet period must let the slowest group finish its backlog, or `liveness` would only
  // say the workload was too much for it: a commit after each message costs a round trip to
  // the coordinator and a replicated write (about 10 ms here), and one member may hold every
  // partition.
  std::int64_t records = 0;
  for (const auto& p : producers) records += p["count"].get<std::int64_t>();
  std::int64_t quiesce_ms = shape.quiesce_ms;
  for (const auto& g : c.groups) {
    const double per_record_ms = g.processing_ms / 2.0 + (g.commit == fuzz::Commit::kAfterEachMessage ? 15.0 : 1.0);
    quiesce_ms = std::max(quiesce_ms, static_cast<std::int64_t>(static_cast<double>(records) * per_record_ms) + 20'000);
  }
  json groups = json::array();
  for (std::size_t i = 0; i < c.groups.size(); ++i) {
    const auto& g = c.groups[i];
    json config{{"auto.offset.reset", "earliest"},
                {"session.timeout.ms", g.session_timeout_ms},
                {"heartbeat.interval.ms", g.session_timeout_ms / 3},
                {"partition.assignment.strategy", g.assignor},
                {"max.poll.records", g.max_poll_records},
                {"request.timeout.ms", 2000}};
    if (g.commit == fuzz::Commit::kAuto) config["auto.commit.interval.ms"] = g.auto_commit_interval_ms;
    json group{{"name", "group-" + std::to_string(i + 1)},
               {"topics", {"events"}},
               {"members", g.members},
               {"commit", std::string(fuzz::commit_name(g.commit))},
               {"config", config}};
    if (g.static_membership) group["static_membership"] = true;
    if (g.processing_ms > 0) group["processing"] = {{"min", "0ms"}, {"max", ms(g.processing_ms)}};
    groups.push_back(group);
  }
  return json{{"name", "fuzz-seed-" + std::to_string(seed)},
              {"description", "A case generated by logsim fuzz from seed " + std::to_string(seed) + "."},
              {"seed", seed},
              {"duration", ms(shape.faults_until_ms)},
              {"quiesce", ms(quiesce_ms)},
              {"cluster", cluster},
              {"topics", json::array({{{"name", "events"}, {"partitions", c.partitions}}})},
              {"producers", producers},
              {"groups", groups}};
}

// Timeline steps in time order (stable: the file's order among equal times).
void sort_timeline(json& doc) {
  if (!doc.contains("timeline")) return;
  std::vector<json> steps(doc["timeline"].begin(), doc["timeline"].end());
  std::stable_sort(steps.begin(), steps.end(), [](const json& a, const json& b) {
    return duration_of(a.value("at", json()), 0) < duration_of(b.value("at", json()), 0);
  });
  doc["timeline"] = steps;
}

}  // namespace

std::vector<FaultKind> fault_kinds(std::string_view list, std::string* unknown) {
  std::vector<FaultKind> out;
  std::size_t start = 0;
  while (start <= list.size()) {
    const std::size_t comma = std::min(list.find(',', start), list.size());
    const std::string_view name = list.substr(start, comma - start);
    FaultKind kind{};
    if (scenarios::fault_kind_by_name(name, kind)) out.push_back(kind);
    else if (unknown != nullptr && unknown->empty()) *unknown = std::string(name);
    start = comma + 1;
  }
  return out;
}

std::string ScenarioSize::text() const {
  return fmt::format("{} timeline steps, {} group(s) with {} member(s), {} producer(s) sending {} records", timeline_steps,
                     groups, members, producers, records);
}

ScenarioSize scenario_size(const json& doc) {
  ScenarioSize s;
  if (doc.contains("timeline")) s.timeline_steps = static_cast<std::int64_t>(doc["timeline"].size());
  if (doc.contains("groups")) {
    s.groups = static_cast<std::int64_t>(doc["groups"].size());
    for (const auto& g : doc["groups"]) s.members += g.value("members", 1);
  }
  if (doc.contains("consumers")) s.members += static_cast<std::int64_t>(doc["consumers"].size());
  if (doc.contains("producers")) {
    s.producers = static_cast<std::int64_t>(doc["producers"].size());
    for (const auto& p : doc["producers"]) s.records += p.value("count", std::int64_t{1000});
  }
  return s;
}

// A template that gives its run as "phases" gives it again as duration and quiesce, the two
// numbers the fuzzer reads and adjusts (the loader takes one form or the other, not both).
json with_duration_and_quiesce(json doc) {
  if (!doc.contains("phases") || !doc["phases"].is_array()) return doc;
  const json phases = doc["phases"];
  doc.erase("phases");
  for (std::size_t i = 0; i < phases.size() && i < 2; ++i) {
    if (phases[i].is_object() && phases[i].contains("for")) doc[i == 0 ? "duration" : "quiesce"] = phases[i]["for"];
  }
  return doc;
}

Shape shape_for_template(const json& template_doc, Shape shape) {
  const json doc = with_duration_and_quiesce(template_doc);
  const std::int64_t duration_ms = duration_of(doc.value("duration", json()), seconds(60)) / 1'000'000;
  shape.faults_from_ms = std::min<std::int64_t>(shape.faults_from_ms, duration_ms / 10);
  shape.faults_until_ms = std::max<std::int64_t>(shape.faults_from_ms + 1, duration_ms - 500);
  return shape;
}

json render_case(const Case& c, const Shape& shape, std::uint64_t seed, const json* template_doc,
                 const std::vector<std::string>& plants) {
  json doc;
  if (template_doc != nullptr) {
    doc = with_duration_and_quiesce(*template_doc);
    doc["name"] = doc.value("name", "template") + "-fuzz-seed-" + std::to_string(seed);
    doc["description"] = "logsim fuzz: the template \"" + template_doc->value("name", "") + "\" with a fault schedule drawn from seed " +
                         std::to_string(seed) + ". " + template_doc->value("description", "");
    doc["seed"] = seed;
    if (!doc.contains("quiesce") || duration_of(doc["quiesce"], 0) == 0) doc["quiesce"] = ms(shape.quiesce_ms);
  } else {
    doc = generated_base(c, shape, seed);
  }
  if (!doc.contains("timeline")) doc["timeline"] = json::array();
  const Targets targets = targets_of(doc);
  for (const auto& p : fuzz::place_faults(c, shape)) add_fault_steps(doc["timeline"], p, targets);
  sort_timeline(doc);
  doc["expect"] = {{"verdict", "pass"}};
  std::vector<std::string> all = doc.contains("plant") ? doc["plant"].get<std::vector<std::string>>() : std::vector<std::string>{};
  for (const auto& p : plants) {
    if (std::find(all.begin(), all.end(), p) == all.end()) all.push_back(p);
  }
  if (all.empty()) doc.erase("plant");
  else doc["plant"] = all;
  return doc;
}

json fuzz_case_doc(const FuzzOptions& options, std::uint64_t seed) {
  if (options.template_doc) {
    const Shape shape = shape_for_template(*options.template_doc, options.shape);
    const auto c = fuzz::case_for_seed(fuzz::gen_faults_only(shape), seed).value();
    return render_case(c, shape, seed, &*options.template_doc, options.plants);
  }
  const auto c = fuzz::case_for_seed(fuzz::gen_case(options.shape), seed).value();
  return render_case(c, options.shape, seed, nullptr, options.plants);
}

RunOutput run_doc(const json& doc, const std::string& file, bool record_trace, const scenarios::UserCode& user) {
  const scenarios::Scenario s = scenarios::parse_scenario(doc.dump(), file, scenarios::app_names(user.apps));
  scenarios::RunOptions run{s.seed, record_trace};
  run.host(user);
  return scenarios::run_scenario(s, run);
}

std::int64_t shard_seeds(const FuzzOptions& options) {
  if (options.seeds <= options.shard_index) return 0;
  return (options.seeds - options.shard_index + options.shard_count - 1) / options.shard_count;
}

std::uint64_t shard_seed(const FuzzOptions& options, std::int64_t k) {
  return options.first_seed + static_cast<std::uint64_t>(options.shard_index + k * options.shard_count);
}

namespace {

// The first seed, and every confirm_every-th after it, runs twice: its trace hash must repeat.
// `n` counts seeds from first_seed over the whole sweep, so the shards of a sweep confirm the
// seeds one machine would; each shard also confirms its own first seed (k == 0).
bool confirms(const FuzzOptions& options, std::int64_t k, std::int64_t n) {
  return k == 0 || n == 0 || (options.confirm_every > 0 && n % options.confirm_every == 0);
}

// The search: seed after seed on options.jobs threads, until options.seeds have run, the time
// budget is spent, the campaign is interrupted, or (without keep_going) a seed fails. Fills in
// the report's search fields; returns what each failing seed showed, by seed.
std::map<std::uint64_t, Attempt> search(const FuzzOptions& options, const std::function<void(const FuzzProgress&)>& progress,
                                        std::chrono::steady_clock::time_point start, FuzzReport& report) {
  std::atomic<std::int64_t> done{0}, failures{0};
  std::mutex mu;
  std::map<std::uint64_t, Attempt> failed;  // seed -> what it showed

  auto out_of_budget = [&] {
    if (interrupted(options)) return true;
    return options.time_budget_s > 0 && seconds_since(start) >= options.time_budget_s;
  };
  auto work = [&](std::int64_t k) {
    if (out_of_budget()) return false;
    const std::uint64_t seed = shard_seed(options, k);
    const json doc = fuzz_case_doc(options, seed);
    const std::string file = "<fuzz seed " + std::to_string(seed) + ">";
    const Attempt a = attempt(doc, file, options.user);
    if (a.error.empty() && confirms(options, k, static_cast<std::int64_t>(seed - options.first_seed))) {
      const Attempt again = attempt(doc, file, options.user);
      std::lock_guard lock(mu);
      if (again.trace_hash != a.trace_hash) report.nondeterminism.push_back({seed, a.trace_hash, again.trace_hash});
      else ++report.confirmed;
    }
    if (!a.sometimes.empty()) {
      std::lock_guard lock(mu);
      for (const auto& [message, held] : a.sometimes) {
        FuzzReport::Sometimes& s = report.sometimes[message];
        ++s.reached;
        s.held += held ? 1 : 0;
      }
    }
    bool more = true;
    if (a.failed) {
      std::lock_guard lock(mu);
      failed.emplace(seed, a);
      ++failures;
      more = options.keep_going;
    }
    ++done;
    return more;
  };
  SeedPool pool;
  const std::int64_t total = options.seeds > 0 ? shard_seeds(options) : 0;
  if (options.seeds > 0) pool.count = total;
  pool.jobs = options.jobs;
  const auto show = [&] {
    if (progress) progress(FuzzProgress{done.load(), total, failures.load(), seconds_since(start), options.time_budget_s});
  };
  if (progress) pool.poll = show;
  run_seed_pool(pool, work);
  show();
  report.seeds_run = done.load();
  report.search_s = seconds_since(start);
  report.interrupted = interrupted(options);
  for (const auto& [seed, a] : failed) report.failing_seeds.push_back(seed);
  return failed;
}

// The scenario file's "found" section: what its run showed, so `logsim replay` can confirm it.
json found_section(const FuzzFailure& f, const std::string& command) {
  json found{{"verdict", f.error.empty() ? std::string(properties::outcome_name(f.shrunk_run.result.verdict.outcome)) : "internal-error"},
             {"anomalies", json::array()},
             {"by", command + " (seed " + std::to_string(f.seed) + ")"}};
  if (f.error.empty()) {
    found["trace_hash"] = fmt::format("{:016x}", f.shrunk_run.result.trace_hash);
    for (const auto& v : f.shrunk_run.result.verdict.violations) {
      if (std::find(found["anomalies"].begin(), found["anomalies"].end(), v.anomaly) == found["anomalies"].end()) {
        found["anomalies"].push_back(v.anomaly);
      }
    }
  }  // an invariant that broke is the verdict "internal-error": no checker anomaly, so none listed
  return found;
}

// Runs the shrunk scenario once more (its run is what the reports show) and saves it, with its
// "found" section, as the failure's scenario.
void finish_failure(const FuzzOptions& options, FuzzFailure& f, json best) {
  f.shrunk_size = scenario_size(best);
  try {
    f.shrunk_run = run_doc(best, "<fuzz seed " + std::to_string(f.seed) + ", shrunk>", false, options.user);
  } catch (const InvariantError& e) {
    f.error = e.what();
  }
  best["found"] = found_section(f, options.command);
  f.shrunk = std::move(best);
}

}  // namespace

FuzzReport fuzz(const FuzzOptions& options, const std::function<void(const FuzzProgress&)>& progress) {
  FuzzReport report;
  const auto start = std::chrono::steady_clock::now();
  const std::map<std::uint64_t, Attempt> failed = search(options, progress, start, report);
  if (failed.empty()) return report;

  // Shrink the lowest failing seed.
  const auto shrink_start = std::chrono::steady_clock::now();
  const auto& [seed, first] = *failed.begin();
  FuzzFailure f;
  f.seed = seed;
  f.anomaly = anomaly_to_keep(first, options.plants);
  f.original = fuzz_case_doc(options, seed);
  f.original_size = scenario_size(f.original);
  const auto show_shrink = [&](std::int64_t shrink_runs) {
    if (!progress) return;
    FuzzProgress p{report.seeds_run, options.seeds > 0 ? shard_seeds(options) : 0, static_cast<std::int64_t>(failed.size()), seconds_since(start), 0};
    p.shrinking = true;
    p.shrink_runs = shrink_runs;
    progress(p);
  };
  json best = options.shrink ? shrink(options, f, shrink_start, show_shrink) : f.original;
  finish_failure(options, f, std::move(best));
  report.shrink_s = seconds_since(shrink_start);
  report.failure = std::move(f);
  return report;
}

}  // namespace logsim::fuzz
