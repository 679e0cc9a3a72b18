// The broker-side history of a live run (see serve_recorder.h).
#include "cli/serve_recorder.h"

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <limits>

#include "engine/protocol/aborted_batches.h"
#include "engine/protocol/record_batch.h"
#include "wire/consumer_protocol.h"

namespace logsim::cli {

using properties::HistoryEvent;
using properties::OpKind;

namespace {

// Errors after which the broker wrote nothing of the batch (Kafka checks them before the
// append); any other error leaves it unknown.
bool nothing_written(ErrorCode e) {
  switch (e) {
    case ErrorCode::NOT_LEADER_OR_FOLLOWER:
    case ErrorCode::UNKNOWN_TOPIC_OR_PARTITION:
    case ErrorCode::LEADER_NOT_AVAILABLE:
    case ErrorCode::CORRUPT_MESSAGE:
    case ErrorCode::MESSAGE_TOO_LARGE:
    case ErrorCode::INVALID_RECORD:
    case ErrorCode::INVALID_REQUIRED_ACKS:
    case ErrorCode::NOT_ENOUGH_REPLICAS:
    case ErrorCode::OUT_OF_ORDER_SEQUENCE_NUMBER:
    case ErrorCode::INVALID_PRODUCER_EPOCH:
    case ErrorCode::PRODUCER_FENCED:
    case ErrorCode::INVALID_TXN_STATE:
    case ErrorCode::INVALID_TOPIC_EXCEPTION:
    case ErrorCode::FENCED_LEADER_EPOCH:
    case ErrorCode::UNKNOWN_LEADER_EPOCH:
      return true;
    default:
      return false;
  }
}

// splitmix64's finalizer over a pair: ids that do not collide by accident.
std::uint64_t mix(std::uint64_t a, std::uint64_t b) {
  std::uint64_t x = a * 0x9e3779b97f4a7c15ULL ^ (b + 0x632be59bd9b4e019ULL);
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x == 0 ? 1 : x;
}

std::uint64_t text_hash(const std::string& s) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (const char c : s) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ULL;
  }
  return h;
}

// What a read_committed consumer keeps of the batches a fetch served: the records at or above
// `from`, less those of the aborted transactions listed (engine/protocol/aborted_batches.h).
std::vector<live::SeenRecord> committed_records(std::string_view batches, Offset from,
                                                const std::vector<AbortedTransaction>& aborted) {
  std::vector<live::SeenRecord> out;
  AbortedBatches filter(aborted);
  for (std::size_t at = 0; at < batches.size();) {
    const std::optional<BatchHeader> h = parse_batch_header(batches.substr(at));
    if (!h || h->size_bytes() > batches.size() - at) break;
    const std::string_view batch = batches.substr(at, static_cast<std::size_t>(h->size_bytes()));
    at += batch.size();
    const std::optional<TxnMarker> marker = h->control() ? parse_control_batch(batch) : std::nullopt;
    if (filter.aborted(*h, marker)) continue;
    std::vector<live::SeenRecord> kept = live::seen_records(batch, from, false);
    out.insert(out.end(), std::make_move_iterator(kept.begin()), std::make_move_iterator(kept.end()));
  }
  return out;
}

// EndTxn errors after which the client sends it again (or finds its coordinator and does):
// the transaction is still open.
bool retried(ErrorCode e) {
  switch (e) {
    case ErrorCode::NOT_COORDINATOR:
    case ErrorCode::COORDINATOR_NOT_AVAILABLE:
    case ErrorCode::COORDINATOR_LOAD_IN_PROGRESS:
    case ErrorCode::CONCURRENT_TRANSACTIONS:
    case ErrorCode::REQUEST_TIMED_OUT:
      return true;
    default:
      return false;
  }
}

}  // namespace

std::vector<ServeRecorder::Misdirected> ServeRecorder::misdirected() const {
  std::vector<Misdirected> out;
  for (const auto& [key, m] : misdirected_) {
    if (m.sends >= kMisdirectedSends && m.last - m.first >= kMisdirectedSpan) out.push_back(m);
  }
  return out;
}

std::vector<std::string> ServeRecorder::findings(const std::function<std::string(NodeId)>& name) const {
  std::vector<std::string> out;
  for (const Misdirected& m : misdirected()) {
    char span[32];
    std::snprintf(span, sizeof span, "%.1f", static_cast<double>(m.last - m.first) / 1e9);
    out.push_back("client " + (m.client.empty() ? std::string("(no client.id)") : m.client) + " sent " + m.topic + "-" +
                  std::to_string(m.partition.value()) + " to " + name(m.broker) + " " + std::to_string(m.sends) + " times over " +
                  span + " s, each answered NOT_LEADER_OR_FOLLOWER, after a Metadata answer had told it " + name(m.told) +
                  " leads the partition: the client does not follow the leader it is told (librdkafka 2.0.2 after a "
                  "failover: docs/live.md)");
  }
  return out;
}

std::set<std::string> broker_side_ignored() {
  return {"nonmonotonic-poll", "poll-skip", "unseen", "lost-commit", "group-interference", "double-ownership", "liveness"};
}

std::uint64_t ServeRecorder::value_id(std::uint64_t identity) {
  return *ids_.try_emplace(identity, ids_.size() + 1).first;
}

HistoryEvent ServeRecorder::event(OpKind kind, const std::string& process) const {
  HistoryEvent e;
  e.at = at_;
  e.kind = kind;
  e.process = process.empty() ? "client" : process;
  return e;
}

ServeRecorder::Acknowledged& ServeRecorder::acknowledged(const std::string& topic, PartitionId partition) {
  return acknowledged_[{topic, partition.value()}];
}

// ---- Noting what the gateways report.

void ServeRecorder::produce_sent(std::uint64_t token, const std::string& client, NodeId broker, const std::string& topic,
                                 PartitionId partition, SharedBytes batches) {
  noted_.push_back({now_(), ProduceSent{token, client, broker, topic, partition, std::move(batches)}});
}

void ServeRecorder::assigned(const std::string& group, std::int32_t generation, const std::string& member_id,
                             const std::string& client, const std::string& assignment) {
  noted_.push_back({now_(), Assigned{group, generation, member_id, client, assignment}});
}

void ServeRecorder::leaders_told(const std::string& client, std::vector<Leader> leaders) {
  noted_.push_back({now_(), LeadersTold{client, std::move(leaders)}});
}

void ServeRecorder::produce_answered(std::uint64_t token, ErrorCode error, Offset base_offset) {
  noted_.push_back({now_(), ProduceAnswered{token, error, base_offset}});
}

void ServeRecorder::served(const std::string& reader, const std::string& topic, PartitionId partition, Fetched fetched) {
  noted_.push_back({now_(), Served{reader, topic, partition, std::move(fetched.batches), fetched.from, fetched.read_committed,
                                   std::move(fetched.aborted)}});
}

void ServeRecorder::commit_sent(std::uint64_t token, const OffsetCommitRequest& request) {
  noted_.push_back({now_(), CommitSent{token, request}});
}

void ServeRecorder::commit_answered(std::uint64_t token, const OffsetCommitResponse& response) {
  noted_.push_back({now_(), CommitAnswered{token, response}});
}

void ServeRecorder::txn(const TxnStep& step) { noted_.push_back({now_(), step}); }

void ServeRecorder::fault(const std::string& what) { noted_.push_back({now_(), Fault{what}}); }

void ServeRecorder::external(properties::HistoryEvent e) { noted_.push_back({now_(), Made{std::move(e)}}); }

void ServeRecorder::drain(std::uint64_t bytes_max) {
  std::uint64_t bytes = 0;
  while (!noted_.empty() && (bytes == 0 || bytes < bytes_max)) {
    const Noted n = std::move(noted_.front());
    noted_.pop_front();
    at_ = n.at;
    std::visit([this, &bytes](const auto& what) {
      if constexpr (requires { what.batches; }) bytes += what.batches.size();
      bytes += 1;
      record(what);
    }, n.what);
  }
}

void ServeRecorder::finish() {
  drain(std::numeric_limits<std::uint64_t>::max());
  at_ = now_();
  for (const auto& [token, send] : sends_) outcome(send, OpKind::kSendInfo, std::nullopt, "no answer: the connection closed");
  sends_.clear();
}

// ---- Recording it.

void ServeRecorder::record(const ProduceSent& n) {
  std::string scratch;
  bool idempotent = false;
  const std::string_view bytes = n.batches.contiguous(scratch);
  std::vector<live::SeenRecord> records = live::produced_records(bytes, idempotent);
  std::string process = n.client;
  if (const std::optional<BatchHeader> h = parse_batch_header(bytes); h && h->transactional()) {
    process = txn_process("", h->producer_id, h->producer_epoch);
    begin_if_closed(process);
  }
  const std::string& client = process;
  const std::string& topic = n.topic;
  const PartitionId partition = n.partition;
  Send send{client, topic, partition, n.client, n.broker, at_, std::move(records), {}};
  send.value_ids.reserve(send.records.size());
  // Sequence numbers count per partition: the id names the partition too.
  const std::uint64_t where = mix(text_hash(topic), static_cast<std::uint64_t>(partition.value()));
  FlatMap<std::uint64_t, std::uint64_t>* before = nullptr;
  if (!idempotent) before = &sent_before_[client];
  for (const auto& r : send.records) {
    const std::uint64_t id = value_id(
        idempotent ? mix(mix(where, static_cast<std::uint64_t>(r.producer_id.value())),
                         mix(static_cast<std::uint64_t>(r.producer_epoch.value()), static_cast<std::uint64_t>(r.sequence.value())))
                   : mix(mix(text_hash(client), r.content), (*before)[r.content]++));
    send.value_ids.push_back(id);
    HistoryEvent e = event(OpKind::kSendInvoke, client);
    e.topic = topic;
    e.partition = partition;
    e.key = r.key;
    e.value_id = id;
    e.idempotent = idempotent;
    e.tombstone = r.tombstone;
    history_.append(std::move(e));
  }
  sends_[n.token] = std::move(send);
}

void ServeRecorder::outcome(const Send& s, OpKind kind, std::optional<Offset> base, const std::string& error) {
  Acknowledged* acked = base ? &acknowledged(s.topic, s.partition) : nullptr;
  for (std::size_t i = 0; i < s.records.size(); ++i) {
    const live::SeenRecord& r = s.records[i];
    HistoryEvent e = event(kind, s.client);
    e.topic = s.topic;
    e.partition = s.partition;
    if (base) {
      e.offset = *base + r.offset.value();
      (*acked)[e.offset->value()] = Stored{s.value_ids[i], r.content};
    }
    e.key = r.key;
    e.value_id = s.value_ids[i];
    e.error = error;
    history_.append(std::move(e));
  }
}

void ServeRecorder::record(const LeadersTold& n) {
  for (const Leader& l : n.leaders) told_[{n.client, l.topic, l.partition.value()}] = {l.leader, at_};
}

void ServeRecorder::record(const Assigned& n) {
  const std::optional<wire::ConsumerProtocolAssignment> a = wire::decode_consumer_assignment(n.assignment);
  if (!a) return;
  HistoryEvent e = event(OpKind::kAssign, n.member_id);
  e.group = n.group;
  e.generation = properties::known(GenerationId(n.generation));
  for (const auto& t : a->assigned) {
    for (const std::int32_t p : t.partitions) e.assignment.push_back({t.topic, PartitionId(p)});
  }
  std::sort(e.assignment.begin(), e.assignment.end());
  Generation& g = generations_[n.group];
  if (n.generation > g.generation) g = Generation{n.generation, {}};
  if (n.generation == g.generation) g.members[n.member_id] = {n.client, e.assignment};
  history_.append(std::move(e));
}

std::string ServeRecorder::served_note(const std::string& reader, const std::string& topic, PartitionId partition) const {
  const std::string_view client = std::string_view(reader).substr(0, reader.rfind('#'));
  const TopicPartition tp{topic, partition};
  const std::string* group = nullptr;
  const std::string* member = nullptr;
  std::int32_t generation = -1;
  for (const auto& [name, g] : generations_) {
    for (const auto& [id, held] : g.members) {
      if (held.first != client || !std::binary_search(held.second.begin(), held.second.end(), tp)) continue;
      if (member != nullptr) return "served";  // two members could be the reader
      group = &name;
      member = &id;
      generation = g.generation;
    }
  }
  if (member == nullptr) return "served";
  return "served to member " + *member + " of group " + *group + ", generation " + std::to_string(generation);
}

void ServeRecorder::record(const ProduceAnswered& n) {
  const auto it = sends_.find(n.token);
  if (it == sends_.end()) return;
  if (n.error == ErrorCode::NOT_LEADER_OR_FOLLOWER) {
    const Send& s = it->second;
    const auto told = told_.find({s.client_id, s.topic, s.partition.value()});
    if (told != told_.end() && told->second.first.value() >= 0 && told->second.first != s.broker && told->second.second <= s.sent_at) {
      Misdirected& m = misdirected_[{s.client_id, s.topic, s.partition.value(), s.broker.value()}];
      if (m.sends == 0) m = Misdirected{s.client_id, s.topic, s.partition, s.broker, told->second.first, 0, s.sent_at, s.sent_at};
      ++m.sends;
      m.last = s.sent_at;
    }
  }
  if (n.error == ErrorCode::NONE) {
    outcome(it->second, OpKind::kSendOk, properties::known(n.base_offset), "");
  } else {
    outcome(it->second, nothing_written(n.error) ? OpKind::kSendFail : OpKind::kSendInfo, std::nullopt,
            std::string(error_name(n.error)));
  }
  sends_.erase(it);
}

void ServeRecorder::record(const Served& n) {
  std::string scratch;
  const std::vector<live::SeenRecord> records =
      n.read_committed ? committed_records(n.batches.contiguous(scratch), n.from, n.aborted)
                       : live::seen_records(n.batches.contiguous(scratch), n.from, false);
  const std::string& reader = n.reader;
  const std::string& topic = n.topic;
  const PartitionId partition = n.partition;
  Acknowledged& stored = acknowledged(topic, partition);
  const std::string note = records.empty() ? std::string() : served_note(reader, topic, partition);
  for (const auto& r : records) {
    HistoryEvent e = event(OpKind::kProcess, reader);
    e.topic = topic;
    e.partition = partition;
    e.offset = r.offset;
    e.key = r.key;
    const Stored* acked = stored.find(r.offset.value());
    e.value_id = acked != nullptr && acked->content == r.content ? acked->value_id : value_id(mix(r.content, 0));
    e.note = note;
    e.read_committed = n.read_committed;
    history_.append(std::move(e));
    ++served_;
  }
}

void ServeRecorder::record(const CommitSent& n) {
  const std::uint64_t token = n.token;
  const OffsetCommitRequest& request = n.request;
  for (const auto& p : request.partitions) {
    HistoryEvent e = event(OpKind::kCommitInvoke, request.member_id.empty() ? "admin" : request.member_id);
    e.group = request.group_id;
    e.generation = properties::known(GenerationId(request.generation_id));
    e.topic = p.topic;
    e.partition = p.partition;
    e.offset = properties::known(p.committed_offset);
    e.commit_id = token;
    history_.append(std::move(e));
  }
  commits_[token] = Commit{request};
}

void ServeRecorder::record(const CommitAnswered& n) {
  const std::uint64_t token = n.token;
  const OffsetCommitResponse& response = n.response;
  const auto it = commits_.find(token);
  if (it == commits_.end()) return;
  const OffsetCommitRequest& req = it->second.request;
  for (const auto& p : req.partitions) {
    ErrorCode error = ErrorCode::NONE;
    for (const auto& r : response.partitions) {
      if (r.topic == p.topic && r.partition == p.partition) error = r.error;
    }
    HistoryEvent e = event(error == ErrorCode::NONE ? OpKind::kCommitOk : OpKind::kCommitFail,
                           req.member_id.empty() ? "admin" : req.member_id);
    e.group = req.group_id;
    e.generation = properties::known(GenerationId(req.generation_id));
    e.topic = p.topic;
    e.partition = p.partition;
    e.offset = properties::known(p.committed_offset);
    e.commit_id = token;
    if (error != ErrorCode::NONE) e.error = std::string(error_name(error));
    history_.append(std::move(e));
  }
  commits_.erase(it);
}

// ---- Transactions.

std::string ServeRecorder::txn_process(const std::string& transactional_id, ProducerId id, ProducerEpoch epoch) {
  const auto known = txn_processes_.find({id.value(), epoch.value()});
  if (known != txn_processes_.end()) return known->second;
  // Not seen initialised (a producer id from before this run): named by what is known of it.
  const std::string name = (transactional_id.empty() ? "producer-" + std::to_string(id.value()) : transactional_id) + "@" +
                           std::to_string(epoch.value());
  txn_processes_[{id.value(), epoch.value()}] = name;
  incarnations_[name].transactional_id = transactional_id;
  return name;
}

void ServeRecorder::begin_if_closed(const std::string& process) {
  Incarnation& inc = incarnations_[process];
  if (inc.open) return;
  inc.open = true;
  inc.invoked = false;
  HistoryEvent e = event(OpKind::kTxnBegin, process);
  e.note = "transactional.id=" + inc.transactional_id;
  if (!inc.announced && !inc.transactional_id.empty()) e.key = inc.transactional_id;
  inc.announced = true;
  history_.append(std::move(e));
}

void ServeRecorder::end_txn(const std::string& process, OpKind kind, ErrorCode error, const std::string& note) {
  Incarnation& inc = incarnations_[process];
  if (!inc.open) return;
  inc.open = false;
  HistoryEvent e = event(kind, process);
  if (error != ErrorCode::NONE) e.error = std::string(error_name(error));
  e.note = note;
  history_.append(std::move(e));
}

void ServeRecorder::record(const TxnStep& n) {
  switch (n.kind) {
    case TxnStep::kInit: {
      std::string name = n.transactional_id + "@" + std::to_string(n.producer_epoch.value());
      // A new producer id (the epochs ran out, or the id's state expired) starts at epoch 0 again.
      if (incarnations_.contains(name)) name += "/" + std::to_string(n.producer_id.value());
      // The coordinator answers a new InitProducerId only once the older incarnation's
      // transaction is complete (CONCURRENT_TRANSACTIONS until then): aborted, unless that one
      // had asked to commit (then its outcome stays with its EndTxn's answer).
      if (const auto older = newest_.find(n.transactional_id); older != newest_.end()) {
        if (!incarnations_[older->second].invoked) {
          end_txn(older->second, OpKind::kTxnAbort, ErrorCode::NONE, "aborted by the coordinator: a newer producer of the id initialised");
        }
      }
      newest_[n.transactional_id] = name;
      txn_processes_[{n.producer_id.value(), n.producer_epoch.value()}] = name;
      incarnations_[name] = Incarnation{n.transactional_id};
      return;
    }
    case TxnStep::kAdd:
      return begin_if_closed(txn_process(n.transactional_id, n.producer_id, n.producer_epoch));
    case TxnStep::kEndSent: {
      const std::string process = txn_process(n.transactional_id, n.producer_id, n.producer_epoch);
      Incarnation& inc = incarnations_[process];
      if (n.committed && inc.open && !inc.invoked) {
        inc.invoked = true;
        history_.append(event(OpKind::kTxnCommitInvoke, process));
      }
      ends_[n.token] = {process, n.committed};
      return;
    }
    case TxnStep::kEndAnswered: {
      const auto it = ends_.find(n.token);
      if (it == ends_.end()) return;
      const auto [process, committed] = it->second;
      ends_.erase(it);
      if (n.error == ErrorCode::NONE) return end_txn(process, committed ? OpKind::kTxnCommit : OpKind::kTxnAbort, n.error);
      if (!retried(n.error)) end_txn(process, OpKind::kTxnInfo, n.error);
      return;
    }
  }
}

void ServeRecorder::record(const Fault& n) {
  HistoryEvent e = event(OpKind::kFault, "serve");
  e.note = n.what;
  history_.append(std::move(e));
}

void ServeRecorder::record(const Made& n) {
  HistoryEvent e = n.event;
  e.at = at_;
  history_.append(std::move(e));
}

}  // namespace logsim::cli
