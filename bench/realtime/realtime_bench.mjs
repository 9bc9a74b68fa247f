// Realtime workloads (issue 20) against a running cairn (started by bench/realtime/run):
//   write-rate   creates per second for WRITE_SECONDS with no subscriber, then with
//                FANOUT_SUBSCRIBERS live ones (receiving every change), same run;
//   idle-memory  cairn's RSS growth per idle subscription with SUBSCRIBERS open;
//   fan-out      one change to SUBSCRIBERS subscribers: the time from its commit (the message's
//                `timestamp`) to each receipt, p50/p99/max over LATENCY_ROUNDS changes.
// Every subscriber needs a session and a user holds at most 10 live subscriptions, so the script
// creates SUBSCRIBERS/10 users first. Prints one JSON object.
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';

const require = createRequire(new URL('../../tests/node/package.json', import.meta.url));
const WebSocket = require('ws');

const env = (name, fallback) => process.env[name] ?? fallback;
const BASE = env('CAIRN_URL');
const PID = env('CAIRN_PID');
const EMAIL = env('BENCH_EMAIL');
const PASSWORD = env('BENCH_PASSWORD');
const SUBSCRIBERS = Number(env('SUBSCRIBERS', 10000));
const FANOUT_SUBSCRIBERS = Number(env('FANOUT_SUBSCRIBERS', 1000));
const WRITE_SECONDS = Number(env('WRITE_SECONDS', 5));
const WRITERS = Number(env('WRITERS', 8));
const LATENCY_ROUNDS = Number(env('LATENCY_ROUNDS', 10));

const rssKb = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${PID}/status`, 'utf8'))[1]);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function post(path, body, token) {
  const response = await fetch(BASE + path, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Origin: BASE, ...(token ? { Authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${path}: ${response.status} ${text}`);
  return JSON.parse(text);
}

async function parallel(count, concurrency, job) {
  const results = new Array(count);
  let next = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < count) {
      const i = next++;
      results[i] = await job(i);
    }
  }));
  return results;
}

const admin = (await post('/api/auth/sign-in/email', { email: EMAIL, password: PASSWORD })).token;
const userCount = Math.ceil(SUBSCRIBERS / 10);
const run = Date.now();
const tokens = await parallel(userCount, 16, async (i) => {
  const email = `rt${run}-${i}@example.com`;
  await post('/api/auth/admin/create-user',
             { email, password: PASSWORD, name: `Sub ${i}`, role: 'member' }, admin);
  return (await post('/api/auth/sign-in/email', { email, password: PASSWORD })).token;
});

// Opens `count` subscriptions; resolves once every one got `subscribed`.
// A 503 (the database busy under the burst of handshakes) is retried after a moment.
async function subscribe(count, onChange) {
  const sockets = [];
  const open = (i) => new Promise((resolve, reject) => {
    const socket = new WebSocket(`${BASE.replace('http', 'ws')}/api/tables/items/subscribe`,
                                 { headers: { Authorization: `Bearer ${tokens[Math.floor(i / 10)]}` } });
    socket.on('message', (data) => {
      const message = JSON.parse(data);
      if (message.type === 'subscribed') { sockets.push(socket); resolve(true); }
      else if (message.type === 'change') onChange(message);
    });
    socket.on('unexpected-response', (request, response) => {
      if (response.statusCode === 503) resolve(false);
      else reject(new Error(`subscribe: ${response.statusCode}`));
    });
    socket.on('error', reject);
    socket.on('close', (code) => { if (code !== 1000 && code !== 1005) closes.set(code, (closes.get(code) || 0) + 1); });
  });
  await parallel(count, 100, async (i) => {
    for (let attempt = 0; !(await open(i)); attempt++) {
      if (attempt >= 20) throw new Error('subscribe: 503 twenty times');
      await sleep(100);
    }
  });
  return sockets;
}
const closes = new Map();
const close = async (sockets) => {
  for (const socket of sockets) socket.close(1000);
  await sleep(1000);
};

async function writeRate() {
  let done = 0;
  const until = Date.now() + WRITE_SECONDS * 1000;
  await Promise.all(Array.from({ length: WRITERS }, async () => {
    while (Date.now() < until) {
      await post('/api/tables/items/records', { fields: { name: 'w', amount: 1 } }, admin);
      done++;
    }
  }));
  return done / WRITE_SECONDS;
}

const result = {};
result.writes_per_second_without_subscribers = await writeRate();
let received = 0;
const fanout = await subscribe(FANOUT_SUBSCRIBERS, () => { received++; });
result.writes_per_second_with_subscribers = await writeRate();
result.write_rate_ratio = result.writes_per_second_with_subscribers / result.writes_per_second_without_subscribers;
await sleep(2000);
result.fanout_subscribers = FANOUT_SUBSCRIBERS;
result.fanout_messages_received = received;
result.fanout_closed_by_server = Object.fromEntries(closes);
await close(fanout);

const before = rssKb();
// Receipts may come before the write's own answer: keep them all by record id.
const receipts = new Map();
const sockets = await subscribe(SUBSCRIBERS, (message) => {
  const list = receipts.get(message.recordId) ?? [];
  list.push(Date.now() - Date.parse(message.timestamp));
  receipts.set(message.recordId, list);
});
await sleep(3000);
result.subscribers = SUBSCRIBERS;
result.idle_rss_growth_kb = rssKb() - before;
result.idle_bytes_per_subscription = Math.round(result.idle_rss_growth_kb * 1024 / SUBSCRIBERS);

const perRound = [];
for (let i = 0; i < LATENCY_ROUNDS; i++) {
  const id = (await post('/api/tables/items/records', { fields: { name: 'l', amount: 2 } }, admin)).id;
  const deadline = Date.now() + 10000;
  while ((receipts.get(id)?.length ?? 0) < SUBSCRIBERS && Date.now() < deadline) await sleep(5);
  const sorted = [...(receipts.get(id) ?? [])].sort((a, b) => a - b);
  perRound.push({ received: sorted.length, p50: sorted[Math.floor(sorted.length * 0.5)],
                  p99: sorted[Math.floor(sorted.length * 0.99)], max: sorted[sorted.length - 1] });
  await sleep(300);
}
const median = (key) => [...perRound.map((r) => r[key])].sort((a, b) => a - b)[Math.floor(perRound.length / 2)];
result.fanout_rounds = perRound;
result.fanout_p99_ms_median_round = median('p99');
result.fanout_max_ms_median_round = median('max');
await close(sockets);
console.log(JSON.stringify(result, null, 2));
process.exit(0);
