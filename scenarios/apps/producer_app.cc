// The producer application's send loop and its history records.
#include "scenarios/apps/producer_app.h"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "scenarios/apps/app_history.h"

namespace logsim::scenarios {
namespace {
constexpr std::uint64_t kTickTag = 1000;
constexpr std::uint64_t kPumpTag = 1001;  // a transaction ended, or the producer was not ready
constexpr std::uint64_t kAbortTag = 1002;  // every send of a transaction to abort has its outcome
constexpr std::uint64_t kStartTag = 1003;  // a transactional producer's `start`: initTransactions
constexpr std::uint64_t kBurstTag = 0x5f000000;  // + the produce step's index among the run's application steps
}  // namespace

bool is_poison(std::uint64_t value_id, std::uint64_t salt, double probability) {
  if (probability <= 0) return false;
  // splitmix64 of the value id and the salt: a fixed, platform-independent draw.
  std::uint64_t z = value_id * 0x9E3779B97F4A7C15ULL + salt;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  z ^= z >> 31;
  return static_cast<double>(z >> 11) * 0x1.0p-53 < probability;
}

std::string make_value(std::uint64_t value_id, std::int32_t bytes) {
  std::string v = std::to_string(value_id) + " ";
  if (static_cast<std::int32_t>(v.size()) > bytes) v.clear();  // too short for the id: padding alone
  v.resize(static_cast<std::size_t>(bytes), 'x');
  return v;
}

Record make_record(std::optional<std::string> key, std::uint64_t value_id, std::int32_t bytes, bool tombstone,
                   std::int64_t timestamp_ms) {
  Record r{std::move(key), std::nullopt, timestamp_ms};
  if (!tombstone) r.value = make_value(value_id, bytes);
  if (parse_value_id(r) != value_id) r.headers.push_back(RecordHeader{std::string(kValueIdHeader), std::to_string(value_id)});
  return r;
}

namespace {
std::uint64_t leading_id(const std::optional<std::string>& text) {
  if (!text) return 0;
  std::uint64_t id = 0;
  auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), id);
  return ec == std::errc() ? id : 0;
}
}  // namespace

std::uint64_t parse_value_id(const Record& record) {
  for (const RecordHeader& h : record.headers) {
    if (h.key == kValueIdHeader) return leading_id(h.value);
  }
  return leading_id(record.value);
}

ProducerApp::ProducerApp(Env& env, const ProducerSpec& spec, RunContext& ctx, std::vector<NodeId> bootstrap,
                         const std::vector<TimelineStep>& timeline)
    : env_(env), spec_(spec), ctx_(ctx), timers_(env), producer_(env, timers_, [&] {
        engine::ProducerConfig c = spec.config;
        c.bootstrap_servers = std::move(bootstrap);
        return c;
      }()), steps_(timeline, spec.name), zipf_(zipf_for(spec.keys)) {}

std::optional<ZipfDistribution> ProducerApp::zipf_for(const KeySpec& keys) {
  if (keys.kind != KeySpec::Kind::kZipf) return std::nullopt;
  return ZipfDistribution(static_cast<std::size_t>(keys.uniform), keys.exponent);
}

void ProducerApp::on_start() {
  const Nanos wait = spec_.start > ctx_.now() ? spec_.start - ctx_.now() : 0;
  // A transactional producer's start fences every earlier one with its transactional.id
  // (InitProducerId), so the application starts it when it starts sending, not before.
  if (producer_.transactional() && wait > 0) {
    env_.set_timer(wait, kStartTag);
  } else {
    producer_.start();
  }
  tick_ = env_.set_timer(wait, kTickTag);
  steps_.arm(env_, ctx_);
  for (const auto& [index, left] : ctx_.producers.at(spec_.name).burst_left) {
    if (left > 0) env_.set_timer(0, kBurstTag + index);  // a burst the last incarnation did not finish
  }
}

void ProducerApp::on_message(NodeId from, const Message& msg) { producer_.on_message(from, msg); }

void ProducerApp::on_timer(TimerId id, std::uint64_t tag) {
  if (timers_.on_timer(id, tag)) return;
  if (const auto fired = steps_.fired(tag, ctx_)) {
    const auto [index, step] = *fired;
    ctx_.producers.at(spec_.name).burst_left[index] = step->count;
    auto e = ctx_.event(properties::OpKind::kFault, spec_.name);
    e.note = "produce " + spec_.name + ": a burst of " + std::to_string(step->count) + " records" +
             (step->rate_per_sec > 0 ? " at " + std::to_string(std::llround(step->rate_per_sec)) + "/s" : "");
    ctx_.history.append(std::move(e));
    burst(index);
    return;
  }
  if (tag == kPumpTag) {
    pump();
    return;
  }
  if (tag == kStartTag) {
    producer_.start();
    return;
  }
  if (tag == kAbortTag) {
    abort_transaction();
    return;
  }
  if (tag >= kBurstTag) {
    burst(static_cast<std::size_t>(tag - kBurstTag));
    return;
  }
  if (tag != kTickTag) return;
  ProducerProgress& progress = ctx_.producers.at(spec_.name);
  if (progress.sent >= spec_.count) return;
  ++progress.sent;
  send(nullptr, 0);
  const auto interval = static_cast<Nanos>(std::llround(1e9 / spec_.rate_per_sec));
  if (progress.sent < spec_.count) tick_ = env_.set_timer(interval, kTickTag);
}

void ProducerApp::burst(std::size_t index) {
  std::int64_t& left = ctx_.producers.at(spec_.name).burst_left.at(index);
  const double rate = steps_.step(index).rate_per_sec;
  const steps::Produce& step = steps_.step(index);
  while (left > 0) {
    --left;
    send(&step, step.count - left - 1);
    if (rate > 0) break;
  }
  if (left > 0) env_.set_timer(static_cast<Nanos>(std::llround(1e9 / rate)), kBurstTag + index);
}

std::optional<std::string> ProducerApp::choose_key(Rng& rng) const {
  if (spec_.keys.hot && rng.bernoulli(spec_.keys.hot_share)) return spec_.keys.hot;
  switch (spec_.keys.kind) {
    case KeySpec::Kind::kNone:
      return std::nullopt;
    case KeySpec::Kind::kUniform:
      return "key-" + std::to_string(rng.uniform_u64(static_cast<std::uint64_t>(spec_.keys.uniform)));
    case KeySpec::Kind::kList:
      return spec_.keys.list[rng.uniform_u64(spec_.keys.list.size())];
    case KeySpec::Kind::kZipf:
      return "key-" + std::to_string(zipf_->sample(rng));
  }
  return std::nullopt;
}

void ProducerApp::send_one(const steps::Produce* step, std::int64_t position) {
  ProducerProgress& progress = ctx_.producers.at(spec_.name);
  const std::uint64_t value_id = ++ctx_.last_value_id;
  std::optional<std::string> chosen = step && !step->keys.empty()
                                          ? step->keys[static_cast<std::size_t>(position) % step->keys.size()]
                                          : choose_key(progress.workload);
  // No draw when nothing is a tombstone, so that runs without them draw what they always drew.
  const double share = step && step->tombstones ? *step->tombstones : spec_.tombstones;
  const bool tombstone = share >= 1 || (share > 0 && progress.workload.bernoulli(share));
  Record record = make_record(std::move(chosen), value_id, spec_.value_bytes, tombstone, to_millis(env_.now()));

  auto invoke = ctx_.event(properties::OpKind::kSendInvoke, spec_.name);
  invoke.topic = spec_.topic;
  invoke.key = record.key;
  invoke.value_id = value_id;
  invoke.idempotent = spec_.config.enable_idempotence;
  invoke.tombstone = tombstone;
  ctx_.history.append(std::move(invoke));

  RunContext& ctx = ctx_;
  const std::string name = spec_.name;
  const std::string topic = spec_.topic;
  const auto key = record.key;
  const bool in_txn = producer_.transactional();
  if (in_txn) ++unanswered_;
  producer_.send(topic, std::move(record), std::nullopt, [this, &ctx, name, topic, key, value_id, in_txn](const engine::SendResult& r) {
    ctx.history.append(send_outcome_event(ctx, name, topic, key, value_id, r));
    if (in_txn && --unanswered_ == 0 && abort_when_answered_) {
      abort_when_answered_ = false;
      env_.set_timer(0, kAbortTag);  // not from inside the producer's callback
    }
  });
}

void ProducerApp::send(const steps::Produce* step, std::int64_t position) {
  if (!producer_.transactional()) return send_one(step, position);
  waiting_.emplace_back(step, position);
  pump();
}

bool ProducerApp::more_to_send() const {
  const ProducerProgress& progress = ctx_.producers.at(spec_.name);
  if (!waiting_.empty() || progress.sent < spec_.count) return true;
  return std::any_of(progress.burst_left.begin(), progress.burst_left.end(), [](const auto& b) { return b.second > 0; });
}

void ProducerApp::pump() {
  while (!waiting_.empty() && !ending_) {
    if (!open_) {
      if (producer_.begin_transaction() != ErrorCode::NONE) {
        // Not ready yet (InitProducerId under way): try again soon. Failed for good: nothing more
        // is sent (as an application whose producer is fenced stops).
        if (producer_.txn_phase() == engine::TxnPhase::kUninitialized) env_.set_timer(millis(10), kPumpTag);
        return;
      }
      open_ = true;
      in_txn_ = 0;
      auto e = ctx_.event(properties::OpKind::kTxnBegin, spec_.name);
      e.note = "transactional.id=" + spec_.config.transactional_id.value_or("");
      // The first transaction after initTransactions() names the id: it fences older incarnations.
      if (!announced_) e.key = spec_.config.transactional_id;
      announced_ = true;
      ctx_.history.append(std::move(e));
    }
    const auto [step, position] = waiting_.front();
    waiting_.pop_front();
    send_one(step, position);
    if (++in_txn_ >= spec_.transactions.records || !more_to_send()) end_transaction();
  }
}

void ProducerApp::end_transaction() {
  ending_ = true;
  ProducerProgress& progress = ctx_.producers.at(spec_.name);
  // No draw when nothing aborts, so that such runs draw what they always drew.
  const double aborts = spec_.transactions.aborts;
  if (aborts > 0 && (aborts >= 1 || progress.workload.bernoulli(aborts))) {
    if (unanswered_ > 0) {
      abort_when_answered_ = true;
    } else {
      abort_transaction();
    }
    return;
  }
  ctx_.history.append(ctx_.event(properties::OpKind::kTxnCommitInvoke, spec_.name));
  producer_.commit_transaction([this](ErrorCode e) {
    if (e == ErrorCode::NONE) return ended(properties::OpKind::kTxnCommit, e, "");
    if (producer_.txn_phase() != engine::TxnPhase::kAbortableError) return ended(properties::OpKind::kTxnInfo, e, "the commit failed");
    // A send of it failed: the transaction can only be aborted (its EndTxn(COMMIT) was never sent).
    producer_.abort_transaction([this, e](ErrorCode a) {
      if (a == ErrorCode::NONE) return ended(properties::OpKind::kTxnAbort, e, "the commit failed, so it was aborted");
      ended(properties::OpKind::kTxnInfo, a,
            "the commit failed (" + std::string(error_name(e)) + "), and so did the abort");
    });
  });
}

void ProducerApp::abort_transaction() {
  producer_.abort_transaction([this](ErrorCode e) {
    ended(e == ErrorCode::NONE ? properties::OpKind::kTxnAbort : properties::OpKind::kTxnInfo, e, "aborted by the application");
  });
}

void ProducerApp::ended(properties::OpKind outcome, ErrorCode error, std::string note) {
  auto e = ctx_.event(outcome, spec_.name);
  if (error != ErrorCode::NONE) e.error = std::string(error_name(error));
  e.note = std::move(note);
  ctx_.history.append(std::move(e));
  open_ = false;
  ending_ = false;
  env_.set_timer(0, kPumpTag);  // not from inside the producer's callback
}

}  // namespace logsim::scenarios
