// Replica assignment, elections and ISR changes on the controller's state, and its encoding.
#include "engine/controller/cluster_metadata.h"

#include <algorithm>
#include <cstring>
#include <set>

#include "engine/base/assert.h"

namespace logsim::engine {
namespace {

bool contains(const std::vector<NodeId>& v, NodeId x) { return std::find(v.begin(), v.end(), x) != v.end(); }

// Kafka's legal topic names: 1 to 249 of [a-zA-Z0-9._-], not "." or "..".
std::string invalid_topic_name(const std::string& name) {
  if (name.empty()) return "Topic name is illegal, it can't be empty";
  if (name == "." || name == "..") return "Topic name cannot be \".\" or \"..\"";
  if (name.size() > 249) return "Topic name is illegal, it can't be longer than 249 characters, topic name: " + name;
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
    if (!ok) {
      return "Topic name \"" + name + "\" is illegal, it contains a character other than ASCII alphanumerics, '.', '_' and '-'";
    }
  }
  return "";
}

std::string unknown_topic(const std::string& name) { return "Topic '" + name + "' does not exist."; }

// KRaft's message when a topic cannot get `rf` replicas from `n` brokers.
std::string too_few_brokers(std::int32_t rf, std::size_t n) {
  return "Unable to replicate the partition " + std::to_string(rf) + " time(s): The target replication factor of " +
         std::to_string(rf) + " cannot be reached because only " + std::to_string(n) + " broker(s) are registered.";
}

}  // namespace

// Kafka's rack-unaware assignment (AdminUtils.assignReplicasToBrokersRackUnaware): the first
// replica walks the brokers from a start index; followers are shifted by a step that grows
// by one at every partition id that is a positive multiple of the broker count (counting from
// `first_partition`, where an assignment that extends a topic starts), so replicas spread.
std::vector<NodeId> assign_replicas(std::int32_t partition, std::int32_t rf, const std::vector<NodeId>& brokers,
                                    std::int32_t start_index, std::int32_t start_shift, std::int32_t first_partition) {
  const auto n = static_cast<std::int32_t>(brokers.size());
  const std::int32_t first = (start_index + partition) % n;
  // Multiples of n in [max(first_partition, 1), partition].
  const std::int32_t bumps = partition / n - (first_partition > 0 ? (first_partition - 1) / n : 0);
  const std::int32_t shift = start_shift + bumps;
  std::vector<NodeId> out{brokers[static_cast<std::size_t>(first)]};
  for (std::int32_t j = 0; j < rf - 1; ++j) {
    const std::int32_t index = (first + 1 + (shift + j) % (n - 1)) % n;
    out.push_back(brokers[static_cast<std::size_t>(index)]);
  }
  return out;
}

std::vector<NodeId> rack_alternated(const std::vector<NodeId>& brokers, const BrokerRacks& racks) {
  std::map<std::string, std::vector<NodeId>> by_rack;  // racks in name order, brokers in id order
  for (const NodeId b : brokers) by_rack[racks.at(b)].push_back(b);
  for (auto& [_, members] : by_rack) std::sort(members.begin(), members.end());
  std::vector<NodeId> out;
  for (std::size_t round = 0; out.size() < brokers.size(); ++round) {
    for (const auto& [_, members] : by_rack) {
      if (round < members.size()) out.push_back(members[round]);
    }
  }
  return out;
}

std::vector<NodeId> assign_replicas_rack_aware(std::int32_t partition, std::int32_t rf, const std::vector<NodeId>& brokers,
                                               const BrokerRacks& racks, std::int32_t start_index, std::int32_t start_shift,
                                               std::int32_t first_partition) {
  const std::vector<NodeId> arranged = rack_alternated(brokers, racks);
  const auto n = static_cast<std::int32_t>(arranged.size());
  std::set<std::string> all_racks;
  for (const NodeId b : arranged) all_racks.insert(racks.at(b));
  const auto rack_count = static_cast<std::int32_t>(all_racks.size());
  const std::int32_t first = (start_index + partition) % n;
  const std::int32_t bumps = partition / n - (first_partition > 0 ? (first_partition - 1) / n : 0);
  const std::int32_t second_shift = (start_shift + bumps) * rack_count;
  std::vector<NodeId> out{arranged[static_cast<std::size_t>(first)]};
  std::set<std::string> racks_used{racks.at(out.front())};
  std::set<NodeId> brokers_used{out.front()};
  for (std::int32_t k = 0; static_cast<std::int32_t>(out.size()) < rf; ++k) {
    const std::int32_t shift = 1 + (second_shift + k) % (n - 1);
    const NodeId b = arranged[static_cast<std::size_t>((first + shift) % n)];
    const std::string& rack = racks.at(b);
    // Skip a broker in a rack that has a replica while some rack has none, and one that has a
    // replica while some broker has none.
    if ((racks_used.contains(rack) && static_cast<std::int32_t>(racks_used.size()) < rack_count) ||
        (brokers_used.contains(b) && static_cast<std::int32_t>(brokers_used.size()) < n)) {
      continue;
    }
    out.push_back(b);
    racks_used.insert(rack);
    brokers_used.insert(b);
  }
  return out;
}

namespace {
// Rack-aware when every broker has a rack.
std::vector<NodeId> place_replicas(std::int32_t partition, std::int32_t rf, const std::vector<NodeId>& brokers,
                                   const BrokerRacks& racks, std::int32_t start, std::int32_t shift, std::int32_t first) {
  const bool aware = !racks.empty() && std::all_of(brokers.begin(), brokers.end(), [&](NodeId b) { return racks.contains(b); });
  return aware ? assign_replicas_rack_aware(partition, rf, brokers, racks, start, shift, first)
               : assign_replicas(partition, rf, brokers, start, shift, first);
}
}  // namespace

std::vector<NodeId> ClusterMetadata::live_brokers() const {
  std::vector<NodeId> out;
  for (const auto& [b, _] : broker_epochs) out.push_back(b);
  return out;
}

std::int32_t ClusterMetadata::partition_count(const std::string& name) const {
  std::int32_t n = 0;
  for (auto it = partitions.lower_bound({name, INT32_MIN}); it != partitions.end() && it->first.first == name; ++it) ++n;
  return n;
}

AdminOutcome ClusterMetadata::create_topic(const TopicCreation& t, const std::vector<NodeId>& brokers, Rng& rng,
                                           bool validate_only, const BrokerRacks& racks) {
  if (auto why = invalid_topic_name(t.name); !why.empty()) return {ErrorCode::INVALID_TOPIC_EXCEPTION, why};
  if (has_topic(t.name)) return {ErrorCode::TOPIC_ALREADY_EXISTS, "Topic '" + t.name + "' already exists."};
  if (t.partitions < 1) {
    return {ErrorCode::INVALID_PARTITIONS, "Number of partitions was set to an invalid non-positive value."};
  }
  if (t.replication_factor < 1) {
    return {ErrorCode::INVALID_REPLICATION_FACTOR, "Replication factor must be larger than 0, or -1 to use the default value."};
  }
  const auto n = static_cast<std::int32_t>(brokers.size());
  if (t.replication_factor > n) return {ErrorCode::INVALID_REPLICATION_FACTOR, too_few_brokers(t.replication_factor, brokers.size())};
  const auto start = static_cast<std::int32_t>(rng.uniform_u64(static_cast<std::uint64_t>(n)));
  const auto shift = n > 1 ? static_cast<std::int32_t>(rng.uniform_u64(static_cast<std::uint64_t>(n - 1))) : 0;
  if (validate_only) return {};
  const std::int64_t id = next_topic_id++;
  topics[t.name] = TopicInfo{id, t.configs};
  for (std::int32_t p = 0; p < t.partitions; ++p) {
    PartitionState s;
    s.topic = t.name;
    s.partition = PartitionId(p);
    s.topic_id = id;
    s.replicas = place_replicas(p, t.replication_factor, brokers, racks, start, shift, 0);
    s.isr = s.replicas;
    s.min_insync_replicas = t.configs.min_insync_replicas;
    s.leader = NodeId(-1);
    s.leader_epoch = LeaderEpoch(-1);
    elect(s, false);  // the first live replica in order, if any
    if (s.leader.value() < 0) s.leader_epoch = LeaderEpoch(0);
    partitions[{t.name, p}] = s;
  }
  ++version;
  return {};
}

AdminOutcome ClusterMetadata::delete_topic(const std::string& name) {
  if (!has_topic(name)) return {ErrorCode::UNKNOWN_TOPIC_OR_PARTITION, unknown_topic(name)};
  topics.erase(name);
  partitions.erase(partitions.lower_bound({name, INT32_MIN}), partitions.lower_bound({name + '\0', INT32_MIN}));
  ++version;
  return {};
}

AdminOutcome ClusterMetadata::create_partitions(const std::string& name, std::int32_t count,
                                                const std::vector<NodeId>& brokers, bool validate_only,
                                                const BrokerRacks& racks) {
  if (!has_topic(name)) return {ErrorCode::UNKNOWN_TOPIC_OR_PARTITION, unknown_topic(name)};
  const std::int32_t current = partition_count(name);
  if (count < current) {
    return {ErrorCode::INVALID_PARTITIONS, "Topic currently has " + std::to_string(current) +
                                               " partitions, which is higher than the requested " + std::to_string(count) + "."};
  }
  if (count == current) return {ErrorCode::INVALID_PARTITIONS, "Topic already has " + std::to_string(current) + " partitions."};
  const PartitionState& first = partitions.at({name, 0});
  const auto rf = static_cast<std::int32_t>(first.replicas.size());
  if (rf > static_cast<std::int32_t>(brokers.size())) {
    return {ErrorCode::INVALID_REPLICATION_FACTOR, too_few_brokers(rf, brokers.size())};
  }
  if (validate_only) return {};
  // Continue from the broker that holds partition 0's first replica (Kafka's fixed start index).
  const auto it = std::find(brokers.begin(), brokers.end(), first.replicas.front());
  const auto start = it == brokers.end() ? 0 : static_cast<std::int32_t>(it - brokers.begin());
  const TopicInfo& info = topics.at(name);
  for (std::int32_t p = current; p < count; ++p) {
    PartitionState s;
    s.topic = name;
    s.partition = PartitionId(p);
    s.topic_id = info.topic_id;
    s.replicas = place_replicas(p, rf, brokers, racks, start, start, current);
    s.isr = s.replicas;
    s.min_insync_replicas = info.configs.min_insync_replicas;
    s.leader = NodeId(-1);
    s.leader_epoch = LeaderEpoch(-1);
    elect(s, false);
    if (s.leader.value() < 0) s.leader_epoch = LeaderEpoch(0);
    partitions[{name, p}] = s;
  }
  ++version;
  return {};
}

AdminOutcome ClusterMetadata::alter_configs(const std::string& name, const std::vector<AlterableConfig>& ops,
                                            const TopicConfigs& defaults, bool validate_only) {
  auto t = topics.find(name);
  if (t == topics.end()) return {ErrorCode::UNKNOWN_TOPIC_OR_PARTITION, unknown_topic(name)};
  TopicConfigs next = t->second.configs;
  if (auto err = alter_topic_configs(next, ops, defaults); !err.empty()) return {ErrorCode::INVALID_CONFIG, err};
  if (validate_only) return {};
  t->second.configs = next;
  for (auto it = partitions.lower_bound({name, INT32_MIN}); it != partitions.end() && it->first.first == name; ++it) {
    PartitionState& p = it->second;
    p.min_insync_replicas = next.min_insync_replicas;
    if (p.leader.value() < 0 && next.unclean_leader_election_enable) elect(p, true);
  }
  ++version;
  return {};
}

bool ClusterMetadata::unclean(const std::string& topic) const {
  auto it = topics.find(topic);
  return it != topics.end() && it->second.configs.unclean_leader_election_enable;
}

void ClusterMetadata::set_leader(PartitionState& p, NodeId leader) {
  if (p.leader == leader) return;
  p.leader = leader;
  p.leader_epoch = p.leader_epoch + 1;
  ++p.partition_epoch;
}

// Picks a leader: the first replica (in preferred order) that is live and in the ISR; with
// unclean election, any live replica, whose ISR then becomes just itself.
void ClusterMetadata::elect(PartitionState& p, bool unclean) {
  for (NodeId r : p.replicas) {
    if (is_live(r) && contains(p.isr, r)) {
      set_leader(p, r);
      return;
    }
  }
  if (unclean) {
    for (NodeId r : p.replicas) {
      if (!is_live(r)) continue;
      set_leader(p, r);
      p.isr = {r};
      return;
    }
  }
  set_leader(p, NodeId(-1));
}

std::int64_t ClusterMetadata::register_broker(NodeId b) {
  if (is_live(b)) broker_failed(b);  // a new incarnation replaces the old one
  const std::int64_t epoch = next_broker_epoch++;
  broker_epochs[b] = epoch;
  // Offline partitions this broker can lead again.
  for (auto& [key, p] : partitions) {
    if (p.leader.value() < 0 && contains(p.replicas, b)) elect(p, unclean(key.first));
  }
  ++version;
  return epoch;
}

void ClusterMetadata::broker_failed(NodeId b) {
  broker_epochs.erase(b);
  for (auto& [key, p] : partitions) {
    if (!contains(p.replicas, b)) continue;
    const bool was_leader = p.leader == b;
    if (contains(p.isr, b) && p.isr.size() > 1) {
      p.isr.erase(std::find(p.isr.begin(), p.isr.end(), b));
      ++p.partition_epoch;
    }
    if (was_leader) elect(p, unclean(key.first));
  }
  ++version;
}

bool ClusterMetadata::elect_preferred_leaders() {
  bool changed = false;
  for (auto& [key, p] : partitions) {
    const NodeId preferred = p.replicas.front();
    if (p.leader != preferred && is_live(preferred) && contains(p.isr, preferred)) {
      set_leader(p, preferred);
      changed = true;
    }
  }
  if (changed) ++version;
  return changed;
}

ErrorCode ClusterMetadata::alter_isr(const AlterPartitionRequest& req) {
  auto it = partitions.find({req.topic, req.partition.value()});
  if (it == partitions.end()) return ErrorCode::UNKNOWN_TOPIC_OR_PARTITION;
  PartitionState& p = it->second;
  if (req.leader_epoch != p.leader_epoch || req.broker_id != p.leader) return ErrorCode::FENCED_LEADER_EPOCH;
  if (req.partition_epoch != p.partition_epoch) return ErrorCode::INVALID_UPDATE_VERSION;
  if (!contains(req.new_isr, p.leader)) return ErrorCode::INELIGIBLE_REPLICA;
  for (NodeId r : req.new_isr) {
    if (!contains(p.replicas, r) || !is_live(r)) return ErrorCode::INELIGIBLE_REPLICA;
  }
  p.isr = req.new_isr;
  ++p.partition_epoch;
  ++version;
  return ErrorCode::NONE;
}

void ClusterMetadata::check_invariants() const {
  for (const auto& [key, p] : partitions) {
    const std::string name = key.first + "/" + std::to_string(key.second);
    LOGSIM_ASSERT(!p.isr.empty(), "empty ISR for " + name);
    for (NodeId r : p.isr) LOGSIM_ASSERT(contains(p.replicas, r), "ISR member not a replica in " + name);
    auto t = topics.find(key.first);
    LOGSIM_ASSERT(t != topics.end(), "no topic for " + name);
    LOGSIM_ASSERT(p.topic_id == t->second.topic_id, "topic id of " + name);
    LOGSIM_ASSERT(p.min_insync_replicas == t->second.configs.min_insync_replicas, "min.insync.replicas of " + name);
    LOGSIM_ASSERT(key.second == 0 || partitions.contains({key.first, key.second - 1}), "partition gap before " + name);
    if (p.leader.value() >= 0) {
      LOGSIM_ASSERT(contains(p.isr, p.leader), "leader outside the ISR of " + name);
      LOGSIM_ASSERT(is_live(p.leader), "dead leader of " + name);
    }
  }
}

LeaderAndIsrRequest ClusterMetadata::snapshot() const {
  LeaderAndIsrRequest r;
  r.controller_epoch = controller_epoch;
  r.version = version;
  r.live_brokers = live_brokers();
  for (const auto& [_, p] : partitions) r.partitions.push_back(p);
  for (const auto& [topic, info] : topics) r.topic_configs.push_back(TopicConfig{topic, info.configs.log});
  return r;
}

// ---- Encoding: a flat little-endian stream of integers and length-prefixed strings.
namespace {

class Writer {
 public:
  void i64(std::int64_t v) { raw(&v, sizeof v); }
  void str(const std::string& s) {
    i64(static_cast<std::int64_t>(s.size()));
    out += s;
  }
  void ids(const std::vector<NodeId>& v) {
    i64(static_cast<std::int64_t>(v.size()));
    for (NodeId n : v) i64(n.value());
  }
  std::string out;

 private:
  void raw(const void* p, std::size_t n) { out.append(static_cast<const char*>(p), n); }
};

class Reader {
 public:
  explicit Reader(std::string_view b) : b_(b) {}
  bool i64(std::int64_t& v) {
    if (b_.size() - pos_ < sizeof v) return false;
    std::memcpy(&v, b_.data() + pos_, sizeof v);
    pos_ += sizeof v;
    return true;
  }
  bool str(std::string& s) {
    std::int64_t n = 0;
    if (!i64(n) || n < 0 || static_cast<std::uint64_t>(n) > b_.size() - pos_) return false;
    s.assign(b_.substr(pos_, static_cast<std::size_t>(n)));
    pos_ += static_cast<std::size_t>(n);
    return true;
  }
  bool ids(std::vector<NodeId>& v) {
    std::int64_t n = 0;
    if (!i64(n) || n < 0 || n > 100000) return false;
    v.clear();
    for (std::int64_t i = 0; i < n; ++i) {
      std::int64_t x = 0;
      if (!i64(x)) return false;
      v.push_back(NodeId(static_cast<std::int32_t>(x)));
    }
    return true;
  }
  bool done() const { return pos_ == b_.size(); }

 private:
  std::string_view b_;
  std::size_t pos_ = 0;
};

constexpr std::int64_t kMagic = 0x6c6f6773696d4d46;  // "logsimMF": format 3, with initial_topics_created

}  // namespace

std::string ClusterMetadata::encode() const {
  Writer w;
  w.i64(kMagic);
  w.i64(controller_epoch);
  w.i64(version);
  w.i64(next_broker_epoch);
  w.i64(static_cast<std::int64_t>(broker_epochs.size()));
  for (const auto& [b, e] : broker_epochs) {
    w.i64(b.value());
    w.i64(e);
  }
  w.i64(next_topic_id);
  w.i64(initial_topics_created ? 1 : 0);
  w.i64(static_cast<std::int64_t>(topics.size()));
  for (const auto& [topic, info] : topics) {
    w.str(topic);
    w.i64(info.topic_id);
    w.i64(info.configs.min_insync_replicas);
    w.i64(info.configs.unclean_leader_election_enable ? 1 : 0);
    const LogConfig& c = info.configs.log;
    for (std::int64_t v : {c.segment_bytes, c.segment_ms, c.retention_ms, c.retention_bytes,
                           static_cast<std::int64_t>(c.cleanup_policy), c.delete_retention_ms, c.min_compaction_lag_ms,
                           c.flush_messages, c.flush_ms, static_cast<std::int64_t>(c.timestamp_type),
                           c.index_interval_bytes}) {
      w.i64(v);
    }
  }
  w.i64(static_cast<std::int64_t>(partitions.size()));
  for (const auto& [_, p] : partitions) {
    w.str(p.topic);
    w.i64(p.partition.value());
    w.i64(p.topic_id);
    w.i64(p.leader.value());
    w.i64(p.leader_epoch.value());
    w.i64(p.partition_epoch);
    w.i64(p.min_insync_replicas);
    w.ids(p.replicas);
    w.ids(p.isr);
  }
  return w.out;
}

std::optional<ClusterMetadata> ClusterMetadata::decode(std::string_view bytes) {
  Reader r(bytes);
  ClusterMetadata m;
  std::int64_t magic = 0, cepoch = 0, n = 0;
  if (!r.i64(magic) || magic != kMagic || !r.i64(cepoch) || !r.i64(m.version) || !r.i64(m.next_broker_epoch) || !r.i64(n)) {
    return std::nullopt;
  }
  m.controller_epoch = static_cast<std::int32_t>(cepoch);
  for (std::int64_t i = 0; i < n; ++i) {
    std::int64_t b = 0, e = 0;
    if (!r.i64(b) || !r.i64(e)) return std::nullopt;
    m.broker_epochs[NodeId(static_cast<std::int32_t>(b))] = e;
  }
  std::int64_t created = 0;
  if (!r.i64(m.next_topic_id) || !r.i64(created) || !r.i64(n)) return std::nullopt;
  m.initial_topics_created = created != 0;
  for (std::int64_t i = 0; i < n; ++i) {
    std::string topic;
    TopicInfo info;
    std::int64_t min_isr = 0, unclean = 0;
    std::int64_t v[11];
    if (!r.str(topic) || !r.i64(info.topic_id) || !r.i64(min_isr) || !r.i64(unclean)) return std::nullopt;
    for (auto& x : v) {
      if (!r.i64(x)) return std::nullopt;
    }
    info.configs.min_insync_replicas = static_cast<std::int32_t>(min_isr);
    info.configs.unclean_leader_election_enable = unclean != 0;
    LogConfig& c = info.configs.log;
    c.segment_bytes = v[0];
    c.segment_ms = v[1];
    c.retention_ms = v[2];
    c.retention_bytes = v[3];
    c.cleanup_policy = static_cast<CleanupPolicy>(v[4]);
    c.delete_retention_ms = v[5];
    c.min_compaction_lag_ms = v[6];
    c.flush_messages = v[7];
    c.flush_ms = v[8];
    c.timestamp_type = static_cast<TimestampType>(v[9]);
    c.index_interval_bytes = v[10];
    m.topics[topic] = info;
  }
  if (!r.i64(n)) return std::nullopt;
  for (std::int64_t i = 0; i < n; ++i) {
    PartitionState p;
    std::int64_t part = 0, leader = 0, lepoch = 0, pepoch = 0, min_isr = 0;
    if (!r.str(p.topic) || !r.i64(part) || !r.i64(p.topic_id) || !r.i64(leader) || !r.i64(lepoch) || !r.i64(pepoch) || !r.i64(min_isr) ||
        !r.ids(p.replicas) || !r.ids(p.isr)) {
      return std::nullopt;
    }
    p.partition = PartitionId(static_cast<std::int32_t>(part));
    p.leader = NodeId(static_cast<std::int32_t>(leader));
    p.leader_epoch = LeaderEpoch(static_cast<std::int32_t>(lepoch));
    p.partition_epoch = static_cast<std::int32_t>(pepoch);
    p.min_insync_replicas = static_cast<std::int32_t>(min_isr);
    m.partitions[{p.topic, p.partition.value()}] = p;
  }
  if (!r.done()) return std::nullopt;
  return m;
}

}  // namespace logsim::engine
