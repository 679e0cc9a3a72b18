// An App that breaks the determinism rules on purpose (docs/api.md, "What an App must not do"):
// it reads the wall clock to decide how long each record takes. app_test shows that the
// determinism check catches it; api/CMakeLists.txt shows that determinism-lint --app does.
#pragma once

#include <chrono>
#include <memory>

#include "api/app.h"

namespace logsim::test {

class WallClockBilling : public App {
 public:
  void on_start(AppContext& ctx) override {
    ctx_ = &ctx;
    ctx.consumer().subscribe(ctx.topics());
    ctx.set_timer(0, [this] { poll(); });
  }

 private:
  void poll() {
    for (const ConsumedRecord& r : ctx_->consumer().poll()) ctx_->consumer().processed(r);
    // Wrong: the next poll's delay comes from the machine's clock, not the simulation's.
    const auto wall = std::chrono::steady_clock::now().time_since_epoch().count();
    ctx_->set_timer(millis(5 + wall % 10), [this] { poll(); });
  }
  AppContext* ctx_ = nullptr;
};

}  // namespace logsim::test
