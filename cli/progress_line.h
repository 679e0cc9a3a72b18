// One progress line on stderr, on a terminal only: a bar of how much is done and a text, redrawn
// at most every `every` and not before `first_after` has passed (a short job draws nothing),
// cleared when it is destroyed (also when an error unwinds past it) so what follows starts on
// a clean line. Wall-clock time is read here, in the command line, never in simulated code.
#pragma once

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <optional>
#include <string>

namespace logsim::cli {

class ProgressLine {
 public:
  ProgressLine(bool wanted, std::chrono::milliseconds first_after, std::chrono::milliseconds every)
      : enabled_(wanted && isatty(STDERR_FILENO) != 0), first_after_(first_after), every_(every) {}
  ~ProgressLine() { clear(); }
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  // The wall seconds since the start when a redraw is due now, else nothing.
  std::optional<double> due() {
    if (!enabled_) return std::nullopt;
    const auto now = std::chrono::steady_clock::now();
    if (now - start_ < first_after_ || now - last_ < every_) return std::nullopt;
    last_ = now;
    return std::chrono::duration<double>(now - start_).count();
  }
  // Draws "[####......] NN%  text" (done: from 0 to 1).
  void draw(double done, const std::string& text) {
    constexpr int kWidth = 30;
    const int filled = std::clamp(static_cast<int>(done * kWidth), 0, kWidth);
    std::fprintf(stderr, "\r\033[K  [%s%s] %3.0f%%  %s", std::string(static_cast<std::size_t>(filled), '#').c_str(),
                 std::string(static_cast<std::size_t>(kWidth - filled), '.').c_str(), done * 100, text.c_str());
    drawn_ = true;
  }
  void clear() {
    if (drawn_) std::fprintf(stderr, "\r\033[K");
    drawn_ = false;
  }

 private:
  bool enabled_;
  bool drawn_ = false;
  std::chrono::milliseconds first_after_;
  std::chrono::milliseconds every_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point last_{};
};

}  // namespace logsim::cli
