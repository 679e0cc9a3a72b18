// The consumer client: per-partition fetch state machines and poll().
#include "engine/client/consumer.h"
#include "engine/client/fetched_records.h"

#include <algorithm>

#include "engine/base/assert.h"
#include "engine/protocol/record_batch.h"

namespace logsim::engine {

namespace {

Consumer::AutoReset move_of(const TopicPartition& tp, Consumer::AutoReset::Why why, Offset from, Offset to) {
  Consumer::AutoReset m;
  m.tp = tp;
  m.why = why;
  m.from = from;
  m.to = to;
  return m;
}

}  // namespace

Consumer::Consumer(Env& env, TimerMux& timers, ConsumerConfig config)
    : timers_(timers, [this](TimerId id, ConsumerTimer tag) { on_timer(id, tag); }),
      config_(std::move(config)),
      // A static member's held JoinGroup, fenced by its own rejoin, must not match the new one.
      channel_(env, channel_config(config_),
               fresh_correlation_base(env.rng())),
      metadata_(channel_, timers, [this] { return metadata_topics(); }),
      requests_(channel_, timers_, ConsumerTimer::kPartition, ConsumerTimer::kPartition),
      group_(env, timers, config_, *this) {
  LOGSIM_ASSERT(!config_.bootstrap_servers.empty(), "consumer needs bootstrap.servers");
  LOGSIM_ASSERT(config_.max_poll_records > 0, "max.poll.records must be positive");
}

void Consumer::assign(const std::vector<TopicPartition>& partitions) {
  LOGSIM_ASSERT(!group_.subscribed(), "assign() on a consumer that subscribed");
  set_assignment(partitions, false);
}

void Consumer::set_assignment(const std::vector<TopicPartition>& partitions, bool from_group) {
  std::map<TopicPartition, PartitionState> kept;
  for (const auto& tp : partitions) {
    auto it = partitions_.find(tp);
    if (it != partitions_.end()) {
      kept[tp] = std::move(it->second);
    } else {
      kept[tp] = PartitionState{};
      kept[tp].awaiting_committed = from_group;  // starts from the group's committed offset
    }
  }
  for (auto& [tp, st] : partitions_) {
    if (!kept.contains(tp)) requests_.end(st.request);
  }
  partitions_ = std::move(kept);
  assignment_ = partitions;
  next_poll_partition_ = 0;
  arm_max_age();
  metadata_.request();
}

void Consumer::subscribe(std::vector<std::string> topics, RebalanceListener* listener) {
  LOGSIM_ASSERT(assignment_.empty() || group_.subscribed(), "subscribe() on a consumer with a manual assignment");
  arm_max_age();
  group_.subscribe(std::move(topics), listener);
}

// metadata.max.age.ms: metadata is refreshed this often even without an error, as in Kafka's
// clients, so a topic's added partitions reach the consumer (and its group's leader).
void Consumer::arm_max_age() {
  if (max_age_armed_) return;
  max_age_armed_ = true;
  timers_.set(millis(config_.metadata_max_age_ms), ConsumerTimer::kMetadataMaxAge);
}

void Consumer::commit(std::map<TopicPartition, Offset> offsets, bool sync, CommitCallback done) {
  group_.commit(std::move(offsets), sync, std::move(done));
}

void Consumer::close() { group_.close(); }

std::map<TopicPartition, Offset> Consumer::consumed() const {
  std::map<TopicPartition, Offset> out;
  for (const auto& tp : assignment_) {
    const auto& st = partitions_.at(tp);
    if (st.position && !st.awaiting_committed) out[tp] = *st.position;
  }
  return out;
}

std::map<TopicPartition, Offset> Consumer::fetched_ends() const {
  std::map<TopicPartition, Offset> out;
  for (const auto& [tp, st] : partitions_) {
    if (!st.buffer.empty()) out[tp] = st.buffer.back().offset + 1;
  }
  return out;
}

std::vector<TopicPartition> Consumer::awaiting_committed() const {
  std::vector<TopicPartition> out;
  for (const auto& [tp, st] : partitions_) {
    if (st.awaiting_committed) out.push_back(tp);
  }
  return out;
}

void Consumer::committed(const TopicPartition& tp, std::optional<Offset> offset) {
  auto it = partitions_.find(tp);
  if (it == partitions_.end() || !it->second.awaiting_committed) return;
  it->second.awaiting_committed = false;
  if (offset) it->second.position = *offset;
  it->second.position_epoch.reset();  // logsim's commits carry no leader epoch: not validated
  pump(tp);  // no commit: auto.offset.reset decides
}

Consumer::PartitionState& Consumer::reposition(const TopicPartition& tp) {
  auto it = partitions_.find(tp);
  LOGSIM_ASSERT(it != partitions_.end(), "seek on an unassigned partition " + tp.topic);
  PartitionState& st = it->second;
  drop_fetching(st);
  st.position.reset();
  st.position_epoch.reset();
  return st;
}

void Consumer::seek(const TopicPartition& tp, Offset offset) {
  reposition(tp).position = offset;
  pump(tp);
}

void Consumer::seek_to(const TopicPartition& tp, std::int64_t timestamp_ms) {
  reposition(tp).seek_to = timestamp_ms;
  pump(tp);
}

void Consumer::seek_to_committed(const TopicPartition& tp) {
  LOGSIM_ASSERT(group_.subscribed(), "seek_to_committed on a consumer without a group");
  reposition(tp).awaiting_committed = true;
  group_.fetch_committed();
}

// Forgets what was fetched for the old position: the buffer, and the request in flight (its
// answer is dropped when it comes, and its timeout or a pending delay must not hold the next
// request back).
void Consumer::drop_fetching(PartitionState& st) {
  st.buffer.clear();
  st.error.reset();
  st.reset_from.reset();
  st.seek_to.reset();
  st.awaiting_committed = false;
  requests_.end(st.request);
}

std::optional<Offset> Consumer::position(const TopicPartition& tp) const {
  auto it = partitions_.find(tp);
  return it == partitions_.end() ? std::nullopt : it->second.position;
}

std::optional<ErrorCode> Consumer::partition_error(const TopicPartition& tp) const {
  auto it = partitions_.find(tp);
  return it == partitions_.end() ? std::nullopt : it->second.error;
}

std::vector<std::string> Consumer::metadata_topics() const {
  std::vector<std::string> topics;
  const auto add = [&](const std::string& t) {
    if (std::find(topics.begin(), topics.end(), t) == topics.end()) topics.push_back(t);
  };
  for (const auto& tp : assignment_) add(tp.topic);
  group_.add_metadata_topics(add);
  return topics;
}

void Consumer::pause(const std::vector<TopicPartition>& partitions) {
  for (const auto& tp : partitions) {
    if (auto it = partitions_.find(tp); it != partitions_.end()) it->second.paused = true;
  }
}

void Consumer::resume(const std::vector<TopicPartition>& partitions) {
  for (const auto& tp : partitions) {
    auto it = partitions_.find(tp);
    if (it == partitions_.end() || !it->second.paused) continue;
    it->second.paused = false;
    pump(tp);
  }
}

std::vector<TopicPartition> Consumer::paused() const {
  std::vector<TopicPartition> out;
  for (const auto& tp : assignment_) {
    if (partitions_.at(tp).paused) out.push_back(tp);
  }
  return out;
}

void Consumer::pump(const TopicPartition& tp) {
  PartitionState& st = partitions_.at(tp);
  if (st.error || st.awaiting_committed || !st.request.idle()) return;
  const auto leader = metadata_.cache().leader(tp.topic, tp.partition);
  if (!leader) {
    metadata_.request();  // pumped again when metadata arrives
    return;
  }
  if (!st.position) {
    if (!st.seek_to && config_.auto_offset_reset == OffsetReset::kNone) {
      // Kafka's NoOffsetForPartitionException: no committed offset and no reset policy.
      stop_partition(st, move_of(tp, AutoReset::Why::kNoOffset, Offset(-1), Offset(-1)));
      return;
    }
    send_request(tp, st, *leader, true);
    return;
  }
  const LeaderEpoch epoch = metadata_.cache().leader_epoch(tp.topic, tp.partition);
  if (st.position_epoch && epoch != st.fetch_epoch) {
    // KIP-320: the leader changed since the position was fetched. Before fetching from the new
    // leader, ask it where the epoch of the record before the position ends in its log; what
    // was buffered from the old leader is not handed out.
    st.buffer.clear();
    st.validating_epoch = epoch;
    requests_.send(tp, st.request, *leader,
                   OffsetsForLeaderEpochRequest{0, tp.topic, tp.partition, epoch, *st.position_epoch});
    return;
  }
  if (st.paused || static_cast<std::int32_t>(st.buffer.size()) >= config_.max_poll_records) return;
  send_request(tp, st, *leader, false);
}

void Consumer::send_request(const TopicPartition& tp, PartitionState& st, NodeId leader, bool list_offsets) {
  if (list_offsets) {
    const std::int64_t ts = st.seek_to ? *st.seek_to
                            : config_.auto_offset_reset == OffsetReset::kEarliest ? kListOffsetsEarliest
                                                                                 : kListOffsetsLatest;
    requests_.send(tp, st.request, leader, ListOffsetsRequest{0, tp.topic, tp.partition, ts, config_.isolation_level});
  } else {
    st.fetch_offset = st.buffer.fetched_to.value() >= 0 ? st.buffer.fetched_to : *st.position;
    st.fetch_epoch = metadata_.cache().leader_epoch(tp.topic, tp.partition);
    FetchRequest fetch{0, tp.topic, tp.partition, st.fetch_offset, config_.max_poll_records, config_.fetch_max_wait_ms};
    fetch.current_leader_epoch = st.fetch_epoch;  // KIP-320: a leader of another epoch refuses
    fetch.isolation_level = config_.isolation_level;
    requests_.send(tp, st.request, leader, std::move(fetch));
  }
}

void Consumer::delay(PartitionState& st, const TopicPartition& tp, Nanos after) { requests_.wait(tp, st.request, after); }

void Consumer::reset_position(const TopicPartition& tp, PartitionState& st, const FetchResponse& out_of_range) {
  if (st.position) {
    st.reset_from = OutOfRange{st.fetch_offset.value() >= 0 ? st.fetch_offset : *st.position,
                               out_of_range.log_start_offset, out_of_range.high_watermark};
  }
  st.buffer.clear();
  st.position.reset();
  st.position_epoch.reset();
  if (config_.auto_offset_reset == OffsetReset::kNone) {
    // Kafka's OffsetOutOfRangeException: out of range, and no reset policy.
    const std::optional<OutOfRange> from = std::exchange(st.reset_from, std::nullopt);
    AutoReset stop = move_of(tp, AutoReset::Why::kNoOffset, from ? from->from : Offset(-1), Offset(-1));
    stop.log_start_offset = out_of_range.log_start_offset;
    stop.high_watermark = out_of_range.high_watermark;
    stop_partition(st, std::move(stop));
    return;
  }
  pump(tp);
}

void Consumer::stop_partition(PartitionState& st, AutoReset why) {
  st.error = ErrorCode::OFFSET_OUT_OF_RANGE;
  st.buffer.clear();
  st.position.reset();
  st.position_epoch.reset();
  resets_.push_back(std::move(why));
}

// KIP-320's validation answered: where the epoch of the record before the position ends in the
// new leader's log. A position past that end was truncated away on the new leader (an unclean
// election, or an acks=1 write lost in a failover): it moves back to that end, the first offset
// known to diverge, whatever auto.offset.reset says (Kafka's SubscriptionState
// maybeCompleteValidation), or, with auto.offset.reset=none, the partition stops
// (LogTruncationException).
void Consumer::on_epoch_end(const OffsetsForLeaderEpochResponse& resp) {
  TopicPartition tp;
  PartitionState* st = answered(resp.correlation_id, tp);
  if (st == nullptr) return;
  if (resp.error != ErrorCode::NONE) {
    metadata_.request();  // FENCED_LEADER_EPOCH, UNKNOWN_LEADER_EPOCH, NOT_LEADER_OR_FOLLOWER
    delay(*st, tp, millis(config_.retry_backoff_ms));
    return;
  }
  st->fetch_epoch = st->validating_epoch;
  const Offset position = *st->position;
  const LeaderEpoch asked = *st->position_epoch;
  if (resp.end_offset.value() < 0 || resp.leader_epoch.value() < 0) {
    // The new leader holds no epoch at or below the one asked: nothing to resume from, so the
    // reset policy decides, as for an offset out of range.
    st->fetch_offset = position;
    reset_position(tp, *st, FetchResponse{});
    return;
  }
  if (resp.end_offset < position) {
    if (config_.auto_offset_reset == OffsetReset::kNone) {
      AutoReset stop = move_of(tp, AutoReset::Why::kTruncationNoReset, position, Offset(-1));
      stop.epoch = asked;
      stop_partition(*st, std::move(stop));
      return;
    }
    st->position = resp.end_offset;
    st->position_epoch = resp.leader_epoch;
    AutoReset moved = move_of(tp, AutoReset::Why::kTruncation, position, resp.end_offset);
    moved.epoch = asked;
    resets_.push_back(std::move(moved));
  }
  pump(tp);
}

// The partition whose request this answers, with the request ended; null for a late answer.
Consumer::PartitionState* Consumer::answered(CorrelationId id, TopicPartition& tp) {
  auto found = requests_.find(id);
  if (!found) return nullptr;
  tp = std::move(*found);
  PartitionState& st = partitions_.at(tp);
  requests_.end(st.request);
  return &st;
}

void Consumer::on_list_offsets(const ListOffsetsResponse& resp) {
  TopicPartition tp;
  PartitionState* st = answered(resp.correlation_id, tp);
  if (st == nullptr) return;
  if (resp.error != ErrorCode::NONE) {
    if (resp.error == ErrorCode::NOT_LEADER_OR_FOLLOWER) metadata_.request();
    delay(*st, tp, millis(config_.retry_backoff_ms));
    return;
  }
  if (resp.offset.value() < 0 && st->seek_to) {
    st->seek_to = kListOffsetsLatest;  // no record at or after the timestamp: the end, as Kafka's tools do
    pump(tp);
    return;
  }
  st->position = resp.offset;
  if (st->seek_to) {
    AutoReset moved = move_of(tp, AutoReset::Why::kSeekTo, Offset(-1), resp.offset);
    moved.seek_to = st->seek_to;
    resets_.push_back(std::move(moved));
    st->seek_to.reset();
  } else if (st->reset_from) {
    const OutOfRange& from = *st->reset_from;
    AutoReset moved = move_of(tp, AutoReset::Why::kOutOfRange, from.from, resp.offset);
    moved.log_start_offset = from.log_start_offset;
    moved.high_watermark = from.high_watermark;
    resets_.push_back(std::move(moved));
    st->reset_from.reset();
  }
  pump(tp);
}

void Consumer::on_fetch(const FetchResponse& resp) {
  TopicPartition tp;
  PartitionState* st = answered(resp.correlation_id, tp);
  if (st == nullptr) return;
  if (resp.error == ErrorCode::OFFSET_OUT_OF_RANGE) {
    reset_position(tp, *st, resp);
    return;
  }
  if (resp.error != ErrorCode::NONE) {
    if (resp.error == ErrorCode::NOT_LEADER_OR_FOLLOWER || resp.error == ErrorCode::UNKNOWN_TOPIC_OR_PARTITION ||
        resp.error == ErrorCode::FENCED_LEADER_EPOCH || resp.error == ErrorCode::UNKNOWN_LEADER_EPOCH) {
      metadata_.request();
    }
    delay(*st, tp, millis(config_.retry_backoff_ms));
    return;
  }
  if (resp.records.empty()) {
    pump(tp);  // the broker already waited up to fetch.max.wait.ms: ask again
    return;
  }
  // Whole batches: the first may begin below what was asked, which is never handed out twice.
  st->buffer.compact();
  decode_fetched(resp.records, st->fetch_offset, config_.isolation_level, resp.aborted_transactions, st->buffer.records);
  const BatchScan batches = scan_batch_headers(resp.records);
  if (!batches.batches.empty()) st->buffer.fetched_to = batches.batches.back().last_offset() + 1;
  pump(tp);
}

bool Consumer::on_message(NodeId, const Message& msg) {
  if (const auto* meta = std::get_if<MetadataResponse>(&msg)) {
    if (!metadata_.on_response(*meta)) return false;
    for (const auto& tp : assignment_) pump(tp);
    group_.on_metadata();
    return true;
  }
  if (const auto* fetch = std::get_if<FetchResponse>(&msg)) {
    on_fetch(*fetch);
    return true;
  }
  if (const auto* list = std::get_if<ListOffsetsResponse>(&msg)) {
    on_list_offsets(*list);
    return true;
  }
  if (const auto* end = std::get_if<OffsetsForLeaderEpochResponse>(&msg)) {
    on_epoch_end(*end);
    return true;
  }
  return group_.on_message(msg);
}

// A partition's request timed out, or its delay ended (the fetching half's only timers).
void Consumer::on_timer(TimerId id, ConsumerTimer tag) {
  if (tag == ConsumerTimer::kMetadataMaxAge) {
    metadata_.request();
    timers_.set(millis(config_.metadata_max_age_ms), ConsumerTimer::kMetadataMaxAge);
    return;
  }
  const auto tp = requests_.fired(id);
  if (!tp) return;
  PartitionState& st = partitions_.at(*tp);
  st.request.timer = 0;
  if (st.request.in_flight()) {
    // The request timed out. As Kafka's NetworkClient does, the connection to that broker is
    // closed: this request and every other one in flight to it fail as a disconnect (late
    // answers are dropped), and each asks again after a backoff. (The group coordinator has
    // a connection of its own, as in Kafka, and is not affected.)
    close_connection(st.request.target);
    return;
  }
  pump(*tp);  // the delay ended
}

void Consumer::on_disconnect(NodeId peer) {
  group_.on_disconnect(peer);
  close_connection(peer);
}

void Consumer::close_connection(NodeId peer) {
  metadata_.on_disconnect(peer);
  for (const auto& tp : assignment_) {
    PartitionState& st = partitions_.at(tp);
    if (!st.request.in_flight() || st.request.target != peer) continue;
    requests_.end(st.request);  // forgets the request and its timeout
    metadata_.request();
    delay(st, tp, millis(config_.retry_backoff_ms));
  }
}

std::vector<ConsumerRecord> Consumer::poll() {
  if (group_.subscribed()) group_.on_poll();
  std::vector<ConsumerRecord> out;
  const std::size_t n = assignment_.size();
  std::size_t buffered = 0;
  for (const auto& [tp, st] : partitions_) buffered += st.buffer.size();
  out.reserve(std::min(buffered, static_cast<std::size_t>(std::max(config_.max_poll_records, 0))));
  for (std::size_t i = 0; i < n && static_cast<std::int32_t>(out.size()) < config_.max_poll_records; ++i) {
    const TopicPartition& tp = assignment_[(next_poll_partition_ + i) % n];
    PartitionState& st = partitions_.at(tp);
    if (st.paused) continue;
    while (!st.buffer.empty() && static_cast<std::int32_t>(out.size()) < config_.max_poll_records) {
      out.push_back(ConsumerRecord{tp, std::move(st.buffer.front())});
      st.buffer.pop_front();
      st.position = out.back().record.offset + 1;
      st.position_epoch = out.back().record.leader_epoch;
    }
    // Past the fetched batches' offsets that hold no records (compaction's), as Kafka's
    // consumer moves its position to a batch's nextOffset.
    if (st.buffer.empty() && st.position && st.buffer.fetched_to > *st.position) st.position = st.buffer.fetched_to;
    pump(tp);
  }
  if (n > 0) next_poll_partition_ = (next_poll_partition_ + 1) % n;
  return out;
}

}  // namespace logsim::engine
