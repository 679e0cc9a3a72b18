// The group admin client: first the exchange machinery (routes, attempts, retries, the call's
// deadline), then each call as its sequence of steps (list, describe, delete); reset-offsets's
// are in group_admin_reset.cc.
#include "engine/client/group_admin.h"

#include <algorithm>
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
    std::is_same_v<T, ListOffsetsResponse> || std::is_same_v<T, OffsetDeleteResponse> ||
    std::is_same_v<T, LeaveGroupResponse>;

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

std::string failed(std::string_view api, const std::string& group_id, ErrorCode error) {
  return std::string(api) + " for group '" + group_id + "' failed with " + std::string(error_name(error));
}

}  // namespace

GroupAdmin::GroupAdmin(Env& env, TimerMux& timers, GroupAdminConfig config)
    : env_(env), timers_(timers, [this](TimerId id, GroupAdminTimer tag) { on_timer(id, tag); }), config_(std::move(config)),
      channel_(env, channel_config(config_),
               kFirstCorrelationId - 1),
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

GroupAdmin::ExchangeId GroupAdmin::add_exchange(CallId call, Destination to, Message message, std::size_t answer_index,
                                                AnswerFn on_answer) {
  const ExchangeId x = ++next_exchange_;
  Exchange& ex = exchanges_[x];
  ex.call = call;
  ex.request = std::move(message);
  ex.to = std::move(to);
  ex.answer_index = answer_index;
  ex.on_answer = std::move(on_answer);
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
  park(x, call.coordinator_lookup, [&] {
    return request<FindCoordinatorResponse>(
        id, Destination::any_broker(), FindCoordinatorRequest{0, call.group_id, CoordinatorKeyType::kGroup},
        [this, id](const FindCoordinatorResponse& resp) {
          Call& c = calls_.at(id);
          const std::vector<ExchangeId> parked = c.coordinator_lookup.answered();
          if (resp.error != ErrorCode::NONE) return fail_call(id, resp.error, failed("FindCoordinator", c.group_id, resp.error));
          c.coordinator = resp.node_id;
          for (ExchangeId waiting : parked) dispatch(waiting);
        });
  });
}

// Parks a leader exchange until a metadata refresh (one per call at a time) answers; a
// partition still without a leader then backs off and refreshes again.
void GroupAdmin::await_metadata(ExchangeId x) {
  const CallId id = exchanges_.at(x).call;
  Call& call = calls_.at(id);
  park(x, call.metadata_refresh, [&] {
    return request<MetadataResponse>(
        id, Destination::any_broker(), MetadataRequest{0, call.metadata_topics}, [this, id](const MetadataResponse& resp) {
          Call& c = calls_.at(id);
          const std::vector<ExchangeId> parked = c.metadata_refresh.answered();
          c.metadata.update(resp);
          for (ExchangeId waiting : parked) {
            Exchange& ex = exchanges_.at(waiting);
            ex.refresh_leader = false;
            if (c.metadata.leader(ex.to.partition.topic, ex.to.partition.partition)) {
              dispatch(waiting);
            } else {
              retry_later(waiting, ErrorCode::LEADER_NOT_AVAILABLE);
            }
          }
        });
  });
}

// Parks an exchange on one of its call's lookups, and starts the lookup unless one is in flight.
void GroupAdmin::park(ExchangeId x, Lookup& lookup, const std::function<ExchangeId()>& start) {
  lookup.parked.push_back(x);
  if (!lookup.in_flight) lookup.in_flight = start();
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

// ============================================================== steps more than one call takes

// A request to the group's coordinator whose answer's error, if any, ends the call.
template <typename Response>
void GroupAdmin::coordinator_step(CallId call, const std::string& group_id, Message message,
                                  std::function<void(const Response&)> then) {
  std::string api(message_name(message));
  request<Response>(call, Destination::coordinator(), std::move(message),
                    [this, call, group_id, api = std::move(api), then = std::move(then)](const Response& resp) {
                      if (resp.error != ErrorCode::NONE) return fail_call(call, resp.error, failed(api, group_id, resp.error));
                      then(resp);
                    });
}

void GroupAdmin::describe_step(CallId call, const std::string& group_id,
                               std::function<void(const DescribeGroupsResponse&)> then) {
  coordinator_step<DescribeGroupsResponse>(call, group_id, DescribeGroupsRequest{0, group_id}, std::move(then));
}

void GroupAdmin::committed_step(CallId call, const std::string& group_id, std::function<void(Committed)> then) {
  coordinator_step<OffsetFetchResponse>(call, group_id, OffsetFetchRequest{0, group_id, std::nullopt},
                                        [then = std::move(then)](const OffsetFetchResponse& resp) {
                                          Committed committed;
                                          for (const OffsetFetchPartition& p : resp.partitions) {
                                            if (p.error == ErrorCode::NONE && p.committed_offset.value() >= 0) {
                                              committed[{p.topic, p.partition}] = p.committed_offset;
                                            }
                                          }
                                          then(std::move(committed));
                                        });
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
  describe_step(op->call, group_id, [this, op](const DescribeGroupsResponse& resp) {
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
  committed_step(op->call, op->result.group_id, [this, op](Committed committed) {
    for (const auto& [tp, offset] : committed) op->row(tp).committed = offset;
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

// ============================================================== remove_members

void GroupAdmin::remove_members(const std::string& group_id, std::vector<std::string> instance_ids,
                                RemoveMembersCallback done) {
  const CallId call = begin_call("removeMembersFromConsumerGroup", group_id, [done](ErrorCode e, const std::string& m) {
    done(RemoveMembersResult{e, m, {}});
  });
  LeaveGroupRequest req{0, group_id, {}};
  for (const std::string& id : instance_ids) req.members.push_back({"", id, "the admin removed it"});
  request<LeaveGroupResponse>(call, Destination::coordinator(), std::move(req),
                              [this, call, group_id, instance_ids, done](const LeaveGroupResponse& resp) {
                                RemoveMembersResult result{resp.error, "", {}};
                                for (std::size_t i = 0; i < resp.member_errors.size() && i < instance_ids.size(); ++i) {
                                  result.members.emplace_back(instance_ids[i], resp.member_errors[i]);
                                  if (result.error == ErrorCode::NONE) result.error = resp.member_errors[i];
                                }
                                if (result.error != ErrorCode::NONE) {
                                  result.message = "Members of group '" + group_id + "' could not be removed due to: " +
                                                   std::string(error_name(result.error));
                                }
                                end_call(call);
                                done(result);
                              });
}

}  // namespace logsim::engine
