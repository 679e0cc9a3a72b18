// Tests of SimDisk's fault model: page cache vs durable image, fsync snapshots, crash, power
// loss, torn tails, lying fsync, determinism.
#include "sim/disk.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "engine/base/assert.h"
#include "engine/env/rng.h"

namespace logsim::sim {
namespace {

struct Completion {
  Nanos delay;
  std::uint64_t token;
  std::function<void()> complete;
};

// A disk whose fsync completions wait in a vector until the test fires them.
class TestDisk {
 public:
  explicit TestDisk(SimDiskOptions options = {}, std::uint64_t seed = 1)
      : disk(options, Rng(seed),
             [this](Nanos delay, std::uint64_t token, std::function<void()> complete) {
               completions.push_back({delay, token, std::move(complete)});
             }) {}

  // Fires every completion handed out so far, in the order given (or reversed).
  void fire_all(bool reversed = false) {
    std::vector<Completion> batch = std::move(completions);
    completions.clear();
    if (reversed) std::reverse(batch.begin(), batch.end());
    for (Completion& c : batch) c.complete();
  }
  void sync(const std::string& file) {
    disk.fsync(file, 0);
    fire_all();
  }
  std::string contents(const std::string& file) const { return disk.read(file, 0, 1 << 20); }

  std::vector<Completion> completions;  // declared first: the sink captures it
  SimDisk disk;
};

TEST(SimDisk, AppendReadClipAndSortedList) {
  TestDisk t;
  t.disk.append("b", "hello");
  t.disk.append("b", " world");
  t.disk.append("a", "x");
  t.disk.append("c/0", "");
  EXPECT_EQ(t.contents("b"), "hello world");
  EXPECT_EQ(t.disk.read("b", 6, 3), "wor");
  EXPECT_EQ(t.disk.read("b", 6, 100), "world");
  EXPECT_EQ(t.disk.read("b", 11, 1), "");
  EXPECT_EQ(t.disk.read("b", 50, 1), "");
  EXPECT_EQ(t.disk.size("b"), 11u);
  EXPECT_TRUE(t.disk.exists("c/0"));
  EXPECT_EQ(t.disk.size("c/0"), 0u);
  EXPECT_FALSE(t.disk.exists("missing"));
  EXPECT_EQ(t.disk.size("missing"), 0u);
  EXPECT_EQ(t.disk.read("missing", 0, 10), "");
  EXPECT_EQ(t.disk.list(), (std::vector<std::string>{"a", "b", "c/0"}));
  EXPECT_EQ(t.disk.stats().bytes_appended, 12u);
}

TEST(SimDisk, PreconditionsAreAsserted) {
  TestDisk t;
  EXPECT_THROW(t.disk.append("", "x"), InvariantError);
  EXPECT_THROW(t.disk.fsync("", 1), InvariantError);
  EXPECT_THROW(t.disk.truncate("missing", 0), InvariantError);
  EXPECT_THROW(t.disk.rename("missing", "x"), InvariantError);
  SimDiskOptions bad;
  bad.torn_write_probability = 1.5;
  EXPECT_THROW(TestDisk{bad}, InvariantError);
}

TEST(SimDisk, FsyncHandsTokenAndLatencyToTheSink) {
  SimDiskOptions options;
  options.fsync_latency_min_ns = 100 * kNanosPerMicro;
  options.fsync_latency_mean_ns = 400 * kNanosPerMicro;
  TestDisk t(options);
  t.disk.append("f", "x");
  std::set<Nanos> delays;
  for (std::uint64_t token = 1; token <= 50; ++token) t.disk.fsync("f", token);
  ASSERT_EQ(t.completions.size(), 50u);
  for (std::uint64_t i = 0; i < 50; ++i) {
    EXPECT_EQ(t.completions[i].token, i + 1);
    EXPECT_GE(t.completions[i].delay, options.fsync_latency_min_ns);
    delays.insert(t.completions[i].delay);
  }
  EXPECT_GT(delays.size(), 40u);  // drawn, not constant

  SimDiskOptions fixed;
  fixed.fsync_latency_mean_ns = 0;
  TestDisk u(fixed);
  u.disk.fsync("f", 7);
  EXPECT_EQ(u.completions.at(0).delay, fixed.fsync_latency_min_ns);
}

TEST(SimDisk, CrashKeepsUnsyncedData) {
  TestDisk t;
  t.disk.append("log", "synced");
  t.sync("log");
  t.disk.append("log", "+unsynced");
  t.disk.append("new", "never synced");
  t.disk.crash();
  EXPECT_EQ(t.contents("log"), "synced+unsynced");
  EXPECT_EQ(t.contents("new"), "never synced");
  EXPECT_EQ(t.disk.durable_size("log"), 6u);
  EXPECT_EQ(t.disk.durable_size("new"), std::nullopt);
}

TEST(SimDisk, PowerLossDropsUnsyncedAppendsKeepsSyncedOnes) {
  TestDisk t;
  t.disk.append("log", "abc");
  t.sync("log");
  EXPECT_EQ(t.disk.durable_size("log"), 3u);
  t.disk.append("log", "def");
  EXPECT_EQ(t.disk.durable_size("log"), 3u);
  t.disk.power_loss();
  EXPECT_EQ(t.contents("log"), "abc");
  EXPECT_EQ(t.disk.durable_size("log"), 3u);
  EXPECT_EQ(t.disk.stats().durable_copies, 0u);  // append-only: lengths, never copies
}

TEST(SimDisk, FilesNeverFsyncedVanish) {
  TestDisk t;
  t.disk.append("kept", "1");
  t.disk.append("lost", "2");
  t.disk.append("empty-but-synced", "");
  t.sync("kept");
  t.sync("empty-but-synced");
  t.disk.power_loss();
  EXPECT_EQ(t.disk.list(), (std::vector<std::string>{"empty-but-synced", "kept"}));
  EXPECT_FALSE(t.disk.exists("lost"));
}

TEST(SimDisk, FsyncSnapshotsTheStateAtTheCall) {
  TestDisk t;
  t.disk.append("log", "abc");
  t.disk.fsync("log", 1);
  t.disk.append("log", "def");  // after the call, before the completion
  t.fire_all();
  EXPECT_EQ(t.disk.durable_size("log"), 3u);
  t.disk.power_loss();
  EXPECT_EQ(t.contents("log"), "abc");
}

TEST(SimDisk, SnapshotSurvivesATruncateBeforeItsCompletion) {
  TestDisk t;
  t.disk.append("log", "abcdef");
  t.disk.fsync("log", 1);
  t.disk.truncate("log", 2);
  t.disk.append("log", "WXYZ");  // same length as the snapshot, different bytes
  t.fire_all();
  EXPECT_EQ(t.disk.durable_size("log"), 6u);
  t.disk.power_loss();
  EXPECT_EQ(t.contents("log"), "abcdef");
}

TEST(SimDisk, OutOfOrderCompletionsKeepTheNewestSnapshot) {
  TestDisk t;
  t.disk.append("log", "abc");
  t.disk.fsync("log", 1);
  t.disk.append("log", "def");
  t.disk.fsync("log", 2);
  t.fire_all(/*reversed=*/true);
  EXPECT_EQ(t.disk.durable_size("log"), 6u);
  t.disk.power_loss();
  EXPECT_EQ(t.contents("log"), "abcdef");
}

TEST(SimDisk, CompletionAfterCrashIsANoOp) {
  TestDisk t;
  t.disk.append("log", "abc");
  t.disk.fsync("log", 1);
  t.disk.crash();
  t.fire_all();
  EXPECT_EQ(t.disk.durable_size("log"), std::nullopt);
  EXPECT_EQ(t.disk.stats().fsyncs_dropped, 1u);
  EXPECT_EQ(t.disk.stats().fsyncs_completed, 0u);
  t.disk.power_loss();
  EXPECT_FALSE(t.disk.exists("log"));
}

TEST(SimDisk, CompletionAfterPowerLossIsANoOp) {
  TestDisk t;
  t.disk.append("log", "abc");
  t.sync("log");
  t.disk.append("log", "def");
  t.disk.fsync("log", 1);  // would make "abcdef" durable
  t.disk.power_loss();
  t.disk.append("log", "ghi");
  t.fire_all();
  EXPECT_EQ(t.disk.durable_size("log"), 3u);
  t.disk.power_loss();
  EXPECT_EQ(t.contents("log"), "abc");
  EXPECT_EQ(t.disk.stats().fsyncs_dropped, 1u);
}

TEST(SimDisk, PowerLossUndoesAnUnsyncedRename) {
  TestDisk t;
  t.disk.append("meta", "old");
  t.sync("meta");
  t.disk.append("meta.tmp", "new");
  t.sync("meta.tmp");
  t.disk.rename("meta.tmp", "meta");
  EXPECT_EQ(t.contents("meta"), "new");
  EXPECT_FALSE(t.disk.exists("meta.tmp"));
  t.disk.power_loss();
  EXPECT_EQ(t.contents("meta"), "old");
  EXPECT_EQ(t.contents("meta.tmp"), "new");

  // Synced, the rename survives whole: the target and the source's removal.
  t.disk.rename("meta.tmp", "meta");
  t.sync("meta");
  t.disk.power_loss();
  EXPECT_EQ(t.contents("meta"), "new");
  EXPECT_EQ(t.disk.list(), (std::vector<std::string>{"meta"}));
}

TEST(SimDisk, PowerLossUndoesAnUnsyncedRemove) {
  TestDisk t;
  t.disk.append("seg", "data");
  t.sync("seg");
  t.disk.remove("seg");
  EXPECT_FALSE(t.disk.exists("seg"));
  EXPECT_TRUE(t.disk.list().empty());
  EXPECT_EQ(t.disk.durable_size("seg"), 4u);
  t.disk.power_loss();
  EXPECT_EQ(t.contents("seg"), "data");

  t.disk.remove("seg");
  t.sync("seg");  // fsync of a removed name makes the removal durable
  EXPECT_EQ(t.disk.durable_size("seg"), std::nullopt);
  t.disk.power_loss();
  EXPECT_FALSE(t.disk.exists("seg"));
}

TEST(SimDisk, PowerLossUndoesAnUnsyncedTruncate) {
  SimDiskOptions options;
  options.torn_write_probability = 1.0;  // a diverged file is reverted, never torn
  TestDisk t(options);
  t.disk.append("log", "abcdef");
  t.sync("log");
  t.disk.truncate("log", 2);
  t.disk.append("log", "XYZW");
  EXPECT_EQ(t.contents("log"), "abXYZW");
  t.disk.power_loss();
  EXPECT_EQ(t.contents("log"), "abcdef");
  EXPECT_EQ(t.disk.stats().torn_tails, 0u);
  EXPECT_EQ(t.disk.stats().durable_copies, 1u);
}

TEST(SimDisk, TornTailKeepsAStrictPrefixOfTheUnsyncedTail) {
  const std::string durable = "DURABLE";
  const std::string tail = "abcdefgh";
  std::set<std::uint64_t> kept_lengths;
  std::uint64_t corrupted = 0;
  for (std::uint64_t seed = 1; seed <= 300; ++seed) {
    SimDiskOptions options;
    options.torn_write_probability = 1.0;
    TestDisk t(options, seed);
    t.disk.append("log", durable);
    t.sync("log");
    t.disk.append("log", tail);
    t.disk.power_loss();
    const std::string after = t.contents("log");
    ASSERT_GE(after.size(), durable.size());
    ASSERT_LT(after.size(), durable.size() + tail.size());
    ASSERT_EQ(after.substr(0, durable.size()), durable) << "seed " << seed;
    const std::uint64_t kept = after.size() - durable.size();
    kept_lengths.insert(kept);
    EXPECT_EQ(t.disk.durable_size("log"), after.size());  // survivors are on the platter
    if (kept == 0) continue;
    const std::string survived = after.substr(durable.size());
    EXPECT_EQ(survived.substr(0, kept - 1), tail.substr(0, kept - 1));
    const bool last_differs = survived.back() != tail[kept - 1];
    EXPECT_EQ(last_differs, t.disk.stats().torn_corruptions == 1u) << "seed " << seed;
    if (last_differs) ++corrupted;
  }
  EXPECT_TRUE(kept_lengths.contains(0));
  EXPECT_TRUE(kept_lengths.contains(tail.size() - 1));
  EXPECT_GE(kept_lengths.size(), 5u);  // middle lengths too
  EXPECT_GT(corrupted, 0u);
}

TEST(SimDisk, LyingFsyncLosesDataDespiteCompletion) {
  SimDiskOptions options;
  options.lying_fsync_probability = 1.0;
  TestDisk t(options);
  t.disk.append("log", "abc");
  t.disk.fsync("log", 42);
  ASSERT_EQ(t.completions.size(), 1u);
  EXPECT_EQ(t.completions[0].token, 42u);
  t.fire_all();
  EXPECT_EQ(t.disk.stats().fsyncs_lied, 1u);
  EXPECT_EQ(t.disk.durable_size("log"), std::nullopt);
  t.disk.power_loss();
  EXPECT_FALSE(t.disk.exists("log"));
}

// Runs a fixed script with faults and returns every delay and the final contents.
std::pair<std::vector<Nanos>, std::string> run_script(std::uint64_t seed) {
  SimDiskOptions options;
  options.torn_write_probability = 0.5;
  TestDisk t(options, seed);
  std::vector<Nanos> delays;
  for (int round = 0; round < 20; ++round) {
    t.disk.append("log", "record-" + std::to_string(round) + ";");
    t.disk.fsync("log", static_cast<std::uint64_t>(round));
    delays.push_back(t.completions.back().delay);
    if (round % 2 == 0) t.fire_all();
    if (round % 5 == 4) t.disk.power_loss();
  }
  return {delays, t.contents("log")};
}

TEST(SimDisk, SameSeedSameLatenciesAndTornLengths) {
  const auto a = run_script(7);
  const auto b = run_script(7);
  EXPECT_EQ(a, b);
  bool some_seed_differs = false;
  for (std::uint64_t seed = 8; seed < 12; ++seed) some_seed_differs |= run_script(seed) != a;
  EXPECT_TRUE(some_seed_differs);
}

// ---- Pages (paged_bytes.h) and read_view.

// Bytes appended in pieces of every size read back the same across page boundaries, by read,
// read_view and after truncation; views inside one page are not copies.
TEST(PagedBytes, ReadsAcrossPagesEqualAString) {
  constexpr std::uint64_t kPage = PagedBytes::kPageBytes;
  PagedBytes paged;
  std::string flat;
  Rng rng(5);
  while (flat.size() < 3 * kPage + 123) {
    std::string piece(static_cast<std::size_t>(1 + rng.uniform_u64(70'000)), '\0');
    for (char& c : piece) c = static_cast<char>(rng.next_u64());
    paged.append(piece);
    flat += piece;
  }
  ASSERT_EQ(paged.size(), flat.size());
  std::string scratch;
  for (std::uint64_t at : {std::uint64_t{0}, kPage - 3, kPage, 2 * kPage - 1, flat.size() - 5}) {
    for (std::uint64_t len : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{7}, kPage + 9}) {
      const std::string want = flat.substr(static_cast<std::size_t>(at), static_cast<std::size_t>(len));
      EXPECT_EQ(paged.read(at, len), want) << at << "+" << len;
      EXPECT_EQ(paged.view(at, len, scratch), want) << at << "+" << len;
    }
  }
  const std::string_view inside = paged.view(10, 20, scratch);
  EXPECT_TRUE(scratch.empty() || inside.data() != scratch.data());
  EXPECT_EQ(paged.prefix(kPage + 1).read(0, kPage + 1), flat.substr(0, static_cast<std::size_t>(kPage + 1)));
  paged.truncate(kPage + 1);
  flat.resize(static_cast<std::size_t>(kPage + 1));
  paged.append("tail");
  flat += "tail";
  EXPECT_EQ(paged.read(0, flat.size()), flat);
  paged.truncate(kPage);
  EXPECT_EQ(paged.read(0, 2 * kPage), flat.substr(0, static_cast<std::size_t>(kPage)));
  paged.truncate(0);
  EXPECT_TRUE(paged.empty());
  EXPECT_EQ(paged.read(0, 10), "");
}

// Sharing (paged_bytes.h): several PagedBytes that append bytes of their own, append slices
// shared from each other, truncate, copy and corrupt bytes, each always reads as a plain string
// changed the same way would; and a slice handed out earlier never changes, whatever its
// source does afterwards (truncate and append over the same place, a flipped byte, clear).
TEST(PagedBytes, SharedSlicesNeverChangeAndEveryHolderReadsLikeAString) {
  constexpr std::size_t kHolders = 3;
  Rng rng(11);
  std::vector<PagedBytes> paged(kHolders);
  std::vector<std::string> flat(kHolders);
  std::vector<std::pair<SharedBytes, std::string>> handed_out;
  const auto random_bytes = [&](std::size_t n) {
    std::string bytes(n, '\0');
    for (char& c : bytes) c = static_cast<char>(rng.next_u64());
    return bytes;
  };
  const auto pick = [&](std::uint64_t n) { return n == 0 ? 0 : rng.uniform_u64(n + 1); };
  std::string scratch;
  for (int step = 0; step < 3000; ++step) {
    const std::size_t i = static_cast<std::size_t>(rng.uniform_u64(kHolders));
    const std::size_t j = static_cast<std::size_t>(rng.uniform_u64(kHolders));
    const std::uint64_t op = rng.uniform_u64(100);
    if (op < 40) {
      // Mostly small appends, now and then one past a whole page.
      const std::size_t n = rng.uniform_u64(50) == 0 ? static_cast<std::size_t>(PagedBytes::kPageBytes + 77)
                                                     : static_cast<std::size_t>(rng.uniform_u64(9000));
      const std::string bytes = random_bytes(n);
      paged[i].append(bytes);
      flat[i] += bytes;
    } else if (op < 70) {
      const std::uint64_t at = pick(flat[j].size());
      const std::uint64_t len = pick(flat[j].size() - at);
      const SharedBytes slices = paged[j].share(at, len);
      const std::string want = flat[j].substr(static_cast<std::size_t>(at), static_cast<std::size_t>(len));
      ASSERT_EQ(slices.str(), want);
      if (handed_out.size() < 40) handed_out.emplace_back(slices, want);
      paged[i].append_shared(slices);
      flat[i] += want;
    } else if (op < 85) {
      const std::uint64_t n = pick(flat[i].size());
      paged[i].truncate(n);
      flat[i].resize(static_cast<std::size_t>(n));
    } else if (op < 92) {
      if (flat[i].empty()) continue;
      const std::uint64_t at = rng.uniform_u64(flat[i].size());
      const auto mask = static_cast<unsigned char>(1 + rng.uniform_u64(255));
      paged[i].xor_byte(at, mask);
      char& c = flat[i][static_cast<std::size_t>(at)];
      c = static_cast<char>(static_cast<unsigned char>(c) ^ mask);
    } else if (op < 96) {
      const std::uint64_t n = pick(flat[j].size());
      paged[i] = paged[j].prefix(n);
      flat[i] = flat[j].substr(0, static_cast<std::size_t>(n));
    } else if (op < 98) {
      paged[i] = paged[j];
      flat[i] = flat[j];
    } else {
      paged[i].clear();
      flat[i].clear();
    }
    for (std::size_t k = 0; k < kHolders; ++k) {
      ASSERT_EQ(paged[k].size(), flat[k].size()) << "step " << step;
      ASSERT_TRUE(paged[k].read(0, flat[k].size()) == flat[k]) << "holder " << k << " step " << step;
      const std::uint64_t at = pick(flat[k].size());
      const std::uint64_t len = pick(flat[k].size() - at);
      ASSERT_EQ(paged[k].view(at, len, scratch),
                std::string_view(flat[k]).substr(static_cast<std::size_t>(at), static_cast<std::size_t>(len)));
    }
    for (const auto& [slices, want] : handed_out) ASSERT_TRUE(slices.str() == want) << "step " << step;
  }
  // Sharing held: appended slices continue chunks instead of adding one per append (once the
  // leader is past its small, doubling first page, whose growth copies it elsewhere).
  PagedBytes leader;
  PagedBytes follower;
  leader.append(std::string(PagedBytes::kGrowWholeAbove + 1, 'x'));
  for (int k = 0; k < 100; ++k) {
    const std::uint64_t end = leader.size();
    leader.append(std::string(1000, static_cast<char>('a' + k % 26)));
    follower.append_shared(leader.share(end, 1000));
  }
  EXPECT_EQ(follower.chunk_count(), 1u);
  EXPECT_EQ(follower.read(0, follower.size()), leader.read(PagedBytes::kGrowWholeAbove + 1, follower.size()));

  // Bytes of its own between slices it keeps (a leader's batch headers between the records a
  // producer sent) go on in one page, each right after the one before, not a page each; the
  // slices stay the sender's memory.
  PagedBytes log;
  const SharedBytes records(std::string(5000, 'r'));
  std::vector<std::uint64_t> heads;
  for (int k = 0; k < 50; ++k) {
    heads.push_back(log.size());
    log.append(std::string(61, static_cast<char>('a' + k % 26)));
    log.append_shared(records);
  }
  for (std::size_t k = 2; k < heads.size(); ++k) {
    const SharedBytes before = log.share(heads[k - 1], 61);
    const SharedBytes head = log.share(heads[k], 61);
    ASSERT_EQ(head.slices().size(), 1u);
    EXPECT_EQ(head.slices().front().data, before.slices().front().data + 61) << "header " << k;
    EXPECT_EQ(log.share(heads[k] + 61, 5000).slices().front().data, records.slices().front().data);
    EXPECT_EQ(head.str(), std::string(61, static_cast<char>('a' + k % 26)));
  }
  EXPECT_EQ(log.size(), 50u * 5061u);

  // Past the first page's 4 KiB, which fills in the middle of the 68th header, the pages still
  // double from there: none is a whole 2 MiB page for a few headers.
  for (int k = 50; k < 400; ++k) {
    log.append(std::string(61, static_cast<char>('a' + k % 26)));
    log.append_shared(records);
    ASSERT_LE(log.open_page_capacity(), PagedBytes::kGrowWholeAbove) << "header " << k;
  }
  EXPECT_EQ(log.read(399 * 5061, 61), std::string(61, static_cast<char>('a' + 399 % 26)));
}

// A follower's file that shares its leader's pages loses exactly what an appended copy would
// at a power loss, torn and corrupted tail included, and the leader's file is untouched.
TEST(SimDisk, SharedAppendsFaultLikeCopiedOnes) {
  SimDiskOptions options;
  options.torn_write_probability = 1.0;
  options.torn_corrupt_probability = 1.0;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    TestDisk copied(options, seed);
    TestDisk shared(options, seed);
    TestDisk leader;
    Rng rng(seed);
    std::string all;
    for (int k = 0; k < 5; ++k) {
      std::string bytes(static_cast<std::size_t>(1 + rng.uniform_u64(3000)), '\0');
      for (char& c : bytes) c = static_cast<char>(rng.next_u64());
      leader.disk.append("leader", bytes);
      all += bytes;
      copied.disk.append("f", bytes);
      shared.disk.append_shared("f", leader.disk.read_shared("leader", all.size() - bytes.size(), bytes.size()));
      if (k == 2) {
        copied.sync("f");
        shared.sync("f");
      }
    }
    EXPECT_EQ(shared.disk.read("f", 0, all.size()), all);
    copied.disk.power_loss();
    shared.disk.power_loss();
    EXPECT_EQ(shared.disk.read("f", 0, all.size()), copied.disk.read("f", 0, all.size())) << seed;
    EXPECT_EQ(shared.disk.stats().torn_corruptions, copied.disk.stats().torn_corruptions);
    EXPECT_EQ(leader.disk.read("leader", 0, all.size()), all) << "the leader's pages changed";
  }
}

TEST(SimDisk, ReadViewEqualsReadAndClips) {
  TestDisk t;
  t.disk.append("f", "hello world");
  std::string scratch;
  EXPECT_EQ(t.disk.read_view("f", 6, 100, scratch), "world");
  EXPECT_EQ(t.disk.read_view("f", 11, 1, scratch), "");
  EXPECT_EQ(t.disk.read_view("missing", 0, 1, scratch), "");
  // Across a page boundary, after a torn power loss too.
  const std::string big(static_cast<std::size_t>(PagedBytes::kPageBytes + 10), 'x');
  t.disk.append("g", big);
  t.sync("g");
  t.disk.append("g", "unsynced");
  t.disk.power_loss();
  EXPECT_EQ(t.disk.read_view("g", PagedBytes::kPageBytes - 5, 100, scratch), std::string(15, 'x'));
}

}  // namespace
}  // namespace logsim::sim
