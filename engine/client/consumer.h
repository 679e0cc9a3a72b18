// The consumer client: manual assignment or group membership (subscribe), positions, seeks,
// commits, and fetching from each partition's leader up to its high watermark.
//
// Kafka's semantics kept here: the position is the offset of the next record to hand out;
// poll() hands out at most max.poll.records buffered records and advances positions past
// them; a partition without a position is reset by auto.offset.reset (earliest, latest, or
// none: the partition reports OFFSET_OUT_OF_RANGE and stays idle); OFFSET_OUT_OF_RANGE from
// the broker is handled the same way. The broker holds an empty fetch up to fetch.max.wait.ms
// (the long poll), so an empty answer is followed by the next fetch at once.
//
// With subscribe(), the consumer is a group member: its group half is the ConsumerCoordinator
// (consumer_coordinator.h), driven from inside poll() as in Kafka. Both halves send through one
// ClientChannel (client_channel.h): one sequence of correlation ids. Metadata comes from the
// consumer's MetadataRefresh (metadata.h). One client per application node.
#pragma once

#include <compare>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/client/client_channel.h"
#include "engine/client/consumer_coordinator.h"
#include "engine/client/metadata.h"
#include "engine/base/topic_partition.h"
#include "engine/env/env.h"
#include "engine/plants.h"
#include "engine/timer_mux.h"
#include "engine/timer_tags.h"

namespace logsim::engine {

enum class OffsetReset : std::uint8_t { kEarliest, kLatest, kNone };

struct ConsumerConfig {
  std::vector<NodeId> bootstrap_servers;           // bootstrap.servers
  std::int32_t max_poll_records = 500;             // max.poll.records
  OffsetReset auto_offset_reset = OffsetReset::kLatest;  // auto.offset.reset
  std::int32_t fetch_max_wait_ms = 500;            // fetch.max.wait.ms
  IsolationLevel isolation_level = IsolationLevel::kReadUncommitted;  // isolation.level
  std::int32_t request_timeout_ms = 30000;         // request.timeout.ms
  std::int32_t retry_backoff_ms = 100;             // retry.backoff.ms
  std::int32_t metadata_max_age_ms = 300000;       // metadata.max.age.ms: refresh metadata this often
  // Group membership (subscribe).
  std::string group_id;                            // group.id
  std::optional<std::string> group_instance_id;    // group.instance.id: a static member
  std::string client_id = "consumer";              // client.id
  std::int32_t session_timeout_ms = 45000;         // session.timeout.ms
  std::int32_t heartbeat_interval_ms = 3000;       // heartbeat.interval.ms
  std::int32_t max_poll_interval_ms = 300000;      // max.poll.interval.ms (the rebalance timeout)
  std::vector<std::string> partition_assignment_strategy{"range", "cooperative-sticky"};
  bool enable_auto_commit = true;                  // enable.auto.commit
  std::int32_t auto_commit_interval_ms = 5000;     // auto.commit.interval.ms
  std::int32_t default_api_timeout_ms = 60000;     // default.api.timeout.ms (commitSync's bound)
  Plants plants;                                   // planted bugs (none by default)
};

struct ConsumerRecord {
  TopicPartition tp;
  StoredRecord record;
};

class Consumer : private GroupHost {
 public:
  // Arms its timers on the node's `timers`, which hands them back.
  Consumer(Env& env, TimerMux& timers, ConsumerConfig config);
  Consumer(const Consumer&) = delete;
  Consumer& operator=(const Consumer&) = delete;

  // Replaces the assignment. Partitions kept keep their positions; new ones start without.
  void assign(const std::vector<TopicPartition>& partitions);
  const std::vector<TopicPartition>& assignment() const { return assignment_; }
  // Sets the next offset poll() hands out for an assigned partition; drops what is buffered.
  void seek(const TopicPartition& tp, Offset offset);
  // Kafka's seekToBeginning (timestamp kListOffsetsEarliest), seekToEnd (kListOffsetsLatest),
  // or offsetsForTimes then seek (a timestamp in ms: the first offset whose record is at or
  // after it, or the end when there is none) for an assigned partition: the position is asked
  // of the leader with ListOffsets, and take_resets() says where it landed.
  void seek_to(const TopicPartition& tp, std::int64_t timestamp_ms);
  // Back to the group's committed offset for an assigned partition, as an application that
  // asks committed() and seeks there (Kafka Streams after an aborted transaction): the position
  // is fetched again from the coordinator (OffsetFetch; under read_committed it waits while a
  // transaction's offsets are pending), and no record of it is handed out meanwhile. Only for a
  // consumer that subscribed.
  void seek_to_committed(const TopicPartition& tp);
  std::optional<Offset> position(const TopicPartition& tp) const;
  // Kafka's pause/resume: a paused partition is not fetched and poll() hands out none of its
  // records; what was already fetched stays buffered (KAFKA-7548) and comes after resume(). A
  // partition not assigned now is left alone (Kafka's consumer throws IllegalStateException).
  // A partition that stays assigned across a rebalance stays paused; a newly assigned one is not.
  void pause(const std::vector<TopicPartition>& partitions);
  void resume(const std::vector<TopicPartition>& partitions);
  std::vector<TopicPartition> paused() const;  // in assignment order
  // The error that stopped a partition (auto.offset.reset=none), if any.
  std::optional<ErrorCode> partition_error(const TopicPartition& tp) const;

  // Up to max.poll.records buffered records, in offset order per partition. With a
  // subscription, also drives the group (see the top of this file).
  std::vector<ConsumerRecord> poll();
  // The positions that moved, or stopped, without the application asking, since the last call
  // (and where a seek_to landed): Kafka's consumer logs the first three and throws for the last
  // two; an application that keeps a history records each.
  struct AutoReset {
    enum class Why : std::uint8_t {
      kOutOfRange,  // a fetch was out of range (below the log start after retention, or above
                    // the log end after truncation): auto.offset.reset moved the position
      kSeekTo,      // a seek_to landed (timestamp in `seek_to`)
      kTruncation,  // KIP-320: after a leader change the position was past where its record's
                    // leader epoch ends on the new leader; the position moved back to that end,
                    // the first offset known to diverge (Kafka logs "Truncation detected")
      kNoOffset,    // auto.offset.reset=none and no position: no committed offset, or out of
                    // range (Kafka throws NoOffsetForPartitionException / OffsetOutOfRangeException);
                    // the partition stops (`to` is -1)
      kTruncationNoReset,  // auto.offset.reset=none and truncation detected: LogTruncationException;
                           // the partition stops (`to` is -1)
    };
    TopicPartition tp;
    Offset from{-1};  // the position that was out of range or truncated (-1: none, or a seek_to)
    Offset to{-1};    // where the position is now (-1: the partition stopped)
    std::optional<std::int64_t> seek_to;  // kSeekTo: its timestamp
    // kOutOfRange: the log start offset and high watermark in the out-of-range answer (Kafka
    // keeps log start <= high watermark); -1 otherwise.
    Offset log_start_offset{-1};
    Offset high_watermark{-1};
    Why why = Why::kOutOfRange;
    // kTruncation(NoReset): the epoch of the record before `from`, and the new leader's answer.
    LeaderEpoch epoch{-1};
  };
  std::vector<AutoReset> take_resets() { return std::exchange(resets_, {}); }

  // ---- Group membership (the ConsumerCoordinator).
  // Joins group.id with these topics. The listener (may be null) must outlive the consumer.
  void subscribe(std::vector<std::string> topics, RebalanceListener* listener);
  // Commits offsets (each the next offset to consume). `sync` retries retriable errors until
  // default.api.timeout.ms (commitSync); otherwise the first error ends it (commitAsync).
  // Outside a stable generation it fails at once: REBALANCE_IN_PROGRESS while rebalancing,
  // ILLEGAL_GENERATION when the member has no generation (Kafka's CommitFailedException).
  void commit(std::map<TopicPartition, Offset> offsets, bool sync, CommitCallback done = {});
  // The positions of the assigned partitions that have one (Kafka's allConsumed).
  std::map<TopicPartition, Offset> consumed() const override;
  // Graceful close: auto-commit (if enabled), onPartitionsRevoked, then LeaveGroup (dynamic
  // members). Sends without waiting; the application stops next.
  void close();
  std::int32_t generation() const { return group_.generation(); }
  const std::string& member_id() const { return group_.member_id(); }
  const std::string& group_id() const { return config_.group_id; }
  // isolation.level=read_committed: only committed transactions' records, up to the last stable offset.
  bool read_committed() const { return config_.isolation_level == IsolationLevel::kReadCommitted; }

  // (Group responses are routed from on_message to the coordinator.)
  bool on_message(NodeId from, const Message& msg);
  // The connection to a broker broke: requests in flight to it are retried after a backoff.
  void on_disconnect(NodeId peer);

 private:
  // A fetch answered OFFSET_OUT_OF_RANGE: where it asked, and the log's bounds in the answer.
  struct OutOfRange {
    Offset from;
    Offset log_start_offset;
    Offset high_watermark;
  };
  // Fetched records not yet handed out, oldest first: a vector read from `head`, so a fetch
  // decodes straight onto its end and handing out moves records without shifting any; and
  // where the batches fetched end (`fetched_to`, the next fetch's offset, as Kafka's consumer
  // keeps its batches' nextOffset: compaction can leave a batch's last offsets without records).
  struct RecordBuffer {
    std::vector<StoredRecord> records;
    std::size_t head = 0;
    Offset fetched_to{-1};  // -1: nothing fetched since the position was set
    bool empty() const { return head == records.size(); }
    std::size_t size() const { return records.size() - head; }
    StoredRecord& front() { return records[head]; }
    const StoredRecord& back() const { return records.back(); }
    void pop_front() {
      if (++head == records.size()) {
        records.clear();
        head = 0;
      }
    }
    // Makes room before more records are appended: drops the records already handed out once
    // they are at least half the vector (so each record is moved at most once more).
    void compact() {
      if (head == 0 || 2 * head < records.size()) return;
      records.erase(records.begin(), records.begin() + static_cast<std::ptrdiff_t>(head));
      head = 0;
    }
    // Forgets everything fetched (a seek, a reset, a new assignment).
    void clear() {
      records.clear();
      head = 0;
      fetched_to = Offset(-1);
    }
  };
  struct PartitionState {
    std::optional<Offset> position;  // next offset to hand out
    bool awaiting_committed = false; // newly assigned in a group: waiting for OffsetFetch
    bool paused = false;             // pause(): not fetched, not handed out
    RecordBuffer buffer;             // fetched, not yet handed out
    // The Fetch or ListOffsets in flight (with its request timeout), or the delay before the
    // next request.
    RequestSlot request;
    Offset fetch_offset{-1};         // what the Fetch in flight asked for
    std::optional<ErrorCode> error;
    std::optional<OutOfRange> reset_from;  // out of range: auto.offset.reset is under way
    std::optional<std::int64_t> seek_to;  // a seek_to is under way: what ListOffsets asks for
    // KIP-320: the leader epoch of the record before the position (none: the position came from
    // a seek, a reset or a committed offset, and is not validated), and the leader epoch the
    // position was last fetched under or validated against. When metadata shows another
    // leader epoch, the position is validated with OffsetsForLeaderEpoch before the next fetch.
    std::optional<LeaderEpoch> position_epoch;
    LeaderEpoch fetch_epoch{-1};
    LeaderEpoch validating_epoch{-1};  // the OffsetsForLeaderEpoch in flight asks under this epoch
  };

  void pump(const TopicPartition& tp);
  void send_request(const TopicPartition& tp, PartitionState& st, NodeId leader, bool list_offsets);
  void delay(PartitionState& st, const TopicPartition& tp, Nanos after);
  void reset_position(const TopicPartition& tp, PartitionState& st, const FetchResponse& out_of_range);
  // auto.offset.reset=none: the partition stops, and take_resets() says why.
  void stop_partition(PartitionState& st, AutoReset why);
  void on_epoch_end(const OffsetsForLeaderEpochResponse& resp);
  // Fails the Fetch, ListOffsets and Metadata requests in flight to `peer` as a disconnect.
  void close_connection(NodeId peer);
  void drop_fetching(PartitionState& st);
  // An assigned partition's state with its position and what was fetched for it forgotten (a seek).
  PartitionState& reposition(const TopicPartition& tp);
  void on_fetch(const FetchResponse& resp);
  void on_list_offsets(const ListOffsetsResponse& resp);
  PartitionState* answered(CorrelationId id, TopicPartition& tp);
  void on_timer(TimerId id, ConsumerTimer tag);
  void arm_max_age();
  std::vector<std::string> metadata_topics() const;

  // GroupHost: what the coordinator asks of the fetching half.
  std::map<TopicPartition, Offset> fetched_ends() const override;
  void assign_from_group(const std::vector<TopicPartition>& partitions) override { set_assignment(partitions, true); }
  std::vector<TopicPartition> awaiting_committed() const override;
  void committed(const TopicPartition& tp, std::optional<Offset> offset) override;
  void refresh_metadata() override { metadata_.request(); }
  const MetadataCache& metadata() const override { return metadata_.cache(); }
  ClientChannel& channel() override { return channel_; }
  void set_assignment(const std::vector<TopicPartition>& partitions, bool from_group);

  Timers<ConsumerTimer> timers_;
  ConsumerConfig config_;
  ClientChannel channel_;
  MetadataRefresh metadata_;
  RequestTable<TopicPartition, ConsumerTimer> requests_;  // the partitions' Fetch and ListOffsets
  std::vector<TopicPartition> assignment_;
  std::map<TopicPartition, PartitionState> partitions_;
  std::vector<AutoReset> resets_;  // for take_resets()
  std::size_t next_poll_partition_ = 0;  // round-robin start of poll()
  bool max_age_armed_ = false;  // the metadata.max.age.ms timer runs (from the first assign or subscribe)
  ConsumerCoordinator group_;  // after what it uses (config_, the GroupHost's state)
};

}  // namespace logsim::engine
