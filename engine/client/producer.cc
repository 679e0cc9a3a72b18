// The producer client: partitioning, batching, the send loop with its in-flight limit,
// retries and timeouts, and idempotent sequence numbers.
#include "engine/client/producer.h"

#include <algorithm>

#include "engine/client/partitioner.h"
#include "engine/base/assert.h"
#include "engine/protocol/record_batch.h"

namespace logsim::engine {
namespace {
constexpr Nanos kNever = std::numeric_limits<Nanos>::max();
}  // namespace

Producer::Producer(Env& env, TimerMux& timers, ProducerConfig config)
    : env_(env), timers_(timers, [this](TimerId id, ProducerTimer tag) { on_timer(id, tag); }), config_(std::move(config)),
      // A produce answer meant for the previous incarnation must not complete this one's batch.
      channel_(env, channel_config(config_),
               fresh_correlation_base(env.rng())),
      metadata_(channel_, timers, nullptr),  // every topic
      produce_(channel_, timers_, ProducerTimer::kSend, ProducerTimer::kSend),
      init_(channel_, timers_, ProducerTimer::kInit, ProducerTimer::kInit),
      txn_requests_(channel_, timers_, ProducerTimer::kTxn, ProducerTimer::kTxn) {
  LOGSIM_ASSERT(!config_.bootstrap_servers.empty(), "producer needs bootstrap.servers");
  LOGSIM_ASSERT(config_.max_in_flight >= 1, "max.in.flight.requests.per.connection must be at least 1");
  LOGSIM_ASSERT(!transactional() || config_.enable_idempotence, "transactional.id needs enable.idempotence");
}

void Producer::start() {
  metadata_.request();
  timers_.set(millis(config_.metadata_max_age_ms), ProducerTimer::kMetadataMaxAge);
  if (transactional()) {
    txn_next();
  } else if (config_.enable_idempotence) {
    request_producer_id();
  }
}

bool Producer::ready() const { return !config_.enable_idempotence || producer_id_.value() >= 0; }

// Asks a bootstrap broker for a producer id, or (with one already) for its next epoch
// (KIP-360). An attempt in flight is given up: its answer would be ignored.
void Producer::request_producer_id() {
  init_.end(init_slot_);
  const NodeId target = channel_.any_bootstrap();
  init_.send({}, init_slot_, target, InitProducerIdRequest{0, producer_id_, producer_epoch_});
}

// A batch's fate left a gap in a partition's sequences: ask for the next epoch, once. New
// batches wait for it to be numbered; batches numbered already go on under the old epoch.
void Producer::request_epoch_bump() {
  LOGSIM_ASSERT(config_.enable_idempotence && producer_id_.value() >= 0, "an epoch bump needs a producer id");
  if (epoch_bump_pending_) return;
  epoch_bump_pending_ = true;
  mark_all_dirty();  // may_number reads it
  request_producer_id();
}

bool Producer::is_current(const Batch& b) const {
  return b.producer_id == producer_id_ && b.producer_epoch == producer_epoch_;
}

// Whether a partition's next batch may take numbers now: not while the next epoch is asked
// for, nor while batches numbered under an older epoch are unresolved (the new epoch's
// sequence 0 could land before them).
bool Producer::may_number(const std::deque<Batch>& batches) const {
  if (epoch_bump_pending_) return false;
  return std::none_of(batches.begin(), batches.end(),
                      [&](const Batch& b) { return b.base_sequence.value() >= 0 && !is_current(b); });
}

// The broker takes a partition's sequences in order, so a batch numbered behind one whose
// numbers were refused cannot be written under its numbers either: once no attempt of it is in
// flight, it drops them, to be numbered again after the refused batch.
void Producer::renumber_behind_refused(std::deque<Batch>& batches) {
  bool refused_ahead = false;
  for (Batch& b : batches) {
    if (b.base_sequence.value() < 0) {
      refused_ahead = true;  // numbered batches precede unnumbered ones unless numbers were dropped
    } else if (refused_ahead && !b.attempt.in_flight()) {
      b.drop_numbers();
    }
  }
}

// A numbered batch ended without an acknowledgement. If it held its partition's newest numbers
// and surely was not written, they are given back; otherwise they are a hole that no later
// batch of this epoch can cross, and the producer moves to a new epoch (KIP-360).
void Producer::release_sequences(const TopicPartition& key, const Batch& b) {
  if (!config_.enable_idempotence || b.base_sequence.value() < 0 || !is_current(b)) return;
  SequenceRun& run = sequences_.at(key);
  if (!b.maybe_written && run.next == b.base_sequence + b.count()) {
    run.next = b.base_sequence;
    return;
  }
  if (transactional()) {
    txn_.bump_epoch = true;  // the transaction aborts (the send failed); then the next epoch
    return;
  }
  request_epoch_bump();
}

void Producer::send(const std::string& topic, Record record, std::optional<PartitionId> partition,
                    SendCallback done) {
  if (transactional()) {
    if (const ErrorCode refused = txn_send_error(); refused != ErrorCode::NONE) {
      done(SendResult{SendOutcome::kFailed, PartitionId(-1), Offset(-1), refused});
      return;
    }
  }
  ++sends_pending_;
  place(PendingSend{topic, std::move(record), partition, std::move(done),
                    env_.now() + millis(config_.delivery_timeout_ms)});
  drain();
}

PartitionId Producer::choose_partition(const PendingSend& s) {
  const std::int32_t n = metadata_.cache().partition_count(s.topic);
  if (s.record.key && !config_.partitioner_ignore_keys) return PartitionId(partition_for_key(*s.record.key, n));
  // Sticky partitioning (KIP-480): keep one partition until a batch's worth of bytes went to it.
  auto it = sticky_partition_.find(s.topic);
  std::int64_t& bytes = sticky_bytes_[s.topic];
  const auto size = static_cast<std::int64_t>(s.record.value ? s.record.value->size() : 0);
  if (it == sticky_partition_.end() || bytes + size > config_.batch_size) {
    it = sticky_partition_.insert_or_assign(s.topic, next_sticky_partition(s.topic, n).value()).first;
    bytes = 0;
  }
  bytes += size;
  return PartitionId(it->second);
}

// Kafka's BuiltInPartitioner.nextPartition: weighted by the topic's load statistics when it has
// them, else uniform among the partitions with a leader. One draw from the node's stream.
PartitionId Producer::next_sticky_partition(const std::string& topic, std::int32_t partition_count) {
  if (config_.partitioner_adaptive) {
    if (const auto stats = load_stats(topic, partition_count)) return PartitionId(stats->pick(env_.rng()));
  }
  std::vector<std::int32_t> available;
  for (std::int32_t p = 0; p < partition_count; ++p) {
    if (metadata_.cache().leader(topic, PartitionId(p))) available.push_back(p);
  }
  return PartitionId(uniform_sticky_partition(available, partition_count, env_.rng()));
}

// The topic's load statistics as Kafka's RecordAccumulator gathers them (KIP-794): only once
// every partition of the topic has a queue (a partition never sent to could not be switched
// to), over the partitions with a leader; a partition whose queue is not empty is left out
// while its leader is unavailable (partitioner.availability.timeout.ms). Kafka refreshes them
// on each pass of its sender thread; here they are taken when the switch happens.
std::optional<PartitionLoadStats> Producer::load_stats(const std::string& topic, std::int32_t partition_count) const {
  std::vector<PartitionQueue> candidates;
  std::size_t queues = 0;
  for (auto it = batches_.lower_bound(TopicPartition{topic, PartitionId(0)});
       it != batches_.end() && it->first.topic == topic && it->first.partition.value() < partition_count; ++it) {
    ++queues;
    const auto leader = metadata_.cache().leader(topic, it->first.partition);
    if (!leader) continue;
    const auto& batches = it->second.batches;
    const auto waiting = static_cast<std::int32_t>(
        std::count_if(batches.begin(), batches.end(), [](const Batch& b) { return !b.attempt.in_flight(); }));
    if (waiting > 0 && broker_unavailable(*leader)) continue;
    candidates.push_back(PartitionQueue{it->first.partition.value(), waiting});
  }
  if (queues < static_cast<std::size_t>(partition_count)) return std::nullopt;
  return PartitionLoadStats::build(candidates, queues);
}

// A batch goes to `broker`: it could take one now (Kafka's Sender records this per node as
// drainTimeMs). Kept only where it is read.
void Producer::note_broker_drained(NodeId broker) {
  if (config_.partitioner_availability_timeout_ms <= 0 || !config_.partitioner_adaptive) return;
  drained_at_.insert_or_assign(broker, env_.now());
}

// Whether `broker`, with batches waiting for it, has been unable to take one for longer than
// partitioner.availability.timeout.ms: its requests in flight fill
// max.in.flight.requests.per.connection, and it last took a batch longer ago than that. (Kafka
// measures readyTimeMs - drainTimeMs, where readyTimeMs moves on while data waits for a node
// that cannot take it; that is now, for a caller that found batches waiting.)
bool Producer::broker_unavailable(NodeId broker) const {
  if (config_.partitioner_availability_timeout_ms <= 0) return false;
  const auto drained = drained_at_.find(broker);
  const auto in_flight = in_flight_.find(broker);
  if (drained == drained_at_.end() || in_flight == in_flight_.end() || in_flight->second < config_.max_in_flight) return false;
  return env_.now() - drained->second > millis(config_.partitioner_availability_timeout_ms);
}

// Puts a send into its partition's open batch (or a new one), or parks it until metadata
// names the topic's partitions.
void Producer::place(PendingSend&& s) {
  if (!metadata_.cache().knows(s.topic)) {
    if (unplaced_.empty()) {
      unplaced_sorted_ = true;
    } else if (s.deadline < unplaced_.back().deadline) {
      unplaced_sorted_ = false;
    }
    unplaced_.push_back(std::move(s));
    metadata_.request();
    return;
  }
  if (!s.partition) s.partition = choose_partition(s);
  if (transactional()) txn_note_partition(TopicPartition{s.topic, *s.partition});
  // Sends mostly go to the topic the last one went to: its entry is found by partition number
  // without a lookup by name (entries are never removed, so the pointers stay good).
  if (s.topic != placed_topic_) {
    placed_topic_ = s.topic;
    placed_entries_.clear();
  }
  // (A partition number out of any real range, which the broker will refuse, is not indexed.)
  constexpr std::int32_t kIndexed = 1 << 16;
  const std::int32_t p = s.partition->value();
  PartitionEntry* entry = nullptr;
  PartitionEntry** cached = nullptr;
  if (p >= 0 && p < kIndexed) {
    const auto i = static_cast<std::size_t>(p);
    if (i >= placed_entries_.size()) placed_entries_.resize(i + 1, nullptr);
    cached = &placed_entries_[i];
    entry = *cached;
  }
  if (entry == nullptr) {
    const auto [it, added] = batches_.try_emplace(TopicPartition{s.topic, *s.partition});
    if (added) {
      auto order = std::make_shared<std::vector<PartitionEntry*>>();
      for (auto& e : batches_) order->push_back(&e);
      partition_order_ = std::move(order);
      dirtied_.push_back(&*it);  // (born dirty: mark_dirty would not list it)
      ++marks_;
    }
    entry = &*it;
    if (cached != nullptr) *cached = entry;
  }
  auto& batches = entry->second.batches;
  const auto size = static_cast<std::int64_t>(s.record.value ? s.record.value->size() : 0);
  const bool joins_open = !batches.empty() && !batches.back().closed &&
                          (batches.back().callbacks.empty() || batches.back().bytes + size <= config_.batch_size);
  if (!joins_open) {
    if (!batches.empty()) batches.back().closed = true;
    Batch b;
    b.id = ++next_batch_;
    b.created = env_.now();
    b.deadline = s.deadline;
    // Room for the records: batch.size and a quarter (batch.size counts values; keys and the
    // records' own fields take some more) until a batch was made, then at most twice the last
    // one made. Batches of one workload are alike, and one that outgrows the room grows.
    const std::size_t full = static_cast<std::size_t>(config_.batch_size) + static_cast<std::size_t>(config_.batch_size) / 4;
    b.records.reserve(last_batch_bytes_ == 0 ? full : std::min(full, 2 * last_batch_bytes_));
    batches.push_back(std::move(b));
  }
  Batch& b = batches.back();
  b.records.append(s.record);
  b.callbacks.push_back(std::move(s.done));
  b.bytes += size;
  if (b.bytes >= config_.batch_size) b.closed = true;
  // A send that joins the open last batch and leaves it open changes nothing a drain pass reads
  // (the batch's deadline is its first send's; it is still the last and still open), so a clean
  // partition stays clean: a send then costs no pass over the partition's batches.
  if (!joins_open || b.closed) mark_dirty(*entry);
}

// (A partition dirty already is listed already, or skip_all_ does not hold.)
void Producer::mark_dirty(PartitionEntry& entry) {
  if (entry.second.clean_generation == 0) return;
  entry.second.clean_generation = 0;
  dirtied_.push_back(&entry);
  ++marks_;
}

void Producer::arm_drain(Nanos at) {
  walk_wake_ = std::min(walk_wake_, at);
  if (drain_timer_ != 0 && drain_at_ <= at) return;
  timers_.cancel(drain_timer_);
  drain_at_ = at;
  drain_timer_ = timers_.set(std::max<Nanos>(0, at - env_.now()), ProducerTimer::kDrain);
}

void Producer::drain() {
  // Sends that never found their topic expire with their delivery timeout. While their
  // deadlines are in send order and the first is still ahead, none expires and only the first
  // arm can take effect (each later deadline is no earlier): arm that one alone, in O(1).
  bool unplaced_done = false;
  if (!unplaced_.empty() && unplaced_sorted_) {
    const Nanos first = unplaced_.front().deadline;
    if (env_.now() < first) {
      arm_drain(first);
      unplaced_done = true;
    }
  }
  // By index: a callback may send again, and so append to unplaced_.
  for (std::size_t i = 0; !unplaced_done && i < unplaced_.size();) {
    if (env_.now() < unplaced_[i].deadline) {
      arm_drain(unplaced_[i].deadline);
      ++i;
      continue;
    }
    SendCallback done = std::move(unplaced_[i].done);
    unplaced_.erase(unplaced_.begin() + static_cast<std::ptrdiff_t>(i));
    --sends_pending_;
    if (transactional()) txn_on_send_failed(ErrorCode::UNKNOWN_TOPIC_OR_PARTITION);
    done(SendResult{SendOutcome::kFailed, PartitionId(-1), Offset(-1), ErrorCode::UNKNOWN_TOPIC_OR_PARTITION});
    if (transactional()) txn_next();  // the transaction's last send may have ended
  }
  if (!ready()) return;
  const Nanos now = env_.now();  // one handler's clock (live: a moment ago, so at worst a pass more)
  if (skip_all_holds(now)) {
    drain_dirtied(now);
    return;
  }
  // A partition's pass may complete batches (expiry) and so run callbacks that send again (and
  // add partitions): walk the partitions there were when this drain began. Partitions are never
  // removed, so their entries stay valid.
  skip_all_.generation = 0;  // (a drain nested in a callback walks everything too)
  dirtied_.clear();
  const auto order = partition_order_;
  drain_all(*order, 0, now);
}

bool Producer::skip_all_holds(Nanos now) const {
  const SkipAll& s = skip_all_;
  return s.generation == drain_generation_ && now >= s.at && now < s.wake &&
         (s.wake == kNever || (drain_timer_ != 0 && drain_at_ <= s.wake));
}

// Walks order[from..] (the rest of a full walk), then sets skip_all_ if every partition may be
// skipped now, or clears it.
void Producer::drain_all(const std::vector<PartitionEntry*>& order, std::size_t from, Nanos now) {
  ++full_walks_;
  for (std::size_t i = from; i < order.size(); ++i) {
    while (!may_skip(order[i]->second, now) && drain_partition(*order[i])) {
    }
  }
  SkipAll s{drain_generation_, now, kNever};
  for (PartitionEntry* entry : *partition_order_) {
    if (!may_skip(entry->second, now)) {
      skip_all_.generation = 0;
      return;
    }
    s.wake = std::min(s.wake, entry->second.wake);
    s.at = std::max(s.at, entry->second.walked_at);
  }
  skip_all_ = s;
  dirtied_.clear();
}

// While skip_all_ holds: walks the partitions marked dirty since, in key order, as a full walk
// would (it skips the others). Should a pass mark a partition, move to another drain
// generation, run a drain of its own (from a callback) or leave its partition dirty, the full
// walk goes on from the next partition in key order.
void Producer::drain_dirtied(Nanos now) {
  walking_.swap(dirtied_);
  dirtied_.clear();
  const auto by_key = [](const PartitionEntry* a, const PartitionEntry* b) { return a->first < b->first; };
  if (walking_.size() > 1) {
    std::sort(walking_.begin(), walking_.end(), by_key);
    walking_.erase(std::unique(walking_.begin(), walking_.end()), walking_.end());
  }
#ifndef NDEBUG  // (a walk over every partition: debug builds only, the asan suite's)
  LOGSIM_ASSERT(std::all_of(partition_order_->begin(), partition_order_->end(),
                            [&](PartitionEntry* e) {
                              return may_skip(e->second, now) ||
                                     std::binary_search(walking_.begin(), walking_.end(), e, by_key);
                            }),
                "a partition that drain() would walk is neither clean nor listed as dirtied");
#endif
  if (walking_.empty()) return;
  const std::uint64_t held = std::exchange(skip_all_.generation, 0);  // (nested drains walk everything)
  const auto order = partition_order_;
  for (PartitionEntry* entry : walking_) {
    const std::uint64_t marks = marks_;
    const std::uint64_t generation = drain_generation_;
    const std::uint64_t walks = full_walks_;
    while (!may_skip(entry->second, now) && drain_partition(*entry)) {
    }
    if (marks_ != marks || generation != drain_generation_ || walks != full_walks_ || !may_skip(entry->second, now)) {
      const auto next = std::upper_bound(order->begin(), order->end(), entry, by_key);
      walking_.clear();
      drain_all(*order, static_cast<std::size_t>(next - order->begin()), now);
      return;
    }
  }
  walking_.clear();
  skip_all_.generation = held;
}

// Whether a pass over the partition at `now` would change nothing and arm nothing (see
// Partition). (A node's clock can be set back: hence walked_at.)
bool Producer::may_skip(const Partition& partition, Nanos now) const {
  if (partition.clean_generation != drain_generation_ || now < partition.walked_at || now >= partition.wake) return false;
  return partition.wake == kNever || (drain_timer_ != 0 && drain_at_ <= partition.wake);
}

// One pass over a partition (drain_batches), remembering when it may be skipped.
bool Producer::drain_partition(PartitionEntry& entry) {
  const TopicPartition& key = entry.first;
  Partition& partition = entry.second;
  const std::uint64_t generation = drain_generation_;
  const std::uint64_t freed = slots_freed_;
  const Nanos outer_wake = std::exchange(walk_wake_, kNever);
  const bool outer_memo = std::exchange(walk_memo_, true);
  const NodeId outer_slot_broker = std::exchange(walk_slot_broker_, NodeId(-1));
  partition.clean_generation = 0;
  const bool changed = drain_batches(key, partition.batches);
  if (!changed && walk_memo_ && generation == drain_generation_ && freed == slots_freed_) {
    partition.clean_generation = generation;
    partition.walked_at = env_.now();
    partition.wake = walk_wake_;
    partition.slot_broker = walk_slot_broker_;
    skip_all_.wake = std::min(skip_all_.wake, partition.wake);
    skip_all_.at = std::max(skip_all_.at, partition.walked_at);
  } else {
    dirtied_.push_back(&entry);
  }
  walk_wake_ = std::min(outer_wake, walk_wake_);
  walk_memo_ = outer_memo;
  walk_slot_broker_ = outer_slot_broker;
  return changed;
}

// Sends what may go now for one partition; arms the drain timer for what must wait. True when
// the deque changed (a batch completed) and the partition must be drained again.
bool Producer::drain_batches(const TopicPartition& key, std::deque<Batch>& batches) {
  const auto leader = metadata_.cache().leader(key.topic, key.partition);
  if (config_.enable_idempotence) renumber_behind_refused(batches);
  for (std::size_t i = 0; i < batches.size(); ++i) {
    Batch& b = batches[i];
    if (b.attempt.in_flight()) {
      // In flight: delivery.timeout.ms still bounds when its outcome is reported (Kafka's
      // Sender expires in-flight batches too); it may have been written.
      if (env_.now() < b.deadline) {
        arm_drain(b.deadline);
        // max.in.flight.requests.per.connection=1 guarantees order: Kafka mutes the partition
        // while its batch is in flight, even if the leader moved and the new leader's
        // connection is idle (found by logsim fuzz).
        if (config_.max_in_flight == 1) return false;
        continue;
      }
      b.maybe_written = true;
    }
    if (env_.now() >= b.deadline) {
      complete(key, b.id, b.maybe_written ? SendOutcome::kUnknown : SendOutcome::kFailed, Offset(-1), ErrorCode::REQUEST_TIMED_OUT);
      return true;  // the deque changed; the next drain continues
    }
    arm_drain(b.deadline);
    if (b.retry_at > env_.now()) {
      // Kafka puts a retried batch back at the head of its partition's queue and drains only
      // the head: nothing queued behind it overtakes it (only batches already in flight can).
      arm_drain(b.retry_at);
      return false;
    }
    // A numbered batch that is not in flight is a retry. Kafka's idempotent producer retries
    // only the partition's first unresolved batch (RecordAccumulator drains a batch with a
    // sequence only when it is TransactionManager.firstInFlightSequence): the batches behind
    // it, and the new ones behind those, wait until it completes. Sending them all again at
    // once lets a later one land first: when the leader moves while they are in flight to the
    // old one, a new batch goes to the new leader, which accepts any sequence from a producer
    // it has no state for, and the earlier ones then land behind it (after an epoch bump).
    // (The loop passes only batches in flight, so i > 0 means an earlier one is unresolved.)
    if (config_.enable_idempotence && b.base_sequence.value() >= 0 && i > 0) return false;
    // Waiting for numbers ends with the new epoch or the last old-epoch batch; both drain again.
    if (config_.enable_idempotence && b.base_sequence.value() < 0 && !may_number(batches)) return false;
    const bool lingering = b.attempts == 0 && !b.closed && i + 1 == batches.size() &&
                           env_.now() < b.created + millis(config_.linger_ms);
    if (lingering) {
      arm_drain(b.created + millis(config_.linger_ms));
      return false;
    }
    // A transaction's partition waits until its coordinator has added it (a change that marks
    // every partition dirty).
    if (transactional() && !txn_may_send(key)) return false;
    if (!leader) {
      walk_memo_ = false;  // asks for metadata and arms by the clock: not a pass to skip
      metadata_.request();
      arm_drain(env_.now() + millis(config_.retry_backoff_ms));
      return false;
    }
    walk_slot_broker_ = *leader;  // (one leader per pass)
    if (in_flight_[*leader] >= config_.max_in_flight) return false;  // a response frees a slot
    note_broker_drained(*leader);
    send_batch(key, b, *leader);
    if (config_.acks == 0) return true;  // the batch completed and left the deque: start over
  }
  return false;
}

void Producer::send_batch(const TopicPartition& key, Batch& b, NodeId leader) {
  b.closed = true;
  ++b.attempts;
  if (config_.enable_idempotence && b.base_sequence.value() < 0) {
    SequenceRun& run = sequences_[key];
    if (run.producer_id != producer_id_ || run.producer_epoch != producer_epoch_) {
      run = SequenceRun{producer_id_, producer_epoch_, Sequence(0)};  // a new epoch counts from 0
    }
    b.producer_id = producer_id_;
    b.producer_epoch = producer_epoch_;
    b.base_sequence = run.next;
    run.next = run.next + b.count();
  }
  encode(b);
  ProduceRequest req{0, key.topic, key.partition, config_.acks, config_.request_timeout_ms, b.encoded};  // (the channel numbers it)
  if (config_.acks == 0) {
    channel_.send(leader, std::move(req));
    complete(key, b.id, SendOutcome::kAcknowledged, Offset(-1), ErrorCode::NONE);
    return;
  }
  produce_.send(BatchRef{key, b.id}, b.attempt, leader, std::move(req));
  ++in_flight_[leader];
}

// The batch's records as one record batch under its current numbers. A retry keeps the id and
// epoch of its numbers, even after the producer moved on; a batch numbered again (a new epoch)
// gets a new header and CRC over the same records.
void Producer::encode(Batch& b) {
  const bool idempotent = config_.enable_idempotence;
  const ProducerId id = idempotent ? b.producer_id : ProducerId(-1);
  const ProducerEpoch epoch = idempotent ? b.producer_epoch : ProducerEpoch(-1);
  const Sequence base = idempotent ? b.base_sequence : Sequence(-1);
  if (b.encoded.empty()) {
    b.encoded = SharedBytes(b.records.finish(BatchMeta{Offset(0), LeaderEpoch(-1), id, epoch, base, transactional()}));
    last_batch_bytes_ = b.encoded.size();
    return;
  }
  char head[kBatchHeaderBytes];
  b.encoded.copy_out(0, sizeof head, head);
  BatchHeader h = *parse_batch_header(std::string_view(head, sizeof head));
  if (h.producer_id == id && h.producer_epoch == epoch && h.base_sequence == base) return;
  std::string bytes = b.encoded.str();
  h.producer_id = id;
  h.producer_epoch = epoch;
  h.base_sequence = base;
  h.crc = batch_crc(h, std::string_view(bytes).substr(kBatchHeaderBytes));
  write_batch_header(h, bytes.data());
  b.encoded = SharedBytes(std::move(bytes));
}

Producer::Batch* Producer::find_batch(const TopicPartition& key, std::uint64_t batch_id) {
  auto it = batches_.find(key);
  if (it == batches_.end()) return nullptr;
  for (Batch& b : it->second.batches) {
    if (b.id == batch_id) return &b;
  }
  return nullptr;
}

// The attempt in flight ends (answer, timeout or disconnect): free its slot and timer.
// A freed slot may let a partition whose pass read that broker's in-flight count send: those
// are drained again, and the batch's own partition (its attempt's state is part of the pass).
void Producer::end_attempt(const TopicPartition& key, Batch& batch) {
  const NodeId target = batch.attempt.target;
  ++slots_freed_;
  produce_.end(batch.attempt);
  --in_flight_[target];
  mark_dirty(*batches_.find(key));
  for (PartitionEntry& entry : batches_) {
    if (entry.second.slot_broker == target) mark_dirty(entry);
  }
}

bool Producer::on_message(NodeId, const Message& msg) {
  if (transactional() && txn_on_message(msg)) return true;
  if (const auto* meta = std::get_if<MetadataResponse>(&msg)) {
    if (!metadata_.on_response(*meta)) return false;
    mark_all_dirty();  // leaders may have moved
    std::vector<PendingSend> waiting = std::move(unplaced_);
    unplaced_.clear();
    unplaced_sorted_ = true;
    for (PendingSend& s : waiting) place(std::move(s));
    drain();
    return true;
  }
  if (const auto* init = std::get_if<InitProducerIdResponse>(&msg)) {
    if (!init_.find(init->correlation_id)) return false;
    init_.end(init_slot_);
    mark_all_dirty();  // a new id or epoch changes which batches may be numbered
    if (init->error != ErrorCode::NONE) {
      init_.wait({}, init_slot_);
      return true;
    }
    producer_id_ = init->producer_id;
    producer_epoch_ = init->producer_epoch;
    epoch_bump_pending_ = false;
    drain();
    return true;
  }
  if (const auto* resp = std::get_if<ProduceResponse>(&msg)) {
    const auto ref = produce_.find(resp->correlation_id);
    if (!ref) return false;
    on_produce_response(*ref, *resp);
    return true;
  }
  return false;
}

void Producer::on_produce_response(const BatchRef& ref, const ProduceResponse& resp) {
  const auto& [key, batch_id] = ref;
  Batch& b = *find_batch(key, batch_id);
  end_attempt(key, b);
  if (resp.error == ErrorCode::NONE || resp.error == ErrorCode::DUPLICATE_SEQUENCE_NUMBER) {
    complete(key, batch_id, SendOutcome::kAcknowledged, resp.base_offset, ErrorCode::NONE);
  } else {
    if (resp.error == ErrorCode::NOT_LEADER_OR_FOLLOWER || resp.error == ErrorCode::UNKNOWN_TOPIC_OR_PARTITION) {
      metadata_.request();
    }
    // A broker-side timeout or a shrunken ISR after the append leaves the batch in the log.
    const bool ambiguous = resp.error == ErrorCode::NOT_ENOUGH_REPLICAS_AFTER_APPEND ||
                           resp.error == ErrorCode::REQUEST_TIMED_OUT;
    retry_or_fail(key, batch_id, resp.error, ambiguous);
  }
  drain();
}

void Producer::retry_or_fail(const TopicPartition& key, std::uint64_t batch_id, ErrorCode error, bool ambiguous) {
  Batch& b = *find_batch(key, batch_id);
  mark_dirty(*batches_.find(key));
  if (ambiguous) b.maybe_written = true;
  const Nanos backoff = millis(config_.retry_backoff_ms);
  bool retriable = is_retriable(error);
  if (error == ErrorCode::OUT_OF_ORDER_SEQUENCE_NUMBER && config_.enable_idempotence) {
    // With an earlier batch of the partition pending, a gap is expected while it is retried.
    // With none, the broker lacks numbers before this batch's: a hole that only a new epoch
    // closes (KIP-360). The batch was refused, so it is numbered again under the new epoch.
    retriable = !transactional();  // in a transaction: the send fails and the transaction aborts
    if (transactional()) {
      txn_.bump_epoch = true;
    } else if (batches_.at(key).batches.front().id == batch_id) {
      if (is_current(b)) request_epoch_bump();
      b.drop_numbers();
    }
  }
  if (!retriable || b.attempts > config_.retries || env_.now() + backoff >= b.deadline) {
    // Once any attempt may have been written, giving up is "unknown", not "failed".
    complete(key, batch_id, b.maybe_written ? SendOutcome::kUnknown : SendOutcome::kFailed, Offset(-1), error);
    return;
  }
  b.retry_at = env_.now() + backoff;
  arm_drain(b.retry_at);
  if (!config_.enable_idempotence) {
    // Kafka re-enqueues a retried batch at the head of its partition's queue (addFirst): of
    // several batches that time out together, the last to fail goes first. This is how retries
    // reorder a non-idempotent producer's records.
    auto& batches = batches_.at(key).batches;
    auto it = std::find_if(batches.begin(), batches.end(), [&](const Batch& x) { return x.id == batch_id; });
    if (it != batches.begin()) {
      Batch moved = std::move(*it);
      batches.erase(it);
      batches.push_front(std::move(moved));
    }
  }
}

void Producer::complete(const TopicPartition& key, std::uint64_t batch_id, SendOutcome outcome, Offset base, ErrorCode error) {
  PartitionEntry& entry = *batches_.find(key);
  mark_dirty(entry);
  Partition& partition = entry.second;
  auto& batches = partition.batches;
  auto it = std::find_if(batches.begin(), batches.end(), [&](const Batch& b) { return b.id == batch_id; });
  Batch done = std::move(*it);
  batches.erase(it);
  if (done.attempt.in_flight()) end_attempt(key, done);
  if (outcome != SendOutcome::kAcknowledged) release_sequences(key, done);
  sends_pending_ -= done.callbacks.size();
  if (transactional() && outcome != SendOutcome::kAcknowledged) txn_on_send_failed(error);
  // The batch is out of the deque: its callbacks may send again (and change any deque), and
  // `key` may name the partition's entry, so it is copied first.
  const PartitionId partition_id = key.partition;
  for (std::size_t i = 0; i < done.callbacks.size(); ++i) {
    const Offset offset = base.value() >= 0 ? base + static_cast<std::int64_t>(i) : Offset(-1);
    done.callbacks[i](SendResult{outcome, partition_id, offset, error});
  }
  if (transactional()) txn_next();  // the last send of a transaction ending lets EndTxn go
}

void Producer::on_timer(TimerId timer, ProducerTimer tag) {
  switch (tag) {
    case ProducerTimer::kMetadataMaxAge:
      // metadata.max.age.ms: refresh even without an error, as Kafka's producer does.
      metadata_.request();
      timers_.set(millis(config_.metadata_max_age_ms), ProducerTimer::kMetadataMaxAge);
      return;
    case ProducerTimer::kInit:
      // The request timed out, or the wait after an error or a broken connection ended.
      if (!init_.fired(timer)) return;
      init_slot_.timer = 0;
      request_producer_id();
      return;
    case ProducerTimer::kDrain:
      if (timer != drain_timer_) return;
      drain_timer_ = 0;
      drain();
      return;
    case ProducerTimer::kSend:
      on_request_timeout(timer);
      return;
    case ProducerTimer::kTxn:
      txn_on_timer(timer);
      return;
    case ProducerTimer::kTxnFatal:
      txn_fail_pending_sends();
      return;
  }
}

// A Produce request went unanswered for request.timeout.ms.
void Producer::on_request_timeout(TimerId timer) {
  const auto ref = produce_.fired(timer);
  if (!ref) return;
  const auto& [key, batch_id] = *ref;
  Batch& b = *find_batch(key, batch_id);
  b.attempt.timer = 0;
  const NodeId peer = b.attempt.target;
  // The attempt timed out: it may have been written. A retry may duplicate it. As Kafka's
  // NetworkClient does for a timed-out request, close the connection (every other request in
  // flight to that broker fails as a disconnect, and late answers are never read) and ask
  // for metadata: a leader that went silent (cut off, paused, powered off) may have been
  // replaced meanwhile.
  end_attempt(key, b);
  close_connection(peer);  // (its callbacks may send, drain and so expire this batch)
  metadata_.request();
  if (find_batch(key, batch_id) != nullptr) retry_or_fail(key, batch_id, ErrorCode::REQUEST_TIMED_OUT, true);
  drain();
}

void Producer::on_disconnect(NodeId peer) {
  close_connection(peer);
  drain();
}

void Producer::close_connection(NodeId peer) {
  metadata_.on_disconnect(peer);
  if (transactional()) txn_on_disconnect(peer);
  if (init_slot_.in_flight() && init_slot_.target == peer) {
    init_.end(init_slot_);
    init_.wait({}, init_slot_);
  }
  struct Broken {
    TopicPartition key;
    std::uint64_t batch_id;
    CorrelationId correlation;
  };
  std::vector<Broken> broken;
  for (auto& [key, partition] : batches_) {
    for (Batch& b : partition.batches) {
      if (b.attempt.in_flight() && b.attempt.target == peer) broken.push_back(Broken{key, b.id, b.attempt.correlation});
    }
  }
  for (const auto& [key, batch_id, correlation] : broken) {
    // An earlier one's outcome runs callbacks, which may send and drain: this batch may have
    // expired, or its attempt ended, since it was listed.
    Batch* b = find_batch(key, batch_id);
    if (b == nullptr || b->attempt.correlation != correlation) continue;
    end_attempt(key, *b);
    metadata_.request();
    // Kafka's NetworkException: the request may have been processed before the reset.
    retry_or_fail(key, batch_id, ErrorCode::NETWORK_EXCEPTION, true);
  }
}

}  // namespace logsim::engine
