// What api/logsim.cc needs of the application registry (api/app.h): the runner's factories for
// the registered apps. Internal to api/ and cli/ (logsim::main runs the registered apps).
#pragma once

#include <map>
#include <string>

#include "scenarios/runner.h"

namespace logsim::detail {

// A copy of the registry as the runner's map of node factories, taken when a run begins.
scenarios::AppFactories registered_app_nodes();
// The same, with the registered checkers (api/checker.h): all that a run hosts of the user's.
scenarios::UserCode registered_user_code();

}  // namespace logsim::detail
