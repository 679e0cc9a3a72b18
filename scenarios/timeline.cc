// Timeline steps: their names, the nodes they name, and their kinds (see timeline.h).
#include "scenarios/timeline.h"

#include <utility>

namespace logsim::scenarios {
namespace {

template <class... Ts>
bool holds_any(const Action& a) {
  return (std::holds_alternative<Ts>(a) || ...);
}

template <class V>
struct NamesOf;
template <class... Ts>
struct NamesOf<std::variant<Ts...>> {
  static std::vector<std::string> get() { return {std::string(Ts::kName)...}; }
};

// (action, its repair) for every action that has one.
template <class V>
struct RepairsOf;
template <class... Ts>
struct RepairsOf<std::variant<Ts...>> {
  template <class T>
  static void add(std::vector<std::pair<std::string_view, std::string_view>>& out) {
    if constexpr (requires { typename T::Repair; }) out.emplace_back(T::kName, T::Repair::kName);
  }
  static std::vector<std::pair<std::string_view, std::string_view>> get() {
    std::vector<std::pair<std::string_view, std::string_view>> out;
    (add<Ts>(out), ...);
    return out;
  }
};

const std::vector<std::pair<std::string_view, std::string_view>>& repairs() {
  static const auto table = RepairsOf<Action>::get();
  return table;
}

}  // namespace

std::string_view TimelineStep::name() const {
  return std::visit([](const auto& s) { return std::decay_t<decltype(s)>::kName; }, action);
}

std::vector<std::string> TimelineStep::targets() const {
  return std::visit(overloaded{
                        [](const steps::Partition& p) {
                          std::vector<std::string> out;
                          for (const auto& g : p.groups) {
                            std::string joined;
                            for (const auto& n : g) joined += (joined.empty() ? "" : ",") + n;
                            out.push_back(joined);
                          }
                          return out;
                        },
                        [](const steps::SetNetwork& s) {
                          return s.target ? std::vector<std::string>{*s.target} : std::vector<std::string>{};
                        },
                        [](const steps::ClientFaults& s) {
                          return s.target ? std::vector<std::string>{*s.target} : std::vector<std::string>{};
                        },
                        [](const auto& s) {
                          if constexpr (requires { s.target; }) return std::vector<std::string>{s.target};
                          else return std::vector<std::string>{};
                        },
                    },
                    action);
}

std::vector<std::string> TimelineStep::nodes() const {
  if (const auto* p = as<steps::Partition>()) {
    std::vector<std::string> out;
    for (const auto& g : p->groups) out.insert(out.end(), g.begin(), g.end());
    return out;
  }
  return targets();
}

bool TimelineStep::is_group_admin() const {
  return holds_any<steps::ResetOffsets, steps::DeleteOffsets, steps::DeleteGroup, steps::DescribeGroup,
                   steps::RemoveStaticMembers>(action);
}

bool TimelineStep::is_admin() const {
  return is_group_admin() || holds_any<steps::CreateTopic, steps::DeleteTopic, steps::AddPartitions, steps::AlterConfig>(action);
}

bool TimelineStep::is_app_step() const { return holds_any<steps::Produce, steps::Seek>(action); }

const std::vector<std::string>& action_names() {
  static const std::vector<std::string> names = NamesOf<Action>::get();
  return names;
}

std::optional<std::string_view> repair_of(std::string_view action) {
  for (const auto& [fault, repair] : repairs()) {
    if (fault == action) return repair;
  }
  return std::nullopt;
}

bool is_repair(std::string_view action) {
  for (const auto& [fault, repair] : repairs()) {
    if (repair == action) return true;
  }
  return false;
}

}  // namespace logsim::scenarios
