// What the kafkajs tests share: each check prints "ok" or "FAIL" (with a detail when it fails),
// every wait is bounded, and the process ends with the count of failures.
'use strict';
let failed = 0;
function check(name, ok, detail) {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${name}${ok || detail === undefined ? '' : ': ' + detail}`);
  if (!ok) failed++;
}
// `promise`, or a rejection once `ms` have passed.
function withTimeout(promise, ms, what) {
  let timer;
  return Promise.race([promise, new Promise((_, reject) => { timer = setTimeout(() => reject(new Error(`timed out: ${what}`)), ms); })])
    .finally(() => clearTimeout(timer));
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
// Prints how many checks failed and exits 1 if any did.
function finish() {
  console.log(`${failed} failed`);
  process.exit(failed > 0 ? 1 : 0);
}
module.exports = { check, withTimeout, sleep, finish };
