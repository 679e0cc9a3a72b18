// The simulated disk of one node: named byte strings in a "page cache" that reads see, and a
// separate durable image per name that only fsync advances and that a power loss reverts to.
// (After TigerBeetle's src/testing/storage.zig and LevelDB's fault_injection_test.cc.)
//
// FAULT MODEL
//
// Two views per file name. The page cache is what exists(), size(), read() and list() see;
// append, truncate, rename and remove change it at once. The durable image is what is on the
// platter: absent, or some byte string. fsync(name) takes a snapshot of the name's page-cache
// state (its bytes, or its absence) at the call, and after a latency of
//     fsync_latency_min_ns + Exp(fsync_latency_mean_ns)
// (the simulator fires the completion the sink was handed) that snapshot becomes the durable
// image. Overlapping fsyncs of one name may complete out of order; an older snapshot never
// replaces a newer one. A rename is one directory operation, so fsync(to) also makes durable
// the removal of the rename's source name(s), if they are still absent when fsync is called
// and `to` has not been removed since.
// There is no separate directory fsync: fsync of a removed name makes its removal durable.
//
// The faults, and what survives each:
//   crash        a process crash. The page cache survives whole: nothing written is lost.
//                Fsyncs in flight are forgotten: their completions become no-ops (the data
//                is still in the page cache, and the restarted node must fsync again).
//   power loss   every name reverts to its durable image: files never fsynced vanish, unsynced
//                appends, truncates, renames and removals are undone. Fsyncs in flight are
//                forgotten. What survives is then durable (it is on the platter).
//   torn tail    at a power loss, a file whose only unsynced change is an append beyond its
//                durable length (the durable image is a strict prefix of the page cache) is,
//                with torn_write_probability, torn rather than reverted: the first k bytes of
//                its unsynced tail of n bytes survive, k uniform in [0, n), so the tail is
//                never kept whole and the durable prefix is never touched. If k > 0, then with
//                torn_corrupt_probability the last surviving byte is XORed with a uniform
//                nonzero mask (a sector that was half written), so it surely differs.
//   lying fsync  with lying_fsync_probability an fsync completes as usual (the node is told
//                its data is durable) but makes nothing durable. Only a power loss shows it.
//
// Memory. Logs are almost always appended to, so a durable image is kept as a length: the
// first `size` bytes of the page-cache contents. Only when a truncate below that length, a
// rename or a remove would change those bytes is the durable prefix copied out (once, shared
// by the durable image and every fsync in flight that needs it, as shared_ptr<const>).
// An append-only log therefore costs one copy of its bytes, however often it is fsynced.
// Copies of page-cache contents share their pages (paged_bytes.h): a durable prefix copied out
// costs no bytes until one side changes; read_shared and append_shared let a follower's log
// share its leader's pages, so replicas cost one copy of their bytes between them. A
// removed file's durable bytes are moved (not copied) out and kept until its removal is
// fsynced, because until then a power loss brings the file back. Page-cache contents are kept
// in pages (paged_bytes.h), so a file costs its size plus at most one partly filled page.
//
// Randomness. Each fsync draws exactly two uniforms (latency, lie) and each power loss draws
// exactly four per file that could be torn (tear?, length, corrupt?, mask), whatever the
// options, so turning a fault on or off never shifts the other draws of the stream.
//
// Preconditions are checked with LOGSIM_ASSERT (it throws InvariantError in every build):
// names non-empty, truncate and rename of an existing file, options in range. Reads of a
// missing file, or beyond the end, clip; remove of a missing file and rename(a, a) are no-ops.
//
// Not thread-safe: one SimDisk belongs to one simulation thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/env/disk.h"
#include "engine/base/name_order.h"
#include "engine/env/rng.h"
#include "engine/base/types.h"
#include "engine/base/paged_bytes.h"

namespace logsim::sim {

// Defaults model a healthy NVMe device with no faults.
struct SimDiskOptions {
  // Fixed part of every fsync's latency, ns. >= 0. Default 100 us.
  Nanos fsync_latency_min_ns = 100 * kNanosPerMicro;
  // Mean of the exponential extra above fsync_latency_min_ns, ns. >= 0. Default 400 us.
  Nanos fsync_latency_mean_ns = 400 * kNanosPerMicro;
  // Probability that an appended-to file is torn at a power loss (see FAULT MODEL). [0, 1]. 0.
  double torn_write_probability = 0.0;
  // Probability that a torn tail's last surviving byte is corrupted. [0, 1]. Default 0.5.
  double torn_corrupt_probability = 0.5;
  // Probability that an fsync reports success without making anything durable. [0, 1]. 0.
  double lying_fsync_probability = 0.0;
};

struct SimDiskStats {
  std::uint64_t bytes_appended = 0;
  std::uint64_t fsyncs_started = 0;
  std::uint64_t fsyncs_completed = 0;  // completions that made a snapshot durable
  std::uint64_t fsyncs_lied = 0;       // reported durable, made nothing durable
  std::uint64_t fsyncs_dropped = 0;    // completions after a crash or power loss: no-ops
  std::uint64_t crashes = 0;
  std::uint64_t power_losses = 0;
  std::uint64_t torn_tails = 0;
  std::uint64_t torn_corruptions = 0;
  std::uint64_t durable_copies = 0;  // durable prefixes copied out on divergence
  std::uint64_t durable_copy_bytes = 0;
};

class SimDisk final : public logsim::Disk {
 public:
  // Handed each fsync: the simulator must call `complete` `delay` after now (at most once);
  // it applies the durability, after which the simulator runs the node's on_fsync(token).
  // `complete` is a no-op if the disk crashed or lost power since the fsync began.
  using FsyncSink =
      std::function<void(Nanos delay, std::uint64_t token, std::function<void()> complete)>;

  SimDisk(SimDiskOptions options, Rng rng, FsyncSink sink);
  // Completions capture `this`: the disk must outlive them, so it is neither copied nor moved.
  SimDisk(const SimDisk&) = delete;
  SimDisk& operator=(const SimDisk&) = delete;

  bool exists(std::string_view file) const override;
  std::uint64_t size(std::string_view file) const override;
  // Without a copy unless the range crosses a page boundary (see PagedBytes::view).
  std::string_view read_view(std::string_view file, std::uint64_t offset, std::uint64_t len,
                             std::string& scratch) const override;
  std::string read(std::string_view file, std::uint64_t offset, std::uint64_t len) const override;
  // Slices of the file's pages, never a copy (see paged_bytes.h).
  SharedBytes read_shared(std::string_view file, std::uint64_t offset, std::uint64_t len) const override;
  std::vector<std::string> list() const override;

  void append(std::string_view file, std::string_view bytes) override;
  // Keeps the slices rather than copying them (see paged_bytes.h).
  void append_shared(std::string_view file, const SharedBytes& bytes) override;
  void truncate(std::string_view file, std::uint64_t size) override;
  void rename(std::string_view from, std::string_view to) override;
  void remove(std::string_view file) override;
  void fsync(std::string_view file, std::uint64_t token) override;

  // Faults (see FAULT MODEL).
  void crash();
  void power_loss();

  // The size of the name's durable image; nullopt if a power loss now would leave no file.
  std::optional<std::uint64_t> durable_size(std::string_view file) const;
  // Fsyncs begun and not yet completed or forgotten (lying ones are never pending).
  std::size_t pending_fsyncs() const { return pending_.size(); }
  const SimDiskStats& stats() const { return stats_; }
  const SimDiskOptions& options() const { return options_; }

 private:
  // A byte string as a prefix: the first `size` bytes of *base, or of the file's own
  // page-cache contents when base is null (the cheap, append-only case).
  struct Image {
    std::shared_ptr<const PagedBytes> base;
    std::uint64_t size = 0;
  };
  struct File {
    bool live = false;                        // exists in the page cache
    PagedBytes data;                          // page-cache contents; empty unless live
    std::optional<Image> durable;             // nullopt: no durable file under this name
    std::uint64_t durable_seq = 0;            // the fsync whose snapshot `durable` is
    std::uint32_t pending_refs = 0;           // snapshots in flight that name this file
    std::vector<std::string> rename_sources;  // names renamed into this one (sorted)
  };
  // What one fsync makes durable when it completes.
  struct Snapshot {
    std::string name;
    std::optional<Image> image;                // nullopt: the name's removal
    std::vector<std::string> removed_sources;  // rename sources absent at the call
  };
  using Files = std::map<std::string, File, NameLess>;

  File& file_for_write(std::string_view name);
  const File* find_live(std::string_view name) const;
  void detach(std::string_view name, File& f, std::uint64_t keep, bool data_dies);
  Nanos draw_latency();
  Snapshot take_snapshot(std::string_view name, File& f);
  void complete(std::uint64_t seq);
  void commit(const std::string& name, const std::optional<Image>& image, std::uint64_t seq);
  void erase_if_dead(Files::iterator it);
  void forget_pending();
  void revert(File& f);
  void tear_or_cut(File& f, std::uint64_t durable_size);

  SimDiskOptions options_;
  Rng rng_;
  FsyncSink sink_;
  Files files_;
  std::map<std::uint64_t, Snapshot> pending_;  // by fsync sequence number
  std::uint64_t next_seq_ = 1;
  SimDiskStats stats_;
};

}  // namespace logsim::sim
