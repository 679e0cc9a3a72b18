// kafkajs 2.2.4 against logsim serve. Usage: node live_test.js BOOTSTRAP LOGSIM
// Each check prints "ok" or "FAIL"; the process exits 1 if any failed. Every wait is bounded
// (withTimeout), and the whole run is stopped by the shell wrapper's timeout as well.
'use strict';
const { Kafka, logLevel, AssignerProtocol } = require('kafkajs');
const { execFileSync } = require('child_process');
const { check, withTimeout, sleep, finish } = require('./checks');

const [bootstrap, logsim] = process.argv.slice(2);
const kafka = new Kafka({ clientId: 'live-test', brokers: bootstrap.split(','), logLevel: logLevel.NOTHING,
                          retry: { retries: 8, initialRetryTime: 100 } });

// The number of partitions each member of a Stable group of `members` holds, as DescribeGroups
// tells (waiting up to 15 s for the group to settle); [] if it never does.
async function stableAssignment(groupId, members) {
  const admin = kafka.admin();
  await admin.connect();
  try {
    for (let i = 0; i < 150; i++) {
      const { groups } = await admin.describeGroups([groupId]);
      const g = groups[0];
      if (g.state === 'Stable' && g.members.length === members) {
        return g.members.map((m) => {
          const a = AssignerProtocol.MemberAssignment.decode(m.memberAssignment);
          return a ? Object.values(a.assignment).reduce((n, ps) => n + ps.length, 0) : 0;
        });
      }
      await sleep(100);
    }
    return [];
  } finally {
    await admin.disconnect();
  }
}

// Reads `topic` with a new consumer of `groupId` until `count` records have come (or ms pass);
// returns them. `onMessage` may throw (kafkajs then gives the message again).
async function consume(groupId, topic, count, { ms = 30000, fromBeginning = true, onMessage, members = 1 } = {}) {
  const got = [];
  const consumers = [];
  for (let i = 0; i < members; i++) {
    const c = kafka.consumer({ groupId, sessionTimeout: 10000, heartbeatInterval: 500, maxWaitTimeInMs: 500, retry: { retries: 10 } });
    consumers.push(c);

    await c.connect();
    await c.subscribe({ topic, fromBeginning });
  }
  let done;
  const all = new Promise((r) => { done = r; });
  for (const c of consumers) {
    await c.run({ eachMessage: async ({ partition, message }) => {
      if (onMessage) onMessage(message, partition);
      got.push({ key: message.key && message.key.toString(), value: message.value.toString(), partition, offset: Number(message.offset) });
      if (got.length >= count) done();
    } });
  }
  try {
    await withTimeout(all, ms, `${groupId} reading ${count} records`);
  } catch (e) { /* the check below says how many came */ }
  const assigned = members > 1 ? await stableAssignment(groupId, members) : [];
  await Promise.all(consumers.map((c) => c.disconnect()));
  return { got, assigned };
}

async function main() {
  const admin = kafka.admin();
  await withTimeout(admin.connect(), 20000, 'admin connect');
  const created = await withTimeout(admin.createTopics({ topics: [{ topic: 'orders', numPartitions: 4, replicationFactor: 3 }], waitForLeaders: true }), 30000, 'createTopics');
  check('CreateTopics makes a topic (through the controller id broker)', created === true);
  const md = await admin.fetchTopicMetadata({ topics: ['orders'] });
  check('the topic has 4 partitions with 3 replicas', md.topics[0].partitions.length === 4 && md.topics[0].partitions.every((p) => p.replicas.length === 3));

  // Keyed produce with acks=-1: each key on the partition Kafka's murmur2 picks.
  const producer = kafka.producer();
  await producer.connect();
  const messages = [];
  for (let i = 0; i < 100; i++) messages.push({ key: `key-${i % 13}`, value: `value-${i}` });
  const acks = await withTimeout(producer.send({ topic: 'orders', acks: -1, messages }), 30000, 'send');
  check('every send is acknowledged', acks.reduce((n, r) => n + 1, 0) > 0 && acks.every((r) => r.errorCode === 0));
  const first = await consume('g1', 'orders', 100);
  check('group g1 reads all 100 records', first.got.length === 100, `${first.got.length}`);
  let misplaced = 0;
  const seen = new Map();
  for (const m of first.got) seen.set(m.key, m.partition);
  for (const [key, partition] of seen) {
    const want = Number(execFileSync(logsim, ['partition', key, '--partitions', '4']).toString().trim());
    if (want !== partition) misplaced++;
  }
  check('each key is on murmur2\'s partition', misplaced === 0, `${misplaced} keys elsewhere`);
  check('no record twice in one group', new Set(first.got.map((m) => m.value)).size === 100);

  // A second group reads the topic again from the beginning: topics are logs, not queues.
  const second = await consume('g2', 'orders', 100);
  check('a second group reads everything again', second.got.length === 100, `${second.got.length}`);

  // Offsets of an empty group reset, then replayed (DescribeGroups must say Empty).
  await admin.resetOffsets({ groupId: 'g1', topic: 'orders', earliest: true });
  const offsets = await admin.fetchOffsets({ groupId: 'g1', topics: ['orders'] });
  // kafkajs commits the sentinel -2 (earliest), which Kafka keeps as it is; the consumer resolves it.
  check('resetOffsets to earliest commits -2', offsets[0].partitions.every((p) => p.offset === '-2'), JSON.stringify(offsets));
  const replay = await consume('g1', 'orders', 100);
  check('the reset group replays everything', replay.got.length === 100, `${replay.got.length}`);
  await admin.setOffsets({ groupId: 'g1', topic: 'orders', partitions: [0, 1, 2, 3].map((p) => ({ partition: p, offset: '0' })) });
  const set = await admin.fetchOffsets({ groupId: 'g1', topics: ['orders'] });
  check('setOffsets commits through a temporary member', set[0].partitions.every((p) => p.offset === '0'));

  // A handler that throws gets its message again.
  let thrown = false;
  const retried = await consume('g3', 'orders', 101, { onMessage: (m) => {
    if (!thrown && m.value.toString() === 'value-7') { thrown = true; throw new Error('poison once'); }
  } });
  check('a message whose handler threw comes again', thrown && retried.got.filter((m) => m.value === 'value-7').length >= 1 && retried.got.length >= 100,
        `${retried.got.length}`);

  // More consumers than partitions: the extra one gets an empty assignment, nothing is lost.
  const five = await consume('g4', 'orders', 100, { members: 5, ms: 40000 });
  check('five members on four partitions read everything', five.got.length === 100, `${five.got.length}`);
  check('one member is idle', five.assigned.filter((n) => n === 0).length === 1 && five.assigned.reduce((a, b) => a + b, 0) === 4,
        JSON.stringify(five.assigned));

  // Manual commits, then a new member of the group starts where they left off.
  const committer = kafka.consumer({ groupId: 'g5', maxWaitTimeInMs: 500 });
  await committer.connect();
  await committer.subscribe({ topic: 'orders', fromBeginning: true });
  let handled = 0;
  let resolveHalf;
  const half = new Promise((r) => { resolveHalf = r; });
  await committer.run({ autoCommit: false, eachMessage: async ({ topic, partition, message }) => {
    if (partition !== 0) return;
    handled++;
    await committer.commitOffsets([{ topic, partition, offset: String(Number(message.offset) + 1) }]);
    if (handled === 5) resolveHalf();
  } });
  await withTimeout(half, 30000, 'five manual commits').catch(() => {});
  await committer.disconnect();
  const g5 = await admin.fetchOffsets({ groupId: 'g5', topics: ['orders'] });
  const p0 = g5[0].partitions.find((p) => p.partition === 0);
  check('manual commits are kept', Number(p0.offset) >= 5, JSON.stringify(p0));

  // seek: a running consumer moves back to offset 0 of a partition.
  const seeker = kafka.consumer({ groupId: 'g6', maxWaitTimeInMs: 500 });
  await seeker.connect();
  await seeker.subscribe({ topic: 'orders', fromBeginning: false });
  const afterSeek = [];
  let resolveJoined;
  const joined = new Promise((r) => { resolveJoined = r; });
  seeker.on(seeker.events.GROUP_JOIN, () => resolveJoined());
  await seeker.run({ eachMessage: async ({ partition, message }) => { if (partition === 1) afterSeek.push(Number(message.offset)); } });
  await withTimeout(joined, 30000, 'g6 joining').catch(() => {});
  seeker.seek({ topic: 'orders', partition: 1, offset: '0' });
  for (let i = 0; i < 100 && afterSeek.length === 0; i++) await sleep(100);
  await seeker.disconnect();
  check('seek moves a consumer to the offset asked', afterSeek.length > 0 && afterSeek[0] === 0, JSON.stringify(afterSeek.slice(0, 3)));

  const groups = await admin.listGroups();
  check('ListGroups names the groups', ['g1', 'g2', 'g4'].every((g) => groups.groups.some((x) => x.groupId === g)), JSON.stringify(groups));
  await admin.deleteGroups(['g2']);
  const g2 = await admin.describeGroups(['g2']);
  check('a deleted group is Dead', g2.groups[0].state === 'Dead', g2.groups[0].state);
  await producer.disconnect();
  await admin.disconnect();
}

withTimeout(main(), 240000, 'the whole test')
  .catch((e) => { check('no unexpected error', false, e.stack || String(e)); })
  .finally(finish);
