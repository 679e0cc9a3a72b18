// The transaction coordinator's requests, its writes to __transaction_state, its markers and
// its timers. See txn_coordinator.h for the protocol.
//
// Lifetimes: a transaction's metadata lives in `txns` while its partition is led here. A write
// in flight holds the id, the partition and the load it was made under; when it completes after
// that load ended (leadership moved, or came back at a new epoch) it changes nothing and the
// request is answered NOT_COORDINATOR. Markers are a job per id (`jobs`), dropped with the
// partition's load; answers to requests of a dropped job find nothing and are ignored.
#include "engine/coordinator/txn_coordinator.h"

#include <algorithm>
#include <functional>
#include <set>
#include <utility>
#include <vector>

#include "engine/base/assert.h"
#include "engine/coordinator/group_coordinator.h"
#include "engine/timer_tags.h"

namespace logsim::engine {

struct TransactionCoordinator::Impl {
  // The markers of one decided transaction still to be written.
  struct MarkerJob {
    ProducerId producer_id;
    ProducerEpoch producer_epoch;
    bool commit = false;
    std::int32_t coordinator_epoch = 0;
    std::set<TopicPartition> remaining;  // not yet written (in flight or waiting)
    std::set<TopicPartition> in_flight;
    TimerId retry = 0;                   // kRetry armed, or 0
    bool completing = false;             // the completion is being written
  };
  struct Sent {
    NodeId to;
    std::string transactional_id;
    std::vector<TopicPartition> partitions;
    TimerId timer = 0;
  };
  struct Load {
    std::int32_t coordinator_epoch;
    std::uint64_t load;  // tells a reload at the same epoch from the one before
  };

  Env& env;
  Timers<TxnCoordinatorTimer> timers;
  TxnCoordinatorConfig config;
  TxnCoordinatorHost& host;
  std::shared_ptr<bool> alive = std::make_shared<bool>(true);  // for append callbacks
  std::int32_t num_partitions = 0;
  std::map<std::int32_t, Load> led;  // __transaction_state partition -> its load
  std::uint64_t next_load = 1;
  std::map<std::string, TxnMetadata, std::less<>> txns;
  std::map<std::string, MarkerJob, std::less<>> jobs;
  // The last epoch bump a producer asked for by naming its id and epoch, so that its retry is
  // answered alike (in memory only, as Kafka's lastProducerEpoch is not; a new coordinator
  // fences such a retry).
  std::map<std::string, std::pair<ProducerId, ProducerEpoch>, std::less<>> last_bump;
  std::map<CorrelationId, Sent> sent;
  std::map<TimerId, CorrelationId> marker_timers;
  std::map<TimerId, std::string> retry_timers;
  CorrelationId next_correlation = 0;
  bool abort_timer_armed = false;

  Impl(Env& e, TimerMux& mux, TxnCoordinatorConfig c, TxnCoordinatorHost& h)
      : env(e), timers(mux, [this](TimerId id, TxnCoordinatorTimer tag) { on_timer(id, tag); }), config(c), host(h) {}

  std::int64_t now_ms() const { return to_millis(env.now()); }

  std::int32_t partition_of(std::string_view id) const {
    return GroupCoordinator::partition_for(id, num_partitions).value();
  }
  // The load an id is coordinated under here, or none (NOT_COORDINATOR).
  std::optional<Load> load_of(std::string_view id) const {
    if (num_partitions <= 0) return std::nullopt;
    auto it = led.find(partition_of(id));
    return it == led.end() ? std::nullopt : std::optional<Load>(it->second);
  }
  bool still(std::int32_t partition, std::uint64_t load) const {
    auto it = led.find(partition);
    return it != led.end() && it->second.load == load;
  }
  TxnMetadata* find(std::string_view id) {
    auto it = txns.find(id);
    return it == txns.end() ? nullptr : &it->second;
  }

  // ------------------------------------------------------------------------ writes
  // Kafka's mapping of a failed __transaction_state append to the client's error.
  static ErrorCode append_error(ErrorCode e) {
    switch (e) {
      case ErrorCode::NONE:
        return e;
      case ErrorCode::NOT_LEADER_OR_FOLLOWER:
        return ErrorCode::NOT_COORDINATOR;
      case ErrorCode::NOT_ENOUGH_REPLICAS:
      case ErrorCode::NOT_ENOUGH_REPLICAS_AFTER_APPEND:
      case ErrorCode::REQUEST_TIMED_OUT:
      case ErrorCode::UNKNOWN_TOPIC_OR_PARTITION:
        return ErrorCode::COORDINATOR_NOT_AVAILABLE;
      default:
        return ErrorCode::UNKNOWN_SERVER_ERROR;
    }
  }

  // Writes `next` as the id's metadata; it becomes current once committed. `then` gets NONE, or
  // the error to answer with (nothing changed then).
  void write(const TxnMetadata& next, std::function<void(ErrorCode)> then) {
    const std::optional<Load> load = load_of(next.transactional_id);
    LOGSIM_ASSERT(load.has_value(), "a transaction is written only where it is coordinated");
    const std::int32_t partition = partition_of(next.transactional_id);
    auto [it, fresh] = txns.try_emplace(next.transactional_id);
    if (fresh) it->second.transactional_id = next.transactional_id;  // Empty, no producer yet
    it->second.pending = next.state;
    std::vector<Record> records{txn_log_record(next, now_ms())};
    host.append(PartitionId(partition), std::move(records), config.request_timeout_ms,
                [this, alive = std::weak_ptr<bool>(alive), next, partition, l = load->load,
                 then = std::move(then)](ErrorCode e, Offset) {
                  if (alive.expired()) return;
                  written(next, partition, l, e, then);
                });
  }

  void written(const TxnMetadata& next, std::int32_t partition, std::uint64_t load, ErrorCode e,
               const std::function<void(ErrorCode)>& then) {
    if (!still(partition, load)) return then(ErrorCode::NOT_COORDINATOR);
    TxnMetadata* m = find(next.transactional_id);
    LOGSIM_ASSERT(m != nullptr && m->pending == next.state, "a written transaction is still pending");
    if (e != ErrorCode::NONE) {
      m->pending.reset();
      if (m->producer_id.value() < 0) txns.erase(next.transactional_id);  // never written before
      return then(append_error(e));
    }
    *m = next;
    m->pending.reset();
    then(ErrorCode::NONE);
  }

  // Writes a decision (PrepareCommit or PrepareAbort), then sends its markers; `then` as write's.
  void decide(const TxnMetadata& next, std::function<void(ErrorCode)> then) {
    // PLANTED BUG (markers-before-durable): the markers go out while the decision is still being
    // written; if that write is lost, partitions hold the markers of a decision nobody made.
    const bool early = config.plants.has(Plant::kMarkersBeforeDurable);
    if (early) start_markers(next);
    write(next, [this, early, next, then = std::move(then)](ErrorCode e) {
      if (e == ErrorCode::NONE && !early) start_markers(next);
      then(e);
    });
  }

  // ------------------------------------------------------------------------ requests
  void handle_init(NodeId from, const InitProducerIdRequest& req) {
    InitProducerIdResponse resp{req.correlation_id, ErrorCode::NONE, ProducerId(-1), ProducerEpoch(-1)};
    const std::string id = req.transactional_id.value_or("");
    const auto answer = [this, from, resp](ErrorCode e, const TxnMetadata* m) {
      InitProducerIdResponse out = resp;
      out.error = e;
      if (e == ErrorCode::NONE && m != nullptr) {
        out.producer_id = m->producer_id;
        out.producer_epoch = m->producer_epoch;
      }
      env.send(from, out);
    };
    if (id.empty()) return answer(ErrorCode::INVALID_REQUEST, nullptr);
    if (req.transaction_timeout_ms <= 0 || req.transaction_timeout_ms > config.transaction_max_timeout_ms) {
      return answer(ErrorCode::INVALID_TRANSACTION_TIMEOUT, nullptr);
    }
    if (!load_of(id)) return answer(ErrorCode::NOT_COORDINATOR, nullptr);
    const TxnMetadata* current = find(id);
    // Kafka allocates ids in blocks from the controller; here they are drawn from the node's
    // stream, unique in practice and deterministic (as handle_init_producer_id's).
    const ProducerId fresh_id(static_cast<std::int64_t>(env.rng().next_u64() >> 2));
    const std::optional<TxnMetadata> known =
        current != nullptr && current->producer_id.value() >= 0 ? std::optional<TxnMetadata>(*current) : std::nullopt;
    if (current != nullptr && current->pending) return answer(ErrorCode::CONCURRENT_TRANSACTIONS, nullptr);
    // A producer that names its id and epoch asks for its own next epoch (KIP-360, after an
    // abortable error): only the current incarnation may. A retry of a bump already made (its
    // answer lost) gets the same answer again; any other is a zombie: PRODUCER_FENCED.
    const bool names_itself = req.producer_id.value() >= 0 && req.producer_epoch.value() >= 0;
    auto bumped = last_bump.find(id);
    if (names_itself && known) {
      if (bumped != last_bump.end() && bumped->second == std::pair{req.producer_id, req.producer_epoch} &&
          known->producer_id == req.producer_id && known->producer_epoch == req.producer_epoch + 1 &&
          known->state == TxnState::kEmpty) {
        return answer(ErrorCode::NONE, &*known);
      }
      if (known->producer_id != req.producer_id || known->producer_epoch != req.producer_epoch) {
        return answer(ErrorCode::PRODUCER_FENCED, nullptr);
      }
    }
    if (bumped != last_bump.end()) last_bump.erase(bumped);
    if (names_itself) last_bump[id] = {req.producer_id, req.producer_epoch};
    TxnTransition t = prepare_init_producer_id(known, id, req.transaction_timeout_ms, fresh_id, now_ms());
    if (!t.write) return answer(t.error, nullptr);
    if (t.error == ErrorCode::CONCURRENT_TRANSACTIONS) {
      // An Ongoing transaction of an earlier incarnation: abort it at a bumped epoch (which
      // fences that producer); the new one asks again once the abort is complete.
      return decide(t.next, [answer](ErrorCode e) {
        answer(e == ErrorCode::NONE ? ErrorCode::CONCURRENT_TRANSACTIONS : e, nullptr);
      });
    }
    write(t.next, [answer, next = t.next](ErrorCode e) { answer(e, &next); });
  }

  // The id's metadata for a request of producer (id, epoch), or the error to answer with.
  ErrorCode check(std::string_view id, ProducerId producer_id, TxnMetadata*& out) {
    if (id.empty()) return ErrorCode::INVALID_REQUEST;
    if (!load_of(id)) return ErrorCode::NOT_COORDINATOR;
    out = find(id);
    if (out == nullptr || out->producer_id.value() < 0 || out->producer_id != producer_id) {
      return out != nullptr && out->pending ? ErrorCode::CONCURRENT_TRANSACTIONS : ErrorCode::INVALID_PRODUCER_ID_MAPPING;
    }
    return ErrorCode::NONE;
  }

  // AddPartitionsToTxn and AddOffsetsToTxn: `done` gets the error for every partition.
  void add_partitions(std::string_view id, ProducerId producer_id, ProducerEpoch epoch,
                      const std::vector<TopicPartition>& partitions, std::function<void(ErrorCode)> done) {
    TxnMetadata* m = nullptr;
    if (const ErrorCode e = check(id, producer_id, m); e != ErrorCode::NONE) return done(e);
    const TxnTransition t = prepare_add_partitions(*m, producer_id, epoch, partitions, now_ms());
    if (!t.write) return done(t.error);
    write(t.next, std::move(done));
  }

  void handle_add_partitions(NodeId from, const AddPartitionsToTxnRequest& req) {
    AddPartitionsToTxnResponse resp{req.correlation_id, {}};
    for (const TopicPartition& tp : req.partitions) resp.results.push_back({tp, ErrorCode::NONE});
    // A partition that does not exist fails the request: it is UNKNOWN_TOPIC_OR_PARTITION, the
    // others OPERATION_NOT_ATTEMPTED, and none is added (Kafka's rule).
    bool unknown = false;
    for (TxnPartitionResult& r : resp.results) {
      if (r.tp.partition.value() < 0 || r.tp.partition.value() >= host.partition_count(r.tp.topic)) {
        r.error = ErrorCode::UNKNOWN_TOPIC_OR_PARTITION;
        unknown = true;
      }
    }
    if (unknown) {
      for (TxnPartitionResult& r : resp.results) {
        if (r.error == ErrorCode::NONE) r.error = ErrorCode::OPERATION_NOT_ATTEMPTED;
      }
      return env.send(from, resp);
    }
    add_partitions(req.transactional_id, req.producer_id, req.producer_epoch, req.partitions,
                   [this, from, resp](ErrorCode e) mutable {
                     for (TxnPartitionResult& r : resp.results) r.error = e;
                     env.send(from, resp);
                   });
  }

  void handle_add_offsets(NodeId from, const AddOffsetsToTxnRequest& req) {
    const auto answer = [this, from, c = req.correlation_id](ErrorCode e) { env.send(from, AddOffsetsToTxnResponse{c, e}); };
    if (req.group_id.empty()) return answer(ErrorCode::INVALID_GROUP_ID);
    std::int32_t n = host.partition_count(kConsumerOffsetsTopic);
    if (n <= 0) n = config.offsets_topic_num_partitions;  // not created yet: as it will be
    const std::vector<TopicPartition> tp{
        TopicPartition{std::string(kConsumerOffsetsTopic), GroupCoordinator::partition_for(req.group_id, n)}};
    add_partitions(req.transactional_id, req.producer_id, req.producer_epoch, tp, answer);
  }

  void handle_end(NodeId from, const EndTxnRequest& req) {
    const auto answer = [this, from, c = req.correlation_id](ErrorCode e) { env.send(from, EndTxnResponse{c, e}); };
    TxnMetadata* m = nullptr;
    if (const ErrorCode e = check(req.transactional_id, req.producer_id, m); e != ErrorCode::NONE) return answer(e);
    const TxnTransition t = prepare_end_txn(*m, req.producer_id, req.producer_epoch, req.committed, now_ms());
    if (!t.write) return answer(t.error);
    // Answered once the decision is durable; the markers follow.
    decide(t.next, answer);
  }

  // ------------------------------------------------------------------------ markers
  void start_markers(const TxnMetadata& m) {
    const std::optional<Load> load = load_of(m.transactional_id);
    if (!load) return;
    MarkerJob job{m.producer_id, m.producer_epoch, m.state == TxnState::kPrepareCommit, load->coordinator_epoch,
                  m.partitions, {}, 0, false};
    auto [it, fresh] = jobs.insert_or_assign(m.transactional_id, std::move(job));
    (void)fresh;
    send_markers(it->first);
  }

  void send_markers(const std::string& id) {
    auto it = jobs.find(id);
    if (it == jobs.end()) return;
    MarkerJob& job = it->second;
    if (job.remaining.empty()) return complete(id);
    std::map<NodeId, std::vector<TopicPartition>> by_leader;
    bool waiting = false;
    for (auto tp = job.remaining.begin(); tp != job.remaining.end();) {
      if (job.in_flight.count(*tp) != 0) {
        ++tp;
        continue;
      }
      // A partition of a deleted topic has nothing to mark (Kafka drops it too).
      if (tp->partition.value() >= host.partition_count(tp->topic)) {
        tp = job.remaining.erase(tp);
        continue;
      }
      const NodeId leader = host.leader_of(*tp);
      if (leader.value() < 0) {
        waiting = true;
      } else {
        by_leader[leader].push_back(*tp);
      }
      ++tp;
    }
    for (auto& [leader, partitions] : by_leader) {
      const CorrelationId c = ++next_correlation;
      for (const TopicPartition& tp : partitions) job.in_flight.insert(tp);
      env.send(leader, WriteTxnMarkersRequest{c, job.producer_id, job.producer_epoch, job.commit,
                                              job.coordinator_epoch, partitions});
      const TimerId timer = timers.set(millis(config.request_timeout_ms), TxnCoordinatorTimer::kMarkerTimeout);
      marker_timers[timer] = c;
      sent[c] = Sent{leader, id, std::move(partitions), timer};
    }
    if (waiting) retry_later(id);
    if (job.remaining.empty() && job.in_flight.empty()) complete(id);
  }

  void retry_later(const std::string& id) {
    MarkerJob& job = jobs.at(id);
    if (job.retry != 0) return;
    job.retry = timers.set(millis(config.retry_backoff_ms), TxnCoordinatorTimer::kRetry);
    retry_timers[job.retry] = id;
  }

  // A marker request ended: answered (resp, from `from`), or lost (none: every partition is
  // retried). Only the partitions the request named are taken from the answer.
  void marker_answered(CorrelationId c, const WriteTxnMarkersResponse* resp, NodeId from = NodeId(-1)) {
    auto s = sent.find(c);
    if (s == sent.end()) return;
    if (resp != nullptr && (from != s->second.to || resp->producer_id != jobs_producer(s->second.transactional_id))) return;
    Sent request = std::move(s->second);
    sent.erase(s);
    timers.cancel(request.timer);
    marker_timers.erase(request.timer);
    auto it = jobs.find(request.transactional_id);
    if (it == jobs.end()) return;
    MarkerJob& job = it->second;
    for (const TopicPartition& tp : request.partitions) job.in_flight.erase(tp);
    bool retry = resp == nullptr;
    for (const TopicPartition& tp : resp == nullptr ? std::vector<TopicPartition>{} : request.partitions) {
      auto r = std::find_if(resp->partitions.begin(), resp->partitions.end(),
                            [&](const WriteTxnMarkersResponse::PartitionResult& x) { return x.tp == tp; });
      const ErrorCode error = r == resp->partitions.end() ? ErrorCode::UNKNOWN_SERVER_ERROR : r->error;
      switch (error) {
        case ErrorCode::NONE:
          job.remaining.erase(tp);
          break;
        case ErrorCode::INVALID_PRODUCER_EPOCH:
        case ErrorCode::TRANSACTION_COORDINATOR_FENCED:
          // A newer coordinator (or a newer incarnation) owns this transaction now: stop.
          return drop_job(request.transactional_id);
        default:
          // NOT_LEADER_OR_FOLLOWER, NOT_ENOUGH_REPLICAS, timeouts, and UNKNOWN_TOPIC_OR_PARTITION
          // (a restarted leader that has not yet heard from the controller says so): try again.
          // A partition whose topic is gone from this broker's metadata is dropped when the
          // markers are next sent, as Kafka does.
          retry = true;
          break;
      }
    }
    if (job.remaining.empty() && job.in_flight.empty()) return complete(request.transactional_id);
    if (retry) retry_later(request.transactional_id);
  }

  ProducerId jobs_producer(const std::string& id) const {
    auto it = jobs.find(id);
    return it == jobs.end() ? ProducerId(-1) : it->second.producer_id;
  }

  void drop_job(const std::string& id) {
    auto it = jobs.find(id);
    if (it == jobs.end()) return;
    if (it->second.retry != 0) {
      timers.cancel(it->second.retry);
      retry_timers.erase(it->second.retry);
    }
    for (auto s = sent.begin(); s != sent.end();) {
      if (s->second.transactional_id != id) {
        ++s;
        continue;
      }
      timers.cancel(s->second.timer);
      marker_timers.erase(s->second.timer);
      s = sent.erase(s);
    }
    jobs.erase(it);
  }

  // Every marker is written: PrepareX -> CompleteX, tried until written or no longer coordinated.
  void complete(const std::string& id) {
    MarkerJob& job = jobs.at(id);
    TxnMetadata* m = find(id);
    if (m == nullptr || job.completing) return;
    // The markers were sent before the decision was durable (markers-before-durable): wait for it.
    if (m->pending) return retry_later(id);
    const TxnTransition t = prepare_complete(*m, now_ms());
    if (!t.write) return drop_job(id);
    job.completing = true;
    write(t.next, [this, id](ErrorCode e) {
      auto it = jobs.find(id);
      if (it == jobs.end()) return;
      it->second.completing = false;
      if (e == ErrorCode::NONE || e == ErrorCode::NOT_COORDINATOR) return drop_job(id);
      retry_later(id);
    });
  }

  // ------------------------------------------------------------------------ timers
  void on_timer(TimerId id, TxnCoordinatorTimer tag) {
    switch (tag) {
      case TxnCoordinatorTimer::kAbortTimedOut:
        abort_timed_out();
        timers.set(millis(config.transaction_abort_timed_out_transaction_cleanup_interval_ms),
                   TxnCoordinatorTimer::kAbortTimedOut);
        break;
      case TxnCoordinatorTimer::kRetry: {
        auto it = retry_timers.find(id);
        if (it == retry_timers.end()) return;
        const std::string txn = std::move(it->second);
        retry_timers.erase(it);
        auto job = jobs.find(txn);
        if (job == jobs.end()) return;
        job->second.retry = 0;
        send_markers(txn);
        break;
      }
      case TxnCoordinatorTimer::kMarkerTimeout: {
        auto it = marker_timers.find(id);
        if (it == marker_timers.end()) return;
        const CorrelationId c = it->second;
        marker_answered(c, nullptr);
        break;
      }
    }
  }

  void abort_timed_out() {
    std::vector<std::string> due;
    for (const auto& [id, m] : txns) {
      if (!m.pending && txn_timed_out(m, now_ms())) due.push_back(id);
    }
    for (const std::string& id : due) {
      const TxnTransition t = prepare_abort_by_coordinator(txns.at(id), now_ms());
      if (!t.write) continue;
      decide(t.next, [](ErrorCode) {});
    }
  }

  // ------------------------------------------------------------------------ loading
  void on_leadership(const std::map<std::int32_t, std::int32_t>& now_led, std::int32_t partitions) {
    if (partitions != num_partitions) {
      // The topic was created (or changed): every earlier load is void.
      for (auto it = led.begin(); it != led.end();) it = unload(it);
      num_partitions = partitions;
    }
    for (auto it = led.begin(); it != led.end();) {
      auto n = now_led.find(it->first);
      it = (n == now_led.end() || n->second != it->second.coordinator_epoch) ? unload(it) : std::next(it);
    }
    for (const auto& [partition, epoch] : now_led) {
      if (led.count(partition) == 0) load(partition, epoch);
    }
    if (!abort_timer_armed && !led.empty()) {
      abort_timer_armed = true;
      timers.set(millis(config.transaction_abort_timed_out_transaction_cleanup_interval_ms),
                 TxnCoordinatorTimer::kAbortTimedOut);
    }
  }

  std::map<std::int32_t, Load>::iterator unload(std::map<std::int32_t, Load>::iterator it) {
    const std::int32_t partition = it->first;
    std::vector<std::string> ids;
    for (const auto& [id, m] : txns) {
      if (partition_of(id) == partition) ids.push_back(id);
    }
    for (const std::string& id : ids) {
      drop_job(id);
      txns.erase(id);
    }
    return led.erase(it);
  }

  void load(std::int32_t partition, std::int32_t epoch) {
    led[partition] = Load{epoch, next_load++};
    for (const StoredRecord& s : host.read_all(PartitionId(partition))) {
      if (!s.record.key) continue;
      const std::optional<std::string> id = decode_txn_key(*s.record.key);
      if (!id) continue;
      if (!s.record.value) {
        txns.erase(*id);
        continue;
      }
      if (std::optional<TxnMetadata> m = decode_txn_value(*id, *s.record.value)) txns[*id] = std::move(*m);
    }
    // A decided transaction is finished by its new coordinator, at its own epoch.
    for (const auto& [id, m] : txns) {
      if (partition_of(id) != partition) continue;
      if (m.state == TxnState::kPrepareCommit || m.state == TxnState::kPrepareAbort) start_markers(m);
    }
  }
};

TransactionCoordinator::TransactionCoordinator(Env& env, TimerMux& timers, TxnCoordinatorConfig config,
                                               TxnCoordinatorHost& host)
    : impl_(std::make_unique<Impl>(env, timers, std::move(config), host)) {}
TransactionCoordinator::~TransactionCoordinator() = default;

void TransactionCoordinator::on_leadership(const std::map<std::int32_t, std::int32_t>& led, std::int32_t num_partitions) {
  impl_->on_leadership(led, num_partitions);
}
void TransactionCoordinator::handle(NodeId from, const InitProducerIdRequest& req) { impl_->handle_init(from, req); }
void TransactionCoordinator::handle(NodeId from, const AddPartitionsToTxnRequest& req) {
  impl_->handle_add_partitions(from, req);
}
void TransactionCoordinator::handle(NodeId from, const AddOffsetsToTxnRequest& req) { impl_->handle_add_offsets(from, req); }
void TransactionCoordinator::handle(NodeId from, const EndTxnRequest& req) { impl_->handle_end(from, req); }
void TransactionCoordinator::handle(NodeId from, const WriteTxnMarkersResponse& resp) {
  impl_->marker_answered(resp.correlation_id, &resp, from);
}

void TransactionCoordinator::on_disconnect(NodeId peer) {
  std::vector<CorrelationId> lost;
  for (const auto& [c, s] : impl_->sent) {
    if (s.to == peer) lost.push_back(c);
  }
  for (CorrelationId c : lost) impl_->marker_answered(c, nullptr);
}

std::optional<TxnMetadata> TransactionCoordinator::transaction(std::string_view transactional_id) const {
  auto it = impl_->txns.find(transactional_id);
  if (it == impl_->txns.end() || it->second.producer_id.value() < 0) return std::nullopt;
  return it->second;
}

}  // namespace logsim::engine
