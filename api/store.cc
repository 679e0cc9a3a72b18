// The durable store's file: a log of checksummed entries, replayed at open.
//
//   entry = crc32c (4 bytes, little-endian, of everything after it)
//           op (1 byte: 'P' put, 'E' erase) | key length (4, LE) | value length (4, LE) | key | value
//
// An entry is applied only whole and with a matching checksum, so the file's valid prefix is
// the store; whatever follows it (a write torn by a power loss) is cut off at open.
#include "api/store.h"

#include <utility>

#include "engine/base/assert.h"
#include "engine/protocol/crc32c.h"

namespace logsim {
namespace {

constexpr char kPut = 'P';
constexpr char kErase = 'E';
constexpr std::size_t kHeader = 4 + 1 + 4 + 4;
// The store's fsync tokens carry this tag in their top bits, so a node can tell them apart.
constexpr std::uint64_t kTokenTag = 0x5354ULL << 48;
constexpr std::uint64_t kTagMask = 0xffffULL << 48;
// At open, a file larger than this and than kCompactRatio times its contents is rewritten.
constexpr std::uint64_t kCompactAbove = 64 * 1024;
constexpr std::uint64_t kCompactRatio = 4;

void put_u32(std::string& out, std::uint32_t v) {
  for (unsigned i = 0; i < 4; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

std::uint32_t get_u32(std::string_view in, std::size_t at) {
  std::uint32_t v = 0;
  for (std::size_t i = 0; i < 4; ++i) v |= static_cast<std::uint32_t>(static_cast<unsigned char>(in[at + i])) << (8 * i);
  return v;
}

std::string encode(char op, std::string_view key, std::string_view value) {
  LOGSIM_ASSERT(key.size() <= UINT32_MAX && value.size() <= UINT32_MAX, "a store key or value of 4 GiB or more");
  std::string body;
  body.reserve(kHeader - 4 + key.size() + value.size());
  body.push_back(op);
  put_u32(body, static_cast<std::uint32_t>(key.size()));
  put_u32(body, static_cast<std::uint32_t>(value.size()));
  body.append(key);
  body.append(value);
  std::string entry;
  entry.reserve(4 + body.size());
  put_u32(entry, crc32c(body));
  entry.append(body);
  return entry;
}

}  // namespace

Store::Store(Disk& disk, std::string file) : disk_(disk), file_(std::move(file)) {
  LOGSIM_ASSERT(!file_.empty(), "a store needs a file name");
  load();
}

void Store::load() {
  if (!disk_.exists(file_)) return;
  const std::string bytes = disk_.read(file_, 0, disk_.size(file_));
  std::size_t at = 0;
  std::uint64_t live = 0;  // bytes the contents would take, written afresh
  while (bytes.size() - at >= kHeader) {
    const std::size_t klen = get_u32(bytes, at + 5);
    const std::size_t vlen = get_u32(bytes, at + 9);
    if (bytes.size() - at - kHeader < klen || bytes.size() - at - kHeader - klen < vlen) break;
    const std::string_view body(bytes.data() + at + 4, kHeader - 4 + klen + vlen);
    const char op = body[0];
    if (get_u32(bytes, at) != crc32c(body) || (op != kPut && op != kErase)) break;
    std::string key(body.substr(kHeader - 4, klen));
    if (op == kPut) items_.insert_or_assign(std::move(key), std::string(body.substr(kHeader - 4 + klen, vlen)));
    else items_.erase(key);
    at += kHeader + klen + vlen;
  }
  if (at < bytes.size()) {
    dropped_at_open_ = bytes.size() - at;
    disk_.truncate(file_, at);
  }
  for (const auto& [k, v] : items_) live += kHeader + k.size() + v.size();
  if (at > kCompactAbove && at > kCompactRatio * live) compact();
}

void Store::compact() {
  // Written beside, then renamed over: a crash at any point leaves the old file or the new one,
  // and a power loss before the next sync brings back the old file's durable part.
  const std::string fresh = file_ + ".compact";
  disk_.remove(fresh);
  std::string bytes;
  for (const auto& [k, v] : items_) bytes += encode(kPut, k, v);
  disk_.append(fresh, bytes);
  disk_.rename(fresh, file_);
}

std::optional<std::string> Store::get(std::string_view key) const {
  const auto it = items_.find(key);
  if (it == items_.end()) return std::nullopt;
  return it->second;
}

void Store::write(char op, std::string_view key, std::string_view value) { disk_.append(file_, encode(op, key, value)); }

void Store::put(std::string key, std::string value) {
  write(kPut, key, value);
  items_.insert_or_assign(std::move(key), std::move(value));
}

void Store::erase(std::string_view key) {
  const auto it = items_.find(key);
  if (it == items_.end()) return;
  write(kErase, key, {});
  items_.erase(it);
}

void Store::sync(std::function<void()> done) {
  const std::uint64_t token = kTokenTag | next_token_++;
  pending_.emplace(token, std::move(done));
  // A store never written has no file yet: make an empty one, so that there is something to sync.
  if (!disk_.exists(file_)) disk_.append(file_, {});
  disk_.fsync(file_, token);
}

bool Store::on_fsync(std::uint64_t token) {
  if ((token & kTagMask) != kTokenTag) return false;
  // This snapshot holds every write before it: the syncs asked for earlier are done too.
  while (!pending_.empty() && pending_.begin()->first <= token) {
    std::function<void()> done = std::move(pending_.begin()->second);
    pending_.erase(pending_.begin());
    if (done) done();
  }
  return true;
}

}  // namespace logsim
