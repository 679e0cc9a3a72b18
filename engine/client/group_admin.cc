// The group admin client: first the exchange machinery (routes, attempts, retries, the call's
// deadline), then each call as its sequence of steps (list, describe, delete, reset-offsets).
#include "engine/client/group_admin.h"

#include <algorithm>
#include <limits>
#include <type_traits>

#include "engine/client/consumer_protocol.h"
#include "engine/base/assert.h"

namespace logsim::engine {
namespace {

// The correlation id of an answer this client understands, and the error that decides whether
// its attempt is retried.
struct Answer {
  CorrelationId correlation_id;
  ErrorCode error;
};

template <typename T>
constexpr bool kHasTopLevelError =
    std::is_same_v<T, DescribeGroupsResponse> || std::is_same_v<T, ListGroupsResponse> ||
    std::is_same_v<T, DeleteGroupsResponse> || std::is_same_v<T, OffsetFetchResponse> ||
    std::is_same_v<T, ListOffsetsResponse> || std::is_same_v<T, OffsetDeleteResponse>;

std::optional<Answer> answer_of(const Message& msg) {
  return std::visit(
      [](const auto& m) -> std::optional<Answer> {
        using T = std::decay_t<decltype(m)>;
        if constexpr (std::is_same_v<T, FindCoordinatorResponse>) {
          // A coordinator without a node is no coordinator yet.
          const bool none = m.error == ErrorCode::NONE && m.node_id.value() < 0;
          return Answer{m.correlation_id, none ? ErrorCode::COORDINATOR_NOT_AVAILABLE : m.error};
        } else if constexpr (std::is_same_v<T, OffsetCommitResponse>) {
          // A coordinator error concerns the whole request, which is retried (as Kafka's
          // alterConsumerGroupOffsets does); other errors are the partitions' own.
          for (const OffsetCommitPartitionResult& p : m.partitions) {
            if (is_coordinator_error(p.error)) return Answer{m.correlation_id, p.error};
          }
          return Answer{m.correlation_id, ErrorCode::NONE};
        } else if constexpr (std::is_same_v<T, MetadataResponse>) {
          return Answer{m.correlation_id, ErrorCode::NONE};  // topic errors are the step's to judge
        } else if constexpr (kHasTopLevelError<T>) {
          return Answer{m.correlation_id, m.error};
        } else {
          return std::nullopt;
        }
      },
      msg);
}

std::string partition_name(const TopicPartition& tp) {
  return tp.topic + "-" + std::to_string(tp.partition.value());  // Kafka's TopicPartition.toString
}

std::string failed(std::string_view api, const std::string& group_id, ErrorCode error) {
  return std::string(api) + " for group '" + group_id + "' failed with " + std::string(error_name(error));
}

// Kafka's checkOffsetsRange: above the log end -> the log end; below the log start -> the log start.
Offset clamp(Offset requested, Offset earliest, Offset latest) {
  if (requested > latest) return latest;
  if (requested < earliest) return earliest;
  return requested;
}

// base + n without overflow (shift-by takes any long, as Kafka's option does).
Offset shifted(Offset base, std::int64_t n) {
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
  if (n > 0 && base.value() > kMax - n) return Offset(kMax);
  if (n < 0 && base.value() < kMin - n) return Offset(kMin);
  return base + n;
}

}  // namespace

std::string_view reset_mode_name(ResetMode mode) {
  switch (mode) {
    case ResetMode::kToEarliest: return "to-earliest";
    case ResetMode::kToLatest: return "to-latest";
    case ResetMode::kToOffset: return "to-offset";
    case ResetMode::kShiftBy: return "shift-by";
    case ResetMode::kToDatetime: return "to-datetime";
    case ResetMode::kByDuration: return "by-duration";
    case ResetMode::kToCurrent: return "to-current";
  }
  return "unknown";
}

GroupAdmin::GroupAdmin(Env& env, TimerMux& timers, GroupAdminConfig config)
    : env_(env), timers_(timers, [this](TimerId id, GroupAdminTimer tag) { on_timer(id, tag); }), config_(std::move(config)),
      channel_(env, channel_config(config_), kFirstCorrelationId - 1),
      requests_(channel_, timers_, GroupAdminTimer::kRequestTimeout, GroupAdminTimer::kBackoff) {
  LOGSIM_ASSERT(!config_.bootstrap_servers.empty(), "GroupAdmin needs at least one bootstrap server");
}

GroupAdmin::~GroupAdmin() = default;

// ============================================================== calls and exchanges

GroupAdmin::CallId GroupAdmin::begin_call(std::string name, std::string group_id, FailFn fail) {
  const CallId id = ++next_call_;
  Call& call = calls_[id];
  call.name = std::move(name);
  call.group_id = std::move(group_id);
  call.fail = std::move(fail);
  call.deadline_timer = timers_.set(millis(config_.default_api_timeout_ms), GroupAdminTimer::kDeadline);
  deadline_timers_[call.deadline_timer] = id;
  return id;
}

void GroupAdmin::end_call(CallId id) {
  auto it = calls_.find(id);
  LOGSIM_ASSERT(it != calls_.end(), "ending a call that is not in flight");
  for (ExchangeId x : it->second.exchanges) drop_exchange(x);
  if (it->second.deadline_timer != 0) {
    timers_.cancel(it->second.deadline_timer);
    deadline_timers_.erase(it->second.deadline_timer);
  }
  calls_.erase(it);
}

void GroupAdmin::fail_call(CallId id, ErrorCode error, const std::string& message) {
  FailFn fail = std::move(calls_.at(id).fail);
  end_call(id);
  fail(error, message);
}

template <typename Response>
GroupAdmin::ExchangeId GroupAdmin::request(CallId call, Destination to, Message message,
                                           std::function<void(const Response&)> on_answer) {
  const ExchangeId x = ++next_exchange_;
  Exchange& ex = exchanges_[x];
  ex.call = call;
  ex.request = std::move(message);
  ex.to = std::move(to);
  ex.answer_index = Message(Response{}).index();
  ex.on_answer = [fn = std::move(on_answer)](const Message& m) { fn(std::get<Response>(m)); };
  calls_.at(call).exchanges.insert(x);
  dispatch(x);
  return x;
}

// Sends the next attempt where the route says, or first learns where that is.
void GroupAdmin::dispatch(ExchangeId x) {
  Exchange& ex = exchanges_.at(x);
  Call& call = calls_.at(ex.call);
  switch (ex.to.route) {
    case Route::kAnyBroker: return transmit(x, channel_.next_bootstrap());
    case Route::kBroker: return transmit(x, ex.to.broker);
    case Route::kCoordinator:
      if (call.coordinator) return transmit(x, *call.coordinator);
      return await_coordinator(x);
    case Route::kLeader: {
      const auto leader = call.metadata.leader(ex.to.partition.topic, ex.to.partition.partition);
      if (leader && !ex.refresh_leader) return transmit(x, *leader);
      return await_metadata(x);
    }
  }
}

void GroupAdmin::transmit(ExchangeId x, NodeId to) {
  Exchange& ex = exchanges_.at(x);
  Call& call = calls_.at(ex.call);
  const CorrelationId id = channel_.next_correlation();
  set_correlation(ex.request, id);
  ++call.attempts;
  call.last_api = std::string(message_name(ex.request));
  // (The timeout is armed before the send: the order this client has always had.)
  requests_.track(x, ex.attempt, id, to, channel_.request_timeout());
  env_.send(to, ex.request);
}

// The attempt in flight timed out, lost its connection, or got a retriable answer.
void GroupAdmin::attempt_failed(ExchangeId x, ErrorCode error) {
  Exchange& ex = exchanges_.at(x);
  Call& call = calls_.at(ex.call);
  requests_.end(ex.attempt);
  // A coordinator that moved, is gone or does not answer is looked up again; one that is
  // still loading its groups is asked again.
  if (ex.to.route == Route::kCoordinator && error != ErrorCode::COORDINATOR_LOAD_IN_PROGRESS &&
      call.coordinator == ex.attempt.target) {
    call.coordinator.reset();
  }
  retry_later(x, error);
}

void GroupAdmin::retry_later(ExchangeId x, ErrorCode error) {
  Exchange& ex = exchanges_.at(x);
  calls_.at(ex.call).last_error = error;
  if (ex.to.route == Route::kLeader) ex.refresh_leader = true;
  requests_.wait(x, ex.attempt);
}

// Forgets an exchange with its attempt and timer (its call removes it from its own set).
void GroupAdmin::drop_exchange(ExchangeId x) {
  auto it = exchanges_.find(x);
  if (it == exchanges_.end()) return;
  requests_.end(it->second.attempt);
  exchanges_.erase(it);
}

// Parks a coordinator exchange until FindCoordinator (one per call at a time) answers.
void GroupAdmin::await_coordinator(ExchangeId x) {
  const CallId id = exchanges_.at(x).call;
  Call& call = calls_.at(id);
  call.awaiting_coordinator.push_back(x);
  if (call.coordinator_lookup) return;
  call.coordinator_lookup = request<FindCoordinatorResponse>(
      id, Destination::any_broker(), FindCoordinatorRequest{0, call.group_id, CoordinatorKeyType::kGroup},
      [this, id](const FindCoordinatorResponse& resp) {
        Call& c = calls_.at(id);
        c.coordinator_lookup.reset();
        if (resp.error != ErrorCode::NONE) return fail_call(id, resp.error, failed("FindCoordinator", c.group_id, resp.error));
        c.coordinator = resp.node_id;
        for (ExchangeId waiting : std::exchange(c.awaiting_coordinator, {})) dispatch(waiting);
      });
}

// Parks a leader exchange until a metadata refresh (one per call at a time) answers; a
// partition still without a leader then backs off and refreshes again.
void GroupAdmin::await_metadata(ExchangeId x) {
  const CallId id = exchanges_.at(x).call;
  Call& call = calls_.at(id);
  call.awaiting_metadata.push_back(x);
  if (call.metadata_refresh) return;
  call.metadata_refresh = request<MetadataResponse>(
      id, Destination::any_broker(), MetadataRequest{0, call.metadata_topics}, [this, id](const MetadataResponse& resp) {
        Call& c = calls_.at(id);
        c.metadata_refresh.reset();
        c.metadata.update(resp);
        for (ExchangeId waiting : std::exchange(c.awaiting_metadata, {})) {
          Exchange& ex = exchanges_.at(waiting);
          ex.refresh_leader = false;
          if (c.metadata.leader(ex.to.partition.topic, ex.to.partition.partition)) {
            dispatch(waiting);
          } else {
            retry_later(waiting, ErrorCode::LEADER_NOT_AVAILABLE);
          }
        }
      });
}

bool GroupAdmin::retriable_for(Route route, ErrorCode error) const {
  if (error == ErrorCode::NONE) return false;
  if (route == Route::kCoordinator) {
    return is_coordinator_error(error) || error == ErrorCode::REQUEST_TIMED_OUT ||
           error == ErrorCode::NETWORK_EXCEPTION;
  }
  return is_retriable(error);
}

bool GroupAdmin::on_message(NodeId, const Message& msg) {
  const auto answer = answer_of(msg);
  if (!answer) return false;
  const auto found = requests_.find(answer->correlation_id);
  if (!found) return false;
  const ExchangeId x = *found;
  Exchange& ex = exchanges_.at(x);
  if (msg.index() != ex.answer_index) return false;  // another client's answer with a like id
  if (retriable_for(ex.to.route, answer->error)) {
    attempt_failed(x, answer->error);
    return true;
  }
  AnswerFn on_answer = std::move(ex.on_answer);
  calls_.at(ex.call).exchanges.erase(x);
  drop_exchange(x);
  on_answer(msg);
  return true;
}

void GroupAdmin::on_timer(TimerId timer, GroupAdminTimer tag) {
  if (tag == GroupAdminTimer::kDeadline) return on_deadline(timer);
  const auto x = requests_.fired(timer);
  if (!x) return;
  exchanges_.at(*x).attempt.timer = 0;
  if (tag == GroupAdminTimer::kBackoff) {
    dispatch(*x);
  } else {
    attempt_failed(*x, ErrorCode::REQUEST_TIMED_OUT);
  }
}

// default.api.timeout.ms since the call began.
void GroupAdmin::on_deadline(TimerId timer) {
  auto it = deadline_timers_.find(timer);
  if (it == deadline_timers_.end()) return;
  const CallId id = it->second;
  deadline_timers_.erase(it);
  Call& call = calls_.at(id);
  call.deadline_timer = 0;
  std::string message = "Call(callName=" + call.name + ") timed out after " + std::to_string(call.attempts) + " attempt(s)";
  if (!call.last_api.empty()) message += "; the last request was " + call.last_api;
  if (call.last_error != ErrorCode::NONE) message += "; the last failure was " + std::string(error_name(call.last_error));
  fail_call(id, ErrorCode::REQUEST_TIMED_OUT, message);
}

void GroupAdmin::on_disconnect(NodeId peer) {
  for (ExchangeId x : requests_.in_flight_to(peer)) attempt_failed(x, ErrorCode::NETWORK_EXCEPTION);
}

// ============================================================== list_groups

struct GroupAdmin::ListOp {
  CallId call = 0;
  ListGroupsCallback done;
  std::vector<std::vector<ListedGroup>> per_broker;  // in the order of the broker list
  std::size_t waiting = 0;
  ErrorCode error = ErrorCode::NONE;  // the first broker's error, if any
  std::string message;
};

void GroupAdmin::list_groups(ListGroupsCallback done) {
  auto op = std::make_shared<ListOp>();
  op->done = std::move(done);
  op->call = begin_call("listConsumerGroups", "", [op](ErrorCode e, const std::string& m) {
    op->done(ListGroupsResult{e, m, {}});
  });
  // As Kafka's admin does, ask every live broker (each lists the groups it coordinates); the
  // bootstrap list stands in when the metadata names none yet.
  request<MetadataResponse>(op->call, Destination::any_broker(), MetadataRequest{0, {}},
                            [this, op](const MetadataResponse& resp) {
                              list_each_broker(op, resp.brokers.empty() ? config_.bootstrap_servers : resp.brokers);
                            });
}

void GroupAdmin::list_each_broker(const std::shared_ptr<ListOp>& op, std::vector<NodeId> brokers) {
  op->per_broker.assign(brokers.size(), {});
  op->waiting = brokers.size();
  for (std::size_t i = 0; i < brokers.size(); ++i) {
    request<ListGroupsResponse>(
        op->call, Destination::broker_node(brokers[i]), ListGroupsRequest{0},
        [this, op, i, broker = brokers[i]](const ListGroupsResponse& resp) {
          if (resp.error != ErrorCode::NONE && op->error == ErrorCode::NONE) {
            op->error = resp.error;
            op->message = "ListGroups to broker " + std::to_string(broker.value()) + " failed with " +
                          std::string(error_name(resp.error));
          }
          op->per_broker[i] = resp.groups;
          if (--op->waiting > 0) return;
          // A group that moved between coordinators may be listed twice: the first broker wins.
          std::map<std::string, GroupListing> merged;
          for (const auto& listed : op->per_broker) {
            for (const ListedGroup& g : listed) merged.emplace(g.group_id, GroupListing{g.group_id, g.protocol_type, g.state});
          }
          ListGroupsResult result{op->error, op->message, {}};
          for (auto& [id, listing] : merged) result.groups.push_back(std::move(listing));
          end_call(op->call);
          op->done(result);
        });
  }
}

// ============================================================== describe_group

struct GroupAdmin::DescribeOp {
  CallId call = 0;
  DescribeGroupCallback done;
  DescribeGroupResult result;
  std::map<TopicPartition, GroupOffsetRow> rows;
  std::size_t waiting = 0;  // ListOffsets not yet answered

  GroupOffsetRow& row(const TopicPartition& tp) {
    return rows.try_emplace(tp, GroupOffsetRow{tp.topic, tp.partition, Offset(-1), Offset(-1), -1, ""}).first->second;
  }
};

void GroupAdmin::describe_group(const std::string& group_id, DescribeGroupCallback done) {
  auto op = std::make_shared<DescribeOp>();
  op->done = std::move(done);
  op->result.group_id = group_id;
  op->call = begin_call("describeConsumerGroups", group_id, [op](ErrorCode e, const std::string& m) {
    DescribeGroupResult failure;
    failure.error = e;
    failure.message = m;
    failure.group_id = op->result.group_id;
    op->done(failure);
  });
  request<DescribeGroupsResponse>(
      op->call, Destination::coordinator(), DescribeGroupsRequest{0, group_id},
      [this, op](const DescribeGroupsResponse& resp) {
        if (resp.error != ErrorCode::NONE) {
          return fail_call(op->call, resp.error, failed("DescribeGroups", op->result.group_id, resp.error));
        }
        DescribeGroupResult& r = op->result;
        r.state = resp.state;
        r.protocol_type = resp.protocol_type;
        r.protocol_name = resp.protocol_name;
        r.generation_id = resp.generation_id;
        for (const DescribedGroupMember& m : resp.members) {
          r.members.push_back({m.member_id, m.group_instance_id, m.client_id, m.assignment});
        }
        describe_fetch_offsets(op);
      });
}

// The rows: every committed offset, and every partition a member is assigned.
void GroupAdmin::describe_fetch_offsets(const std::shared_ptr<DescribeOp>& op) {
  request<OffsetFetchResponse>(
      op->call, Destination::coordinator(), OffsetFetchRequest{0, op->result.group_id, std::nullopt},
      [this, op](const OffsetFetchResponse& resp) {
        if (resp.error != ErrorCode::NONE) {
          return fail_call(op->call, resp.error, failed("OffsetFetch", op->result.group_id, resp.error));
        }
        for (const OffsetFetchPartition& p : resp.partitions) {
          if (p.error == ErrorCode::NONE && p.committed_offset.value() >= 0) {
            op->row({p.topic, p.partition}).committed = p.committed_offset;
          }
        }
        for (const GroupMemberDescription& m : op->result.members) {
          const auto assignment = decode_assignment(m.assignment);
          if (!assignment) continue;  // not a consumer's, or not Stable (then Kafka sends none)
          for (const TopicPartition& tp : assignment->partitions) op->row(tp).member_id = m.member_id;
        }
        describe_log_ends(op);
      });
}

// LOG-END-OFFSET of each row: Metadata for the leaders, then ListOffsets latest to each.
void GroupAdmin::describe_log_ends(const std::shared_ptr<DescribeOp>& op) {
  if (op->rows.empty()) return describe_finish(op);
  std::vector<std::string> topics;
  for (const auto& [tp, row] : op->rows) {
    if (topics.empty() || topics.back() != tp.topic) topics.push_back(tp.topic);
  }
  calls_.at(op->call).metadata_topics = topics;
  request<MetadataResponse>(
      op->call, Destination::any_broker(), MetadataRequest{0, topics}, [this, op](const MetadataResponse& resp) {
        Call& call = calls_.at(op->call);
        call.metadata.update(resp);
        std::vector<TopicPartition> existing;  // a deleted topic's rows keep log end -1
        for (const auto& [tp, row] : op->rows) {
          if (tp.partition.value() < call.metadata.partition_count(tp.topic)) existing.push_back(tp);
        }
        op->waiting = existing.size();
        if (existing.empty()) return describe_finish(op);
        for (const TopicPartition& tp : existing) {
          request<ListOffsetsResponse>(op->call, Destination::leader(tp),
                                       ListOffsetsRequest{0, tp.topic, tp.partition, kListOffsetsLatest},
                                       [this, op, tp](const ListOffsetsResponse& r) {
                                         if (r.error == ErrorCode::NONE) op->rows.at(tp).log_end = r.offset;
                                         if (--op->waiting == 0) describe_finish(op);
                                       });
        }
      });
}

void GroupAdmin::describe_finish(const std::shared_ptr<DescribeOp>& op) {
  for (auto& [tp, row] : op->rows) {
    if (row.committed.value() >= 0 && row.log_end.value() >= 0) row.lag = row.log_end - row.committed;
    op->result.rows.push_back(row);
  }
  end_call(op->call);
  op->done(op->result);
}

// ============================================================== delete_group

void GroupAdmin::delete_group(const std::string& group_id, DeleteGroupCallback done) {
  const CallId call = begin_call("deleteConsumerGroups", group_id, [done](ErrorCode e, const std::string& m) {
    done(DeleteGroupResult{e, m});
  });
  request<DeleteGroupsResponse>(call, Destination::coordinator(), DeleteGroupsRequest{0, group_id},
                                [this, call, group_id, done](const DeleteGroupsResponse& resp) {
                                  DeleteGroupResult result{resp.error, ""};
                                  if (resp.error != ErrorCode::NONE) {
                                    result.message = "Group '" + group_id + "' could not be deleted due to: " +
                                                     std::string(error_name(resp.error));
                                  }
                                  end_call(call);
                                  done(result);
                                });
}

// ============================================================== delete_offsets

void GroupAdmin::delete_offsets(const std::string& group_id, std::vector<TopicPartition> partitions,
                                DeleteOffsetsCallback done) {
  const CallId call = begin_call("deleteConsumerGroupOffsets", group_id, [done](ErrorCode e, const std::string& m) {
    done(DeleteOffsetsResult{e, m, {}});
  });
  OffsetDeleteRequest req{0, group_id, {}};
  for (const auto& tp : partitions) req.partitions.push_back({tp.topic, tp.partition});
  request<OffsetDeleteResponse>(call, Destination::coordinator(), std::move(req),
                                [this, call, group_id, done](const OffsetDeleteResponse& resp) {
                                  DeleteOffsetsResult result{resp.error, "", {}};
                                  for (const auto& p : resp.partitions) {
                                    result.partitions.push_back({TopicPartition{p.topic, p.partition}, p.error});
                                    if (result.error == ErrorCode::NONE) result.error = p.error;
                                  }
                                  if (result.error != ErrorCode::NONE) {
                                    result.message = "Offsets of group '" + group_id + "' could not be deleted due to: " +
                                                     std::string(error_name(result.error));
                                  }
                                  end_call(call);
                                  done(result);
                                });
}

// ============================================================== reset_offsets

struct GroupAdmin::ResetOp {
  CallId call = 0;
  ResetOffsetsRequest request;
  ResetOffsetsCallback done;
  std::map<TopicPartition, Offset> committed;  // the group's committed offsets before the reset
  std::vector<TopicPartition> partitions;      // to reset, sorted
  std::int64_t timestamp_ms = 0;               // to-datetime, by-duration: T
  // ListOffsets answers by partition and the timestamp asked (earliest, latest or T).
  std::map<std::pair<TopicPartition, std::int64_t>, Offset> log_offsets;
  std::size_t waiting = 0;  // ListOffsets not yet answered
  std::vector<ResetOffsetsRow> rows;

  std::optional<Offset> previous(const TopicPartition& tp) const {
    auto it = committed.find(tp);
    return it == committed.end() ? std::nullopt : std::optional<Offset>(it->second);
  }
  Offset log_offset(const TopicPartition& tp, std::int64_t spec) const { return log_offsets.at({tp, spec}); }

  // The ListOffsets timestamps a partition's new offset needs, by mode.
  std::vector<std::int64_t> specs(const TopicPartition& tp) const {
    switch (request.mode) {
      case ResetMode::kToEarliest: return {kListOffsetsEarliest};
      case ResetMode::kToLatest: return {kListOffsetsLatest};
      case ResetMode::kToOffset:
      case ResetMode::kShiftBy: return {kListOffsetsEarliest, kListOffsetsLatest};
      case ResetMode::kToDatetime:
      case ResetMode::kByDuration: return {timestamp_ms, kListOffsetsLatest};
      case ResetMode::kToCurrent:
        if (previous(tp)) return {};
        return {kListOffsetsLatest};
    }
    return {};
  }

  // Kafka's rule for each mode (see ResetMode).
  Offset new_offset(const TopicPartition& tp) const {
    const std::int64_t n = request.value;
    switch (request.mode) {
      case ResetMode::kToEarliest: return log_offset(tp, kListOffsetsEarliest);
      case ResetMode::kToLatest: return log_offset(tp, kListOffsetsLatest);
      case ResetMode::kToOffset:
        return clamp(Offset(n), log_offset(tp, kListOffsetsEarliest), log_offset(tp, kListOffsetsLatest));
      case ResetMode::kShiftBy: {
        const Offset base = previous(tp).value_or(log_offset(tp, kListOffsetsEarliest));
        return clamp(shifted(base, n), log_offset(tp, kListOffsetsEarliest), log_offset(tp, kListOffsetsLatest));
      }
      case ResetMode::kToDatetime:
      case ResetMode::kByDuration: {
        const Offset at = log_offset(tp, timestamp_ms);
        return at.value() >= 0 ? at : log_offset(tp, kListOffsetsLatest);
      }
      case ResetMode::kToCurrent:
        if (auto current = previous(tp)) return *current;
        return log_offset(tp, kListOffsetsLatest);
    }
    return Offset(-1);
  }
};

void GroupAdmin::reset_offsets(ResetOffsetsRequest request, ResetOffsetsCallback done) {
  auto op = std::make_shared<ResetOp>();
  op->request = std::move(request);
  op->done = std::move(done);
  if (op->request.mode == ResetMode::kToDatetime) op->timestamp_ms = std::max<std::int64_t>(op->request.value, 0);
  if (op->request.mode == ResetMode::kByDuration) {
    op->timestamp_ms = std::max<std::int64_t>(to_millis(env_.now()) - op->request.value, 0);
  }
  op->call = begin_call("resetOffsets", op->request.group_id, [op](ErrorCode e, const std::string& m) {
    op->done(ResetOffsetsResult{e, m, {}, false});
  });
  reset_check_state(op);
}

// Kafka's tool resets only an inactive group: Empty, or Dead (it does not exist).
void GroupAdmin::reset_check_state(const std::shared_ptr<ResetOp>& op) {
  request<DescribeGroupsResponse>(
      op->call, Destination::coordinator(), DescribeGroupsRequest{0, op->request.group_id},
      [this, op](const DescribeGroupsResponse& resp) {
        const std::string& group = op->request.group_id;
        if (resp.error != ErrorCode::NONE) return fail_call(op->call, resp.error, failed("DescribeGroups", group, resp.error));
        if (resp.state != "Empty" && resp.state != "Dead") {
          return fail_call(op->call, ErrorCode::NON_EMPTY_GROUP,
                           "Assignments can only be reset if the group '" + group +
                               "' is inactive, but the current state is " + resp.state + ".");
        }
        reset_fetch_offsets(op);
      });
}

void GroupAdmin::reset_fetch_offsets(const std::shared_ptr<ResetOp>& op) {
  request<OffsetFetchResponse>(
      op->call, Destination::coordinator(), OffsetFetchRequest{0, op->request.group_id, std::nullopt},
      [this, op](const OffsetFetchResponse& resp) {
        if (resp.error != ErrorCode::NONE) {
          return fail_call(op->call, resp.error, failed("OffsetFetch", op->request.group_id, resp.error));
        }
        for (const OffsetFetchPartition& p : resp.partitions) {
          if (p.error == ErrorCode::NONE && p.committed_offset.value() >= 0) {
            op->committed[{p.topic, p.partition}] = p.committed_offset;
          }
        }
        reset_resolve_partitions(op);
      });
}

// Which partitions to reset: those named, every partition of a named topic (from Metadata),
// or, with no topics named (--all-topics), every partition with a committed offset. All must
// exist; the metadata also gives the leaders that ListOffsets goes to.
void GroupAdmin::reset_resolve_partitions(const std::shared_ptr<ResetOp>& op) {
  std::set<std::string> topics;
  for (const ResetTopic& t : op->request.topics) topics.insert(t.topic);
  if (op->request.topics.empty()) {
    for (const auto& [tp, offset] : op->committed) topics.insert(tp.topic);
  }
  if (topics.empty()) return reset_plan(op);  // nothing to reset
  Call& call = calls_.at(op->call);
  call.metadata_topics.assign(topics.begin(), topics.end());
  request<MetadataResponse>(
      op->call, Destination::any_broker(), MetadataRequest{0, call.metadata_topics},
      [this, op](const MetadataResponse& resp) {
        MetadataCache& metadata = calls_.at(op->call).metadata;
        metadata.update(resp);
        std::set<TopicPartition> wanted;
        if (op->request.topics.empty()) {
          for (const auto& [tp, offset] : op->committed) wanted.insert(tp);
        }
        for (const ResetTopic& t : op->request.topics) {
          if (!metadata.knows(t.topic)) {
            return fail_call(op->call, ErrorCode::UNKNOWN_TOPIC_OR_PARTITION,
                             "The topic \"" + t.topic + "\" does not exist");
          }
          for (const PartitionId p : t.partitions) wanted.insert({t.topic, p});
          if (t.partitions.empty()) {
            for (std::int32_t p = 0; p < metadata.partition_count(t.topic); ++p) wanted.insert({t.topic, PartitionId(p)});
          }
        }
        std::string missing;  // Kafka's check: "The partitions \"t-7,u-0\" do not exist"
        for (const TopicPartition& tp : wanted) {
          if (tp.partition.value() < 0 || tp.partition.value() >= metadata.partition_count(tp.topic)) {
            missing += (missing.empty() ? "" : ",") + partition_name(tp);
          }
        }
        if (!missing.empty()) {
          return fail_call(op->call, ErrorCode::UNKNOWN_TOPIC_OR_PARTITION, "The partitions \"" + missing + "\" do not exist");
        }
        op->partitions.assign(wanted.begin(), wanted.end());
        reset_list_offsets(op);
      });
}

// ListOffsets to each partition's leader for what its mode needs, all in parallel.
void GroupAdmin::reset_list_offsets(const std::shared_ptr<ResetOp>& op) {
  std::vector<std::pair<TopicPartition, std::int64_t>> queries;
  for (const TopicPartition& tp : op->partitions) {
    for (const std::int64_t spec : op->specs(tp)) queries.emplace_back(tp, spec);
  }
  op->waiting = queries.size();
  if (queries.empty()) return reset_plan(op);
  for (const auto& [tp, spec] : queries) {
    request<ListOffsetsResponse>(
        op->call, Destination::leader(tp), ListOffsetsRequest{0, tp.topic, tp.partition, spec},
        [this, op, tp = tp, spec = spec](const ListOffsetsResponse& resp) {
          if (resp.error != ErrorCode::NONE) {
            return fail_call(op->call, resp.error,
                             "Error getting offsets of topic partition " + partition_name(tp) + ": " +
                                 std::string(error_name(resp.error)));
          }
          op->log_offsets[{tp, spec}] = resp.offset;
          if (--op->waiting == 0) reset_plan(op);
        });
  }
}

void GroupAdmin::reset_plan(const std::shared_ptr<ResetOp>& op) {
  for (const TopicPartition& tp : op->partitions) {
    op->rows.push_back(ResetOffsetsRow{tp.topic, tp.partition, op->previous(tp).value_or(Offset(-1)),
                                       op->new_offset(tp), ErrorCode::NONE});
  }
  if (op->request.execute && !op->rows.empty()) return reset_commit(op);
  // A dry run commits nothing; an empty plan has nothing to commit (vacuously executed).
  ResetOffsetsResult result{ErrorCode::NONE, "", op->rows, op->request.execute};
  end_call(op->call);
  op->done(result);
}

// One OffsetCommit of the whole plan, as an admin: generation -1 and no member id, which the
// coordinator accepts only while the group is Empty (else UNKNOWN_MEMBER_ID per partition).
void GroupAdmin::reset_commit(const std::shared_ptr<ResetOp>& op) {
  OffsetCommitRequest commit{0, op->request.group_id, -1, "", std::nullopt, {}};
  for (const ResetOffsetsRow& row : op->rows) commit.partitions.push_back({row.topic, row.partition, row.new_offset, ""});
  request<OffsetCommitResponse>(
      op->call, Destination::coordinator(), std::move(commit), [this, op](const OffsetCommitResponse& resp) {
        ResetOffsetsResult result{ErrorCode::NONE, "", op->rows, false};
        for (const OffsetCommitPartitionResult& p : resp.partitions) {
          for (ResetOffsetsRow& row : result.rows) {
            if (row.topic == p.topic && row.partition == p.partition) row.error = p.error;
          }
          if (p.error != ErrorCode::NONE && result.error == ErrorCode::NONE) {
            result.error = p.error;
            result.message = "Failed to commit the offset of " + partition_name({p.topic, p.partition}) +
                             " for group '" + op->request.group_id + "': " + std::string(error_name(p.error));
          }
        }
        result.executed = result.error == ErrorCode::NONE;
        end_call(op->call);
        op->done(result);
      });
}

}  // namespace logsim::engine
