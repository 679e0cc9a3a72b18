// A checker reads history events one by one as they are appended (online), so a violation
// names its first event; the same checker runs offline over a recorded history. Checkers are
// linear in the history's length and never look at the simulator.
#pragma once

#include <array>
#include <initializer_list>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "properties/history.h"
#include "properties/symbols.h"
#include "properties/verdict.h"

namespace logsim::properties {

// A set of event kinds, one bit per OpKind.
using KindSet = std::uint32_t;
constexpr KindSet kinds_of(std::initializer_list<OpKind> kinds) {
  KindSet set = 0;
  for (const OpKind k : kinds) set |= KindSet{1} << static_cast<unsigned>(k);
  return set;
}
inline constexpr KindSet kAllKinds = ~KindSet{0};

class Checker {
 public:
  virtual ~Checker() = default;
  virtual std::string_view name() const = 0;
  // The kinds of event the checker reads; a checker set shows it only those (on_event must
  // ignore every other kind, so that observe() alone gives the same verdict).
  virtual KindSet kinds() const { return kAllKinds; }
  // Shows the checker one event (a checker on its own interns the event's strings itself).
  void observe(const HistoryEvent& e) { on_event(e, symbols_->ids_of(e)); }
  // The same, with the event's ids from the symbols the checker shares (see share_symbols).
  virtual void on_event(const HistoryEvent& e, const EventIds& ids) = 0;
  // Called once after the last event (end-of-run properties).
  virtual void finish() {}
  // Adds what the checker measured (after finish), by name.
  virtual void figures(std::map<std::string, std::int64_t>& /*out*/) const {}
  const std::vector<Violation>& violations() const { return violations_; }
  // Makes the checker read ids from `symbols`, which its caller fills (before the first event).
  void share_symbols(std::shared_ptr<Symbols> symbols) { symbols_ = std::move(symbols); }

 protected:
  void report(Violation v) { violations_.push_back(std::move(v)); }
  const Symbols& symbols() const { return *symbols_; }
  // A violation of `anomaly` first shown by `e`: its index, time, process, partition, offset and
  // key, with e's process as the one member. The caller adds members and the explanation.
  static Violation violation_at(std::string anomaly, const HistoryEvent& e) {
    Violation v;
    v.anomaly = std::move(anomaly);
    v.first_event = e.index;
    v.at = e.at;
    v.process = e.process;
    v.topic = e.topic;
    v.partition = e.partition;
    v.offset = e.offset;
    v.key = e.key;
    v.members = {e.process};
    return v;
  }
  // The same from stored ids: first shown by event `event` at `at`, on `offset` of topic-partition
  // `tp`, with key `key` (kNoId: none), and `process` as the process and the one member.
  Violation violation_of(std::string anomaly, std::uint64_t event, Nanos at, Id process, Id tp, std::optional<Offset> offset,
                         Id key) const;

 private:
  std::vector<Violation> violations_;
  std::shared_ptr<Symbols> symbols_ = std::make_shared<Symbols>();
};

// Runs checkers over a history, online or offline, and gathers the verdict.
class CheckerSet {
 public:
  void add(std::unique_ptr<Checker> c) {
    c->share_symbols(symbols_);
    const KindSet kinds = c->kinds();
    for (std::size_t k = 0; k < by_kind_.size(); ++k) {
      if ((kinds >> k) & 1U) by_kind_[k].push_back(c.get());
    }
    checkers_.push_back(std::move(c));
  }
  // Feeds every future event of `history` to the checkers as it is appended.
  // Feeds one history only (its packed entries' ids are kept across events).
  void attach(History& history);
  void observe(const HistoryEvent& e);
  // Finishes every checker and returns violations ordered by their first event.
  Verdict finish();
  // Leaves violations of these anomalies out of the verdict (a scenario's "properties").
  void ignore(std::set<std::string> anomalies) { ignored_ = std::move(anomalies); }

 private:
  void dispatch(const HistoryEvent& e, const EventIds& ids);

  std::vector<std::unique_ptr<Checker>> checkers_;
  // Per event kind, the checkers that read it, in the order they were added.
  std::array<std::vector<Checker*>, kOpKinds> by_kind_{};
  std::set<std::string> ignored_;
  std::shared_ptr<Symbols> symbols_ = std::make_shared<Symbols>();  // interned once per event, for all
  const History* attached_ = nullptr;
};

// What a run knows that a history alone does not.
struct CheckerOptions {
  // The topics whose cleanup.policy includes compact, besides those the history's `admin`
  // events show (a create-topic or alter-config note with cleanup.policy=compact): only there do
  // the checkers excuse records compaction may have removed (compaction.h). nullopt: any topic
  // may be compacted (lenient: a lost keyed record whose key was written again goes unreported).
  std::optional<std::set<std::string>> compacted_topics = std::set<std::string>{};
  // Anomalies not to check: a checker all of whose anomalies are here is left out.
  std::set<std::string> ignored;
  // The longest an acknowledged record may wait before a group that reads its partition first
  // processes it (realtime-lag); nullopt: no bound, the figure only.
  std::optional<Nanos> max_realtime_lag;
  // Whether transactions promise isolated writes: int-send-skip is then a violation; without,
  // only the figure int-send-skip.count (Kafka does not isolate them).
  bool write_isolation = false;
  // When set, groups owe what was acknowledged before this time (`unseen`, `liveness`: the
  // runner passes the end of the fault phase, after which its quiet period lets groups catch
  // up). nullopt: not judged (a history alone does not say when a group had to catch up).
  std::optional<Nanos> unseen_required_before;
};

// The checkers a run uses by default, one by one (options.ignored is for the set to apply).
std::vector<std::unique_ptr<Checker>> default_checker_list(const CheckerOptions& options = {});
// The same as a set that leaves options.ignored out of its verdict.
CheckerSet default_checkers(const CheckerOptions& options = {});

}  // namespace logsim::properties
