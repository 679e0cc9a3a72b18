// librdkafka's transactional producer (the C API) against logsim serve, for rdkafka_txn_test.sh.
// Usage: rdkafka_txn_client BOOTSTRAP TOPIC
// The producer (transactional.id rd-tx) commits c0..c9 with offsets for group rd-eos
// (send_offsets_to_transaction: AddOffsetsToTxn and TxnOffsetCommit v3), aborts a0..a4, and
// commits c10..c11. A read_committed consumer must read exactly the twelve committed values, a
// read_uncommitted one all seventeen, and rd-eos's committed offset must be the one sent.
// Then a fourth transaction sends rd-eos offset 7 and, while it is open, a read_committed
// consumer's committed() must not see an offset (OffsetFetch v7 require_stable: the group's
// coordinator answers UNSTABLE_OFFSET_COMMIT until the transaction ends, KIP-447); after the
// commit it reads 7.
// Prints "ok NAME" or "FAIL NAME" per check; exits 1 if any failed. Every wait is bounded.
#include <librdkafka/rdkafka.h>

#include <chrono>
#include <cstdio>
#include <set>
#include <string>
#include <utility>

namespace {

int failures = 0;

void check(const std::string& name, bool ok, const std::string& detail = "") {
  std::printf("%s %s%s%s\n", ok ? "ok  " : "FAIL", name.c_str(), ok || detail.empty() ? "" : ": ", ok ? "" : detail.c_str());
  if (!ok) ++failures;
}

rd_kafka_conf_t* config(const char* bootstrap, std::initializer_list<std::pair<const char*, const char*>> settings) {
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  char err[512];
  rd_kafka_conf_set(conf, "bootstrap.servers", bootstrap, err, sizeof err);
  for (const auto& [k, v] : settings) {
    if (rd_kafka_conf_set(conf, k, v, err, sizeof err) != RD_KAFKA_CONF_OK) std::printf("FAIL config %s: %s\n", k, err);
  }
  return conf;
}

// Takes the error (if any): true when there was none, else prints it under `what`.
bool fine(rd_kafka_error_t* e, const std::string& what) {
  if (e == nullptr) return true;
  check(what, false, rd_kafka_error_string(e));
  rd_kafka_error_destroy(e);
  return false;
}

bool produce(rd_kafka_t* p, const char* topic, const std::string& prefix, int from, int to) {
  for (int i = from; i < to; ++i) {
    const std::string v = prefix + std::to_string(i);
    const rd_kafka_resp_err_t err = rd_kafka_producev(p, RD_KAFKA_V_TOPIC(topic), RD_KAFKA_V_KEY(v.data(), v.size()),
                                                      RD_KAFKA_V_VALUE(const_cast<char*>(v.data()), v.size()),
                                                      RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_END);
    if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
      check("produce " + v, false, rd_kafka_err2str(err));
      return false;
    }
  }
  return true;
}

// The values a new consumer of `group` reads from the beginning within 20 s (stopping once
// `count` came), at `isolation`.
std::set<std::string> read_all(const char* bootstrap, const char* topic, const char* group, const char* isolation, std::size_t count) {
  rd_kafka_conf_t* conf = config(bootstrap, {{"group.id", group}, {"auto.offset.reset", "earliest"}, {"isolation.level", isolation},
                                             {"enable.partition.eof", "false"}});
  char err[512];
  rd_kafka_t* c = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof err);
  rd_kafka_poll_set_consumer(c);
  rd_kafka_topic_partition_list_t* topics = rd_kafka_topic_partition_list_new(1);
  rd_kafka_topic_partition_list_add(topics, topic, RD_KAFKA_PARTITION_UA);
  rd_kafka_subscribe(c, topics);
  rd_kafka_topic_partition_list_destroy(topics);
  std::set<std::string> got;
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (got.size() < count && std::chrono::steady_clock::now() < until) {
    rd_kafka_message_t* m = rd_kafka_consumer_poll(c, 200);
    if (m == nullptr) continue;
    if (m->err == RD_KAFKA_RESP_ERR_NO_ERROR) got.insert(std::string(static_cast<const char*>(m->payload), m->len));
    rd_kafka_message_destroy(m);
  }
  rd_kafka_consumer_close(c);
  rd_kafka_destroy(c);
  return got;
}

std::string joined(const std::set<std::string>& values) {
  std::string out;
  for (const auto& v : values) out += (out.empty() ? "" : ",") + v;
  return out;
}

// rd-eos's committed offset of partition 0 as a read_committed consumer's committed() finds it
// within `timeout_ms`: the offset, or -1 and the error.
std::pair<std::int64_t, rd_kafka_resp_err_t> committed_offset(const char* bootstrap, const char* topic, int timeout_ms) {
  char err[512];
  rd_kafka_t* c = rd_kafka_new(RD_KAFKA_CONSUMER, config(bootstrap, {{"group.id", "rd-eos"}, {"isolation.level", "read_committed"}}),
                               err, sizeof err);
  rd_kafka_topic_partition_list_t* asked = rd_kafka_topic_partition_list_new(1);
  rd_kafka_topic_partition_list_add(asked, topic, 0);
  const rd_kafka_resp_err_t e = rd_kafka_committed(c, asked, timeout_ms);
  const std::int64_t offset = e == RD_KAFKA_RESP_ERR_NO_ERROR ? asked->elems[0].offset : -1;
  rd_kafka_topic_partition_list_destroy(asked);
  rd_kafka_destroy(c);
  return {offset, e};
}

// Puts rd-eos's offset of partition 0 into the open transaction (sendOffsetsToTransaction).
bool send_offset(rd_kafka_t* p, const char* topic, std::int64_t offset) {
  rd_kafka_topic_partition_list_t* offsets = rd_kafka_topic_partition_list_new(1);
  rd_kafka_topic_partition_list_add(offsets, topic, 0)->offset = offset;
  rd_kafka_consumer_group_metadata_t* group = rd_kafka_consumer_group_metadata_new("rd-eos");
  const bool ok = fine(rd_kafka_send_offsets_to_transaction(p, offsets, group, 30000), "send_offsets_to_transaction");
  rd_kafka_consumer_group_metadata_destroy(group);
  rd_kafka_topic_partition_list_destroy(offsets);
  return ok;
}

// A transaction that holds rd-eos's offsets keeps them from a read_committed consumer until it
// commits (KIP-447).
void stable_offsets(const char* bootstrap, const char* topic) {
  char err[512];
  rd_kafka_t* p = rd_kafka_new(RD_KAFKA_PRODUCER, config(bootstrap, {{"transactional.id", "rd-tx"}, {"client.id", "rd-txn"}}), err, sizeof err);
  bool ok = fine(rd_kafka_init_transactions(p, 30000), "init_transactions") && fine(rd_kafka_begin_transaction(p), "begin_transaction");
  ok = ok && send_offset(p, topic, 7);
  if (ok) {
    const auto [pending, why] = committed_offset(bootstrap, topic, 2000);
    check("while a transaction holds the group's offsets, a read_committed consumer gets none", pending == -1,
          "committed() gave offset " + std::to_string(pending) + " (" + rd_kafka_err2str(why) + ")");
    ok = fine(rd_kafka_commit_transaction(p, 30000), "commit_transaction");
  }
  if (ok) {
    const auto [after, why] = committed_offset(bootstrap, topic, 10000);
    check("after the commit it gets the transaction's offset", after == 7,
          "offset " + std::to_string(after) + " (" + rd_kafka_err2str(why) + ")");
  }
  rd_kafka_destroy(p);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: rdkafka_txn_client BOOTSTRAP TOPIC\n");
    return 2;
  }
  const char* bootstrap = argv[1];
  const char* topic = argv[2];
  char err[512];
  rd_kafka_t* p = rd_kafka_new(RD_KAFKA_PRODUCER, config(bootstrap, {{"transactional.id", "rd-tx"}, {"client.id", "rd-txn"}}), err, sizeof err);
  if (p == nullptr) {
    check("a transactional producer is made", false, err);
    return 1;
  }
  bool ok = fine(rd_kafka_init_transactions(p, 30000), "init_transactions");
  ok = ok && fine(rd_kafka_begin_transaction(p), "begin_transaction") && produce(p, topic, "c", 0, 10);
  ok = ok && send_offset(p, topic, 3);
  ok = ok && fine(rd_kafka_commit_transaction(p, 30000), "commit_transaction");
  // Flushed before the abort, so that the aborted records are in the log (else librdkafka
  // purges them unsent).
  ok = ok && fine(rd_kafka_begin_transaction(p), "begin_transaction") && produce(p, topic, "a", 0, 5) &&
       rd_kafka_flush(p, 30000) == RD_KAFKA_RESP_ERR_NO_ERROR && fine(rd_kafka_abort_transaction(p, 30000), "abort_transaction");
  ok = ok && fine(rd_kafka_begin_transaction(p), "begin_transaction") && produce(p, topic, "c", 10, 12) &&
       fine(rd_kafka_commit_transaction(p, 30000), "commit_transaction");
  check("librdkafka commits, aborts and commits again", ok);
  rd_kafka_destroy(p);
  if (!ok) return 1;

  std::set<std::string> committed;
  for (int i = 0; i < 12; ++i) committed.insert("c" + std::to_string(i));
  const std::set<std::string> rc = read_all(bootstrap, topic, "rd-rc", "read_committed", 12);
  check("a read_committed consumer reads the committed values only", rc == committed, joined(rc));
  const std::set<std::string> ru = read_all(bootstrap, topic, "rd-ru", "read_uncommitted", 17);
  check("a read_uncommitted consumer reads the aborted ones too", ru.size() == 17 && ru.count("a0") == 1, joined(ru));

  const auto [offset, e] = committed_offset(bootstrap, topic, 10000);
  check("offsets sent in the committed transaction are the group's", e == RD_KAFKA_RESP_ERR_NO_ERROR && offset == 3,
        std::string(rd_kafka_err2str(e)) + " offset " + std::to_string(offset));
  stable_offsets(bootstrap, topic);
  return failures == 0 ? 0 : 1;
}
