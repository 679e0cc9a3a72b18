// Planted bugs: known-wrong behaviours, modelled on real Kafka bugs, that the engine can be
// switched into to prove the harness finds them (`--plant NAME`, or "plant" in a scenario).
// Never on by default. Each is one named switch; the engine code that honours it is marked
// "PLANTED BUG".
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace logsim {

enum class Plant : std::uint8_t {
  // The group coordinator accepts an offset commit from a generation older than the group's
  // (a fenced zombie's commit). Found as stale-commit-accepted.
  kAcceptStaleCommit = 0,
  // KAFKA-14196: when a rebalance starts, the consumer's auto-commit commits the position of
  // what it has fetched, not of what poll() returned, so buffered records that were never
  // handed to the application are skipped by whoever gets the partition. Found as
  // lost-commit / unseen.
  kAutoCommitFetchedOnRebalance = 1,
  // The partition leader advances the high watermark to its own log end without waiting for
  // the in-sync replicas, so acks=all is acknowledged before the write is replicated; the
  // leader's death then loses it. Found as lost-write, or as inconsistent-offsets when a
  // consumer read the unreplicated records before the failover replaced them.
  kAdvanceHwWithoutIsr = 2,
  // KAFKA-1211 (before KIP-101): a replica that becomes a follower truncates its log to its
  // own, possibly stale, high watermark instead of asking the leader for the epoch's end
  // offset; after a quick double failover acknowledged records vanish. Found as lost-write, or
  // as inconsistent-offsets when a consumer had read a record whose offset the new leader reused.
  kTruncateToHighWatermark = 3,
  // The broker appends a retried idempotent batch again instead of answering with the
  // original offsets (no sequence-number de-duplication). Found as duplicate.
  kSkipIdempotentDedup = 4,
  // KAFKA-12984: the cooperative-sticky assignor hands a partition to a new owner in the same
  // rebalance in which its old owner still holds it, so two members of one generation process
  // it. Found as double-ownership.
  kCooperativeDoubleOwnership = 5,
  // The leader serves consumer fetches up to its log end, above the high watermark, so a
  // consumer processes records that a leader failover later truncates and replaces. Found as
  // inconsistent-offsets.
  kFetchAboveHighWatermark = 6,
  // The leader's answer to a consumer fetch of two or more records leaves out the second one
  // (as when a reader miscounts a batch boundary and resumes one record too far; synthetic),
  // so the consumer's position moves past a record that is in the log and nobody reset it.
  // Replicas are served whole, so the log itself loses nothing. Found as int-poll-skip (both
  // records come out of one poll), or poll-skip when a poll ends between them.
  kFetchSkipsRecord = 7,
  // Retention deletes old segments up to the log end instead of stopping at the high
  // watermark, so records a follower has not yet replicated can go before they are committed
  // (and an acks=1 write acknowledged above the high watermark goes with them); the log start
  // passes the high watermark. Found as lost-write.
  kDeleteSegmentAboveHighWatermark = 8,
  // librdkafka #4953, KAFKA-14034 (Redpanda #3039 is the same family): the broker remembers
  // only Kafka's five batches per producer. A producer limits requests in flight per
  // connection, not per partition, so after a leader change more than five batches of one
  // partition can be unanswered across the old leader and the new; a retry of one the new
  // leader no longer remembers is refused OUT_OF_ORDER_SEQUENCE_NUMBER, and the producer bumps
  // its epoch and writes it again. Found as duplicate (or nonmonotonic-send, the same write
  // seen from its order) while logsim's producer sent all of a partition's retries at once;
  // since it retries the first unanswered batch alone, as Kafka's does, no campaign finds it.
  kFiveBatchProducerState = 9,
  // KAFKA-13574's class: an acks=all produce the leader appended is answered with an error that
  // tells the client nothing was written. Here: when the controller accepts the leader's ISR
  // shrink, the produces the smaller ISR now completes are answered NOT_LEADER_OR_FOLLOWER
  // instead of success, although their records stay committed in the log. A producer that
  // gives up on it (retries=0) reports a failed send whose record consumers read. Found as
  // aborted-read.
  kErrorAfterAppend = 10,
  // The transaction coordinator sends a decision's markers (EndTxn's, a timeout abort's, the
  // abort of an earlier incarnation's transaction) as soon as it makes it, before its
  // PrepareCommit/PrepareAbort is durable in __transaction_state. When that write fails
  // (NOT_ENOUGH_REPLICAS, a failover) the coordinator still holds the transaction as ongoing at
  // the old epoch while partitions hold markers of the lost decision, often at a bumped epoch
  // (a timeout abort): the producer goes on at the old epoch, the markers of its next decision
  // are refused there (INVALID_PRODUCER_EPOCH), and that transaction never ends. read_committed readers stop at
  // its first record for good: a hanging transaction (KIP-664). Found as liveness.
  kMarkersBeforeDurable = 11,
  // The partition leader's last stable offset ignores open transactions (it is the high
  // watermark), so read_committed consumers are served records of transactions not yet decided
  // and keep them when the transaction aborts. Found as precommitted-read (a read before the
  // commit was asked for), or as aborted-read.
  kLsoPastOpenTransaction = 12,
  // KAFKA-17754's class: the partition leader accepts a produce from an epoch older than the
  // producer id's current one (a zombie fenced by a newer incarnation of its transactional.id)
  // and lets it open a transaction there, which the newer incarnation's next marker then ends:
  // the zombie's write is committed, or hangs the last stable offset. Found as zombie-write, or
  // as unseen when a retry the zombie made before it was fenced lands (a transaction partly
  // visible: the group owes the rest of it).
  kFencedWriteAccepted = 13,
  // The group coordinator applies a transaction's offsets (TxnOffsetCommit, from
  // sendOffsetsToTransaction) when its ABORT marker comes, as if it had committed (the marker's
  // result ignored, where Kafka's GroupMetadataManager.handleTxnCompletion drops them): an
  // exactly-once pipeline's positions move past input whose output was aborted. A member that
  // aborts goes back to where it was, so only the next owner of the partition (after a
  // rebalance or a restart) starts past that input. Loading the group from its log replays the
  // marker correctly. Found as eos-lost.
  kTxnOffsetsOnAbort = 14,
};

struct PlantInfo {
  Plant plant;
  std::string_view name;         // as on the command line
  std::string_view description;  // one line
  std::string_view anomaly;      // what the checkers should report
  std::string_view also = {};    // another anomaly the same bug shows first on some runs, if any

  // Whether `found` is how this bug shows itself.
  bool found_as(std::string_view found) const { return found == anomaly || (!also.empty() && found == also); }
};

// Every plant, in declaration order.
std::span<const PlantInfo> all_plants();
std::optional<Plant> plant_by_name(std::string_view name);

// A set of plants (none by default).
class Plants {
 public:
  void add(Plant p) { bits_ |= bit(p); }
  bool has(Plant p) const { return (bits_ & bit(p)) != 0; }
  bool empty() const { return bits_ == 0; }

 private:
  static std::uint32_t bit(Plant p) { return std::uint32_t{1} << static_cast<unsigned>(p); }
  std::uint32_t bits_ = 0;
};

}  // namespace logsim
