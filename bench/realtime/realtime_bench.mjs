// Realtime workloads (issue 20) against a running cairn (started by bench/realtime/run):
//   write-rate   creates per second for WRITE_SECONDS with no subscriber, then with
//                FANOUT_SUBSCRIBERS live ones receiving every change, in the same run (and
//                cairn's CPU time per write in each, and the latency from commit to receipt
//                meanwhile, over a sample of the receipts);
//   idle-memory  cairn's RSS growth per idle subscription with SUBSCRIBERS open;
//   fan-out      one change to SUBSCRIBERS subscribers: the time from its commit (the message's
//                `timestamp`) to each receipt, p50/p99/max over LATENCY_ROUNDS changes.
// The subscribers are held by cairn_realtime_subscribers (subscriber_pool.cpp, SUBSCRIBERS_BIN),
// a one-thread epoll client cheap enough per message not to be what is measured; this script
// makes the users, writes through HTTP and reads the pool's counts. Every subscriber needs a
// session and a user holds at most 10 live subscriptions, so SUBSCRIBERS/10 users are made.
// Prints one JSON object.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';

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
const SUBSCRIBERS_BIN = env('SUBSCRIBERS_BIN');
const REPORT_LUA = join(dirname(new URL(import.meta.url).pathname), '..', 'wrk', 'report.lua');

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

const tokensFile = join(mkdtempSync(join(tmpdir(), 'cairn-rt-')), 'tokens');
writeFileSync(tokensFile, tokens.join('\n') + '\n');

// `count` subscriptions held by the pool program; `ask` sends a command and resolves with the
// numbers of its answer.
async function pool(count) {
  const child = spawn(SUBSCRIBERS_BIN, [new URL(BASE).port, '/api/tables/items/subscribe', tokensFile,
                                        String(count)], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const next = async () => (await lines.next()).value.split(' ');
  const [, ready] = await next();
  if (Number(ready) !== count) throw new Error(`only ${ready} of ${count} subscribed`);
  return {
    ask: async (command) => { child.stdin.write(command + '\n'); return (await next()).slice(1).map(Number); },
    quit: async () => { child.stdin.end('quit\n'); await new Promise((resolve) => child.on('exit', resolve)); await sleep(1000); },
  };
}
const cpuMs = () => {
  const fields = readFileSync(`/proc/${PID}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;  // utime + stime, 100 ticks a second
};

// Creates for WRITE_SECONDS from WRITERS keep-alive connections of wrk (bench/wrk/report.lua, as
// bench/run): a node client would spend a third of the 2 cores it shares with cairn on making
// the requests.
async function writeRate() {
  const cpu = cpuMs();
  const child = spawn('wrk', ['-t1', `-c${WRITERS}`, `-d${WRITE_SECONDS}s`, '--timeout', '5s',
                              '-s', REPORT_LUA, `${BASE}/api/tables/items/records`], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: {
      ...process.env, BENCH_METHOD: 'POST', BENCH_BODY: JSON.stringify({ fields: { name: 'w', amount: 1 } }),
      BENCH_HEADERS: `Content-Type: application/json\nAuthorization: Bearer ${admin}`,
    },
  });
  let out = '';
  child.stdout.on('data', (chunk) => { out += chunk; });
  await new Promise((resolve) => child.on('exit', resolve));
  const line = out.split('\n').find((l) => l.startsWith('BENCH_RESULT '));
  if (!line) throw new Error(`wrk printed no BENCH_RESULT line:\n${out}`);
  const field = (name) => Number(new RegExp(`\\b${name}=([0-9.]+)`).exec(line)[1]);
  if (field('non2xx') !== 0 || field('socket_errors') !== 0) throw new Error(`failed writes: ${line}`);
  const done = field('requests');
  return { writes: done, rate: done / field('duration_s'), cpuMsPerWrite: (cpuMs() - cpu) / done };
}

// Memory and fan-out first, on a fresh process (later phases would reuse memory freed by
// earlier ones); then the write rates.
const result = {};
// Two figures: the growth over all of them from the fresh process (its first-use growth
// included), and the growth per subscription past the first tenth (what one more costs).
const before = rssKb();
const warm = Math.ceil(SUBSCRIBERS / 10);
const subscribers = await pool(warm);
await sleep(1000);
const warmed = rssKb();
const [opened] = await subscribers.ask(`open ${SUBSCRIBERS - warm}`);
if (opened !== SUBSCRIBERS) throw new Error(`only ${opened} of ${SUBSCRIBERS} subscribed`);
await sleep(3000);
const after = rssKb();
result.subscribers = SUBSCRIBERS;
result.idle_rss_growth_kb = after - before;
result.idle_bytes_per_subscription = Math.round((after - before) * 1024 / SUBSCRIBERS);
result.idle_bytes_per_subscription_past_first_tenth =
  Math.round((after - warmed) * 1024 / (SUBSCRIBERS - warm));

// Receipts may come before the write's own answer: the pool times every change from here on.
await subscribers.ask('time');
const perRound = [];
for (let i = 0; i < LATENCY_ROUNDS; i++) {
  const id = (await post('/api/tables/items/records', { fields: { name: 'l', amount: 2 } }, admin)).id;
  const [received, p50, p99, max] = await subscribers.ask(`latency ${id}`);
  perRound.push({ received, p50, p99, max });
  await sleep(300);
}
await subscribers.quit();
const median = (key) => [...perRound.map((r) => r[key])].sort((a, b) => a - b)[Math.floor(perRound.length / 2)];
result.fanout_rounds = perRound;
result.fanout_p99_ms_median_round = median('p99');
result.fanout_max_ms_median_round = median('max');

const without = await writeRate();
const listeners = await pool(FANOUT_SUBSCRIBERS);
const [receivedBefore] = await listeners.ask('count');
await listeners.ask('sample');
const withListeners = await writeRate();
await sleep(2000);
const [sampled, loadP50, loadP99, loadMax] = await listeners.ask('sampled');
const [receivedAfter, closedByServer] = await listeners.ask('count');
await listeners.quit();
result.writes_per_second_without_subscribers = without.rate;
result.writes_per_second_with_subscribers = withListeners.rate;
result.write_rate_ratio = withListeners.rate / without.rate;
result.cairn_cpu_ms_per_write_without = without.cpuMsPerWrite;
result.cairn_cpu_ms_per_write_with = withListeners.cpuMsPerWrite;
result.fanout_subscribers = FANOUT_SUBSCRIBERS;
// From commit to receipt while the writes stream, over a sample of the receipts.
result.latency_under_writes = { sampled, p50: loadP50, p99: loadP99, max: loadMax };
// wrk counts the answers within its time; the requests in flight then (one per connection at
// most) commit too.
result.fanout_messages_expected_at_least = withListeners.writes * FANOUT_SUBSCRIBERS;
result.fanout_messages_expected_at_most = (withListeners.writes + WRITERS) * FANOUT_SUBSCRIBERS;
result.fanout_messages_received = receivedAfter - receivedBefore;
result.fanout_closed_by_server = closedByServer;

rmSync(dirname(tokensFile), { recursive: true, force: true });
console.log(JSON.stringify(result, null, 2));
process.exit(0);
