// Duplicates, after Jepsen's `duplicate`: a value sent by an idempotent producer is written to
// the log once, so consumers find it at one offset only. The same value processed at two
// different offsets is the violation — a retry got past the broker's deduplication and the
// record was written twice. Values from producers without idempotence are not judged: Kafka
// promises nothing there (a retry after a lost response writes the record again). Found online,
// at the first processing of a value at a second offset; one report per value.
//
// State: the values sent idempotently and who sent them; per such value, where it was first
// processed. Linear in the history.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <tuple>

#include "properties/checker.h"

namespace logsim::properties {

class DuplicateChecker final : public Checker {
 public:
  std::string_view name() const override { return "duplicates"; }
  void on_event(const HistoryEvent& e, const EventIds& ids) override;

 private:
  using Where = std::tuple<std::string, std::int32_t, std::int64_t>;  // topic, partition, offset
  struct First {
    Where where;
    std::uint64_t event;
    std::string process;
  };

  std::map<std::uint64_t, std::string> idempotent_;  // value -> the producer that sent it
  std::map<std::uint64_t, First> first_;             // value -> its first processing
  std::set<std::uint64_t> reported_;
};

}  // namespace logsim::properties
