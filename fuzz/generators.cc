// Generators of fuzz cases (see generators.h).
#include "fuzz/generators.h"

#include <rapidcheck/Random.h>
#include <rapidcheck/gen/Build.h>
#include <rapidcheck/gen/Container.h>
#include <rapidcheck/gen/Create.h>
#include <rapidcheck/gen/Numeric.h>
#include <rapidcheck/gen/Predicate.h>
#include <rapidcheck/gen/Select.h>
#include <rapidcheck/gen/Transform.h>

#include <algorithm>
#include <utility>

namespace logsim::fuzz {

std::string_view commit_name(Commit c) {
  switch (c) {
    case Commit::kAuto: return "auto";
    case Commit::kAfterEachMessage: return "after-each-message";
    case Commit::kAfterEachBatch: return "after-each-batch";
    case Commit::kAfterEachBatchAsync: return "after-each-batch-async";
  }
  return "?";
}

namespace {

using rc::gen::inRange;
using rc::gen::set;

// Lengths straddle the timeouts that matter: broker.session.timeout.ms and
// replica.lag.time.max.ms for brokers, session.timeout.ms and max.poll.interval.ms for members,
// so some faults fence, move leadership and rebalance, and some are over before anyone notices.
// Each generator draws at full range whatever the size it is called with (a container's size
// bounds its length, and is passed on to its elements).
rc::Gen<Fault> gen_fault(std::vector<FaultKind> kinds) {
  return rc::gen::resize(rc::kNominalSize, rc::gen::build<Fault>(set(&Fault::kind, rc::gen::elementOf(std::move(kinds))),
                               set(&Fault::target, inRange<std::int32_t>(0, 8)),
                               set(&Fault::gap_ms, inRange<std::int64_t>(0, 4'001)),
                               set(&Fault::length_ms, rc::gen::oneOf(inRange<std::int64_t>(100, 2'001),
                                                                     inRange<std::int64_t>(2'000, 8'001),
                                                                     inRange<std::int64_t>(8'000, 15'001)))));
}

// The swarm: a subset of `shape.kinds` (shrinking turns kinds off), then faults of those kinds.
rc::Gen<std::pair<std::vector<FaultKind>, std::vector<Fault>>> gen_schedule(const Shape& shape) {
  const std::vector<FaultKind> all = shape.kinds;
  const std::int32_t max_faults = shape.max_faults;
  return rc::gen::mapcat(
      rc::gen::container<std::vector<bool>>(all.size(), rc::gen::arbitrary<bool>()),
      [all, max_faults](const std::vector<bool>& on) {
        std::vector<FaultKind> kinds;
        for (std::size_t i = 0; i < all.size(); ++i) {
          if (on[i]) kinds.push_back(all[i]);
        }
        using Schedule = std::pair<std::vector<FaultKind>, std::vector<Fault>>;
        if (kinds.empty()) return rc::gen::just(Schedule{});
        return rc::gen::map(rc::gen::resize(max_faults, rc::gen::container<std::vector<Fault>>(gen_fault(kinds))),
                            [kinds](std::vector<Fault> faults) { return Schedule{kinds, std::move(faults)}; });
      });
}

rc::Gen<Producer> gen_producer() {
  return rc::gen::resize(rc::kNominalSize, rc::gen::build<Producer>(set(&Producer::rate_per_sec, inRange<std::int32_t>(10, 101)),
                                  set(&Producer::idempotent, rc::gen::arbitrary<bool>()),
                                  set(&Producer::max_in_flight, inRange<std::int32_t>(1, 6)),
                                  set(&Producer::keys, inRange<std::int32_t>(1, 51))));
}

rc::Gen<Group> gen_group() {
  return rc::gen::resize(rc::kNominalSize, rc::gen::build<Group>(
      set(&Group::members, inRange<std::int32_t>(1, 5)),
      set(&Group::commit, rc::gen::element(Commit::kAuto, Commit::kAfterEachMessage, Commit::kAfterEachBatch,
                                           Commit::kAfterEachBatchAsync)),
      set(&Group::assignor, rc::gen::element<std::string>("range", "roundrobin", "sticky", "cooperative-sticky")),
      set(&Group::static_membership, rc::gen::arbitrary<bool>()),
      set(&Group::processing_ms, inRange<std::int32_t>(0, 6)),
      set(&Group::session_timeout_ms, rc::gen::element<std::int32_t>(6000, 10000, 15000)),
      set(&Group::auto_commit_interval_ms, rc::gen::element<std::int32_t>(5000, 1000, 100)),
      set(&Group::max_poll_records, rc::gen::element<std::int32_t>(500, 50, 10))));
}

}  // namespace

rc::Gen<Case> gen_case(const Shape& shape) {
  auto topology = rc::gen::build<Case>(
      set(&Case::brokers, inRange<std::int32_t>(3, 5)),
      set(&Case::partitions, inRange<std::int32_t>(1, 7)),
      set(&Case::offsets_partitions, inRange<std::int32_t>(1, 4)),
      set(&Case::replica_lag_time_max_ms, rc::gen::element<std::int32_t>(10000, 5000, 30000)),
      set(&Case::producers, rc::gen::resize(2, rc::gen::nonEmpty(rc::gen::container<std::vector<Producer>>(gen_producer())))),
      set(&Case::groups, rc::gen::resize(3, rc::gen::nonEmpty(rc::gen::container<std::vector<Group>>(gen_group())))));
  return rc::gen::resize(rc::kNominalSize,
                         rc::gen::map(rc::gen::pair(topology, gen_schedule(shape)), [](std::pair<Case, std::pair<std::vector<FaultKind>, std::vector<Fault>>> p) {
                           p.first.kinds = std::move(p.second.first);
                           p.first.faults = std::move(p.second.second);
                           return std::move(p.first);
                         }));
}

rc::Gen<Case> gen_faults_only(const Shape& shape) {
  return rc::gen::resize(rc::kNominalSize,
                         rc::gen::map(gen_schedule(shape), [](std::pair<std::vector<FaultKind>, std::vector<Fault>> s) {
                           Case c;
                           c.kinds = std::move(s.first);
                           c.faults = std::move(s.second);
                           return c;
                         }));
}

rc::Shrinkable<Case> case_for_seed(const rc::Gen<Case>& gen, std::uint64_t seed) {
  return gen(rc::Random(seed), rc::kNominalSize);
}

std::vector<PlacedFault> place_faults(const Case& c, const Shape& shape) {
  std::vector<PlacedFault> out;
  std::int64_t lane_free[2] = {shape.faults_from_ms, shape.faults_from_ms};  // brokers, members
  bool lane_done[2] = {false, false};
  for (const Fault& f : c.faults) {
    if (std::find(c.kinds.begin(), c.kinds.end(), f.kind) == c.kinds.end()) continue;
    const int lane = scenarios::is_member_fault(f.kind) ? 1 : 0;
    if (lane_done[lane]) continue;
    const std::int64_t start = lane_free[lane] + f.gap_ms;
    if (start + f.length_ms > shape.faults_until_ms) {
      lane_done[lane] = true;
      continue;
    }
    out.push_back(PlacedFault{f, start, start + f.length_ms});
    lane_free[lane] = start + f.length_ms;
  }
  std::stable_sort(out.begin(), out.end(), [](const PlacedFault& a, const PlacedFault& b) { return a.start_ms < b.start_ms; });
  return out;
}

}  // namespace logsim::fuzz
