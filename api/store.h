// An App's durable store: keys to values in one file on its node's disk (the simulated disk in
// a run), with the semantics of a real one. What survives what:
//   - a crash or a graceful stop of the process: everything written (it is in the operating
//     system's page cache), synced or not;
//   - a power loss of the node (a `power-loss` step, or the fuzz fault member-power-loss): only
//     what a completed sync() made durable. An unsynced write is lost; with the scenario's
//     disk fault torn_write_probability the file may keep part of its unsynced tail, which the
//     store drops when it opens (each entry is checksummed), so a torn write is never read.
// So the order of your own code matters as it does in production: a consumer that commits an
// offset to Kafka before the store has synced what it did with the record can lose that work
// at a power loss, and logsim fuzz with member-power-loss finds it.
//
//   ctx.store().put("balance/" + account, std::to_string(balance));
//   ctx.store().sync([&] { ctx.consumer().commit_sync(offsets); });  // durable first, then commit
//
// The App reads it back in on_start (ctx.store() opens it). Reads see every write at once.
// Each write appends an entry to the file; at open, a file much larger than its contents is
// rewritten compactly. Meant for an App's state (positions, balances, ids seen), not for bulk
// data.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "engine/env/disk.h"

namespace logsim {

class Store {
 public:
  // Opens the store kept in `file` on `disk`, reading back what the file holds (and dropping a
  // torn or corrupt tail). The node that owns the disk must pass its fsync completions to
  // on_fsync(). (An App does not build one: ctx.store() is its node's.)
  Store(Disk& disk, std::string file);

  std::optional<std::string> get(std::string_view key) const;
  bool contains(std::string_view key) const { return items_.contains(key); }
  // Every key and value, in key order.
  const std::map<std::string, std::string, std::less<>>& items() const { return items_; }
  std::size_t size() const { return items_.size(); }

  // Sets or removes a key. Seen by reads at once; durable once a later sync() has completed.
  void put(std::string key, std::string value);
  void erase(std::string_view key);
  // Makes every write so far durable. `done` runs when the disk says it is (after the disk's
  // fsync latency, simulated time), in the order the syncs were asked for. A crash or power
  // loss before then forgets it: `done` never runs (the App is gone).
  void sync(std::function<void()> done = {});
  std::size_t syncs_in_flight() const { return pending_.size(); }

  // The node's on_fsync(token): runs the `done` of this sync and of any asked for before it
  // (a later snapshot is durable only with everything before it). False: not the store's.
  bool on_fsync(std::uint64_t token);
  // Bytes of a torn or corrupt tail dropped when the store was opened (0 for a clean file).
  std::uint64_t dropped_at_open() const { return dropped_at_open_; }

 private:
  void load();
  void compact();
  void write(char op, std::string_view key, std::string_view value);

  Disk& disk_;
  std::string file_;
  std::map<std::string, std::string, std::less<>> items_;
  std::map<std::uint64_t, std::function<void()>> pending_;  // token -> done, tokens ascend
  std::uint64_t next_token_ = 1;
  std::uint64_t dropped_at_open_ = 0;
};

}  // namespace logsim
