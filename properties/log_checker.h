// Log integrity, after Jepsen's Kafka checker, over sends and processed records:
// - `inconsistent-offsets`: one (topic, partition, offset) holds two different values, as seen
//   by acknowledgements and by consumers together. Found online, at the second value.
// - `lost-write`: an acknowledged value that no consumer ever processed, although a consumer
//   processed its partition at or past its offset (so it was not merely not read yet). Found
//   at the end; the first event is the first processing at or past the offset after the ack.
// Records are told apart by their value ids (each send's value is unique in a run).
//
// State: per partition, the value at each offset seen, and the acknowledged offsets; per value,
// whether it was processed. Linear in the history.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>

#include "properties/checker.h"

namespace logsim::properties {

class LogChecker final : public Checker {
 public:
  std::string_view name() const override { return "log-integrity"; }
  void observe(const HistoryEvent& e) override;
  void finish() override;

 private:
  using Where = std::tuple<std::string, std::int32_t, std::int64_t>;  // topic, partition, offset
  struct Seen {
    std::uint64_t value;
    std::uint64_t event;
    std::string process;
  };
  struct Ack {
    Where where;
    std::uint64_t event;
    std::optional<std::string> key;
    std::string process;
  };
  struct Processing {
    std::int64_t offset;
    std::uint64_t event;
    Nanos at;
    std::string process;
  };

  void note(const Where& where, const HistoryEvent& e);

  std::map<Where, Seen> at_;                      // first value seen at each offset
  std::set<Where> conflicted_;                    // reported once each
  std::map<std::uint64_t, Ack> acked_;            // value -> where it was acknowledged
  std::set<Where> processed_at_;                  // offsets some consumer processed (any value)
  std::map<std::pair<std::string, std::int32_t>, std::int64_t> group_committed_;  // highest accepted commit
  std::set<std::uint64_t> processed_;             // values some consumer processed
  // Per partition, every processing in history order (for naming a lost write's first event).
  std::map<std::pair<std::string, std::int32_t>, std::vector<Processing>> processings_;
};

}  // namespace logsim::properties
