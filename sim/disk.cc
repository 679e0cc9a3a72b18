// The simulated disk: page cache, durable images, fsync snapshots and the faults (disk.h).
#include "sim/disk.h"

#include <algorithm>
#include <iterator>
#include <utility>

#include "engine/base/assert.h"

namespace logsim::sim {
namespace {

// Options beyond these are configuration mistakes, and bounding them keeps every latency sum
// far from overflow (an exponential draw is below 37 times its mean).
constexpr Nanos kFsyncLatencyNsMax = seconds(3600);
// Fsyncs in flight at once; more means the simulator never fires completions.
constexpr std::size_t kPendingFsyncsMax = 1'000'000;

void check_name(std::string_view name) { LOGSIM_ASSERT(!name.empty(), "file name is empty"); }

bool is_probability(double p) { return p >= 0.0 && p <= 1.0; }

}  // namespace

SimDisk::SimDisk(SimDiskOptions options, Rng rng, FsyncSink sink)
    : options_(options), rng_(rng), sink_(std::move(sink)) {
  LOGSIM_ASSERT(
      options_.fsync_latency_min_ns >= 0 && options_.fsync_latency_min_ns <= kFsyncLatencyNsMax,
      "fsync_latency_min_ns out of range");
  LOGSIM_ASSERT(
      options_.fsync_latency_mean_ns >= 0 && options_.fsync_latency_mean_ns <= kFsyncLatencyNsMax,
      "fsync_latency_mean_ns out of range");
  LOGSIM_ASSERT(is_probability(options_.torn_write_probability), "torn_write_probability");
  LOGSIM_ASSERT(is_probability(options_.torn_corrupt_probability), "torn_corrupt_probability");
  LOGSIM_ASSERT(is_probability(options_.lying_fsync_probability), "lying_fsync_probability");
  LOGSIM_ASSERT(static_cast<bool>(sink_), "SimDisk needs an fsync completion sink");
}

// ---- Reads: the page cache.

const SimDisk::File* SimDisk::find_live(std::string_view name) const {
  check_name(name);
  const auto it = files_.find(name);
  return it != files_.end() && it->second.live ? &it->second : nullptr;
}

bool SimDisk::exists(std::string_view file) const { return find_live(file) != nullptr; }

std::uint64_t SimDisk::size(std::string_view file) const {
  const File* f = find_live(file);
  return f != nullptr ? f->data.size() : 0;
}

std::string SimDisk::read(std::string_view file, std::uint64_t offset, std::uint64_t len) const {
  const File* f = find_live(file);
  if (f == nullptr) return {};
  return f->data.read(offset, len);  // clips len at the end
}

std::string_view SimDisk::read_view(std::string_view file, std::uint64_t offset, std::uint64_t len,
                                    std::string& scratch) const {
  const File* f = find_live(file);
  if (f == nullptr) return {};
  return f->data.view(offset, len, scratch);
}

SharedBytes SimDisk::read_shared(std::string_view file, std::uint64_t offset, std::uint64_t len) const {
  const File* f = find_live(file);
  if (f == nullptr) return {};
  return f->data.share(offset, len);
}

std::vector<std::string> SimDisk::list() const {
  std::vector<std::string> names;  // files_ is a std::map: already sorted by name
  for (const auto& [name, f] : files_) {
    if (f.live) names.push_back(name);
  }
  return names;
}

std::optional<std::uint64_t> SimDisk::durable_size(std::string_view file) const {
  check_name(file);
  const auto it = files_.find(file);
  if (it == files_.end() || !it->second.durable) return std::nullopt;
  return it->second.durable->size;
}

// ---- Mutations: immediate in the page cache, durable images untouched.

SimDisk::File& SimDisk::file_for_write(std::string_view name) {
  check_name(name);
  auto it = files_.find(name);
  if (it == files_.end()) it = files_.emplace(std::string(name), File{}).first;
  return it->second;
}

void SimDisk::append(std::string_view file, std::string_view bytes) {
  File& f = file_for_write(file);
  // Recreating a removed name appends to empty data, so images that are prefixes of length 0
  // (the only ones a removed file keeps, see detach) stay correct.
  f.live = true;
  f.data.append(bytes);
  stats_.bytes_appended += bytes.size();
}

void SimDisk::append_shared(std::string_view file, const SharedBytes& bytes) {
  File& f = file_for_write(file);
  f.live = true;  // (as append)
  f.data.append_shared(bytes);
  stats_.bytes_appended += bytes.size();
}

void SimDisk::truncate(std::string_view file, std::uint64_t new_size) {
  check_name(file);
  const auto it = files_.find(file);
  LOGSIM_ASSERT(it != files_.end() && it->second.live, "truncate of a missing file");
  File& f = it->second;
  if (new_size >= f.data.size()) return;
  detach(it->first, f, new_size, /*data_dies=*/false);
  f.data.truncate(new_size);
}

void SimDisk::remove(std::string_view file) {
  check_name(file);
  const auto it = files_.find(file);
  if (it == files_.end() || !it->second.live) return;
  File& f = it->second;
  detach(it->first, f, 0, /*data_dies=*/true);
  f.data.clear();  // frees the pages
  f.live = false;
  // The binding that the renames created is gone; fsync of the removed name commits only
  // its own removal.
  f.rename_sources.clear();
  erase_if_dead(it);
}

void SimDisk::rename(std::string_view from, std::string_view to) {
  check_name(from);
  check_name(to);
  const auto src = files_.find(from);
  LOGSIM_ASSERT(src != files_.end() && src->second.live, "rename of a missing file");
  if (from == to) return;          // POSIX: renaming a file onto itself changes nothing
  File& dst = file_for_write(to);  // std::map insertion keeps `src` valid
  detach(from, src->second, 0, /*data_dies=*/false);
  detach(to, dst, 0, /*data_dies=*/true);
  dst.data = std::move(src->second.data);
  dst.live = true;
  src->second.data.clear();  // a moved-from object is valid but unspecified
  src->second.live = false;

  // fsync(to) must also commit the removal of `from` (and of the names renamed into `from`,
  // or into the file `to` held before: a journal commits directory operations in order).
  std::vector<std::string>& sources = dst.rename_sources;
  sources.insert(sources.end(), src->second.rename_sources.begin(),
                 src->second.rename_sources.end());
  sources.emplace_back(from);
  std::erase(sources, std::string(to));
  std::sort(sources.begin(), sources.end());
  sources.erase(std::unique(sources.begin(), sources.end()), sources.end());
  src->second.rename_sources.clear();
  erase_if_dead(src);
}

// Before the bytes of `f` from offset `keep` on change, every image that still needs them
// (the durable one, and those of fsyncs in flight) gets its own copy: one copy of the longest
// such prefix, shared by all. If the data is about to be thrown away it is moved, not copied.
void SimDisk::detach(std::string_view name, File& f, std::uint64_t keep, bool data_dies) {
  std::vector<Image*> needy;
  const auto consider = [&](std::optional<Image>& image) {
    if (image && !image->base && image->size > keep) needy.push_back(&*image);
  };
  consider(f.durable);
  for (auto& [seq, snapshot] : pending_) {
    if (snapshot.name == name) consider(snapshot.image);
  }
  if (needy.empty()) return;
  std::uint64_t longest = 0;
  for (const Image* image : needy) longest = std::max(longest, image->size);
  LOGSIM_ASSERT(longest <= f.data.size(), "a durable prefix is longer than its file");

  std::shared_ptr<const PagedBytes> copy;
  if (data_dies) {
    f.data.truncate(longest);
    copy = std::make_shared<const PagedBytes>(std::move(f.data));
    f.data.clear();
  } else {
    copy = std::make_shared<const PagedBytes>(f.data.prefix(longest));
  }
  for (Image* image : needy) image->base = copy;
  ++stats_.durable_copies;
  stats_.durable_copy_bytes += longest;
}

// ---- fsync.

Nanos SimDisk::draw_latency() {
  const Nanos mean = options_.fsync_latency_mean_ns;
  if (mean == 0) {
    static_cast<void>(rng_.uniform_real());  // spend the draw anyway (see Randomness)
    return options_.fsync_latency_min_ns;
  }
  const double extra_ns = rng_.exponential(static_cast<double>(mean));
  return options_.fsync_latency_min_ns + static_cast<Nanos>(extra_ns);
}

void SimDisk::fsync(std::string_view file, std::uint64_t token) {
  check_name(file);
  LOGSIM_ASSERT(pending_.size() < kPendingFsyncsMax, "too many fsyncs in flight");
  ++stats_.fsyncs_started;
  const std::uint64_t seq = next_seq_++;
  const Nanos delay = draw_latency();
  const bool lie = rng_.uniform_real() < options_.lying_fsync_probability;
  const auto it = files_.find(file);
  // A name unknown to files_ is absent in both views: there is nothing to make durable, but
  // the node is still told, as a real fsync of a removed file's directory would succeed.
  if (lie || it == files_.end()) {
    if (lie) ++stats_.fsyncs_lied;
    sink_(delay, token, [] {});
    return;
  }
  pending_.emplace(seq, take_snapshot(it->first, it->second));
  sink_(delay, token, [this, seq] { complete(seq); });
}

SimDisk::Snapshot SimDisk::take_snapshot(std::string_view name, File& f) {
  Snapshot snapshot{std::string(name), std::nullopt, {}};
  // The image is a length only: detach() copies the bytes out if they change before it lands.
  if (f.live) snapshot.image = Image{nullptr, f.data.size()};
  ++f.pending_refs;
  for (const std::string& source : f.rename_sources) {
    const auto it = files_.find(source);
    // Not in files_: already durably gone. Live: recreated since, so no longer a removal.
    if (it == files_.end() || it->second.live) continue;
    ++it->second.pending_refs;
    snapshot.removed_sources.push_back(source);
  }
  return snapshot;
}

void SimDisk::complete(std::uint64_t seq) {
  const auto it = pending_.find(seq);
  if (it == pending_.end()) {  // forgotten by a crash or power loss since the fsync began
    ++stats_.fsyncs_dropped;
    return;
  }
  const Snapshot snapshot = std::move(it->second);
  pending_.erase(it);
  commit(snapshot.name, snapshot.image, seq);
  for (const std::string& source : snapshot.removed_sources) commit(source, std::nullopt, seq);
  ++stats_.fsyncs_completed;
}

void SimDisk::commit(const std::string& name, const std::optional<Image>& image,
                     std::uint64_t seq) {
  const auto it = files_.find(name);
  // pending_refs keeps a file named by a snapshot in files_ until the snapshot lands.
  LOGSIM_ASSERT(it != files_.end() && it->second.pending_refs > 0, "snapshot of an unknown file");
  File& f = it->second;
  --f.pending_refs;
  // Completions may arrive out of order: an older snapshot must not replace a newer one.
  if (seq > f.durable_seq) {
    f.durable = image;
    f.durable_seq = seq;
  }
  LOGSIM_ASSERT(!f.durable || f.durable->base || f.durable->size <= f.data.size(),
                "a durable prefix is longer than its file");
  erase_if_dead(it);
}

void SimDisk::erase_if_dead(Files::iterator it) {
  const File& f = it->second;
  if (!f.live && !f.durable && f.pending_refs == 0) files_.erase(it);
}

// ---- Faults.

void SimDisk::crash() {
  ++stats_.crashes;
  forget_pending();
}

void SimDisk::forget_pending() {
  pending_.clear();
  for (auto it = files_.begin(); it != files_.end();) {
    const auto next = std::next(it);
    it->second.pending_refs = 0;
    erase_if_dead(it);
    it = next;
  }
}

void SimDisk::power_loss() {
  ++stats_.power_losses;
  forget_pending();  // files with neither page-cache data nor a durable image are gone now
  // Map order, so the torn-tail draws are the same in every run.
  for (auto it = files_.begin(); it != files_.end();) {
    const auto next = std::next(it);
    if (it->second.durable) {
      revert(it->second);
    } else {
      files_.erase(it);  // never made durable: it vanishes
    }
    it = next;
  }
}

void SimDisk::revert(File& f) {
  const Image image = *f.durable;
  if (image.base) {
    f.data = image.base->prefix(image.size);
  } else {
    tear_or_cut(f, image.size);
  }
  f.live = true;
  f.rename_sources.clear();
  // What survived is on the platter now, so it is all durable (and a prefix of itself).
  f.durable = Image{nullptr, f.data.size()};
}

// The file's page cache is its durable image plus an unsynced appended tail: cut the tail,
// or, with torn_write_probability, keep a strict prefix of it (see FAULT MODEL).
void SimDisk::tear_or_cut(File& f, std::uint64_t durable_size) {
  LOGSIM_ASSERT(durable_size <= f.data.size(), "a durable prefix is longer than its file");
  const std::uint64_t tail = f.data.size() - durable_size;
  if (tail == 0) return;
  // Four draws whatever the options (see Randomness).
  const bool tear = rng_.uniform_real() < options_.torn_write_probability;
  const std::uint64_t kept = rng_.uniform_u64(tail);
  const bool corrupt = rng_.uniform_real() < options_.torn_corrupt_probability;
  const auto mask = static_cast<unsigned char>(1 + rng_.uniform_u64(255));
  if (!tear) {
    f.data.truncate(durable_size);
    return;
  }
  ++stats_.torn_tails;
  f.data.truncate(durable_size + kept);
  if (kept > 0 && corrupt) {
    f.data.xor_byte(f.data.size() - 1, mask);
    ++stats_.torn_corruptions;
  }
}

}  // namespace logsim::sim
