// The group-interference checker: a newly assigned partition's start, against the offsets the
// group itself committed or was reset to.
#include "properties/group_interference_checker.h"

namespace logsim::properties {
namespace {

std::string where(const std::string& topic, std::int32_t partition) { return topic + "/" + std::to_string(partition); }

}  // namespace

void GroupInterferenceChecker::on_event(const HistoryEvent& e, const EventIds& /*ids*/) {
  switch (e.kind) {
    case OpKind::kAssign: {
      if (e.group.empty()) return;
      std::set<TopicPartitionRef> now(e.assignment.begin(), e.assignment.end());
      std::set<TopicPartitionRef>& before = assignment_[e.process];
      auto it = pending_.lower_bound(RunKey{e.process, "", INT32_MIN});
      while (it != pending_.end() && std::get<0>(it->first) == e.process) {
        const auto& [process, topic, partition] = it->first;
        it = now.contains(TopicPartitionRef{topic, partition}) ? std::next(it) : pending_.erase(it);
      }
      for (const TopicPartitionRef& tp : now) {
        if (!before.contains(tp)) pending_.emplace(RunKey{e.process, tp.topic, tp.partition}, Pending{e.group, e.index});
      }
      before = std::move(now);
      return;
    }
    case OpKind::kSeek:
      if (e.process == "admin") {
        if (e.group.empty() || e.offset < 0) return;
        const GroupPartition gp{e.group, e.topic, e.partition};
        own_[gp].insert(e.offset);
        settled_.emplace(gp, e.index);
        set_by_[{e.topic, e.partition, e.offset}].emplace(e.group, Setter{e.index, e.process, true});
      } else {
        pending_.erase(RunKey{e.process, e.topic, e.partition});  // auto.offset.reset chose the start
      }
      return;
    case OpKind::kCommitInvoke:
      if (!e.group.empty() && e.offset >= 0) own_[{e.group, e.topic, e.partition}].insert(e.offset);
      return;
    case OpKind::kCommitOk:
      if (e.group.empty() || e.offset < 0) return;
      settled_.emplace(GroupPartition{e.group, e.topic, e.partition}, e.index);
      set_by_[{e.topic, e.partition, e.offset}].emplace(e.group, Setter{e.index, e.process, false});
      return;
    case OpKind::kProcess:
      break;
    default:
      return;
  }
  if (e.group.empty()) return;
  const RunKey run{e.process, e.topic, e.partition};
  const auto p = pending_.find(run);
  if (p == pending_.end()) return;
  const Pending pending = p->second;
  pending_.erase(p);
  const GroupPartition gp{pending.group, e.topic, e.partition};
  if (const auto own = own_.find(gp); own != own_.end() && own->second.contains(e.offset)) return;
  const auto settled = settled_.find(gp);
  if (settled == settled_.end() || settled->second >= pending.assigned) return;
  const auto setters = set_by_.find({e.topic, e.partition, e.offset});
  if (setters == set_by_.end()) return;
  for (const auto& [group, setter] : setters->second) {
    if (group == pending.group) continue;
    if (!reported_.emplace(pending.group, run).second) return;
    Violation v = violation_at("group-interference", e);
    v.members = {e.process, setter.process};
    v.explanation = e.process + " of group " + pending.group + " started " + where(e.topic, e.partition) + " at offset " +
                    std::to_string(e.offset) + " (event #" + std::to_string(e.index) + ") after its assignment (event #" +
                    std::to_string(pending.assigned) + "), an offset group " + pending.group +
                    " never committed nor was reset to, but which " +
                    (setter.reset ? "a reset aimed at group " + group : setter.process + " of group " + group + " committed") +
                    " at event #" + std::to_string(setter.event) + ": another group's offset became this group's";
    report(std::move(v));
    return;
  }
}

}  // namespace logsim::properties
