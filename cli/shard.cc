// --shard I/N and shard.json (see shard.h).
#include "cli/shard.h"

#include <fmt/format.h>

#include <elf.h>
#include <link.h>

#include <charconv>
#include <cstring>
#include <fstream>
#include <sstream>

#include "engine/env/rng.h"

namespace logsim::cli {
namespace {

std::optional<std::int64_t> parse_count(std::string_view t) {
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (t.empty() || ec != std::errc() || end != t.data() + t.size()) return std::nullopt;
  return v;
}

}  // namespace

std::optional<Shard> parse_shard(std::string_view text, std::string& error) {
  const std::string expected = "expected I/N with 0 <= I < N <= 1000000, 0-based as Kubernetes' JOB_COMPLETION_INDEX (e.g. 0/4, 1/4, 2/4, 3/4)";
  const auto slash = text.find('/');
  if (slash == std::string_view::npos) {
    error = fmt::format("--shard \"{}\" has no \"/\"; {}", text, expected);
    return std::nullopt;
  }
  const auto index = parse_count(text.substr(0, slash));
  const auto count = parse_count(text.substr(slash + 1));
  if (!index || !count) {
    error = fmt::format("--shard \"{}\" is not two whole numbers; {}", text, expected);
    return std::nullopt;
  }
  if (*count < 1 || *count > kShardCountMax) {
    error = fmt::format("--shard \"{}\": the shard count {} is out of range; {}", text, *count, expected);
    return std::nullopt;
  }
  if (*index < 0 || *index >= *count) {
    error = fmt::format("--shard \"{}\": shard {} of {} does not exist (shards are numbered from 0 to {}); {}", text, *index, *count,
                        *count - 1, expected);
    return std::nullopt;
  }
  return Shard{*index, *count};
}

std::string file_digest(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "unreadable";
  std::ostringstream s;
  s << in.rdbuf();
  return fmt::format("{:016x}", fnv1a64(s.str()));
}

namespace {

// The GNU build ID the linker wrote into the executable (a hash of its contents, in a PT_NOTE
// segment), read from memory: hashing the executable itself would read hundreds of megabytes.
int find_build_id(dl_phdr_info* info, std::size_t, void* out) {
  auto& id = *static_cast<std::string*>(out);
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_NOTE) continue;
    const char* at = reinterpret_cast<const char*>(info->dlpi_addr + ph.p_vaddr);
    const char* end = at + ph.p_memsz;
    while (at + sizeof(ElfW(Nhdr)) <= end) {
      ElfW(Nhdr) note;
      std::memcpy(&note, at, sizeof note);
      const char* name = at + sizeof note;
      const char* desc = name + ((note.n_namesz + 3) & ~3U);
      if (note.n_type == NT_GNU_BUILD_ID && note.n_namesz == 4 && std::memcmp(name, "GNU", 4) == 0 && desc + note.n_descsz <= end) {
        for (std::size_t k = 0; k < note.n_descsz; ++k) id += fmt::format("{:02x}", static_cast<unsigned char>(desc[k]));
        return 1;
      }
      at = desc + ((note.n_descsz + 3) & ~3U);
    }
  }
  return 1;  // the first object is the executable: stop there either way
}

}  // namespace

std::string build_digest() {
  std::string id;
  dl_iterate_phdr(find_build_id, &id);
  return id.empty() ? "unknown" : id;
}

nlohmann::json shard_manifest(std::string_view kind, const nlohmann::json& sweep, const Shard& shard) {
  return {{"version", kShardVersion},
          {"kind", kind},
          {"sweep", sweep},
          {"sweep_id", fmt::format("{:016x}", fnv1a64(sweep.dump()))},
          {"build", build_digest()},
          {"shard", {{"index", shard.index}, {"count", shard.count}}}};
}

}  // namespace logsim::cli
