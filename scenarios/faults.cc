// Drawing a fault schedule (see faults.h).
#include "scenarios/faults.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>

#include "scenarios/scenario.h"

namespace logsim::scenarios {
namespace {

constexpr std::array<std::string_view, 12> kNames = {"crash",        "power-loss",       "isolate",      "partition",
                                                     "pause",        "clog",             "controller-crash", "member-crash",
                                                     "member-pause", "member-stop",      "member-seek",  "member-power-loss"};

bool is_network_kind(FaultKind k) { return k == FaultKind::kIsolate || k == FaultKind::kPartition; }

struct Active {
  Nanos end;
  std::string target;
  bool network;
};

TimelineStep step_at(Nanos at, Action action) { return TimelineStep{at, std::move(action), "/faults"}; }

}  // namespace

std::string_view fault_kind_name(FaultKind k) { return kNames[static_cast<std::size_t>(k)]; }

const std::vector<std::string>& fault_kind_names() {
  static const std::vector<std::string> names(kNames.begin(), kNames.end());
  return names;
}

bool fault_kind_by_name(std::string_view name, FaultKind& out) {
  for (std::size_t i = 0; i < kNames.size(); ++i) {
    if (kNames[i] == name) {
      out = static_cast<FaultKind>(i);
      return true;
    }
  }
  return false;
}

bool is_member_fault(FaultKind k) {
  return k == FaultKind::kMemberCrash || k == FaultKind::kMemberPause || k == FaultKind::kMemberStop ||
         k == FaultKind::kMemberSeek || k == FaultKind::kMemberPowerLoss;
}

std::vector<FaultKind> safe_fault_kinds() {
  return {FaultKind::kCrash,       FaultKind::kIsolate,     FaultKind::kPartition,  FaultKind::kPause,
          FaultKind::kControllerCrash, FaultKind::kMemberCrash, FaultKind::kMemberPause, FaultKind::kMemberStop,
          FaultKind::kMemberSeek};
}

engine::ResetOffsetsRequest member_seek_to(std::uint64_t draw) {
  engine::ResetOffsetsRequest to;
  switch (draw % 3) {
    case 0: to.mode = engine::ResetMode::kToEarliest; break;
    case 1: to.mode = engine::ResetMode::kToLatest; break;
    default:
      to.mode = engine::ResetMode::kShiftBy;
      to.value = -static_cast<std::int64_t>(draw / 3 % 100 + 1);
      break;
  }
  return to;
}

std::vector<TimelineStep> fault_steps(FaultKind kind, const std::string& target, Nanos start, Nanos end,
                                      const std::vector<std::string>& brokers, const std::vector<std::string>& topics,
                                      std::uint64_t draw) {
  std::vector<TimelineStep> steps;
  switch (kind) {
    case FaultKind::kCrash:
    case FaultKind::kControllerCrash:
    case FaultKind::kMemberCrash:
      steps.push_back(step_at(start, steps::Crash{target}));
      steps.push_back(step_at(end, steps::Restart{target}));
      break;
    case FaultKind::kPowerLoss:
    case FaultKind::kMemberPowerLoss:
      steps.push_back(step_at(start, steps::PowerLoss{target}));
      steps.push_back(step_at(end, steps::Restart{target}));
      break;
    case FaultKind::kMemberStop:
      steps.push_back(step_at(start, steps::Stop{target}));
      steps.push_back(step_at(end, steps::Restart{target}));
      break;
    case FaultKind::kPause:
    case FaultKind::kMemberPause:
      steps.push_back(step_at(start, steps::Pause{target}));
      steps.push_back(step_at(end, steps::Resume{target}));
      break;
    case FaultKind::kIsolate:
      steps.push_back(step_at(start, steps::Isolate{target}));
      steps.push_back(step_at(end, steps::Heal{}));
      break;
    case FaultKind::kPartition: {
      std::vector<std::string> rest;
      for (const auto& b : brokers) {
        if (b != target) rest.push_back(b);
      }
      rest.push_back("controller");
      steps.push_back(step_at(start, steps::Partition{{{target}, rest}, false}));
      steps.push_back(step_at(end, steps::Heal{}));
      break;
    }
    case FaultKind::kClog:
      steps.push_back(step_at(start, steps::Clog{target, end - start}));
      break;
    case FaultKind::kMemberSeek: {  // one step; the member is left alone for the fault's length
      if (topics.empty()) break;
      const engine::ResetOffsetsRequest to = member_seek_to(draw);
      steps.push_back(step_at(start, steps::Seek{target, topics[draw / 300 % topics.size()], -1, to.mode, to.value}));
      break;
    }
  }
  return steps;
}

std::vector<TimelineStep> draw_faults(const FaultSchedule& schedule, const Scenario& scenario, Rng& rng) {
  std::vector<std::string> brokers, members;
  std::map<std::string, const GroupSpec*> group_of;  // member -> its group
  for (std::int32_t b = 1; b <= scenario.cluster.brokers; ++b) brokers.push_back("broker-" + std::to_string(b));
  for (const auto& g : scenario.groups) {
    for (std::int32_t i = 1; i <= g.members; ++i) {
      members.push_back(g.member_name(i));
      group_of[members.back()] = &g;
    }
  }
  // Transactional producers are application instances too: a crashed one comes back and fences
  // its last incarnation, a paused one wakes as a zombie (member-crash, member-pause).
  std::vector<std::string> apps = members;
  for (const auto& p : scenario.producers) {
    if (p.config.transactional_id) apps.push_back(p.name);
  }
  const Nanos until = schedule.until < 0 ? scenario.duration : schedule.until;
  std::vector<TimelineStep> steps;
  std::vector<Active> active;
  Nanos t = schedule.from;
  while (true) {
    // Whole milliseconds: the drawn schedule reads like a hand-written one in the history.
    t += std::max<Nanos>(kNanosPerMilli, static_cast<Nanos>(rng.exponential(static_cast<double>(schedule.every))) /
                                             kNanosPerMilli * kNanosPerMilli);
    if (t >= until) break;
    std::erase_if(active, [&](const Active& a) { return a.end <= t; });
    if (static_cast<std::int32_t>(active.size()) >= schedule.concurrency) {
      // Every slot is taken: this fault waits for the first repair instead of being dropped,
      // so faults come about once per `every` unless they last longer than that.
      t = std::min_element(active.begin(), active.end(), [](const Active& a, const Active& b) { return a.end < b.end; })->end;
      if (t >= until) break;
      std::erase_if(active, [&](const Active& a) { return a.end <= t; });
    }
    const bool network_busy = std::any_of(active.begin(), active.end(), [](const Active& a) { return a.network; });
    auto free = [&](const std::vector<std::string>& names) {
      std::vector<std::string> out;
      for (const auto& n : names) {
        if (std::none_of(active.begin(), active.end(), [&](const Active& a) { return a.target == n; })) out.push_back(n);
      }
      return out;
    };
    // The kinds that have a free target now, then one of them and one of its targets.
    std::vector<std::pair<FaultKind, std::vector<std::string>>> options;
    for (FaultKind k : schedule.kinds) {
      std::vector<std::string> targets;
      if (k == FaultKind::kMemberCrash || k == FaultKind::kMemberPause) targets = free(apps);
      else if (is_member_fault(k)) targets = free(members);
      else if (k == FaultKind::kControllerCrash) targets = free({"controller"});
      else if (is_network_kind(k) && network_busy) targets = {};
      else if (k == FaultKind::kPartition && brokers.size() < 2) targets = {};
      else targets = free(brokers);
      if (!targets.empty()) options.emplace_back(k, std::move(targets));
    }
    if (options.empty()) continue;
    const auto& [kind, targets] = options[rng.uniform_u64(options.size())];
    const std::string target = targets[rng.uniform_u64(targets.size())];
    const auto len = static_cast<Nanos>(rng.uniform_real(0.5, 1.5) * static_cast<double>(schedule.length)) /
                     kNanosPerMilli * kNanosPerMilli;
    const Nanos end = std::min(t + std::max<Nanos>(len, kNanosPerMilli), until);
    if (end <= t) continue;
    active.push_back(Active{end, target, is_network_kind(kind)});
    const std::vector<std::string> no_topics;
    const bool seek = kind == FaultKind::kMemberSeek;
    const std::uint64_t draw = seek ? rng.next_u64() : 0;
    for (auto& step : fault_steps(kind, target, t, end, brokers, seek ? group_of.at(target)->topics : no_topics, draw)) {
      steps.push_back(std::move(step));
    }
  }
  std::stable_sort(steps.begin(), steps.end(), [](const TimelineStep& a, const TimelineStep& b) { return a.at < b.at; });
  return steps;
}

}  // namespace logsim::scenarios
