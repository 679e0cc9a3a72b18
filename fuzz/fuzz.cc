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
#include "scenarios/loader.h"

namespace logsim::fuzz {
namespace {

using nlohmann::json;
using fuzz::Case;
using fuzz::FaultKind;
using fuzz::Shape;

std::string ms(std::int64_t v) { return std::to_string(v) + "ms"; }

// What one run of a scenario document showed.
struct Attempt {
  bool failed = false;
  std::string anomaly;              // the first violation's anomaly, or "internal-error"
  std::vector<std::string> anomalies;
  std::uint64_t trace_hash = 0;
  std::string error;                // an engine invariant that broke
};

Attempt attempt(const json& doc, const std::string& file) {
  Attempt a;
  try {
    const RunOutput out = run_doc(doc, file);
    a.trace_hash = out.result.trace_hash;
    if (out.result.verdict.outcome != properties::Outcome::kPass) {
      a.failed = true;
      for (const auto& v : out.result.verdict.violations) {
        if (std::find(a.anomalies.begin(), a.anomalies.end(), v.anomaly) == a.anomalies.end()) a.anomalies.push_back(v.anomaly);
      }
      a.anomaly = a.anomalies.empty() ? std::string(properties::outcome_name(out.result.verdict.outcome)) : a.anomalies.front();
    }
  } catch (const InvariantError& e) {
    a.failed = true;
    a.anomaly = "internal-error";
    a.anomalies = {a.anomaly};
    a.error = e.what();
  }
  return a;
}

// A shrink candidate fails the same way as the original: it shows the same anomaly.
bool fails_like(const json& doc, const std::string& anomaly) {
  try {
    const Attempt a = attempt(doc, "<shrink candidate>");
    return a.failed && std::find(a.anomalies.begin(), a.anomalies.end(), anomaly) != a.anomalies.end();
  } catch (const scenarios::ScenarioError&) {
    return false;  // an edit made the scenario invalid: not a candidate
  }
}

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

// Scenario edits that make a failing scenario smaller, biggest cuts first.
std::vector<json> edits(const json& doc) {
  std::vector<json> out;
  auto targets_removed = [](json d, const std::set<std::string>& gone) {
    if (!d.contains("timeline")) return d;
    json kept = json::array();
    for (const auto& s : d["timeline"]) {
      if (!(s.contains("target") && s["target"].is_string() && gone.count(s["target"].get<std::string>()))) kept.push_back(s);
    }
    d["timeline"] = kept;
    return d;
  };
  auto members_of = [](const json& g) {
    std::set<std::string> m;
    for (int i = 1; i <= g.value("members", 1); ++i) m.insert(g.value("name", "") + "-" + std::to_string(i));
    return m;
  };
  for (const char* list : {"groups", "producers", "consumers"}) {
    if (!doc.contains(list) || doc[list].size() < (std::string(list) == "consumers" ? 1u : 2u)) continue;
    for (std::size_t i = doc[list].size(); i-- > 0;) {
      json d = doc;
      std::set<std::string> gone = std::string(list) == "groups" ? members_of(d[list][i]) : std::set<std::string>{d[list][i].value("name", "")};
      d[list].erase(i);
      out.push_back(targets_removed(std::move(d), gone));
    }
  }
  if (doc.contains("producers")) {
    for (std::size_t i = 0; i < doc["producers"].size(); ++i) {
      const std::int64_t count = doc["producers"][i].value("count", std::int64_t{1000});
      if (count <= 10) continue;
      json d = doc;
      d["producers"][i]["count"] = count / 2;
      out.push_back(std::move(d));
    }
  }
  if (doc.contains("timeline")) {
    // A fault goes together with its repair: removing only a restart or a heal would leave a
    // node down for good, a different (and legitimate) failure.
    const json& tl = doc["timeline"];
    for (std::size_t i = tl.size(); i-- > 0;) {
      const std::string action = tl[i].value("action", "");
      if (scenarios::is_repair(action)) continue;
      const std::string target = tl[i].value("target", "");
      const std::optional<std::string_view> repair = scenarios::repair_of(action);
      std::optional<std::size_t> paired;
      for (std::size_t j = i + 1; j < tl.size() && repair && !paired; ++j) {
        // The first repair after it, aimed at the same node (heal has no target: any heal).
        if (tl[j].value("action", "") == *repair && (!tl[j].contains("target") || tl[j]["target"] == target)) paired = j;
      }
      json d = doc;
      if (paired) d["timeline"].erase(*paired);
      d["timeline"].erase(i);
      out.push_back(std::move(d));
    }
  }
  if (doc.contains("groups")) {
    for (std::size_t i = 0; i < doc["groups"].size(); ++i) {
      const int members = doc["groups"][i].value("members", 1);
      if (members < 2) continue;
      json d = doc;
      d["groups"][i]["members"] = members - 1;
      out.push_back(targets_removed(std::move(d), {d["groups"][i].value("name", "") + "-" + std::to_string(members)}));
    }
  }
  if (doc.contains("topics")) {
    for (std::size_t i = 0; i < doc["topics"].size(); ++i) {
      const int partitions = doc["topics"][i].value("partitions", 1);
      if (partitions < 2) continue;
      json d = doc;
      d["topics"][i]["partitions"] = partitions - 1;
      out.push_back(std::move(d));
    }
  }
  return out;
}

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
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

RunOutput run_doc(const json& doc, const std::string& file, bool record_trace) {
  const scenarios::Scenario s = scenarios::parse_scenario(doc.dump(), file);
  return scenarios::run_scenario(s, {s.seed, record_trace});
}

namespace {

bool interrupted(const FuzzOptions& options) { return options.interrupted != nullptr && options.interrupted->load(); }

// The first seed, and every confirm_every-th after it, runs twice: its trace hash must repeat.
bool confirms(const FuzzOptions& options, std::int64_t i) {
  return i == 0 || (options.confirm_every > 0 && i % options.confirm_every == 0);
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
  auto work = [&](std::int64_t i) {
    if (out_of_budget()) return false;
    const std::uint64_t seed = options.first_seed + static_cast<std::uint64_t>(i);
    const json doc = fuzz_case_doc(options, seed);
    const std::string file = "<fuzz seed " + std::to_string(seed) + ">";
    const Attempt a = attempt(doc, file);
    if (a.error.empty() && confirms(options, i)) {
      const Attempt again = attempt(doc, file);
      std::lock_guard lock(mu);
      if (again.trace_hash != a.trace_hash) report.nondeterminism.push_back({seed, a.trace_hash, again.trace_hash});
      else ++report.confirmed;
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
  if (options.seeds > 0) pool.count = options.seeds;
  pool.jobs = options.jobs;
  const auto show = [&] {
    if (progress) progress(FuzzProgress{done.load(), options.seeds, failures.load(), seconds_since(start), options.time_budget_s});
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

// What shrinking keeps: the anomaly a planted bug is known by, when the failure shows it (a
// planted bug may show itself in several ways; the one it is named for is the point), else the
// first one found.
std::string anomaly_to_keep(const Attempt& a, const std::vector<std::string>& plants) {
  std::string anomaly = a.anomaly;
  for (const auto& name : plants) {
    const auto plant = plant_by_name(name);
    for (const auto& info : all_plants()) {
      if (plant && info.plant == *plant && std::find(a.anomalies.begin(), a.anomalies.end(), info.anomaly) != a.anomalies.end()) {
        anomaly = std::string(info.anomaly);
      }
    }
  }
  return anomaly;
}

// Shrinks a failing case: each candidate scenario is run, and one that fails the same way (the
// same anomaly, fails_like) becomes the best so far. Bounded by options.shrink_max_runs runs and
// options.shrink_max_s seconds from `start`; an interrupted campaign stops it.
class Shrinker {
 public:
  Shrinker(const FuzzOptions& options, FuzzFailure& f, std::chrono::steady_clock::time_point start,
           std::function<void(std::int64_t)> on_run)
      : options_(options), f_(f), start_(start), on_run_(std::move(on_run)), best_(f.original) {}

  // Both passes, the tree's then the edits'; sets f.shrink_complete (the edits reached a fixed
  // point) and returns the smallest failing scenario found.
  json run() {
    along_the_tree();
    f_.shrink_complete = by_edits();
    return best_;
  }

 private:
  // 1. Along RapidCheck's shrink tree of the case.
  void along_the_tree() {
    const Shape shape = options_.template_doc ? shape_for_template(*options_.template_doc, options_.shape) : options_.shape;
    const rc::Gen<Case> gen = options_.template_doc ? fuzz::gen_faults_only(shape) : fuzz::gen_case(shape);
    rc::Shrinkable<Case> current = fuzz::case_for_seed(gen, f_.seed);
    // A third of the budget: most of the tree's candidates shrink one number, and a run that
    // changes timing rarely fails the same way; the scenario edits below cut deeper per run.
    const std::int64_t tree_runs = options_.shrink_max_runs / 3;
    const auto runs_left = [&] { return budget_left() && f_.shrink_runs < tree_runs; };
    bool progressed = true;
    while (progressed && runs_left()) {
      progressed = false;
      auto shrinks = current.shrinks();
      while (auto child = shrinks.next()) {
        if (!runs_left()) break;
        const json candidate = render_case(child->value(), shape, f_.seed, options_.template_doc ? &*options_.template_doc : nullptr,
                                           options_.plants);
        if (candidate == best_) continue;
        if (try_doc(candidate)) {
          current = std::move(*child);
          progressed = true;
          break;
        }
      }
    }
  }

  // 2. Editing the scenario itself. Returns whether no edit of the best scenario fails the same
  // way any more (false when the budget ran out first).
  bool by_edits() {
    bool progressed = true;
    while (progressed && budget_left()) {
      progressed = false;
      for (const json& candidate : edits(best_)) {
        if (!budget_left()) break;
        if (try_doc(candidate)) {
          progressed = true;
          break;
        }
      }
    }
    return !progressed;
  }

  bool budget_left() const {
    return f_.shrink_runs < options_.shrink_max_runs && seconds_since(start_) < options_.shrink_max_s && !interrupted(options_);
  }

  bool try_doc(const json& candidate) {
    ++f_.shrink_runs;
    on_run_(f_.shrink_runs);
    if (!fails_like(candidate, f_.anomaly)) return false;
    ++f_.shrink_steps;
    best_ = candidate;
    return true;
  }

  const FuzzOptions& options_;
  FuzzFailure& f_;
  std::chrono::steady_clock::time_point start_;
  std::function<void(std::int64_t)> on_run_;
  json best_;
};

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
    f.shrunk_run = run_doc(best, "<fuzz seed " + std::to_string(f.seed) + ", shrunk>", false);
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
    FuzzProgress p{report.seeds_run, options.seeds, static_cast<std::int64_t>(failed.size()), seconds_since(start), 0};
    p.shrinking = true;
    p.shrink_runs = shrink_runs;
    progress(p);
  };
  json best = options.shrink ? Shrinker(options, f, shrink_start, show_shrink).run() : f.original;
  finish_failure(options, f, std::move(best));
  report.shrink_s = seconds_since(shrink_start);
  report.failure = std::move(f);
  return report;
}

}  // namespace logsim::fuzz
