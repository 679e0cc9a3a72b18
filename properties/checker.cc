// CheckerSet: fan-out of events to checkers and the ordering of their findings.
#include "properties/checker.h"

#include <algorithm>

#include "engine/base/assert.h"
#include "properties/aborted_read_checker.h"
#include "properties/assertion_checker.h"
#include "properties/commit_order_checker.h"
#include "properties/duplicate_checker.h"
#include "properties/eos_checker.h"
#include "properties/group_checkers.h"
#include "properties/group_interference_checker.h"
#include "properties/log_checker.h"
#include "properties/order_checker.h"
#include "properties/poll_skip_checker.h"
#include "properties/realtime_lag_checker.h"
#include "properties/send_skip_checker.h"
#include "properties/send_order_checker.h"
#include "properties/zombie_write_checker.h"

namespace logsim::properties {

std::string_view outcome_name(Outcome o) {
  switch (o) {
    case Outcome::kPass: return "pass";
    case Outcome::kViolated: return "violated";
    case Outcome::kLiveness: return "liveness";
  }
  return "?";
}

Violation Checker::violation_of(std::string anomaly, std::uint64_t event, Nanos at, Id process, Id tp,
                                std::optional<Offset> offset, Id key) const {
  const Symbols& s = symbols();
  Violation v;
  v.anomaly = std::move(anomaly);
  v.first_event = event;
  v.at = at;
  v.process = s.process(process);
  v.topic = s.topic_of_tp(tp);
  v.partition = s.partition_of(tp);
  v.offset = offset;
  v.key = s.key_or_null(key);
  v.members = {v.process};
  return v;
}

void CheckerSet::attach(History& history) {
  LOGSIM_ASSERT(attached_ == nullptr || attached_ == &history, "a checker set is attached to one history");
  attached_ = &history;
  history.observe_packed([this](const HistoryEvent& e, const History::TextIds& text) { dispatch(e, symbols_->ids_of(e, text)); });
}

void CheckerSet::observe(const HistoryEvent& e) { dispatch(e, symbols_->ids_of(e)); }

void CheckerSet::dispatch(const HistoryEvent& e, const EventIds& ids) {
  const auto kind = static_cast<std::size_t>(e.kind);
  if (kind >= by_kind_.size()) return;
  for (Checker* c : by_kind_[kind]) c->on_event(e, ids);
}

Verdict CheckerSet::finish() {
  Verdict v;
  for (auto& c : checkers_) {
    c->finish();
    c->figures(v.figures);
    for (const Violation& x : c->violations()) {
      if (!ignored_.contains(x.anomaly)) v.violations.push_back(x);
    }
  }
  std::stable_sort(v.violations.begin(), v.violations.end(),
                   [](const Violation& a, const Violation& b) { return a.first_event < b.first_event; });
  // Not catching up and waiting too long are liveness failures; anything else is a safety one.
  const bool liveness_only = !v.violations.empty() && std::all_of(v.violations.begin(), v.violations.end(), [](const Violation& x) {
    return x.anomaly == "liveness" || x.anomaly == "realtime-lag";
  });
  v.outcome = v.violations.empty() ? Outcome::kPass : (liveness_only ? Outcome::kLiveness : Outcome::kViolated);
  return v;
}

const std::vector<std::string>& anomaly_names() {
  static const std::vector<std::string> kNames = {
      "nonmonotonic-poll", "int-nonmonotonic-poll", "poll-skip", "int-poll-skip", "nonmonotonic-send", "inconsistent-offsets", "lost-write", "duplicate",
      "unseen", "lost-commit", "group-interference", "double-ownership", "stale-commit-accepted", "aborted-read", "precommitted-read",
      "nonmonotonic-commit", "zombie-write", "eos-duplicate", "eos-lost", "int-send-skip", "liveness", "realtime-lag", "assertion-failed"};
  return kNames;
}

std::vector<std::unique_ptr<Checker>> default_checker_list(const CheckerOptions& options) {
  std::vector<std::unique_ptr<Checker>> list;
  const auto wanted = [&](std::initializer_list<const char*> anomalies) {
    return std::any_of(anomalies.begin(), anomalies.end(), [&](const char* a) { return !options.ignored.contains(a); });
  };
  if (wanted({"nonmonotonic-poll", "int-nonmonotonic-poll"})) list.push_back(std::make_unique<OrderChecker>());
  if (wanted({"inconsistent-offsets", "lost-write"})) list.push_back(std::make_unique<LogChecker>(options.compacted_topics));
  if (wanted({"nonmonotonic-send"})) list.push_back(std::make_unique<SendOrderChecker>());
  if (wanted({"duplicate"})) list.push_back(std::make_unique<DuplicateChecker>());
  if (wanted({"double-ownership"})) list.push_back(std::make_unique<DoubleOwnershipChecker>());
  if (wanted({"stale-commit-accepted"})) list.push_back(std::make_unique<StaleCommitChecker>());
  // lost-commit and unseen share one GroupProgress: one of them feeds it.
  const bool lost_commit = wanted({"lost-commit"});
  const bool unseen = options.unseen_required_before && wanted({"unseen", "liveness"});
  std::shared_ptr<GroupProgress> progress;
  if (lost_commit && unseen) {
    progress = std::make_shared<GroupProgress>(GroupProgress::Keep::kAcks, options.compacted_topics);
    list.push_back(std::make_unique<LostCommitChecker>(SharedProgress{progress, /*feeds=*/true}));
  } else if (lost_commit) {
    list.push_back(std::make_unique<LostCommitChecker>(options.compacted_topics));
  }
  if (wanted({"poll-skip", "int-poll-skip"})) {
    list.push_back(std::make_unique<PollSkipChecker>(PollSkipChecker::Options{options.compacted_topics}));
  }
  if (wanted({"group-interference"})) list.push_back(std::make_unique<GroupInterferenceChecker>());
  if (wanted({"aborted-read", "precommitted-read"})) list.push_back(std::make_unique<AbortedReadChecker>());
  if (wanted({"nonmonotonic-commit"})) list.push_back(std::make_unique<CommitOrderChecker>());
  if (wanted({"zombie-write"})) list.push_back(std::make_unique<ZombieWriteChecker>());
  if (wanted({"eos-duplicate", "eos-lost"})) list.push_back(std::make_unique<EosChecker>());
  if (wanted({"int-send-skip"})) list.push_back(std::make_unique<SendSkipChecker>(options.write_isolation));
  if (wanted({"realtime-lag"})) list.push_back(std::make_unique<RealtimeLagChecker>(options.max_realtime_lag));
  if (wanted({"assertion-failed"})) list.push_back(std::make_unique<AssertionChecker>());
  if (unseen) {
    list.push_back(progress ? std::make_unique<UnseenChecker>(*options.unseen_required_before, SharedProgress{progress, false})
                            : std::make_unique<UnseenChecker>(*options.unseen_required_before, options.compacted_topics));
  }
  return list;
}

CheckerSet default_checkers(const CheckerOptions& options) {
  CheckerSet set;
  set.ignore(options.ignored);
  for (auto& c : default_checker_list(options)) set.add(std::move(c));
  return set;
}

}  // namespace logsim::properties
