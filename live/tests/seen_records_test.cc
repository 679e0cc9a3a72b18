// The records serve decodes from the bytes it is sent and serves (live/gateway.h): each one's
// key, offset and content hash, where two records share a content exactly when their keys and
// values are equal (a null key or value apart from an empty one).
#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "engine/protocol/record_batch.h"
#include "live/gateway.h"

namespace logsim::live {
namespace {

using Field = std::optional<std::string>;

// Keys and values around the hash's 8-byte steps: null, empty, every length to 40, and each
// of those with one byte changed at each position (a record apart from all the others).
std::vector<Field> fields() {
  std::vector<Field> out = {std::nullopt, std::string()};
  for (std::size_t n = 1; n <= 40; ++n) {
    const std::string base(n, 'a');
    out.push_back(base);
    for (std::size_t i = 0; i < n; ++i) {
      std::string s = base;
      s[i] = '\0';
      out.push_back(s);
    }
  }
  return out;
}

TEST(SeenRecords, ContentsAreEqualExactlyWhenKeyAndValueAre) {
  const std::vector<Field> all = fields();
  std::vector<std::pair<Field, Field>> sent;
  for (const Field& f : all) {
    sent.emplace_back(f, std::string("v"));  // the keys, one value
    sent.emplace_back(std::string("k"), f);  // one key, the values
    sent.emplace_back(f, f);
  }
  // Values of 16 to 32 bytes with bits flipped in two or three bytes, top bits included (a
  // hash that joined its words raw let such flips cancel), and one such pair found by hand.
  const std::string base = "value-0123456789abcdef-0123456789";
  for (const std::size_t n : {std::size_t{16}, std::size_t{22}, std::size_t{24}, std::size_t{32}}) {
    const std::string v = base.substr(0, n);
    for (std::size_t i = 0; i + 8 < n; ++i) {
      for (const int bit : {0x80, 0x04, 0x01}) {
        std::string two = v;
        two[i] = static_cast<char>(two[i] ^ 0x80);
        two[i + 8] = static_cast<char>(two[i + 8] ^ bit);
        sent.emplace_back(std::string("k"), two);
        std::string three = two;
        three[(i + 5) % n] = static_cast<char>(three[(i + 5) % n] ^ 0x04);
        sent.emplace_back(std::string("k"), three);
      }
    }
  }
  std::string flipped = "value-0123456789abcdef";
  for (const auto& f : {std::pair<std::size_t, int>{7, 0x80}, {12, 0x04}, {15, 0x80}}) {
    flipped[f.first] = static_cast<char>(flipped[f.first] ^ f.second);
  }
  sent.emplace_back(std::string("k"), std::string("value-0123456789abcdef"));
  sent.emplace_back(std::string("k"), flipped);
  const std::size_t distinct = std::set<std::pair<Field, Field>>(sent.begin(), sent.end()).size();
  for (std::size_t i = 0; i < 50; ++i) sent.push_back(sent[i * 7]);  // some sent twice
  BatchBuilder b;
  for (const auto& [k, v] : sent) b.append(Record{k, v, 1000});
  const std::string batch = b.finish(BatchMeta{Offset(100)});

  const std::vector<SeenRecord> seen = seen_records(batch, Offset(0), true);
  ASSERT_EQ(seen.size(), sent.size());
  std::map<std::pair<Field, Field>, std::uint64_t> content_of;
  std::set<std::uint64_t> contents;
  for (std::size_t i = 0; i < seen.size(); ++i) {
    EXPECT_EQ(seen[i].offset, Offset(100 + static_cast<std::int64_t>(i)));
    EXPECT_EQ(seen[i].key, sent[i].first) << i;
    EXPECT_EQ(seen[i].tombstone, !sent[i].second.has_value()) << i;
    const auto [it, fresh] = content_of.try_emplace(sent[i], seen[i].content);
    EXPECT_EQ(it->second, seen[i].content) << "record " << i << " sent again hashes alike";
    contents.insert(seen[i].content);
    (void)fresh;
  }
  EXPECT_EQ(contents.size(), distinct) << "records with different keys or values hash apart";

  // From an offset on: only the records at or after it.
  const std::vector<SeenRecord> later = seen_records(batch, Offset(110), true);
  ASSERT_EQ(later.size(), sent.size() - 10);
  EXPECT_EQ(later.front().offset, Offset(110));
  EXPECT_EQ(later.front().content, seen[10].content);
}

}  // namespace
}  // namespace logsim::live
