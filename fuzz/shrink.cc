// Shrinking a failing fuzz case (see shrink.h).
#include "fuzz/shrink.h"

#include <algorithm>
#include <optional>
#include <set>

#include "engine/base/assert.h"
#include "properties/assertion_checker.h"
#include "scenarios/loader.h"

namespace logsim::fuzz {

using nlohmann::json;

bool interrupted(const FuzzOptions& options) { return options.interrupted != nullptr && options.interrupted->load(); }

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

Attempt attempt(const json& doc, const std::string& file, const scenarios::UserCode& user) {
  Attempt a;
  try {
    const RunOutput out = run_doc(doc, file, false, user);
    a.trace_hash = out.result.trace_hash;
    for (std::size_t i = 0; i < out.history.size(); ++i) {
      if (out.history.entry(i).kind != properties::OpKind::kAssert) continue;
      const properties::HistoryEvent e = out.history.at(i);
      if (e.error == properties::kSometimesReached) a.sometimes.emplace(e.note, false);
      if (e.error == properties::kSometimesHeld) a.sometimes[e.note] = true;
    }
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
bool fails_like(const json& doc, const std::string& anomaly, const scenarios::UserCode& user) {
  try {
    const Attempt a = attempt(doc, "<shrink candidate>", user);
    return a.failed && std::find(a.anomalies.begin(), a.anomalies.end(), anomaly) != a.anomalies.end();
  } catch (const scenarios::ScenarioError&) {
    return false;  // an edit made the scenario invalid: not a candidate
  }
}

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

std::string anomaly_to_keep(const Attempt& a, const std::vector<std::string>& plants) {
  std::string anomaly = a.anomaly;
  for (const auto& name : plants) {
    const auto plant = plant_by_name(name);
    for (const auto& info : all_plants()) {
      if (!plant || info.plant != *plant) continue;
      const auto found = [&](std::string_view wanted) {
        return !wanted.empty() && std::find(a.anomalies.begin(), a.anomalies.end(), wanted) != a.anomalies.end();
      };
      // The name the bug is known by, else the other one it shows on some runs.
      if (found(info.anomaly)) {
        anomaly = std::string(info.anomaly);
      } else if (found(info.also)) {
        anomaly = std::string(info.also);
      }
    }
  }
  return anomaly;
}

namespace {

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
    if (!fails_like(candidate, f_.anomaly, options_.user)) return false;
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

}  // namespace

json shrink(const FuzzOptions& options, FuzzFailure& f, std::chrono::steady_clock::time_point start,
            const std::function<void(std::int64_t)>& on_run) {
  return Shrinker(options, f, start, on_run).run();
}

}  // namespace logsim::fuzz
