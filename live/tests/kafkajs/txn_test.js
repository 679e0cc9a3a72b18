// kafkajs 2.2.4's transactions against logsim serve. Usage: node txn_test.js BOOTSTRAP
// A transactional producer commits, aborts and commits again; a read_committed consumer (kafkajs'
// default) reads only the committed values, a read_uncommitted one reads them all; offsets sent
// in a transaction (sendOffsets) are the group's once it commits; a second producer with the
// same transactional.id fences the first. Every wait is bounded.
'use strict';
const { Kafka, logLevel } = require('kafkajs');
const { check, withTimeout, finish } = require('./checks');

const [bootstrap] = process.argv.slice(2);
const kafka = new Kafka({ clientId: 'txn-test', brokers: bootstrap.split(','), logLevel: logLevel.NOTHING,
                          retry: { retries: 10, initialRetryTime: 100 } });

// The values a new consumer of `groupId` reads from the beginning of `topic` within `ms`
// (stopping early once `count` have come).
async function readAll(groupId, topic, count, readUncommitted, ms = 15000) {
  const c = kafka.consumer({ groupId, readUncommitted, sessionTimeout: 10000, heartbeatInterval: 500, maxWaitTimeInMs: 300 });
  await c.connect();
  await c.subscribe({ topic, fromBeginning: true });
  const got = [];
  let done;
  const all = new Promise((r) => { done = r; });
  await c.run({ eachMessage: async ({ message }) => {
    got.push(message.value.toString());
    if (got.length >= count) done();
  } });
  try { await withTimeout(all, ms, `${groupId} reading ${count}`); } catch (e) { /* the checks say how many came */ }
  await c.disconnect();
  return got.sort();
}

const messages = (names) => names.map((v) => ({ key: v, value: v }));

async function main() {
  const admin = kafka.admin();
  await withTimeout(admin.connect(), 20000, 'admin connect');
  await admin.createTopics({ topics: [{ topic: 'payments', numPartitions: 2, replicationFactor: 3 }], waitForLeaders: true });

  const producer = kafka.producer({ transactionalId: 'tx-payments', idempotent: true, maxInFlightRequests: 1 });
  await withTimeout(producer.connect(), 20000, 'transactional producer connect');
  const t1 = await producer.transaction();
  await t1.send({ topic: 'payments', messages: messages(['c1', 'c2', 'c3']) });
  await t1.commit();
  const t2 = await producer.transaction();
  await t2.send({ topic: 'payments', messages: messages(['a1', 'a2']) });
  await t2.abort();
  const t3 = await producer.transaction();
  await t3.send({ topic: 'payments', messages: messages(['c4', 'c5']) });
  await t3.sendOffsets({ consumerGroupId: 'eos', topics: [{ topic: 'payments', partitions: [{ partition: 0, offset: '2' }] }] });
  await t3.commit();
  check('three transactions end (commit, abort, commit with offsets)', true);

  const committed = await readAll('rc', 'payments', 5, false);
  check('a read_committed consumer reads the committed values only', JSON.stringify(committed) === JSON.stringify(['c1', 'c2', 'c3', 'c4', 'c5']),
        JSON.stringify(committed));
  const everything = await readAll('ru', 'payments', 7, true);
  check('a read_uncommitted consumer reads the aborted ones too', everything.length === 7 && everything.includes('a1'), JSON.stringify(everything));
  const offsets = await admin.fetchOffsets({ groupId: 'eos', topics: ['payments'] });
  const p0 = offsets[0].partitions.find((p) => p.partition === 0);
  check('offsets sent in a committed transaction are the group\'s', p0 && p0.offset === '2', JSON.stringify(offsets));

  // A second producer with the same transactional.id fences the first (a zombie).
  const zombie = kafka.producer({ transactionalId: 'tx-zombie', idempotent: true, maxInFlightRequests: 1, retry: { retries: 2 } });
  await zombie.connect();
  const open = await zombie.transaction();
  await open.send({ topic: 'payments', messages: messages(['z1']) });
  const newer = kafka.producer({ transactionalId: 'tx-zombie', idempotent: true, maxInFlightRequests: 1 });
  await withTimeout(newer.connect(), 20000, 'the newer producer connects');
  // kafkajs sends the transactional InitProducerId (which fences) at its first transaction().
  const t4 = await withTimeout(newer.transaction(), 20000, 'the newer producer begins');
  let fenced = '';
  try {
    await open.send({ topic: 'payments', messages: messages(['z2']) });
    await open.commit();
  } catch (e) { fenced = e.type || e.name; }
  check('the older producer of the id is fenced', fenced !== '', 'its send and commit succeeded');
  await t4.send({ topic: 'payments', messages: messages(['n1']) });
  await t4.commit();
  const after = await readAll('rc2', 'payments', 6, false);
  check('the zombie\'s records are never committed', after.includes('n1') && !after.includes('z1') && !after.includes('z2'), JSON.stringify(after));

  await Promise.all([producer.disconnect(), zombie.disconnect().catch(() => {}), newer.disconnect(), admin.disconnect()]);
}

withTimeout(main(), 120000, 'the transaction test')
  .catch((e) => { check('no unexpected error', false, e.stack || String(e)); })
  .finally(finish);
