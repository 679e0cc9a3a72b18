// Your own properties over the history ("every payment is charged once"), judged beside
// logsim's checkers in every run, fuzz case and shrink candidate of a binary that registers
// them:
//
//   class ChargedOnce : public logsim::Property {
//    public:
//     ChargedOnce() : Property("charged-once") {}
//     void check(const logsim::HistoryEvent& e) override {
//       if (e.kind != logsim::OpKind::kProcess || e.group != "billing") return;
//       if (!charged_.insert(e.value_id).second) violation("charged-twice", e, "payment charged twice");
//     }
//    private:
//     std::set<std::uint64_t> charged_;
//   };
//   logsim::register_checker("charged-once", [] { return std::make_unique<ChargedOnce>(); });
//
// A Property sees every event of the run in order, as it is appended (docs/history.md says what
// each carries), then finish(). What it reports is in the verdict like any checker's: the run
// is violated, the report and the replay command name it, fuzz finds and shrinks it. One
// Property object per run; it must be deterministic (no wall clock, no unordered iteration
// that reaches what it reports).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "properties/checker.h"
#include "properties/history.h"

namespace logsim {

class Property : public properties::Checker {
 public:
  explicit Property(std::string name) : name_(std::move(name)) {}
  std::string_view name() const final { return name_; }
  // Each event of the run, in order.
  virtual void check(const properties::HistoryEvent& e) = 0;
  // After the last event: end-of-run properties ("every order was eventually billed").
  void finish() override {}

 protected:
  // Reports `anomaly` (a name of yours, e.g. "charged-twice"), first shown by `e` (its index,
  // time, process, topic, partition, offset and key), with a one-sentence explanation.
  void violation(std::string anomaly, const properties::HistoryEvent& e, std::string explanation) {
    properties::Violation v = violation_at(std::move(anomaly), e);
    v.explanation = std::move(explanation);
    report(std::move(v));
  }

 private:
  void on_event(const properties::HistoryEvent& e, const properties::EventIds& /*ids*/) final { check(e); }
  std::string name_;
};

using PropertyFactory = std::function<std::unique_ptr<Property>()>;

// Registers a Property by name: every run of this program (logsim::run, and logsim::main's
// run, fuzz, replay and check) judges it; registering a name again replaces it. Not safe while
// runs are in progress on other threads.
void register_checker(const std::string& name, PropertyFactory factory);
void unregister_checker(const std::string& name);
std::vector<std::string> registered_checkers();

}  // namespace logsim
