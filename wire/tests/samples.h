// Sample messages for the table-driven round-trip tests: for each API, a request and a
// response at a given version with every field that exists in that version set to a value
// other than its default, and every other field left at its default (so that decoding what was
// encoded must give the sample back exactly). The version conditions here restate Kafka's specs
// independently of the codec's descriptions, so a field written in the wrong versions fails.
#pragma once

#include <cstdint>
#include <vector>

#include "wire/request.h"

namespace logsim::wire::samples {

struct Sample {
  ApiKey key;
  RequestBody (*request)(std::int16_t version);
  ResponseBody (*response)(std::int16_t version);
};

std::vector<Sample> core_samples();   // ApiVersions, Metadata, Produce, Fetch, ListOffsets
std::vector<Sample> group_samples();  // the consumer-group and offset APIs
std::vector<Sample> admin_samples();  // CreateTopics, DeleteTopics, CreatePartitions,
                                      // DescribeConfigs, InitProducerId
std::vector<Sample> txn_samples();    // AddPartitionsToTxn, AddOffsetsToTxn, EndTxn, TxnOffsetCommit

// Every sample, of every supported API.
inline std::vector<Sample> all_samples() {
  std::vector<Sample> all;
  for (auto part : {core_samples, group_samples, admin_samples, txn_samples}) {
    for (const Sample& s : part()) all.push_back(s);
  }
  return all;
}

}  // namespace logsim::wire::samples
