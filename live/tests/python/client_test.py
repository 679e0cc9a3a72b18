"""logsim serve against confluent-kafka-python (Debian's python3-confluent-kafka 1.7.0 on
librdkafka 2.0.2), as a Python application's own test would use it, while the scenario's
timeline crashes and restarts broker-2 (scenarios/live/broker-crash.json):

- the admin client creates a topic (and is told TOPIC_ALREADY_EXISTS the second time), lists
  topics and groups;
- an idempotent acks=all producer sends 400 keyed values across the crash: every one is
  delivered, each key on the partition Kafka's murmur2 picks, no two values at one offset;
- a group of two consumers with manual commits reads every value, both members get
  partitions, and the group's committed offsets end at the log ends;
- a second group reads the topic again from the beginning;
- a consumer assigned one partition at an offset (seek) reads exactly what is after it;
- a static member (group.instance.id) replaced by a new consumer of the same instance id is
  fenced: its next commit (OffsetCommit v7, which names the instance) fails FENCED_INSTANCE_ID.

Every wait is bounded. Prints "ok   ..." or "FAIL ..." per check; exits 1 on any failure.
Usage: client_test.py BOOTSTRAP
"""
import sys
import time

from confluent_kafka import Consumer, KafkaError, KafkaException, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

TOPIC = "payments"
PARTITIONS = 4
VALUES = 400
failures = 0


def check(name, ok, detail=""):
    global failures
    if ok:
        print("ok   " + name, flush=True)
    else:
        failures += 1
        print("FAIL " + name + (": " + detail if detail else ""), flush=True)


def murmur2(data):
    """Kafka's Utils.murmur2 (seed 0x9747b28c), as an unsigned 32-bit value."""
    m, r = 0x5BD1E995, 24
    h = (0x9747B28C ^ len(data)) & 0xFFFFFFFF
    blocks = len(data) // 4
    for i in range(blocks):
        k = int.from_bytes(data[4 * i:4 * i + 4], "little")
        k = (k * m) & 0xFFFFFFFF
        k ^= k >> r
        k = (k * m) & 0xFFFFFFFF
        h = ((h * m) & 0xFFFFFFFF) ^ k
    tail = data[4 * blocks:]
    if len(tail) == 3:
        h ^= tail[2] << 16
    if len(tail) >= 2:
        h ^= tail[1] << 8
    if len(tail) >= 1:
        h ^= tail[0]
        h = (h * m) & 0xFFFFFFFF
    h ^= h >> 13
    h = (h * m) & 0xFFFFFFFF
    h ^= h >> 15
    return h


def kafka_partition(key, partitions):
    return (murmur2(key) & 0x7FFFFFFF) % partitions


def admin_checks(admin):
    futures = admin.create_topics([NewTopic("py-ledger", num_partitions=3, replication_factor=3)], operation_timeout=10)
    try:
        futures["py-ledger"].result(timeout=20)
        check("the admin client creates a topic", True)
    except KafkaException as e:
        check("the admin client creates a topic", False, str(e))
    again = admin.create_topics([NewTopic("py-ledger", num_partitions=3, replication_factor=3)])
    try:
        again["py-ledger"].result(timeout=20)
        check("creating it again is TOPIC_ALREADY_EXISTS", False, "it succeeded")
    except KafkaException as e:
        check("creating it again is TOPIC_ALREADY_EXISTS", e.args[0].code() == KafkaError.TOPIC_ALREADY_EXISTS, str(e))
    topics = admin.list_topics(timeout=10).topics
    check("list_topics shows both topics with their partitions",
          len(topics.get("py-ledger").partitions) == 3 and len(topics.get(TOPIC).partitions) == PARTITIONS,
          str({name: len(t.partitions) for name, t in topics.items()}))


def idempotent_producer(bootstrap):
    return Producer({"bootstrap.servers": bootstrap, "client.id": "py-payments", "enable.idempotence": True,
                     "acks": "all", "partitioner": "murmur2_random", "linger.ms": 5})


def produce_across_the_crash(bootstrap):
    """Sends VALUES keyed values over about 12 s (the crash is at 5 s, the restart at 10 s)."""
    producer = idempotent_producer(bootstrap)
    delivered, errors = {}, []

    def on_delivery(err, msg):
        if err is not None:
            errors.append(str(err))
        else:
            delivered[msg.value().decode()] = (msg.key(), msg.partition(), msg.offset())

    values = [(f"acct-{i % 37}".encode(), f"v-{i}".encode()) for i in range(VALUES)]
    for key, value in values:
        producer.produce(TOPIC, key=key, value=value, on_delivery=on_delivery)
        producer.poll(0)
        time.sleep(0.03)
    left = producer.flush(30)
    if left and not errors:
        # librdkafka 2.0.2 sometimes leaves a partition with the restarted broker that led it
        # before the crash, while every Metadata answer names the new leader: it sends there
        # for ever and is told NOT_LEADER_OR_FOLLOWER each time (librdkafka issues #3230 and
        # #4976; the leader id it holds equals the new one, so it does not move the partition
        # again). A client bug, not the server's: a new producer, which asks the metadata
        # afresh, must deliver what is left (and python_test.sh checks that serve reported it
        # among its client findings).
        print(f"note librdkafka kept {left} values queued for a broker that no longer leads their partition; "
              "a new producer sends them", flush=True)
        producer.purge()
        producer.flush(5)
        again = idempotent_producer(bootstrap)
        for key, value in values:
            if value.decode() not in delivered:
                again.produce(TOPIC, key=key, value=value, on_delivery=on_delivery)
        left = again.flush(30)
        errors = [e for e in errors if "Purged" not in e]
    check("every value the idempotent acks=all producer sent is delivered across the crash",
          left == 0 and not errors and len(delivered) == VALUES,
          f"{len(delivered)} delivered, {left} left, errors {errors[:3]}")
    misplaced = [v for v, (key, partition, _) in delivered.items() if partition != kafka_partition(key, PARTITIONS)]
    check("each key is on the partition Kafka's murmur2 picks", not misplaced, f"{len(misplaced)} elsewhere")
    offsets = {(p, o) for (_, p, o) in delivered.values()}
    check("no two values at one offset", len(offsets) == len(delivered))
    return delivered


def consumer(bootstrap, group, client_id, **extra):
    config = {"bootstrap.servers": bootstrap, "group.id": group, "client.id": client_id,
              "enable.auto.commit": False, "auto.offset.reset": "earliest", "session.timeout.ms": 10000}
    config.update(extra)
    return Consumer(config)


def read_in_a_group(bootstrap, delivered):
    members = [consumer(bootstrap, "py-readers", f"py-reader-{n}") for n in (1, 2)]
    for c in members:
        c.subscribe([TOPIC])
    seen, placed, got_partitions = set(), {}, [False, False]
    deadline = time.monotonic() + 60
    # Until every value is read and both members have had partitions: the first to join may read
    # everything before the second one's join rebalances the group.
    while (len(seen) < VALUES or not all(got_partitions)) and time.monotonic() < deadline:
        for n, c in enumerate(members):
            msgs = c.consume(num_messages=100, timeout=0.2)
            for msg in msgs:
                if msg.error():
                    continue
                value = msg.value().decode()
                seen.add(value)
                placed.setdefault(value, set()).add((msg.partition(), msg.offset()))
            if msgs:
                c.commit(asynchronous=False)
            got_partitions[n] = got_partitions[n] or bool(c.assignment())
    check("the group reads every delivered value", seen == set(delivered), f"{len(seen)} of {len(delivered)}")
    check("both members of the group got partitions", all(got_partitions))
    check("each value was read where it was delivered",
          all(places == {delivered[v][1:]} for v, places in placed.items() if v in delivered))
    for c in members:
        c.close()

    # The group's committed offsets end at the log ends.
    probe = consumer(bootstrap, "py-readers", "py-probe")
    parts = [TopicPartition(TOPIC, p) for p in range(PARTITIONS)]
    committed = probe.committed(parts, timeout=10)
    ends = [probe.get_watermark_offsets(TopicPartition(TOPIC, p), timeout=10)[1] for p in range(PARTITIONS)]
    check("the group's committed offsets are the log ends", [tp.offset for tp in committed] == ends,
          f"committed {[tp.offset for tp in committed]}, ends {ends}")
    probe.close()
    return ends


def read_again(bootstrap, delivered):
    c = consumer(bootstrap, "py-audit", "py-auditor")
    c.subscribe([TOPIC])
    seen = set()
    deadline = time.monotonic() + 40
    while len(seen) < VALUES and time.monotonic() < deadline:
        for msg in c.consume(num_messages=200, timeout=0.5):
            if not msg.error():
                seen.add(msg.value().decode())
    check("a second group reads the topic again from the beginning", seen == set(delivered), f"{len(seen)} values")
    c.close()


def seek(bootstrap, delivered, ends):
    c = consumer(bootstrap, "py-seeker", "py-seeker")
    start = max(0, ends[0] - 5)
    c.assign([TopicPartition(TOPIC, 0, start)])
    got = []
    deadline = time.monotonic() + 20
    while len(got) < ends[0] - start and time.monotonic() < deadline:
        for msg in c.consume(num_messages=10, timeout=0.5):
            if not msg.error():
                got.append(msg.offset())
    check("a consumer assigned at an offset reads exactly what follows it", got == list(range(start, ends[0])), str(got))
    c.close()


def static_member_fenced(bootstrap):
    def member():
        c = consumer(bootstrap, "py-static", "py-static", **{"group.instance.id": "py-static-1"})
        c.subscribe([TOPIC])
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            msg = c.poll(0.5)
            if msg is not None and not msg.error():
                return c, msg
        return c, None
    old, first = member()
    new, second = member()  # the same instance id: the coordinator hands it the old member's place
    check("a static member's replacement reads", first is not None and second is not None)
    error = None
    if first is not None:
        try:
            old.commit(offsets=[TopicPartition(TOPIC, first.partition(), first.offset() + 1)], asynchronous=False)
        except KafkaException as e:
            error = e.args[0].name()
    check("the replaced static member's commit is fenced (FENCED_INSTANCE_ID)", error == "FENCED_INSTANCE_ID", str(error))
    new.close()
    old.close()


def list_groups(admin):
    groups = {g.id for g in admin.list_groups(timeout=10)}
    check("list_groups shows the groups", {"py-readers", "py-audit"} <= groups, str(sorted(groups)))


def main():
    bootstrap = sys.argv[1]
    admin = AdminClient({"bootstrap.servers": bootstrap, "client.id": "py-admin"})
    admin_checks(admin)
    delivered = produce_across_the_crash(bootstrap)
    ends = read_in_a_group(bootstrap, delivered)
    read_again(bootstrap, delivered)
    seek(bootstrap, delivered, ends)
    static_member_fenced(bootstrap)
    list_groups(admin)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
