// The broker-side history of a live run (logsim serve): what the gateways saw, as history
// events the checkers read (docs/history.md, docs/live.md).
//
// - A producer's batch arriving is one send-invoke per record (process: the client's
//   client.id); the broker's answer makes each a
//   send-ok at its offset, a send-fail when the error means nothing was written
//   (NOT_LEADER_OR_FOLLOWER, CORRUPT_MESSAGE, ...), or a send-info (unknown: REQUEST_TIMED_OUT,
//   NOT_ENOUGH_REPLICAS_AFTER_APPEND). A batch the broker never answered (its connection closed)
//   is a send-info when the run ends.
// - Records a fetch served are process events of the reader "client.id#connection" (served,
//   not necessarily processed: the broker cannot see what the application did). A fetch names
//   its client, not its member; where the client.id and the partition name exactly one member
//   of its group's newest generation (the member whose SyncGroup answer, sent under that
//   client.id, handed it the partition), the event's note names that member: "served to member
//   M of group G, generation N". Where two members share the client.id and the partition (or
//   none has it), the note stays "served".
// - Value ids: a record of an idempotent producer is its partition, producer id, epoch and
//   sequence, which
//   Kafka promises to store once; any other record is its client, its key and value bytes and
//   how many times that client sent those bytes before, so repeated payloads stay apart. A
//   served record takes the id of the acknowledged record at its offset when its bytes are
//   those bytes, else an id of its bytes alone (and inconsistent-offsets says so).
// - A member's OffsetCommit is commit-invoke per partition, then commit-ok or commit-fail.
// - Rebalances: each SyncGroup answer that hands a member its assignment is an `assign` event of
//   the member (process: its member id, as its commits'), with the group, the generation and
//   the partitions its group's leader gave it (Kafka's consumer protocol; an assignment that is
//   not one, such as Kafka Connect's, is left out).
// - Transactions: each transactional.id at each epoch (from its InitProducerId) is a process,
//   "transactional.id@epoch", of its sends and of its transactions: txn-begin when its first
//   partition or offsets joined one (the first after InitProducerId names the id, fencing the
//   older epochs), txn-commit-invoke at EndTxn(COMMIT), and txn-commit or txn-abort when EndTxn
//   succeeds, txn-info when it fails for good (the client retries the others). A newer
//   InitProducerId of the id ends the older incarnation's open transaction as txn-abort (the
//   coordinator aborted it first) unless that one had asked to commit. Records a
//   read_committed fetch served are the ones its client keeps: none of an aborted transaction
//   the answer lists (Kafka's consumer drops them). TxnOffsetCommit is not recorded (like the
//   group checkers, offsets in a transaction are left out of a broker-side verdict).
// - Every fault the timeline injected is a fault event.
//
// - Client findings: what a client did that no Kafka client should, which the history's
//   properties do not judge (findings()): a client that kept sending a partition's records to a
//   broker that answered NOT_LEADER_OR_FOLLOWER after a Metadata answer had told that client
//   another broker leads it (librdkafka 2.0.2 does so after a failover: docs/live.md).
//
// What a broker-side history can judge is in broker_side_ignored(): the records a fetch served
// are not attributed to a group member for certain (the note's member is a guess from the
// client.id), so the
// group checkers that judge what members read, and the per-reader order checks, are left out
// of the verdict; stale-commit-accepted, which needs only the assignments and the commits, is
// judged.
//
// When. What the gateways report is only noted as it happens (its time, and the record bytes
// shared, not copied or decoded), so that a client's request costs the server no more than
// serving it; drain() turns what was noted into history events, oldest first, and serve calls
// it when it has nothing else to do (and finish() at the end). The history is the same as if
// each observation were recorded at once: every event carries the time it was noted at, and
// the observations are recorded in the order they came.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <variant>
#include <vector>

#include "engine/base/flat_map.h"
#include "live/gateway.h"
#include "properties/history.h"
#include "properties/offset_table.h"

namespace logsim::cli {

class ServeRecorder final : public live::GatewayObserver {
 public:
  ServeRecorder(properties::History& history, std::function<Nanos()> now) : history_(history), now_(std::move(now)) {}

  // GatewayObserver: each call is noted, and recorded by drain().
  void produce_sent(std::uint64_t token, const std::string& client, NodeId broker, const std::string& topic,
                    PartitionId partition, SharedBytes batches) override;
  void leaders_told(const std::string& client, std::vector<Leader> leaders) override;
  void assigned(const std::string& group, std::int32_t generation, const std::string& member_id, const std::string& client,
                const std::string& assignment) override;
  void produce_answered(std::uint64_t token, ErrorCode error, Offset base_offset) override;
  void served(const std::string& reader, const std::string& topic, PartitionId partition, Fetched fetched) override;
  void commit_sent(std::uint64_t token, const OffsetCommitRequest& request) override;
  void commit_answered(std::uint64_t token, const OffsetCommitResponse& response) override;
  void txn(const TxnStep& step) override;
  void fault(const std::string& what);
  // An event another part of serve made (the admin steps' outcomes), recorded as it is, in its
  // place among the gateways' observations (its `at` is replaced by the time it is noted).
  void external(properties::HistoryEvent e);

  // How many observations wait to be recorded.
  std::size_t noted() const { return noted_.size(); }
  // Records the oldest observations, at least one (when any wait) and then more until about
  // `bytes_max` bytes of records have been read: a bound on how long one call takes.
  void drain(std::uint64_t bytes_max);
  // Records everything noted; then sends never answered become send-info (unknown). Call once,
  // when the run ends.
  void finish();

  std::int64_t served_records() const { return served_; }

  // A client kept sending a partition to a broker that no longer led it although it had been
  // told the leader: kMisdirectedSends or more such sends over kMisdirectedSpan or longer.
  struct Misdirected {
    std::string client, topic;
    PartitionId partition;
    NodeId broker;       // where it sent them
    NodeId told;         // the leader the last Metadata answer before the first of them named
    std::int64_t sends = 0;
    Nanos first = 0, last = 0;
  };
  static constexpr std::int64_t kMisdirectedSends = 10;
  static constexpr Nanos kMisdirectedSpan = 5 * kNanosPerSecond;
  // What finish() found, in order of client, topic, partition and broker.
  std::vector<Misdirected> misdirected() const;
  // The same as sentences, naming brokers with `name`.
  std::vector<std::string> findings(const std::function<std::string(NodeId)>& name) const;

 private:
  struct ProduceSent {
    std::uint64_t token;
    std::string client;
    NodeId broker;
    std::string topic;
    PartitionId partition;
    SharedBytes batches;
  };
  struct Assigned {
    std::string group;
    std::int32_t generation;
    std::string member_id;
    std::string client;  // the client.id its SyncGroup was sent under
    std::string assignment;
  };
  struct LeadersTold {
    std::string client;
    std::vector<Leader> leaders;
  };
  struct ProduceAnswered {
    std::uint64_t token;
    ErrorCode error;
    Offset base_offset;
  };
  struct Served {
    std::string reader, topic;
    PartitionId partition;
    SharedBytes batches;
    Offset from;
    bool read_committed;
    std::vector<AbortedTransaction> aborted;
  };
  struct CommitSent {
    std::uint64_t token;
    OffsetCommitRequest request;
  };
  struct CommitAnswered {
    std::uint64_t token;
    OffsetCommitResponse response;
  };
  struct Fault {
    std::string what;
  };
  struct Made {
    properties::HistoryEvent event;
  };
  struct Noted {
    Nanos at = 0;
    std::variant<ProduceSent, LeadersTold, Assigned, ProduceAnswered, Served, CommitSent, CommitAnswered, TxnStep, Fault, Made> what;
  };
  void record(const ProduceSent& n);
  void record(const LeadersTold& n);
  void record(const Assigned& n);
  void record(const ProduceAnswered& n);
  void record(const Served& n);
  void record(const CommitSent& n);
  void record(const CommitAnswered& n);
  void record(const TxnStep& n);
  void record(const Fault& n);
  void record(const Made& n);

  struct Send {
    std::string client, topic;
    PartitionId partition;
    std::string client_id;  // the client's client.id (client is its process in the history)
    NodeId broker;          // where it was sent
    Nanos sent_at = 0;
    std::vector<live::SeenRecord> records;
    std::vector<std::uint64_t> value_ids;  // beside records
  };
  struct Stored {
    std::uint64_t value_id = 0;
    std::uint64_t content = 0;
  };
  struct Commit {
    OffsetCommitRequest request;
  };
  properties::HistoryEvent event(properties::OpKind kind, const std::string& process) const;
  // Each group's newest generation that handed out assignments, and its members' by member id
  // (client.id and partitions), to name the member a fetch served (see the top of this file).
  struct Generation {
    std::int32_t generation = -1;
    std::map<std::string, std::pair<std::string, std::vector<TopicPartition>>> members;
  };
  std::map<std::string, Generation> generations_;  // by group
  // The note of a record served to `reader` from (topic, partition): the one member it names, or
  // "served".
  std::string served_note(const std::string& reader, const std::string& topic, PartitionId partition) const;
  // The history's value id of a record's identity: 1, 2, 3, ... in order of first appearance
  // (the checkers keep their tables dense by small ids, as the simulator's).
  std::uint64_t value_id(std::uint64_t identity);
  void outcome(const Send& s, properties::OpKind kind, std::optional<Offset> base, const std::string& error);

  // A transactional producer's incarnation (its transactional.id at one epoch) is a process of
  // its own, "transactional.id@epoch", so that a newer one fences an older (zombie-write).
  struct Incarnation {
    std::string transactional_id;
    bool announced = false;  // its first txn-begin, which names the id, is recorded
    bool open = false;       // a transaction is open
    bool invoked = false;    // ... and its commit was asked for
  };
  // The incarnation's process, known from its InitProducerId or else named from what is given.
  std::string txn_process(const std::string& transactional_id, ProducerId id, ProducerEpoch epoch);
  void begin_if_closed(const std::string& process);
  void end_txn(const std::string& process, properties::OpKind kind, ErrorCode error, const std::string& note = "");
  std::map<std::pair<std::int64_t, std::int16_t>, std::string> txn_processes_;  // (producer id, epoch) -> process
  std::map<std::string, Incarnation> incarnations_;                             // by process
  std::map<std::string, std::string> newest_;  // transactional.id -> its newest incarnation's process
  std::map<std::uint64_t, std::pair<std::string, bool>> ends_;                  // EndTxn token -> process, committed

  properties::History& history_;
  std::function<Nanos()> now_;
  std::deque<Noted> noted_;  // oldest first
  Nanos at_ = 0;             // when the observation being recorded was noted
  std::map<std::uint64_t, Send> sends_;      // sent, not yet answered (by token)
  std::map<std::uint64_t, Commit> commits_;  // likewise
  // Per record looked up, so hashed or indexed (never iterated: nothing depends on their order);
  // the strings are looked up once per batch. A partition's offsets are dense, so what each
  // holds is kept in pages by offset (16 bytes an offset, where a hash table of them took 110;
  // a partition with few records still takes a page, about 16 KiB).
  using Acknowledged = properties::OffsetTable<Stored>;  // offset -> what was stored there
  Acknowledged& acknowledged(const std::string& topic, PartitionId partition);
  std::map<std::string, FlatMap<std::uint64_t, std::uint64_t>, std::less<>> sent_before_;  // client -> content -> sends so far
  std::map<std::pair<std::string, std::int32_t>, Acknowledged> acknowledged_;  // by (topic, partition)
  std::int64_t served_ = 0;
  FlatMap<std::uint64_t, std::uint64_t> ids_;  // identity -> value id
  // Client findings: the leader each client was last told per partition, and when; the sends
  // answered NOT_LEADER_OR_FOLLOWER by another broker since, by (client, topic, partition, broker).
  using ClientPartition = std::tuple<std::string, std::string, std::int32_t>;
  std::map<ClientPartition, std::pair<NodeId, Nanos>> told_;
  std::map<std::tuple<std::string, std::string, std::int32_t, std::int32_t>, Misdirected> misdirected_;
};

// The anomalies a broker-side history cannot judge (no assignments, reads are deliveries).
std::set<std::string> broker_side_ignored();

}  // namespace logsim::cli
