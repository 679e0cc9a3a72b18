// The ledger: a consumer-group member that posts payments to an account book. It polls every
// 20 ms, keeps what it polled in memory, and posts it in micro-batches every 200 ms (posting
// one by one would be too slow for the real book).
//
// The bug, as it was first written (Ledger(Commit::kOnPoll)): it commits after each poll, the
// way enable.auto.commit does, so the group's committed offsets run ahead of what is posted.
// Nothing goes wrong until a member crashes, or loses its partitions in a rebalance, in the
// 200 ms between a poll and the flush: the payments it held are never posted by anyone, because
// the member that takes the partition over starts from the committed offset. Only some
// timings show it; logsim fuzz finds them.
//
// The fix (Ledger(Commit::kAfterPosting)): commit, per partition, only what has been posted.
#pragma once

#include <memory>
#include <vector>

#include "api/app.h"

namespace ledger {

enum class Commit { kOnPoll, kAfterPosting };

class Ledger : public logsim::App {
 public:
  explicit Ledger(Commit commit) : commit_(commit) {}
  void on_start(logsim::AppContext& ctx) override;
  void on_stop(logsim::AppContext& ctx) override;

 private:
  void poll();
  void flush();
  // Posts what is held (all of it is for partitions this member owns: a revocation drops the
  // rest).
  void post_held();

  Commit commit_;
  logsim::AppContext* ctx_ = nullptr;
  std::vector<logsim::ConsumedRecord> held_;
};

// Registers "ledger": the buggy version, or the fixed one.
void register_ledger(Commit commit);

}  // namespace ledger
