// Kafka's error codes, with Kafka's numbers and names. Expected failures are values (STYLE.md):
// every response carries one of these, and clients decide by it whether to retry.
#pragma once

#include <cstdint>
#include <string_view>

namespace logsim {

enum class ErrorCode : std::int16_t {
  // The server experienced an unexpected error when processing the request.
  UNKNOWN_SERVER_ERROR = -1,
  NONE = 0,
  // The requested offset is below the log start offset or above the log end offset.
  OFFSET_OUT_OF_RANGE = 1,
  // The record failed its CRC check or is otherwise corrupt.
  CORRUPT_MESSAGE = 2,
  // This server does not host this topic-partition.
  UNKNOWN_TOPIC_OR_PARTITION = 3,
  // There is no leader for this partition right now (election in progress): retriable.
  LEADER_NOT_AVAILABLE = 5,
  // This broker is not the leader (or a follower) for the partition: refresh metadata, retry.
  NOT_LEADER_OR_FOLLOWER = 6,
  // The request timed out on the broker (e.g. acks=all waiting on followers).
  REQUEST_TIMED_OUT = 7,
  // The broker is not available.
  BROKER_NOT_AVAILABLE = 8,
  // The connection broke before a response was received (client-side; the request may or may
  // not have been processed).
  NETWORK_EXCEPTION = 13,
  // The request is larger than the broker allows.
  MESSAGE_TOO_LARGE = 10,
  // The coordinator is loading offsets and group state and cannot serve yet.
  COORDINATOR_LOAD_IN_PROGRESS = 14,
  // The coordinator is not available.
  COORDINATOR_NOT_AVAILABLE = 15,
  // This broker is not the coordinator of the group.
  NOT_COORDINATOR = 16,
  // The topic name is not legal.
  INVALID_TOPIC_EXCEPTION = 17,
  // Fewer in-sync replicas than min.insync.replicas: nothing was written.
  NOT_ENOUGH_REPLICAS = 19,
  // Written to the leader's log, but the ISR shrank below min.insync.replicas: ambiguous.
  NOT_ENOUGH_REPLICAS_AFTER_APPEND = 20,
  // The acks value is not one of -1, 0, 1.
  INVALID_REQUIRED_ACKS = 21,
  // The member's generation is not the group's current generation.
  ILLEGAL_GENERATION = 22,
  // The group's members support no common protocol, or the protocol type differs.
  INCONSISTENT_GROUP_PROTOCOL = 23,
  // The group id is empty or otherwise invalid.
  INVALID_GROUP_ID = 24,
  // The group member is not known to the coordinator.
  UNKNOWN_MEMBER_ID = 25,
  // The session timeout is outside the broker's allowed range.
  INVALID_SESSION_TIMEOUT = 26,
  // The group is rebalancing: rejoin.
  REBALANCE_IN_PROGRESS = 27,
  // The committed offset is invalid.
  INVALID_COMMIT_OFFSET_SIZE = 28,
  // The topic already exists.
  TOPIC_ALREADY_EXISTS = 36,
  // The number of partitions is invalid.
  INVALID_PARTITIONS = 37,
  // The replication factor is invalid (e.g. larger than the number of brokers).
  INVALID_REPLICATION_FACTOR = 38,
  // A topic config name or value is invalid (unknown key, wrong type, out of range).
  INVALID_CONFIG = 40,
  // The request went to a node that is not the active controller.
  NOT_CONTROLLER = 41,
  // The request is malformed (e.g. an empty transactional id).
  INVALID_REQUEST = 42,
  // The producer's sequence number is not the next expected one.
  OUT_OF_ORDER_SEQUENCE_NUMBER = 45,
  // The batch duplicates one written long ago, beyond what the broker remembers: it was written.
  DUPLICATE_SEQUENCE_NUMBER = 46,
  // The producer's epoch is older than the broker's: a newer producer fenced it.
  INVALID_PRODUCER_EPOCH = 47,
  // The producer attempted a transactional operation in an invalid state (e.g. a plain batch
  // while its transaction is open on the partition).
  INVALID_TXN_STATE = 48,
  // The producer id is not the one the coordinator has for this transactional id.
  INVALID_PRODUCER_ID_MAPPING = 49,
  // transaction.timeout.ms is above the broker's transaction.max.timeout.ms (or not positive).
  INVALID_TRANSACTION_TIMEOUT = 50,
  // The coordinator is completing an earlier transaction of this producer: retry.
  CONCURRENT_TRANSACTIONS = 51,
  // A transaction coordinator of an older epoch wrote this marker: a newer one took over.
  TRANSACTION_COORDINATOR_FENCED = 52,
  // Another partition of the same request failed, so this one was not tried (AddPartitionsToTxn).
  OPERATION_NOT_ATTEMPTED = 55,
  // The group has active members (e.g. offsets cannot be reset).
  NON_EMPTY_GROUP = 68,
  // The group does not exist.
  GROUP_ID_NOT_FOUND = 69,
  // The leader epoch in the request is older than the broker's.
  FENCED_LEADER_EPOCH = 74,
  // The leader epoch in the request is newer than the broker's.
  UNKNOWN_LEADER_EPOCH = 75,
  // The broker epoch is not the current one: the broker must register again.
  STALE_BROKER_EPOCH = 77,
  // The group already has group.max.size members.
  GROUP_MAX_SIZE_REACHED = 81,
  // A new dynamic member must rejoin with the member id it was given (KIP-394).
  MEMBER_ID_REQUIRED = 79,
  // Another member with the same group.instance.id has replaced this one (KIP-345).
  FENCED_INSTANCE_ID = 82,
  // The group's offsets for a topic it is subscribed to cannot be deleted while it is active.
  GROUP_SUBSCRIBED_TO_TOPIC = 86,
  // OffsetFetch with require_stable: a transaction has offsets pending on the partition (KIP-447).
  UNSTABLE_OFFSET_COMMIT = 88,
  // A newer producer with the same transactional.id has taken over: this one is a zombie.
  PRODUCER_FENCED = 90,
  // The broker's validation of a produced batch failed (malformed records, offsets not 0..n-1).
  INVALID_RECORD = 87,
  // The partition epoch in an AlterPartition request is stale.
  INVALID_UPDATE_VERSION = 108,
  // The controller rejected an ISR change (e.g. a replica that is not live).
  INELIGIBLE_REPLICA = 107,
};

// Kafka's name for the code, e.g. "NOT_LEADER_OR_FOLLOWER".
std::string_view error_name(ErrorCode code);
// Whether a client should retry a request that failed with this code.
bool is_retriable(ErrorCode code);
// NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE or COORDINATOR_LOAD_IN_PROGRESS: the client marks
// its group coordinator unknown and finds it again.
bool is_coordinator_error(ErrorCode code);

}  // namespace logsim
