// Writing and reading samples.json.
#include "reports/samples_json.h"

#include <stdexcept>

namespace logsim::reports {

nlohmann::json samples_json(const scenarios::Samples& s) {
  nlohmann::json j;
  j["version"] = kSamplesVersion;
  j["interval_ms"] = to_millis(s.interval);
  j["nodes"] = s.nodes;
  j["roles"] = s.node_roles;
  j["partitions"] = s.partitions;
  j["samples"] = nlohmann::json::array();
  for (const auto& x : s.samples) {
    nlohmann::json leader = nlohmann::json::array(), epoch = nlohmann::json::array(), log_end = nlohmann::json::array(),
                   hw = nlohmann::json::array(), lso = nlohmann::json::array(), isr = nlohmann::json::array();
    for (const auto& p : x.partitions) {
      leader.push_back(p.leader);
      epoch.push_back(p.leader_epoch);
      log_end.push_back(p.log_end);
      hw.push_back(p.high_watermark);
      lso.push_back(p.last_stable);
      isr.push_back(p.isr);
    }
    j["samples"].push_back({{"at_ms", to_millis(x.at)}, {"states", x.node_states}, {"leader", std::move(leader)},
                            {"epoch", std::move(epoch)}, {"log_end", std::move(log_end)}, {"hw", std::move(hw)},
                            {"lso", std::move(lso)}, {"isr", std::move(isr)}});
  }
  return j;
}

scenarios::Samples samples_from_json(const nlohmann::json& j) {
  try {
    if (!j.is_object()) throw std::runtime_error("the document is not an object");
    if (j.at("version").get<int>() != kSamplesVersion) {
      throw std::runtime_error("version " + j.at("version").dump() + " is not " + std::to_string(kSamplesVersion));
    }
    scenarios::Samples s;
    s.interval = millis(j.at("interval_ms").get<std::int64_t>());
    s.nodes = j.at("nodes").get<std::vector<std::string>>();
    s.node_roles = j.at("roles").get<std::vector<std::string>>();
    s.partitions = j.at("partitions").get<std::vector<std::string>>();
    if (s.node_roles.size() != s.nodes.size()) throw std::runtime_error("\"roles\" and \"nodes\" differ in length");
    for (const auto& x : j.at("samples")) {
      scenarios::Sample sample;
      sample.at = millis(x.at("at_ms").get<std::int64_t>());
      sample.node_states = x.at("states").get<std::string>();
      if (sample.node_states.size() != s.nodes.size()) throw std::runtime_error("a sample's \"states\" does not have one letter per node");
      const auto& leader = x.at("leader");
      const auto& epoch = x.at("epoch");
      const auto& log_end = x.at("log_end");
      const auto& hw = x.at("hw");
      const auto& isr = x.at("isr");
      // "lso" came later: a file without it has no undecided transaction to show.
      const nlohmann::json& lso = x.contains("lso") ? x.at("lso") : hw;
      const std::size_t n = leader.size();
      if (n > s.partitions.size() || epoch.size() != n || log_end.size() != n || hw.size() != n || lso.size() != n || isr.size() != n) {
        throw std::runtime_error("a sample's partition arrays differ in length");
      }
      for (std::size_t i = 0; i < n; ++i) {
        scenarios::PartitionSample p;
        p.leader = leader[i].get<std::int32_t>();
        p.leader_epoch = epoch[i].get<std::int32_t>();
        p.log_end = log_end[i].get<std::int64_t>();
        p.high_watermark = hw[i].get<std::int64_t>();
        p.last_stable = lso[i].get<std::int64_t>();
        p.isr = isr[i].get<std::int32_t>();
        if (p.leader >= static_cast<std::int32_t>(s.nodes.size())) throw std::runtime_error("a leader is not a node");
        sample.partitions.push_back(p);
      }
      s.samples.push_back(std::move(sample));
    }
    return s;
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(e.what());
  }
}

}  // namespace logsim::reports
