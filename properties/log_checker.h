// Log integrity, after Jepsen's Kafka checker, over sends and processed records:
// - `inconsistent-offsets`: one (topic, partition, offset) holds two different values, as seen
//   by acknowledgements and by consumers together. Found online, at the second value.
// - `lost-write`: an acknowledged value that no consumer ever processed, although a consumer
//   read its partition through its offset after the acknowledgement: in one continuous read
//   (no new assignment, no seek or reset in between) it started at or below the offset and
//   processed at or past it. A reader that started above it (auto.offset.reset=latest, a
//   seek) says nothing about it. Found at the end; the first event is that processing.
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
  void on_event(const HistoryEvent& e, const EventIds& ids) override;
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
    std::int64_t read_from;  // where this process's continuous read of the partition began
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
  // Per process, per partition, where its current continuous read began (a seek's position,
  // else its first processed offset); a new assignment ends every read of the process.
  std::map<std::string, std::map<std::pair<std::string, std::int32_t>, std::int64_t>> read_from_;
};

}  // namespace logsim::properties
