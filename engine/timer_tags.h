// Every timer tag of the engine's components, in one place.
//
// A tag is what the world records of a fired timer: sim/world.cc folds it into the trace hash,
// so these numbers are part of every recorded run, and changing one changes every trace that
// fires it. They are the numbers the components used before they shared a TimerMux.
//
// A tag needs to be unique only within its component: the node's TimerMux (timer_mux.h) hands
// each timer back to the component that armed it, by its id, so components on one node may use
// the same numbers (a group member's consumer and its dead-letter producer both use 1 and 2).
// Each component arms its timers with its own enum, and its handler receives that enum.
#pragma once

#include <cstdint>

namespace logsim::engine {

// The broker (engine/broker/).
enum class BrokerTimer : std::uint64_t {
  kFetchWait = 1,           // a held Fetch's fetch.max.wait.ms ended
  kProduceTimeout = 2,      // an acks=all Produce's timeout ended
  kFollower = 3,            // a follower's request timed out, or its backoff ended
  kHeartbeat = 4,           // the next heartbeat to the controller
  kIsrCheck = 5,            // shrink the ISRs of lagging followers
  kCheckpoint = 6,          // write the high-watermark checkpoint
  kRegistrationRetry = 7,   // register with the controller again
  kRetention = 8,           // log retention and compaction
  kDeferred = 9,            // a callback deferred to the next turn
};

// The group coordinator a broker hosts (engine/coordinator/): 1 << 20 plus the timer's kind.
enum class CoordinatorTimer : std::uint64_t {
  kSession = (1u << 20) + 0,        // a member's session.timeout.ms
  kPendingMember = (1u << 20) + 1,  // a member id handed out but not yet used to join
  kJoin = (1u << 20) + 2,           // the join phase's end (the rebalance or initial delay)
  kOffsetsRetention = (1u << 20) + 3,  // offsets.retention.check.interval.ms: expire offsets
};

// The transaction coordinator a broker hosts (engine/coordinator/txn_coordinator.h).
enum class TxnCoordinatorTimer : std::uint64_t {
  kAbortTimedOut = (2u << 20) + 0,  // look for transactions past their transaction.timeout.ms
  kRetry = (2u << 20) + 1,          // send a transaction's markers (or its completion) again
  kMarkerTimeout = (2u << 20) + 2,  // a WriteTxnMarkers request went unanswered
};

// The controller (engine/controller/).
enum class ControllerTimer : std::uint64_t {
  kSession = 1,        // expire brokers whose heartbeats stopped
  kRebalance = 2,      // preferred leader election
  kInitialTopics = 3,  // create the configured topics once brokers registered
};

// A client's metadata refresh (engine/client/metadata.h): the producer's and the consumer's.
enum class MetadataTimer : std::uint64_t {
  kRetry = 1,  // a Metadata request timed out, or its wait ended
};

// The producer client (engine/client/producer.h). (1 is its metadata refresh's.)
enum class ProducerTimer : std::uint64_t {
  kSend = 2,            // a Produce request timed out
  kDrain = 3,           // a batch may be sent, retried or expired now
  kInit = 4,            // an InitProducerId request timed out, or its backoff ended
  kMetadataMaxAge = 5,  // metadata.max.age.ms: refresh
  kTxn = 6,             // a transactional request timed out, or its backoff ended
  kTxnFatal = 7,        // a fatal transactional error: fail every send still pending
};

// The consumer client's fetching (engine/client/consumer.h). (1 is its metadata refresh's.)
enum class ConsumerTimer : std::uint64_t {
  kPartition = 2,  // a partition's request timed out, or its delay ended
  kMetadataMaxAge = 3,  // metadata.max.age.ms: refresh
};

// The consumer client's group membership (Kafka's ConsumerCoordinator).
enum class ConsumerGroupTimer : std::uint64_t {
  kHeartbeat = 20,    // the next heartbeat
  kPollTimeout = 21,  // max.poll.interval.ms without a poll
  kGroupRetry = 22,   // a backoff, or a group request that timed out
  kCommit = 23,       // a commit's deadline or request timeout
  kOffsetFetch = 24,  // retry.backoff.ms after UNSTABLE_OFFSET_COMMIT
};

// The topic admin client (engine/client/admin.h).
enum class AdminTimer : std::uint64_t {
  kTimeout = 0xad000001,  // an attempt's request.timeout.ms
  kBackoff = 0xad000002,  // retry.backoff.ms before the next attempt
};

// The group admin client (engine/client/group_admin.h).
enum class GroupAdminTimer : std::uint64_t {
  kRequestTimeout = 0xad000101,  // an attempt's request.timeout.ms
  kBackoff = 0xad000102,         // retry.backoff.ms before the next attempt
  kDeadline = 0xad000103,        // a call's default.api.timeout.ms
};

}  // namespace logsim::engine
