// What api/logsim.cc needs of the application registry (api/app.h): the runner's factories for
// the registered apps. Internal to api/.
#pragma once

#include <map>
#include <string>

#include "scenarios/runner.h"

namespace logsim::detail {

// A copy of the registry as the runner's map of node factories, taken when a run begins.
std::map<std::string, scenarios::AppNodeFactory> registered_app_nodes();

}  // namespace logsim::detail
