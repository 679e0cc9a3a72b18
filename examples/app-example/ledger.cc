#include "ledger.h"

#include <algorithm>
#include <map>
#include <utility>

namespace ledger {

namespace {
constexpr logsim::Nanos kPollEvery = logsim::millis(20);
constexpr logsim::Nanos kFlushEvery = logsim::millis(200);
}  // namespace

void Ledger::on_start(logsim::AppContext& ctx) {
  ctx_ = &ctx;
  // What is held for a partition that is revoked (or lost) is dropped: its next owner reads it
  // again from the committed offset, and if it comes back here, so do we.
  const auto drop = [this](const std::vector<logsim::TopicPartition>& gone) {
    const auto dropped = std::erase_if(held_, [&](const logsim::ConsumedRecord& r) {
      return std::find(gone.begin(), gone.end(), r.topic_partition()) != gone.end();
    });
    // The timing that matters: a campaign that never reaches it has not tested the ledger.
    ctx_->sometimes(dropped > 0, "a partition was revoked while payments for it were held");
  };
  ctx.consumer().subscribe(ctx.topics(), {.assigned = {}, .revoked = drop, .lost = drop});
  ctx.set_timer(0, [this] { poll(); });
  ctx.set_timer(kFlushEvery, [this] { flush(); });
}

void Ledger::on_stop(logsim::AppContext&) { post_held(); }

void Ledger::poll() {
  std::vector<logsim::ConsumedRecord> got = ctx_->consumer().poll();
  const bool any = !got.empty();
  for (auto& r : got) held_.push_back(std::move(r));
  // THE BUG: the positions are past records that are only in memory.
  if (commit_ == Commit::kOnPoll && any) ctx_->consumer().commit_async();
  ctx_->set_timer(kPollEvery, [this] { poll(); });
}

void Ledger::flush() {
  post_held();
  ctx_->set_timer(kFlushEvery, [this] { flush(); });
}

void Ledger::post_held() {
  std::map<logsim::TopicPartition, logsim::Offset> posted;
  const std::vector<logsim::TopicPartition>& mine = ctx_->consumer().assignment();
  for (const logsim::ConsumedRecord& r : held_) {
    ctx_->always(std::find(mine.begin(), mine.end(), r.topic_partition()) != mine.end(),
                 "the ledger posts only payments of partitions it owns");
    ctx_->consumer().processed(r);  // posted to the book
    posted[r.topic_partition()] = logsim::Offset(r.offset.value() + 1);
  }
  held_.clear();
  if (commit_ == Commit::kAfterPosting && !posted.empty()) ctx_->consumer().commit_sync(std::move(posted));
}

void register_ledger(Commit commit) {
  logsim::register_app("ledger", [commit] { return std::make_unique<Ledger>(commit); });
}

}  // namespace ledger
