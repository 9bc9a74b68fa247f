// Drives a running cairn server with Better Auth 1.7.25's magicLinkClient and emailOTPClient (the
// official client plugins, unchanged), reading the links and codes from the server's mail outbox
// (D19). Run by run_better_auth_compat.sh after compat.mjs; the server has the magicLink and
// emailOtp strategies next to emailAndPassword, sign-up allowed.
//
//   node passwordless.mjs <base-url>     with CAIRN_OUTBOX_DIR=<data-dir>/outbox
//
// As compat.mjs: a Node client without a cookie jar, the bearer token from `set-auth-token`, an
// Origin equal to the server's own; errors are cairn's envelope with Better Auth's code in
// `error`. One line per step; the first failure exits 1 (COMPAT_KEEP_GOING=1: report them all).
import { createAuthClient } from "better-auth/client";
import { emailOTPClient, magicLinkClient } from "better-auth/client/plugins";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { inspect } from "node:util";

const baseArg = process.argv[2];
const outboxDir = process.env.CAIRN_OUTBOX_DIR;
if (!baseArg || !outboxDir) {
  console.error("usage: CAIRN_OUTBOX_DIR=<dir> node passwordless.mjs <base-url>");
  process.exit(2);
}
const baseURL = baseArg.replace(/\/+$/, "");
const origin = new URL(baseURL).origin;
const keepGoing = process.env.COMPAT_KEEP_GOING === "1";
const REQUEST_TIMEOUT_MS = 15_000;
const TOTAL_TIMEOUT_MS = 120_000;
const MAIL_WAIT_MS = 10_000;

setTimeout(() => {
  console.error(`FAIL: the run did not finish within ${TOTAL_TIMEOUT_MS / 1000} s`);
  process.exit(1);
}, TOTAL_TIMEOUT_MS).unref();

// --- assertions -----------------------------------------------------------------------------------

class CheckFailure extends Error {}
const show = (value) => inspect(value, { depth: 6, breakLength: Infinity, compact: true });
function fail(message) {
  throw new CheckFailure(message);
}
function check(condition, message) {
  if (!condition) fail(message);
}
function eq(actual, expected, what) {
  if (actual !== expected) fail(`${what}: expected ${show(expected)}, got ${show(actual)}`);
}
function ok(result, what) {
  check(result && "data" in result && "error" in result, `${what}: not {data, error}: ${show(result)}`);
  if (result.error !== null) fail(`${what}: expected success, got error ${show(result.error)}`);
  return result.data;
}
// A failed call: HTTP status and Better Auth's code (cairn puts it in `error`, D12).
function failed(result, status, reason, what) {
  check(result && "data" in result && "error" in result, `${what}: not {data, error}: ${show(result)}`);
  if (result.error === null) fail(`${what}: expected an error, got data ${show(result.data)}`);
  eq(result.error.status, status, `${what}: error.status (error ${show(result.error)})`);
  eq(result.error.error, reason, `${what}: error.error (error ${show(result.error)})`);
}

// --- clients and mail -------------------------------------------------------------------------------

function makeClient() {
  const state = { token: null };
  const client = createAuthClient({
    baseURL,
    plugins: [magicLinkClient(), emailOTPClient()],
    fetchOptions: {
      headers: { origin },
      timeout: REQUEST_TIMEOUT_MS,
      auth: { type: "Bearer", token: () => state.token ?? "" },
      onSuccess: (ctx) => {
        const header = ctx.response.headers.get("set-auth-token");
        if (header) state.token = header;
      },
    },
  });
  return { client, state };
}

function decodeQuotedPrintable(text) {
  return text.replace(/=\r?\n/g, "").replace(/=([0-9A-F]{2})/g,
                                              (_, hex) => String.fromCharCode(parseInt(hex, 16)));
}

function mailsTo(address) {
  return readdirSync(outboxDir).filter((name) => name.endsWith(".eml")).sort()
    .map((name) => readFileSync(join(outboxDir, name), "utf8"))
    .filter((raw) => /^To: .*$/mi.exec(raw)?.[0].toLowerCase().includes(address.toLowerCase()));
}

// Runs `send` and returns the decoded text of the one new mail to `address` (it goes out after
// the answer, so this waits for it).
async function mailAfter(address, send) {
  const before = mailsTo(address).length;
  await send();
  const deadline = Date.now() + MAIL_WAIT_MS;
  while (Date.now() < deadline) {
    const mails = mailsTo(address);
    if (mails.length > before) {
      eq(mails.length, before + 1, `mail to ${address}: new messages`);
      return decodeQuotedPrintable(mails[mails.length - 1]);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  fail(`no mail to ${address} within ${MAIL_WAIT_MS / 1000} s`);
}

const codeOf = (mail) => /\b(\d{6})\b/.exec(mail.split(/\r?\n\r?\n/).slice(1).join("\n"))?.[1];
const linkOf = (mail) => /https?:\/\/\S+/.exec(mail)?.[0];
const otherCode = (code) => `${(Number(code[0]) + 1) % 10}${code.slice(1)}`;

let failures = 0;
let passed = 0;
async function step(name, body) {
  try {
    await body();
    passed += 1;
    console.log(`ok   ${name}`);
  } catch (error) {
    failures += 1;
    const message = error instanceof CheckFailure ? error.message : (error?.stack ?? String(error));
    console.log(`FAIL ${name}\n     ${message}`);
    if (!keepGoing) {
      console.log(`better-auth passwordless: FAILED at "${name}" (${passed} steps passed before it)`);
      process.exit(1);
    }
  }
}

const run = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;

// --- magic links ------------------------------------------------------------------------------------

const magicEmail = `magic-${run}@example.com`;
let magicToken = null;

await step("signIn.magicLink mails a link to an unknown address", async () => {
  const { client } = makeClient();
  let data;
  const mail = await mailAfter(magicEmail, async () => {
    data = ok(await client.signIn.magicLink({ email: magicEmail, name: "Magic User" }),
              "signIn.magicLink");
  });
  eq(JSON.stringify(data), JSON.stringify({ status: true }), "signIn.magicLink: data");
  const link = new URL(linkOf(mail));
  eq(link.origin + link.pathname, `${baseURL}/api/auth/magic-link/verify`, "the mailed link");
  magicToken = link.searchParams.get("token");
  check(/^[A-Za-z0-9]{32}$/.test(magicToken ?? ""), `the link's token: ${show(magicToken)}`);
});

await step("magicLink.verify signs the new user up and in", async () => {
  const { client, state } = makeClient();
  const data = ok(await client.magicLink.verify({ query: { token: magicToken } }), "magicLink.verify");
  eq(data.user.email, magicEmail, "magicLink.verify: user.email");
  eq(data.user.name, "Magic User", "magicLink.verify: user.name");
  eq(data.user.emailVerified, true, "magicLink.verify: user.emailVerified");
  eq(data.session.userId, data.user.id, "magicLink.verify: session.userId");
  check(state.token?.startsWith(`${data.token}.`), `set-auth-token: ${show(state.token)}`);
  const session = ok(await client.getSession(), "getSession after magicLink.verify");
  eq(session.user.id, data.user.id, "getSession: user.id");
});

await step("magicLink.verify refuses a used link, redirecting with ?error=", async () => {
  const { client } = makeClient();
  let response = null;
  await client.magicLink.verify({ query: { token: magicToken, callbackURL: "/after" } },
                                { redirect: "manual", onResponse: (ctx) => { response = ctx.response; } });
  eq(response?.status, 302, "a used link: status");
  eq(response.headers.get("location"), `${baseURL}/after?error=INVALID_TOKEN`, "a used link: Location");
});

await step("a link to an existing account redirects to callbackURL with a session", async () => {
  const { client } = makeClient();
  const mail = await mailAfter(magicEmail, async () => {
    ok(await client.signIn.magicLink({ email: magicEmail, callbackURL: "/dashboard" }),
       "signIn.magicLink with callbackURL");
  });
  const link = new URL(linkOf(mail));
  eq(link.searchParams.get("callbackURL"), "/dashboard", "the link's callbackURL");
  let response = null;
  await client.magicLink.verify(
    { query: { token: link.searchParams.get("token"), callbackURL: "/dashboard" } },
    { redirect: "manual", onResponse: (ctx) => { response = ctx.response; } });
  eq(response?.status, 302, "verify with callbackURL: status");
  eq(response.headers.get("location"), `${baseURL}/dashboard`, "verify with callbackURL: Location");
  check(/better-auth\.session_token=/.test(response.headers.get("set-cookie") ?? ""),
        "verify with callbackURL: the session cookie");
});

await step("signIn.magicLink refuses a callbackURL off this origin", async () => {
  const { client } = makeClient();
  failed(await client.signIn.magicLink({ email: magicEmail, callbackURL: "https://evil.example/" }),
         400, "INVALID_CALLBACK_URL", "signIn.magicLink with a foreign callbackURL");
});

// --- email one-time codes ---------------------------------------------------------------------------

const otpEmail = `otp-${run}@example.com`;

await step("emailOtp.sendVerificationOtp + signIn.emailOtp sign a new user up", async () => {
  const { client, state } = makeClient();
  let data;
  const mail = await mailAfter(otpEmail, async () => {
    data = ok(await client.emailOtp.sendVerificationOtp({ email: otpEmail, type: "sign-in" }),
              "emailOtp.sendVerificationOtp");
  });
  eq(JSON.stringify(data), JSON.stringify({ success: true }), "sendVerificationOtp: data");
  const otp = codeOf(mail);
  check(/^\d{6}$/.test(otp ?? ""), `the mailed code: ${show(otp)}`);
  failed(await client.signIn.emailOtp({ email: otpEmail, otp: otherCode(otp) }), 400, "INVALID_OTP",
         "signIn.emailOtp with a wrong code");
  const signedIn = ok(await client.signIn.emailOtp({ email: otpEmail, otp, name: "Otp User" }),
                      "signIn.emailOtp");
  eq(signedIn.user.email, otpEmail, "signIn.emailOtp: user.email");
  eq(signedIn.user.emailVerified, true, "signIn.emailOtp: user.emailVerified");
  check(state.token?.startsWith(`${signedIn.token}.`), `set-auth-token: ${show(state.token)}`);
  eq(ok(await client.getSession(), "getSession").user.id, signedIn.user.id, "getSession: user.id");
  failed(await client.signIn.emailOtp({ email: otpEmail, otp }), 400, "INVALID_OTP",
         "signIn.emailOtp with a used code");
});

await step("three wrong codes use a code up (TOO_MANY_ATTEMPTS)", async () => {
  const { client } = makeClient();
  const otp = codeOf(await mailAfter(otpEmail, async () => {
    ok(await client.emailOtp.sendVerificationOtp({ email: otpEmail, type: "sign-in" }), "send");
  }));
  for (let i = 0; i < 3; i += 1) {
    failed(await client.signIn.emailOtp({ email: otpEmail, otp: otherCode(otp) }), 400,
           "INVALID_OTP", `wrong code ${i + 1}`);
  }
  failed(await client.signIn.emailOtp({ email: otpEmail, otp }), 403, "TOO_MANY_ATTEMPTS",
         "the right code after three wrong ones");
});

await step("emailOtp.checkVerificationOtp and emailOtp.verifyEmail verify an address", async () => {
  const email = `verify-${run}@example.com`;
  const { client } = makeClient();
  ok(await client.signUp.email({ name: "To Verify", email, password: "first-password-1" }), "signUp.email");
  const otp = codeOf(await mailAfter(email, async () => {
    ok(await client.emailOtp.sendVerificationOtp({ email, type: "email-verification" }), "send");
  }));
  const checked = ok(await client.emailOtp.checkVerificationOtp({ email, type: "email-verification", otp }),
                     "emailOtp.checkVerificationOtp");
  eq(JSON.stringify(checked), JSON.stringify({ success: true }), "checkVerificationOtp: data");
  const data = ok(await client.emailOtp.verifyEmail({ email, otp }), "emailOtp.verifyEmail");
  eq(data.status, true, "verifyEmail: status");
  eq(data.token, null, "verifyEmail: token");
  eq(data.user.emailVerified, true, "verifyEmail: user.emailVerified");
  failed(await client.emailOtp.verifyEmail({ email, otp }), 400, "INVALID_OTP", "verifyEmail again");
});

await step("emailOtp.requestPasswordReset + emailOtp.resetPassword set a new password", async () => {
  const email = `reset-${run}@example.com`;
  const { client } = makeClient();
  ok(await client.signUp.email({ name: "Resetter", email, password: "first-password-1" }), "signUp.email");
  let data;
  const otp = codeOf(await mailAfter(email, async () => {
    data = ok(await client.emailOtp.requestPasswordReset({ email }), "emailOtp.requestPasswordReset");
  }));
  eq(JSON.stringify(data), JSON.stringify({ success: true }), "requestPasswordReset: data");
  const reset = ok(await client.emailOtp.resetPassword({ email, otp, password: "second-password-2" }),
                   "emailOtp.resetPassword");
  eq(JSON.stringify(reset), JSON.stringify({ success: true }), "resetPassword: data");
  ok(await makeClient().client.signIn.email({ email, password: "second-password-2" }),
     "signIn.email with the new password");
  failed(await makeClient().client.signIn.email({ email, password: "first-password-1" }), 401,
         "INVALID_EMAIL_OR_PASSWORD", "signIn.email with the old password");
});

if (failures > 0) {
  console.log(`better-auth passwordless: FAILED, ${failures} step(s) failed, ${passed} passed`);
  process.exit(1);
}
console.log(`better-auth passwordless: all ${passed} steps passed`);
process.exit(0);
