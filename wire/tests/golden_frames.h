// Request and response frames written by hand, byte by byte, from Kafka's message specs and
// from what the clients send (kafka-wire-protocol.md), without the 4-byte size prefix. The
// golden tests compare the codec's output with these; the fuzzer's corpus
// (wire/tests/corpus/*.bin) holds the request frames, and a test checks that they agree.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace logsim::wire::golden {

// "00 12 ff" -> the three bytes; spaces are ignored.
inline std::string hex(std::string_view text) {
  std::string out;
  int high = -1;
  for (char c : text) {
    if (c == ' ') continue;
    const int nibble = c <= '9' ? c - '0' : c - 'a' + 10;
    if (high < 0) {
      high = nibble;
    } else {
      out.push_back(static_cast<char>(high * 16 + nibble));
      high = -1;
    }
  }
  return out;
}

inline std::string cat(std::initializer_list<std::string_view> parts) {
  std::string out;
  for (std::string_view p : parts) out.append(p);
  return out;
}

inline std::span<const std::uint8_t> as_bytes(const std::string& s) {
  return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}

// librdkafka 2.0.2's first request on a connection (captured the same): ApiVersions v3, a
// flexible request, so request header v2.
inline std::string api_versions_v3_librdkafka() {
  return cat({hex("00 12"),             // api_key 18, ApiVersions
              hex("00 03"),             // api_version 3
              hex("00 00 00 01"),       // correlation_id 1
              hex("00 07"), "rdkafka",  // client_id: int16 length, not compact even in header v2
              hex("00"),                // header v2 tagged fields: none
              hex("0b"), "librdkafka",  // client_software_name: compact string, uvarint 10 + 1
              hex("06"), "2.0.2",       // client_software_version: uvarint 5 + 1
              hex("00")});              // body tagged fields: none
}

// librdkafka's retry after an error-35 answer without the ApiVersions key: v0, empty body.
inline std::string api_versions_v0_librdkafka() {
  return cat({hex("00 12 00 00"),        // ApiVersions v0
              hex("00 00 00 02"),        // correlation_id 2
              hex("00 07"), "rdkafka"});  // client_id; v0 has no body fields
}

// kafkajs 2.2.4's first request: ApiVersions v2 (header v1, empty body); correlation ids
// start at 0 and the default client id is "kafkajs".
inline std::string api_versions_v2_kafkajs() {
  return cat({hex("00 12 00 02"), hex("00 00 00 00"), hex("00 07"), "kafkajs"});
}

// kcat -L: Metadata v1 with a null topic array, meaning all topics.
inline std::string metadata_v1_all_topics() {
  return cat({hex("00 03 00 01"),        // Metadata v1
              hex("00 00 00 05"),        // correlation_id 5
              hex("00 07"), "rdkafka",   // client_id
              hex("ff ff ff ff")});      // topics: int32 count -1, null (v1+: all topics)
}

// One record batch (magic 2, one record, key null, value "hello", CreateTime 1700000000000, no
// producer id), as kafkajs and librdkafka send it. 73 bytes.
inline std::string record_batch() {
  return cat({hex("00 00 00 00 00 00 00 00"),  // baseOffset 0 (the leader rewrites it)
              hex("00 00 00 3d"),              // batchLength 61: the bytes after this field
              hex("00 00 00 00"),              // partitionLeaderEpoch 0
              hex("02"),                       // magic 2
              hex("e6 41 a4 4b"),              // crc: CRC-32C of attributes .. the end
              hex("00 00"),                    // attributes: no compression, CreateTime
              hex("00 00 00 00"),              // lastOffsetDelta 0
              hex("00 00 01 8b cf e5 68 00"),  // baseTimestamp 1700000000000
              hex("00 00 01 8b cf e5 68 00"),  // maxTimestamp
              hex("ff ff ff ff ff ff ff ff"),  // producerId -1
              hex("ff ff"),                    // producerEpoch -1
              hex("ff ff ff ff"),              // baseSequence -1
              hex("00 00 00 01"),              // records count 1
              hex("16"),                       // record length: zigzag varint 11
              hex("00"),                       // record attributes
              hex("00"),                       // timestampDelta 0 (zigzag varlong)
              hex("00"),                       // offsetDelta 0
              hex("01"),                       // key length -1: null
              hex("0a"), "hello",              // value length 5, value
              hex("00")});                     // header count 0
}

// kafkajs: Produce v7, acks -1 (all), one partition carrying record_batch().
inline std::string produce_v7_request() {
  return cat({hex("00 00 00 07"),            // Produce v7
              hex("00 00 00 07"),            // correlation_id 7
              hex("00 07"), "kafkajs",       // client_id
              hex("ff ff"),                  // transactional_id: null
              hex("ff ff"),                  // acks -1
              hex("00 00 75 30"),            // timeout_ms 30000
              hex("00 00 00 01"),            // topic_data: 1 topic
              hex("00 05"), "topic",         //   name
              hex("00 00 00 01"),            //   partition_data: 1 partition
              hex("00 00 00 02"),            //     index 2
              hex("00 00 00 49"),            //     records: int32 length 73
              record_batch()});
}

// The Fetch v11 response kafkajs needs (response header v0): one partition with the batch,
// last_stable_offset = high watermark, no aborted transactions (null), preferred_read_replica -1.
inline std::string fetch_v11_response() {
  return cat({hex("00 00 00 09"),                // correlation_id 9 (response header v0)
              hex("00 00 00 00"),                // throttle_time_ms 0
              hex("00 00"),                      // error_code 0 (v7+)
              hex("00 00 00 00"),                // session_id 0 (v7+): no fetch session
              hex("00 00 00 01"),                // responses: 1 topic
              hex("00 05"), "topic",             //   topic
              hex("00 00 00 01"),                //   partitions: 1
              hex("00 00 00 02"),                //     partition_index 2
              hex("00 00"),                      //     error_code 0
              hex("00 00 00 00 00 00 00 01"),    //     high_watermark 1
              hex("00 00 00 00 00 00 00 01"),    //     last_stable_offset 1 (v4+)
              hex("00 00 00 00 00 00 00 00"),    //     log_start_offset 0 (v5+)
              hex("ff ff ff ff"),                //     aborted_transactions: null (v4+)
              hex("ff ff ff ff"),                //     preferred_read_replica -1 (v11+)
              hex("00 00 00 49"), record_batch()});  // records: 73 bytes
}

// TxnOffsetCommit v3 (flexible; what librdkafka 2.0.2 sends): transactional id "t", group "g",
// producer 5 epoch 1, generation 2, member "m", no instance id, topic "o" partition 0 at 9.
inline std::string txn_offset_commit_v3() {
  return cat({hex("00 1c 00 03 00 00 00 07 00 01 63 00"),  // key 28, v3, id 7, client "c", no tags
              hex("02 74 02 67"),                          // transactional_id "t", group_id "g"
              hex("00 00 00 00 00 00 00 05 00 01"),        // producer id 5, epoch 1
              hex("00 00 00 02 02 6d 00"),                 // generation 2, member "m", no instance id
              hex("02 02 6f 02"),                          // 1 topic "o", 1 partition:
              hex("00 00 00 00 00 00 00 00 00 00 00 09"),  //   index 0, offset 9
              hex("ff ff ff ff 00 00 00 00")});            //   epoch -1, metadata null; tags x3
}

// OffsetCommit v7 (what librdkafka 2.0.2 sends): group "g", generation 3, member "m", instance
// "i1", topic "t" partition 2 at offset 42, leader epoch 5, metadata "x".
inline std::string offset_commit_v7() {
  return cat({hex("00 08 00 07 00 00 00 0b 00 01 63"),  // OffsetCommit v7, id 11, "c"
              hex("00 01 67"),                          // group_id "g"
              hex("00 00 00 03"),                       // generation_id 3
              hex("00 01 6d"),                          // member_id "m"
              hex("00 02 69 31"),                       // group_instance_id "i1" (v7+)
              hex("00 00 00 01 00 01 74"),              // 1 topic: "t"
              hex("00 00 00 01 00 00 00 02"),           // 1 partition: index 2
              hex("00 00 00 00 00 00 00 2a"),           // committed_offset 42
              hex("00 00 00 05"),                       // committed_leader_epoch 5 (v6+)
              hex("00 01 78")});                        // committed_metadata "x"
}

// OffsetFetch v7 (flexible; what librdkafka 2.0.2 sends): group "g", topic "t" partitions 0 and
// 2, require_stable.
inline std::string offset_fetch_v7() {
  return cat({hex("00 09 00 07 00 00 00 0c 00 01 63 00"),  // OffsetFetch v7, id 12, "c", no tags
              hex("02 67"),                                // group_id "g"
              hex("02 02 74"),                             // 1 topic: "t"
              hex("03 00 00 00 00 00 00 00 02 00"),        //   partitions [0, 2]; no tags
              hex("01 00")});                              // require_stable (v7+); no tags
}

// The request frames that seed the fuzzer, with their corpus file names.
struct NamedFrame {
  std::string name;
  std::string bytes;
};
inline std::vector<NamedFrame> corpus_frames() {
  return {{"api_versions_v3_librdkafka.bin", api_versions_v3_librdkafka()},
          {"api_versions_v0_librdkafka.bin", api_versions_v0_librdkafka()},
          {"api_versions_v2_kafkajs.bin", api_versions_v2_kafkajs()},
          {"metadata_v1_all_topics.bin", metadata_v1_all_topics()},
          {"produce_v7.bin", produce_v7_request()},
          {"txn_offset_commit_v3.bin", txn_offset_commit_v3()},
          {"offset_commit_v7.bin", offset_commit_v7()},
          {"offset_fetch_v7.bin", offset_fetch_v7()}};
}

}  // namespace logsim::wire::golden
