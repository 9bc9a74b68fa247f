// Drives cairn's two-factor routes (D19) with the official Better Auth 1.7.25 client and its
// `twoFactorClient` plugin, the way a browser does: a cookie jar (the sign-in challenge lives in
// the `better-auth.two_factor` cookie) and the server's own Origin. TOTP codes are computed here
// with node's crypto (RFC 6238: HMAC-SHA1, 6 digits, 30 s); mailed codes are read from the
// outbox.
//
//   node two_factor.mjs <base-url>     (CAIRN_OUTBOX_DIR: the server's <data-dir>/outbox)
//
// Run by run_better_auth_compat.sh after compat.mjs, against a server with `twoFactor: true`.
import { createAuthClient } from "better-auth/client";
import { twoFactorClient } from "better-auth/client/plugins";
import { createHmac } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { inspect } from "node:util";

const baseArg = process.argv[2];
if (!baseArg) {
  console.error("usage: node two_factor.mjs <base-url>");
  process.exit(2);
}
const baseURL = baseArg.replace(/\/+$/, "");
const origin = new URL(baseURL).origin;
const outboxDir = process.env.CAIRN_OUTBOX_DIR;
const TOTAL_TIMEOUT_MS = 60_000;
setTimeout(() => {
  console.error(`FAIL: two_factor.mjs did not finish within ${TOTAL_TIMEOUT_MS / 1000} s`);
  process.exit(1);
}, TOTAL_TIMEOUT_MS).unref();

const show = (value) => inspect(value, { depth: 6, breakLength: Infinity, compact: true });
function check(condition, message) {
  if (!condition) throw new Error(message);
}
function eq(actual, expected, what) {
  check(actual === expected, `${what}: expected ${show(expected)}, got ${show(actual)}`);
}
function ok(result, what) {
  check(result.error === null, `${what}: expected success, got error ${show(result.error)}`);
  return result.data;
}
function failed(result, status, reason, what) {
  check(result.error !== null, `${what}: expected an error, got data ${show(result.data)}`);
  eq(result.error.status, status, `${what}: error.status (${show(result.error)})`);
  eq(result.error.error, reason, `${what}: error.error (${show(result.error)})`);
}

// --- TOTP (RFC 6238) ------------------------------------------------------------------------------

function base32Decode(text) {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
  let bits = 0;
  let value = 0;
  const out = [];
  for (const c of text.replace(/=+$/, "")) {
    value = (value << 5) | alphabet.indexOf(c);
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}

function totp(key, stepsAhead = 0) {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(Date.now() / 30_000) + stepsAhead));
  const mac = createHmac("sha1", key).update(counter).digest();
  const offset = mac[mac.length - 1] & 0x0f;
  const binary = ((mac[offset] & 0x7f) << 24) | (mac[offset + 1] << 16) |
                 (mac[offset + 2] << 8) | mac[offset + 3];
  return String(binary % 1_000_000).padStart(6, "0");
}

// --- a browser-like client ------------------------------------------------------------------------

function makeClient() {
  const jar = new Map();
  const redirects = [];
  const cookieFetch = async (input, init = {}) => {
    const headers = new Headers(init.headers);
    if (jar.size) headers.set("cookie", [...jar].map(([k, v]) => `${k}=${v}`).join("; "));
    const response = await fetch(input, { ...init, headers });
    for (const line of response.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(";");
      const name = pair.slice(0, pair.indexOf("="));
      const value = pair.slice(pair.indexOf("=") + 1);
      const expired = attributes.some((a) => a.trim().toLowerCase() === "max-age=0");
      if (expired || value === "") jar.delete(name);
      else jar.set(name, value);
    }
    return response;
  };
  const client = createAuthClient({
    baseURL,
    plugins: [twoFactorClient({ onTwoFactorRedirect: (context) => redirects.push(context) })],
    fetchOptions: { headers: { origin }, customFetchImpl: cookieFetch },
  });
  return { client, jar, redirects };
}

function lastMailedCode(before) {
  check(outboxDir, "CAIRN_OUTBOX_DIR is not set");
  const files = readdirSync(outboxDir).filter((f) => f.endsWith(".eml")).sort();
  check(files.length > before, `no new mail in ${outboxDir}`);
  const text = readFileSync(join(outboxDir, files[files.length - 1]), "utf8");
  const match = /code is (\d{6})/.exec(text);
  check(match, `no code in the mail: ${text}`);
  return match[1];
}
function mailCount() {
  try {
    return readdirSync(outboxDir).filter((f) => f.endsWith(".eml")).length;
  } catch {
    return 0;
  }
}

// --- the run --------------------------------------------------------------------------------------

let passed = 0;
async function step(name, body) {
  try {
    await body();
    passed += 1;
    console.log(`ok   ${name}`);
  } catch (error) {
    console.log(`FAIL ${name}: ${error.message}`);
    console.log(`two-factor compat: FAILED after ${passed} step(s)`);
    process.exit(1);
  }
}

const { client, jar, redirects } = makeClient();
const email = `two-factor-${Date.now()}@example.com`;
const password = "two-factor-password-1";
let key;
let backupCodes;

await step("signUp and twoFactor.enable: a TOTP URI and 10 backup codes", async () => {
  ok(await client.signUp.email({ name: "Two Factor", email, password }), "signUp.email");
  failed(await client.twoFactor.enable({ password: "wrong-password-1" }), 400, "INVALID_PASSWORD",
         "twoFactor.enable with a wrong password");
  const data = ok(await client.twoFactor.enable({ password }), "twoFactor.enable");
  check(data.totpURI.startsWith("otpauth://totp/better-auth-compat:"), `totpURI ${data.totpURI}`);
  const secret = new URL(data.totpURI).searchParams.get("secret");
  key = base32Decode(secret);
  eq(data.backupCodes.length, 10, "backupCodes.length");
  backupCodes = data.backupCodes;
  const uri = ok(await client.twoFactor.getTotpUri({ password }), "twoFactor.getTotpUri");
  eq(uri.totpURI, data.totpURI, "getTotpUri: totpURI");
});

await step("twoFactor.verifyTotp while signed in turns two-factor on", async () => {
  failed(await client.twoFactor.verifyTotp({ code: "000000" === totp(key) ? "111111" : "000000" }),
         401, "INVALID_CODE", "verifyTotp with a wrong code");
  const data = ok(await client.twoFactor.verifyTotp({ code: totp(key) }), "twoFactor.verifyTotp");
  eq(data.user.twoFactorEnabled, true, "user.twoFactorEnabled");
  const session = ok(await client.getSession(), "getSession");
  eq(session.user.twoFactorEnabled, true, "getSession: user.twoFactorEnabled");
});

await step("signOut, signIn: twoFactorRedirect and no session", async () => {
  ok(await client.signOut(), "signOut");
  const data = ok(await client.signIn.email({ email, password }), "signIn.email");
  eq(data.twoFactorRedirect, true, "twoFactorRedirect");
  eq(JSON.stringify(data.twoFactorMethods), JSON.stringify(["totp", "otp"]), "twoFactorMethods");
  eq(redirects.length, 1, "onTwoFactorRedirect calls");
  check(!("token" in data), `no token before the second factor: ${show(data)}`);
  check(jar.has("better-auth.two_factor"), "the two_factor cookie is set");
  eq(ok(await client.getSession(), "getSession during the challenge"), null, "getSession");
});

await step("twoFactor.verifyTotp answers the challenge; the same code is refused again", async () => {
  const code = totp(key, 1);  // this step's code confirmed the setup
  const data = ok(await client.twoFactor.verifyTotp({ code }), "twoFactor.verifyTotp");
  check(typeof data.token === "string" && data.token.length === 32, `token ${show(data.token)}`);
  eq(data.user.email, email, "user.email");
  check(!jar.has("better-auth.two_factor"), "the two_factor cookie is cleared");
  const session = ok(await client.getSession(), "getSession");
  eq(session.user.email, email, "getSession: user.email");
  ok(await client.signOut(), "signOut");
  ok(await client.signIn.email({ email, password }), "signIn.email");
  failed(await client.twoFactor.verifyTotp({ code }), 401, "INVALID_CODE", "verifyTotp replayed");
});

await step("twoFactor.verifyBackupCode signs in once per code", async () => {
  const data = ok(await client.twoFactor.verifyBackupCode({ code: backupCodes[0] }),
                  "twoFactor.verifyBackupCode");
  eq(data.user.email, email, "user.email");
  ok(await client.signOut(), "signOut");
  ok(await client.signIn.email({ email, password }), "signIn.email");
  failed(await client.twoFactor.verifyBackupCode({ code: backupCodes[0] }), 401,
         "INVALID_BACKUP_CODE", "verifyBackupCode reused");
});

await step("twoFactor.sendOtp mails a code; verifyOtp with trustDevice signs in", async () => {
  const before = mailCount();
  eq(ok(await client.twoFactor.sendOtp(), "twoFactor.sendOtp").status, true, "sendOtp: status");
  const code = lastMailedCode(before);
  const data = ok(await client.twoFactor.verifyOtp({ code, trustDevice: true }),
                  "twoFactor.verifyOtp");
  eq(data.user.email, email, "user.email");
  check(jar.has("better-auth.trust_device"), "the trust_device cookie is set");
});

await step("a trusted device signs in without the challenge; disable turns it off", async () => {
  ok(await client.signOut(), "signOut");
  const data = ok(await client.signIn.email({ email, password }), "signIn.email (trusted)");
  check(typeof data.token === "string", `a session at once: ${show(data)}`);
  failed(await client.twoFactor.disable({ password: "wrong-password-1" }), 400, "INVALID_PASSWORD",
         "twoFactor.disable with a wrong password");
  eq(ok(await client.twoFactor.disable({ password }), "twoFactor.disable").status, true,
     "disable: status");
  const session = ok(await client.getSession(), "getSession");
  eq(session.user.twoFactorEnabled, false, "user.twoFactorEnabled after disable");
});

console.log(`two-factor compat: all ${passed} steps passed`);
process.exit(0);
