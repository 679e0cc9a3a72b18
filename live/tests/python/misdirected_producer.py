#!/usr/bin/env python3
"""A deliberately wrong Kafka client, in the raw wire protocol: it asks for a topic's metadata
(Metadata v1, which also creates the topic), then sends Produce v3 for partition 0 to a broker
the answer did not name as that partition's leader, COUNT times, SPACING seconds apart. Each
must be answered NOT_LEADER_OR_FOLLOWER; logsim serve should name the client among its client
findings (docs/live.md). Every socket operation has a timeout; the metadata is asked at most 50
times. Usage: misdirected_producer.py BOOTSTRAP TOPIC COUNT SPACING"""
import socket
import struct
import sys
import time

CLIENT_ID = "misdirected"
NOT_LEADER_OR_FOLLOWER = 6


def i16(v):
    return struct.pack(">h", v)


def i32(v):
    return struct.pack(">i", v)


def string(s):
    b = s.encode()
    return i16(len(b)) + b


class Reader:
    def __init__(self, data):
        self.data, self.at = data, 0

    def take(self, fmt):
        v = struct.unpack_from(fmt, self.data, self.at)[0]
        self.at += struct.calcsize(fmt)
        return v

    def string(self):
        n = self.take(">h")
        if n < 0:
            return None
        s = self.data[self.at:self.at + n].decode()
        self.at += n
        return s

    def int32s(self):
        return [self.take(">i") for _ in range(self.take(">i"))]


class Connection:
    def __init__(self, host, port):
        self.sock = socket.create_connection((host, port), timeout=10)
        self.correlation = 0

    def call(self, api_key, version, body):
        self.correlation += 1
        request = i16(api_key) + i16(version) + i32(self.correlation) + string(CLIENT_ID) + body
        self.sock.sendall(i32(len(request)) + request)
        size = struct.unpack(">i", self.exactly(4))[0]
        answer = Reader(self.exactly(size))
        assert answer.take(">i") == self.correlation, "answer to another request"
        return answer

    def exactly(self, n):
        out = b""
        while len(out) < n:
            chunk = self.sock.recv(n - len(out))
            if not chunk:
                raise ConnectionError("connection closed")
            out += chunk
        return out


def metadata(conn, topic):
    """(brokers {id: (host, port)}, leader of partition 0 or -1)."""
    r = conn.call(3, 1, i32(1) + string(topic))
    brokers = {}
    for _ in range(r.take(">i")):
        node, host, port = r.take(">i"), r.string(), r.take(">i")
        r.string()  # rack
        brokers[node] = (host, port)
    r.take(">i")  # controller id
    leader = -1
    for _ in range(r.take(">i")):
        r.take(">h")
        name = r.string()
        r.take(">b")
        for _ in range(r.take(">i")):
            error, partition, partition_leader = r.take(">h"), r.take(">i"), r.take(">i")
            r.int32s()
            r.int32s()
            if name == topic and partition == 0 and error == 0:
                leader = partition_leader
    return brokers, leader


def produce_error(conn, topic):
    records = b"\0" * 61  # never read: a broker that does not lead the partition refuses it first
    body = i16(-1) + i16(1) + i32(5000) + i32(1) + string(topic) + i32(1) + i32(0) + i32(len(records)) + records
    r = conn.call(0, 3, body)
    r.take(">i")
    r.string()
    r.take(">i")
    r.take(">i")
    return r.take(">h")


def main():
    bootstrap, topic, count, spacing = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
    host, port = bootstrap.split(",")[0].rsplit(":", 1)
    conn = Connection(host, int(port))
    for _ in range(50):
        brokers, leader = metadata(conn, topic)
        if leader >= 0:
            break
        time.sleep(0.2)
    else:
        sys.exit("FAIL partition 0 of %s never got a leader" % topic)
    other = next(b for b in sorted(brokers) if b != leader)
    wrong = Connection(*brokers[other])
    errors = []
    for _ in range(count):
        errors.append(produce_error(wrong, topic))
        time.sleep(spacing)
    refused = errors.count(NOT_LEADER_OR_FOLLOWER)
    print("sent %s-0 to broker id %d (leader: %d) %d times: %d answered NOT_LEADER_OR_FOLLOWER"
          % (topic, other, leader, count, refused))
    sys.exit(0 if refused == count else 1)


if __name__ == "__main__":
    main()
