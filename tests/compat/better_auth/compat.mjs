// Drives a running cairn server with the official Better Auth 1.7.25 client (better-auth/client
// + adminClient), the way a Node program without a cookie jar uses it: the bearer approach of the
// wire contract (§5.4), i.e. `Authorization: Bearer <token>` from the sign-in/sign-up token or
// the `set-auth-token` header, plus an `Origin` equal to the server's own origin (Node's fetch
// sends `sec-fetch-mode`, which makes sign-in/sign-up origin-checked, §0.6 C).
//
//   node compat.mjs <base-url>        e.g. node compat.mjs http://127.0.0.1:3000
//
// Environment: AUTH_ADMIN_EMAIL / AUTH_ADMIN_PASSWORD name the admin the server was started with.
// COMPAT_KEEP_GOING=1 reports every failing step instead of stopping at the first one.
//
// Errors: cairn answers with its envelope (D12 of the cairn decisions): `code` is one of the
// envelope codes (UNAUTHORIZED, FORBIDDEN, NOT_FOUND, VALIDATION_ERROR, …), Better Auth's own
// code goes in `error`, and `message` and the HTTP status are Better Auth's. The client copies
// the body into `error` and adds `status`/`statusText`, so that is what is asserted below.
//
// One line per step on stdout; the first failure exits 1 with what was expected and what came.
import { createAuthClient } from "better-auth/client";
import { adminClient } from "better-auth/client/plugins";
import { inspect } from "node:util";

const baseArg = process.argv[2];
if (!baseArg) {
  console.error("usage: node compat.mjs <base-url>");
  process.exit(2);
}
const baseURL = baseArg.replace(/\/+$/, "");
const origin = new URL(baseURL).origin;
const adminEmail = (process.env.AUTH_ADMIN_EMAIL || "admin@example.com").toLowerCase();
const adminPassword = process.env.AUTH_ADMIN_PASSWORD || "admin-password-1";
const keepGoing = process.env.COMPAT_KEEP_GOING === "1";
const REQUEST_TIMEOUT_MS = 15_000;
const TOTAL_TIMEOUT_MS = 120_000;

// Never hang: the whole run has a deadline (the runner has its own as well).
setTimeout(() => {
  console.error(`FAIL: the run did not finish within ${TOTAL_TIMEOUT_MS / 1000} s`);
  process.exit(1);
}, TOTAL_TIMEOUT_MS).unref();

// --- assertions -----------------------------------------------------------------------------------

class CheckFailure extends Error {}

function show(value) {
  return inspect(value, { depth: 6, breakLength: Infinity, compact: true });
}

function fail(message) {
  throw new CheckFailure(message);
}

function check(condition, message) {
  if (!condition) fail(message);
}

function eq(actual, expected, what) {
  if (actual !== expected) fail(`${what}: expected ${show(expected)}, got ${show(actual)}`);
}

const ENVELOPE_CODES = [
  "UNAUTHORIZED", "FORBIDDEN", "NOT_FOUND", "VALIDATION_ERROR", "CONFLICT", "RATE_LIMITED",
  "INTERNAL_ERROR", "SERVICE_UNAVAILABLE",
];
const STATUS_TEXT = {
  400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found",
  422: "Unprocessable Entity",
};
const ID = /^[A-Za-z0-9]{32}$/;
// `<token>.<base64 HMAC-SHA256>` (contract §2.4): what set-auth-token carries.
const SIGNED_TOKEN = /^([A-Za-z0-9]{32})\.[A-Za-z0-9+/]{43}=$/;

// A successful call: error null, data present.
function ok(result, what) {
  check(result && typeof result === "object" && "data" in result && "error" in result,
        `${what}: the client did not return {data, error}: ${show(result)}`);
  if (result.error !== null) {
    fail(`${what}: expected success, got error ${show(result.error)}`);
  }
  return result.data;
}

// A failed call. `expected` = {status, code?, reason?, message?}: `code` is cairn's envelope
// code, `reason` the Better Auth code it carries in `error` (D12).
function failed(result, expected, what) {
  check(result && typeof result === "object" && "data" in result && "error" in result,
        `${what}: the client did not return {data, error}: ${show(result)}`);
  if (result.error === null) fail(`${what}: expected an error, got data ${show(result.data)}`);
  const error = result.error;
  eq(result.data, null, `${what}: data`);
  eq(error.status, expected.status, `${what}: error.status (error ${show(error)})`);
  if (STATUS_TEXT[expected.status]) {
    eq(error.statusText, STATUS_TEXT[expected.status], `${what}: error.statusText`);
  }
  if (expected.message !== undefined) {
    eq(error.message, expected.message, `${what}: error.message (error ${show(error)})`);
  }
  if (expected.code !== undefined) {
    eq(error.code, expected.code, `${what}: error.code (error ${show(error)})`);
  } else if (expected.envelope) {
    check(ENVELOPE_CODES.includes(error.code),
          `${what}: error.code must be an envelope code (${ENVELOPE_CODES.join(", ")}), got ` +
          `${show(error.code)} (error ${show(error)})`);
  }
  if (expected.reason !== undefined) {
    eq(error.error, expected.reason, `${what}: error.error (error ${show(error)})`);
  }
  return error;
}

function isDate(value) {
  return value instanceof Date && !Number.isNaN(value.getTime());
}

function near(date, expectedMillis, toleranceMillis, what) {
  check(isDate(date), `${what}: expected a Date, got ${show(date)}`);
  const delta = Math.abs(date.getTime() - expectedMillis);
  check(delta <= toleranceMillis,
        `${what}: expected about ${new Date(expectedMillis).toISOString()}, got ` +
        `${date.toISOString()}`);
}

const USER_KEYS = ["id", "name", "email", "emailVerified", "image", "createdAt", "updatedAt",
                   "role", "banned", "banReason", "banExpires", "twoFactorEnabled"];
// A user object (contract §1 "User", cairn D10): every key present, dates parsed into Date by the
// client (which only happens for ISO-8601 strings with `T` and `Z`/offset), plus `expected`.
function checkUser(user, expected, what) {
  check(user && typeof user === "object" && !Array.isArray(user),
        `${what}: expected a user object, got ${show(user)}`);
  for (const key of USER_KEYS) {
    check(key in user, `${what}: user has no "${key}" (${show(user)})`);
  }
  check(ID.test(user.id), `${what}: user.id ${show(user.id)} is not 32 alphanumerics`);
  eq(typeof user.name, "string", `${what}: typeof user.name`);
  eq(typeof user.email, "string", `${what}: typeof user.email`);
  eq(typeof user.emailVerified, "boolean", `${what}: typeof user.emailVerified`);
  check(user.image === null || typeof user.image === "string",
        `${what}: user.image must be a string or null, got ${show(user.image)}`);
  check(isDate(user.createdAt), `${what}: user.createdAt must parse to a Date, got ${show(user.createdAt)}`);
  check(isDate(user.updatedAt), `${what}: user.updatedAt must parse to a Date, got ${show(user.updatedAt)}`);
  check(user.updatedAt.getTime() >= user.createdAt.getTime(),
        `${what}: user.updatedAt precedes createdAt`);
  check(user.role === null || typeof user.role === "string",
        `${what}: user.role must be a string or null, got ${show(user.role)}`);
  check(user.banned === null || typeof user.banned === "boolean",
        `${what}: user.banned must be a boolean or null, got ${show(user.banned)}`);
  check(user.banReason === null || typeof user.banReason === "string",
        `${what}: user.banReason must be a string or null, got ${show(user.banReason)}`);
  check(user.banExpires === null || isDate(user.banExpires),
        `${what}: user.banExpires must be null or parse to a Date, got ${show(user.banExpires)}`);
  eq(typeof user.twoFactorEnabled, "boolean", `${what}: typeof user.twoFactorEnabled`);
  for (const [key, value] of Object.entries(expected)) {
    eq(user[key], value, `${what}: user.${key}`);
  }
  return user;
}

const SESSION_KEYS = ["id", "token", "userId", "expiresAt", "createdAt", "updatedAt", "ipAddress",
                      "userAgent", "impersonatedBy"];
function checkSession(session, expected, what) {
  check(session && typeof session === "object" && !Array.isArray(session),
        `${what}: expected a session object, got ${show(session)}`);
  for (const key of SESSION_KEYS) {
    check(key in session, `${what}: session has no "${key}" (${show(session)})`);
  }
  eq(typeof session.id, "string", `${what}: typeof session.id`);
  eq(typeof session.token, "string", `${what}: typeof session.token`);
  eq(typeof session.userId, "string", `${what}: typeof session.userId`);
  for (const key of ["expiresAt", "createdAt", "updatedAt"]) {
    check(isDate(session[key]), `${what}: session.${key} must parse to a Date, got ${show(session[key])}`);
  }
  check(session.expiresAt.getTime() > Date.now(), `${what}: session.expiresAt is in the past`);
  for (const [key, value] of Object.entries(expected)) {
    eq(session[key], value, `${what}: session.${key}`);
  }
  return session;
}

// --- clients ----------------------------------------------------------------------------------------

// One client per identity, as §5.4 shows: the bearer token is whatever it was last given, and
// every `set-auth-token` the server sends replaces it.
function makeClient(token = null) {
  const state = { token, lastSetAuthToken: null };
  const client = createAuthClient({
    baseURL,
    plugins: [adminClient()],
    fetchOptions: {
      headers: { origin },
      timeout: REQUEST_TIMEOUT_MS,
      auth: { type: "Bearer", token: () => state.token ?? "" },
      onSuccess: (ctx) => {
        const header = ctx.response.headers.get("set-auth-token");
        state.lastSetAuthToken = header;
        if (header) state.token = header;
      },
    },
  });
  return { client, state };
}

// The raw session token inside a bearer value (`token` or `token.signature`).
function rawToken(bearer) {
  return bearer.includes(".") ? bearer.slice(0, bearer.indexOf(".")) : bearer;
}

// --- the run ----------------------------------------------------------------------------------------

let failures = 0;
let passed = 0;
const notes = [];

async function step(name, body) {
  try {
    const detail = await body();
    passed += 1;
    console.log(`ok   ${name}${detail ? ` — ${detail}` : ""}`);
  } catch (error) {
    failures += 1;
    const message = error instanceof CheckFailure ? error.message : (error?.stack ?? String(error));
    console.log(`FAIL ${name}\n     ${message}`);
    if (!keepGoing) {
      console.log(`better-auth compat: FAILED at "${name}" (${passed} steps passed before it)`);
      process.exit(1);
    }
  }
}

// A difference from Better Auth that the official client does not notice; printed, not failed.
function note(text) {
  notes.push(text);
  console.log(`note ${text}`);
}

const run = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
const userEmail = `Compat-${run}@Example.com`;  // cairn and Better Auth store it lower-cased
const userEmailLower = userEmail.toLowerCase();
const password1 = "first-password-1";
const password2 = "second-password-2";
const createdEmail = `created-${run}@example.com`;
const createdPassword1 = "created-password-1";
const createdPassword2 = "created-password-2";

const ctx = {};  // what later steps need from earlier ones

console.log(`better-auth compat: ${baseURL} (origin ${origin}), run ${run}`);

await step("server answers /api/health", async () => {
  const response = await fetch(`${baseURL}/api/health`, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
  eq(response.status, 200, "GET /api/health status");
});

await step("signUp.email creates a user and a session", async () => {
  const a = makeClient();
  const data = ok(await a.client.signUp.email({ name: "Compat User", email: userEmail, password: password1 }),
                  "signUp.email");
  check(typeof data.token === "string" && ID.test(data.token),
        `signUp.email: data.token must be a 32-character token, got ${show(data.token)}`);
  checkUser(data.user, {
    name: "Compat User", email: userEmailLower, emailVerified: false, image: null, role: "member",
    banned: false, banReason: null, banExpires: null, twoFactorEnabled: false,
  }, "signUp.email");
  near(data.user.createdAt, Date.now(), 60_000, "signUp.email: user.createdAt");
  const header = a.state.lastSetAuthToken;
  check(header && SIGNED_TOKEN.test(header) && rawToken(header) === data.token,
        `signUp.email: set-auth-token must be "<data.token>.<signature>", got ${show(header)}`);
  ctx.user = data.user;
  ctx.sessionA = { ...a, token: data.token };
  return `user ${data.user.id}, role ${data.user.role}`;
});

await step("signUp.email with an existing email is refused", async () => {
  const fresh = makeClient();
  // Contract §1.1: 422 USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL; D12 puts that code in `error`.
  const error = failed(
    await fresh.client.signUp.email({ name: "Again", email: userEmailLower, password: password1 }),
    { status: 422, envelope: true, reason: "USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL",
      message: "User already exists. Use another email." },
    "signUp.email (duplicate)");
  return `${error.status} ${error.code}/${error.error}`;
});

await step("signIn.email with a wrong password is 401", async () => {
  const fresh = makeClient();
  const expected = { status: 401, code: "UNAUTHORIZED", reason: "INVALID_EMAIL_OR_PASSWORD",
                     message: "Invalid email or password" };
  failed(await fresh.client.signIn.email({ email: userEmailLower, password: "wrong-password-9" }),
         expected, "signIn.email (wrong password)");
  // D12: an unknown email gives exactly the same answer.
  failed(await fresh.client.signIn.email({ email: `nobody-${run}@example.com`, password: "wrong-password-9" }),
         expected, "signIn.email (unknown email)");
  eq(fresh.state.token, null, "signIn.email (wrong password): a token was handed out");
});

await step("signIn.email succeeds", async () => {
  const b = makeClient();
  const data = ok(await b.client.signIn.email({ email: userEmail, password: password1 }), "signIn.email");
  eq(data.redirect, false, "signIn.email: data.redirect");
  check(!("url" in data), `signIn.email: data.url must be absent without a callbackURL, got ${show(data.url)}`);
  check(typeof data.token === "string" && ID.test(data.token),
        `signIn.email: data.token must be a 32-character token, got ${show(data.token)}`);
  check(data.token !== ctx.sessionA.token, "signIn.email: reused the sign-up session's token");
  checkUser(data.user, { id: ctx.user.id, email: userEmailLower, name: "Compat User", role: "member" },
            "signIn.email");
  const header = b.state.lastSetAuthToken;
  check(header && SIGNED_TOKEN.test(header) && rawToken(header) === data.token,
        `signIn.email: set-auth-token must be "<data.token>.<signature>", got ${show(header)}`);
  // From here on this client authenticates with the raw token from the body (§5.4 allows both).
  b.state.token = data.token;
  ctx.sessionB = { ...b, token: data.token };
});

await step("getSession returns the session and user", async () => {
  const { client, state } = ctx.sessionB;
  const data = ok(await client.getSession(), "getSession");
  check(data && typeof data === "object", `getSession: expected {session, user}, got ${show(data)}`);
  checkUser(data.user, { id: ctx.user.id, email: userEmailLower }, "getSession");
  checkSession(data.session, { token: ctx.sessionB.token, userId: ctx.user.id, impersonatedBy: null },
               "getSession");
  near(data.session.expiresAt, Date.now() + 7 * 86400_000, 3600_000, "getSession: session.expiresAt (7 days)");
  ctx.sessionB.id = data.session.id;
  // The signed form of the token (from set-auth-token) is accepted as well.
  const signed = makeClient(ctx.sessionA.state.lastSetAuthToken);
  const viaSigned = ok(await signed.client.getSession(), "getSession (signed bearer)");
  check(viaSigned && viaSigned.session, `getSession (signed bearer): expected a session, got ${show(viaSigned)}`);
  eq(viaSigned.session.token, ctx.sessionA.token, "getSession (signed bearer): session.token");
  ctx.sessionA.id = viaSigned.session.id;
  return `session ${data.session.id}`;
});

await step("getSession without a token is data null, error null", async () => {
  const anonymous = makeClient();
  const result = await anonymous.client.getSession();
  eq(result.error, null, "getSession (no token): error");
  eq(result.data, null, "getSession (no token): data");
  // An unknown token is no session either.
  const bogus = makeClient("A".repeat(32));
  const unknown = await bogus.client.getSession();
  eq(unknown.error, null, "getSession (unknown token): error");
  eq(unknown.data, null, "getSession (unknown token): data");
});

await step("listSessions returns an array with the current session", async () => {
  const data = ok(await ctx.sessionB.client.listSessions(), "listSessions");
  check(Array.isArray(data), `listSessions: expected an array, got ${show(data)}`);
  check(data.length >= 2, `listSessions: expected the sign-up and sign-in sessions, got ${data.length}`);
  for (const session of data) checkSession(session, { userId: ctx.user.id }, "listSessions[]");
  const current = data.find((session) => session.id === ctx.sessionB.id);
  check(current, `listSessions: the current session ${ctx.sessionB.id} is missing (${show(data.map((s) => s.id))})`);
  eq(current.token, ctx.sessionB.token, "listSessions: the current session's token");
  check(data.some((session) => session.id === ctx.sessionA.id),
        `listSessions: the sign-up session ${ctx.sessionA.id} is missing`);
  const other = data.find((session) => session.id === ctx.sessionA.id);
  if (other.token !== ctx.sessionA.token) {
    note(`listSessions shows another session's token as ${show(other.token)}, not the token ` +
         "itself (Better Auth returns the real token; revokeSession accepts what cairn shows)");
  }
  return `${data.length} sessions`;
});

await step("updateUser changes name and image", async () => {
  const { client, state } = ctx.sessionB;
  const data = ok(await client.updateUser({ name: "Renamed User", image: "https://example.com/a.png" }),
                  "updateUser");
  eq(JSON.stringify(data), JSON.stringify({ status: true }), "updateUser: data");
  if (!state.lastSetAuthToken) {
    note("updateUser sends no set-auth-token (Better Auth re-sets the session cookie here; the " +
         "token does not change, so a bearer client is unaffected)");
  } else {
    eq(rawToken(state.lastSetAuthToken), ctx.sessionB.token, "updateUser: set-auth-token names another session");
  }
  const after = ok(await client.getSession(), "getSession after updateUser");
  checkUser(after.user, { id: ctx.user.id, name: "Renamed User", image: "https://example.com/a.png" },
            "getSession after updateUser");
  check(after.user.updatedAt.getTime() >= ctx.user.updatedAt.getTime(),
        "getSession after updateUser: updatedAt went backwards");
  // Contract §1.9: `email` cannot be changed here.
  failed(await client.updateUser({ email: `other-${run}@example.com` }),
         { status: 400, envelope: true, reason: "EMAIL_CAN_NOT_BE_UPDATED" }, "updateUser (email)");
});

await step("changePassword: the new password signs in, the old one no longer does", async () => {
  const { client } = ctx.sessionB;
  failed(await client.changePassword({ currentPassword: "not-the-password", newPassword: password2 }),
         { status: 400, envelope: true, reason: "INVALID_PASSWORD", message: "Invalid password" },
         "changePassword (wrong current password)");
  const data = ok(await client.changePassword({ currentPassword: password1, newPassword: password2 }),
                  "changePassword");
  eq(data.token, null, "changePassword: data.token (no revokeOtherSessions)");
  checkUser(data.user, { id: ctx.user.id, email: userEmailLower }, "changePassword");
  const c = makeClient();
  const signedIn = ok(await c.client.signIn.email({ email: userEmailLower, password: password2 }),
                      "signIn.email with the new password");
  checkUser(signedIn.user, { id: ctx.user.id }, "signIn.email with the new password");
  ctx.sessionC = { ...c, token: signedIn.token };
  failed(await makeClient().client.signIn.email({ email: userEmailLower, password: password1 }),
         { status: 401, code: "UNAUTHORIZED", reason: "INVALID_EMAIL_OR_PASSWORD",
           message: "Invalid email or password" },
         "signIn.email with the old password");
  // The session that changed the password is still valid.
  const still = ok(await client.getSession(), "getSession after changePassword");
  check(still && still.session && still.session.id === ctx.sessionB.id,
        `getSession after changePassword: the current session is gone (${show(still)})`);
});

await step("revokeSession ends one session picked from listSessions", async () => {
  const { client } = ctx.sessionB;
  const c = ok(await ctx.sessionC.client.getSession(), "getSession (new-password session)");
  check(c && c.session, `getSession (new-password session): expected a session, got ${show(c)}`);
  const list = ok(await client.listSessions(), "listSessions before revokeSession");
  const listed = list.find((session) => session.id === c.session.id);
  check(listed, `listSessions: the new-password session ${c.session.id} is missing`);
  // What an app does: revoke the session by the token listSessions shows for it.
  const data = ok(await client.revokeSession({ token: listed.token }), "revokeSession");
  eq(JSON.stringify(data), JSON.stringify({ status: true }), "revokeSession: data");
  const gone = await ctx.sessionC.client.getSession();
  eq(gone.error, null, "getSession with the revoked session: error");
  eq(gone.data, null, "getSession with the revoked session: data");
  const current = ok(await client.getSession(), "getSession with the current session after revokeSession");
  check(current && current.session && current.session.id === ctx.sessionB.id,
        `getSession after revokeSession: the current session is gone (${show(current)})`);
  // Signing in again gives the next step another session to revoke.
  const again = makeClient();
  const signedIn = ok(await again.client.signIn.email({ email: userEmailLower, password: password2 }),
                      "signIn.email (another session)");
  again.state.token = signedIn.token;
  ctx.sessionC = { ...again, token: signedIn.token };
});

await step("revokeOtherSessions keeps only the current session", async () => {
  const { client } = ctx.sessionB;
  const data = ok(await client.revokeOtherSessions(), "revokeOtherSessions");
  eq(JSON.stringify(data), JSON.stringify({ status: true }), "revokeOtherSessions: data");
  for (const [label, other] of [["sign-up", ctx.sessionA], ["second sign-in", ctx.sessionC]]) {
    const gone = await other.client.getSession();
    eq(gone.error, null, `getSession with the revoked ${label} session: error`);
    eq(gone.data, null, `getSession with the revoked ${label} session: data`);
  }
  const current = ok(await client.getSession(), "getSession with the current session");
  check(current && current.session && current.session.id === ctx.sessionB.id,
        `getSession with the current session: expected session ${ctx.sessionB.id}, got ${show(current)}`);
  const list = ok(await client.listSessions(), "listSessions after revokeOtherSessions");
  check(Array.isArray(list) && list.length === 1 && list[0].id === ctx.sessionB.id,
        `listSessions after revokeOtherSessions: expected only ${ctx.sessionB.id}, got ${show(list)}`);
});

// --- admin ------------------------------------------------------------------------------------------

await step("the admin from AUTH_ADMIN_EMAIL signs in", async () => {
  const admin = makeClient();
  const data = ok(await admin.client.signIn.email({ email: adminEmail, password: adminPassword }),
                  "signIn.email (admin)");
  checkUser(data.user, { email: adminEmail, role: "admin", emailVerified: true, banned: false },
            "signIn.email (admin)");
  admin.state.token = data.token;
  ctx.admin = { ...admin, token: data.token, user: data.user };
});

await step("admin.listUsers with searchValue, limit, offset, sortBy", async () => {
  const { client } = ctx.admin;
  // A second user of this run, so that search, sort and paging have something to order.
  const other = ok(await client.admin.createUser({
    email: `aaa-${run}@example.com`, name: "Aaa Other", password: "other-password-1", role: "member",
  }), "admin.createUser (second user for listUsers)");
  ctx.otherUser = other.user;
  const data = ok(await client.admin.listUsers({
    query: { searchValue: run, searchField: "email", limit: 10, offset: 0, sortBy: "email",
             sortDirection: "asc" },
  }), "admin.listUsers");
  check(Array.isArray(data.users), `admin.listUsers: data.users must be an array, got ${show(data)}`);
  eq(data.total, 2, "admin.listUsers: data.total (users whose email contains the run id)");
  eq(data.limit, 10, "admin.listUsers: data.limit");
  // Better Auth leaves `offset` out when it is 0 (`Number(offset) || undefined`, contract §1.18).
  check(data.offset === undefined || data.offset === 0,
        `admin.listUsers: data.offset must be absent (or 0) for offset=0, got ${show(data.offset)}`);
  if (data.offset === 0) note("admin.listUsers answers offset: 0 where Better Auth leaves offset out");
  eq(data.users.length, 2, "admin.listUsers: data.users.length");
  for (const user of data.users) checkUser(user, {}, "admin.listUsers users[]");
  eq(data.users[0].email, `aaa-${run}@example.com`, "admin.listUsers (sortBy email asc): users[0].email");
  eq(data.users[1].id, ctx.user.id, "admin.listUsers (sortBy email asc): users[1].id");
  eq(data.users[1].name, "Renamed User", "admin.listUsers: users[1].name");
  const page = ok(await client.admin.listUsers({
    query: { searchValue: run, limit: 1, offset: 1, sortBy: "email", sortDirection: "desc" },
  }), "admin.listUsers (page 2 of 1, desc)");
  eq(page.total, 2, "admin.listUsers (page 2): data.total");
  eq(page.limit, 1, "admin.listUsers (page 2): data.limit");
  eq(page.offset, 1, "admin.listUsers (page 2): data.offset");
  eq(page.users.length, 1, "admin.listUsers (page 2): data.users.length");
  eq(page.users[0].email, `aaa-${run}@example.com`, "admin.listUsers (page 2, desc): users[0].email");
  const none = ok(await client.admin.listUsers({ query: { searchValue: `no-such-${run}` } }),
                  "admin.listUsers (no match)");
  eq(none.total, 0, "admin.listUsers (no match): data.total");
  eq(none.users.length, 0, "admin.listUsers (no match): data.users.length");
  if ("limit" in none || "offset" in none) {
    note(`admin.listUsers without limit/offset answers limit ${show(none.limit)}, offset ` +
         `${show(none.offset)}; Better Auth leaves both out and returns every matching user`);
  }
  return `total ${data.total}`;
});

await step("admin.getUser returns the bare user", async () => {
  const data = ok(await ctx.admin.client.admin.getUser({ query: { id: ctx.user.id } }), "admin.getUser");
  check(!("user" in data), `admin.getUser: expected a bare user, got a wrapper ${show(data)}`);
  checkUser(data, { id: ctx.user.id, email: userEmailLower, name: "Renamed User", role: "member" },
            "admin.getUser");
  failed(await ctx.admin.client.admin.getUser({ query: { id: "x".repeat(32) } }),
         { status: 404, code: "NOT_FOUND", reason: "USER_NOT_FOUND", message: "User not found" },
         "admin.getUser (unknown id)");
});

await step("admin.createUser creates a user that can sign in", async () => {
  const { client } = ctx.admin;
  const data = ok(await client.admin.createUser({ email: createdEmail, name: "Created User",
                                                  password: createdPassword1 }),
                  "admin.createUser");
  // Without `role` the user gets the default role (Better Auth: the admin plugin's defaultRole;
  // cairn: auth.defaultRole of the config, `member` here).
  checkUser(data.user, { email: createdEmail, name: "Created User", role: "member", banned: false,
                         emailVerified: false }, "admin.createUser");
  ctx.created = data.user;
  failed(await client.admin.createUser({ email: createdEmail, name: "Again", password: createdPassword1 }),
         { status: 400, envelope: true, reason: "USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL",
           message: "User already exists. Use another email." },
         "admin.createUser (existing email)");
  const d = makeClient();
  const signedIn = ok(await d.client.signIn.email({ email: createdEmail, password: createdPassword1 }),
                      "signIn.email as the created user");
  checkUser(signedIn.user, { id: ctx.created.id }, "signIn.email as the created user");
  d.state.token = signedIn.token;
  ctx.createdSession = { ...d, token: signedIn.token };
  return `user ${data.user.id}`;
});

await step("admin.setRole changes the role", async () => {
  const data = ok(await ctx.admin.client.admin.setRole({ userId: ctx.created.id, role: "viewer" }),
                  "admin.setRole");
  checkUser(data.user, { id: ctx.created.id, role: "viewer" }, "admin.setRole");
  const fetched = ok(await ctx.admin.client.admin.getUser({ query: { id: ctx.created.id } }),
                     "admin.getUser after setRole");
  eq(fetched.role, "viewer", "admin.getUser after setRole: role");
});

await step("admin.banUser bans, ends the user's sessions, and sign-in is refused", async () => {
  const before = Date.now();
  const data = ok(await ctx.admin.client.admin.banUser({ userId: ctx.created.id, banReason: "spam",
                                                         banExpiresIn: 3600 }),
                  "admin.banUser");
  checkUser(data.user, { id: ctx.created.id, banned: true, banReason: "spam" }, "admin.banUser");
  near(data.user.banExpires, before + 3600_000, 120_000, "admin.banUser: user.banExpires");
  const gone = await ctx.createdSession.client.getSession();
  eq(gone.error, null, "getSession of the banned user: error");
  eq(gone.data, null, "getSession of the banned user: data (the session must be gone)");
  // Contract §1.2 step 6 / admin error codes: 403 BANNED_USER with the default bannedUserMessage.
  failed(await makeClient().client.signIn.email({ email: createdEmail, password: createdPassword1 }),
         { status: 403, code: "FORBIDDEN", reason: "BANNED_USER",
           message: "You have been banned from this application. Please contact support if you " +
                    "believe this is an error." },
         "signIn.email as the banned user");
  failed(await ctx.admin.client.admin.banUser({ userId: ctx.admin.user.id }),
         { status: 400, envelope: true, reason: "YOU_CANNOT_BAN_YOURSELF" }, "admin.banUser (self)");
});

await step("admin.unbanUser lifts the ban and sign-in works again", async () => {
  const data = ok(await ctx.admin.client.admin.unbanUser({ userId: ctx.created.id }), "admin.unbanUser");
  checkUser(data.user, { id: ctx.created.id, banned: false, banReason: null, banExpires: null },
            "admin.unbanUser");
  const d = makeClient();
  const signedIn = ok(await d.client.signIn.email({ email: createdEmail, password: createdPassword1 }),
                      "signIn.email after unbanUser");
  d.state.token = signedIn.token;
  ctx.createdSession = { ...d, token: signedIn.token };
  const session = ok(await d.client.getSession(), "getSession after unbanUser");
  check(session && session.session, `getSession after unbanUser: expected a session, got ${show(session)}`);
  ctx.createdSession.id = session.session.id;
});

await step("admin.listUserSessions lists the user's sessions", async () => {
  const data = ok(await ctx.admin.client.admin.listUserSessions({ userId: ctx.created.id }),
                  "admin.listUserSessions");
  check(data && Array.isArray(data.sessions),
        `admin.listUserSessions: expected {sessions: [...]}, got ${show(data)}`);
  check(data.sessions.length >= 1, "admin.listUserSessions: no sessions");
  for (const session of data.sessions) {
    checkSession(session, { userId: ctx.created.id }, "admin.listUserSessions sessions[]");
  }
  check(data.sessions.some((session) => session.id === ctx.createdSession.id),
        `admin.listUserSessions: the user's session ${ctx.createdSession.id} is missing`);
  return `${data.sessions.length} session(s)`;
});

await step("admin.revokeUserSessions ends every session of the user", async () => {
  const data = ok(await ctx.admin.client.admin.revokeUserSessions({ userId: ctx.created.id }),
                  "admin.revokeUserSessions");
  eq(JSON.stringify(data), JSON.stringify({ success: true }), "admin.revokeUserSessions: data");
  const gone = await ctx.createdSession.client.getSession();
  eq(gone.error, null, "getSession after revokeUserSessions: error");
  eq(gone.data, null, "getSession after revokeUserSessions: data");
  const list = ok(await ctx.admin.client.admin.listUserSessions({ userId: ctx.created.id }),
                  "admin.listUserSessions after revokeUserSessions");
  eq(list.sessions.length, 0, "admin.listUserSessions after revokeUserSessions: sessions.length");
  // The admin's own session is untouched.
  const admin = ok(await ctx.admin.client.getSession(), "getSession (admin) after revokeUserSessions");
  check(admin && admin.user && admin.user.id === ctx.admin.user.id,
        `getSession (admin): expected the admin, got ${show(admin)}`);
});

await step("admin.setUserPassword sets a password that signs in", async () => {
  const data = ok(await ctx.admin.client.admin.setUserPassword({ userId: ctx.created.id,
                                                                 newPassword: createdPassword2 }),
                  "admin.setUserPassword");
  eq(JSON.stringify(data), JSON.stringify({ status: true }), "admin.setUserPassword: data");
  const d = makeClient();
  const signedIn = ok(await d.client.signIn.email({ email: createdEmail, password: createdPassword2 }),
                      "signIn.email with the password the admin set");
  d.state.token = signedIn.token;
  ctx.createdSession = { ...d, token: signedIn.token };
  failed(await makeClient().client.signIn.email({ email: createdEmail, password: createdPassword1 }),
         { status: 401, code: "UNAUTHORIZED", reason: "INVALID_EMAIL_OR_PASSWORD",
           message: "Invalid email or password" },
         "signIn.email with the password from before setUserPassword");
});

await step("admin.impersonateUser returns a session that acts as the user", async () => {
  const { client, state } = ctx.admin;
  const before = Date.now();
  const data = ok(await client.admin.impersonateUser({ userId: ctx.created.id }), "admin.impersonateUser");
  check(data && data.session && data.user,
        `admin.impersonateUser: expected {session, user}, got ${show(data)}`);
  checkUser(data.user, { id: ctx.created.id, email: createdEmail }, "admin.impersonateUser");
  checkSession(data.session, { userId: ctx.created.id, impersonatedBy: ctx.admin.user.id },
               "admin.impersonateUser");
  near(data.session.expiresAt, before + 3600_000, 120_000, "admin.impersonateUser: session.expiresAt (1 hour)");
  // With the bearer approach, set-auth-token hands the client the impersonated session (§1.18).
  const header = state.lastSetAuthToken;
  check(header && SIGNED_TOKEN.test(header) && rawToken(header) === data.session.token,
        `admin.impersonateUser: set-auth-token must carry the new session's token, got ${show(header)}`);
  const asUser = ok(await client.getSession(), "getSession with the impersonation token");
  checkUser(asUser.user, { id: ctx.created.id }, "getSession with the impersonation token");
  eq(asUser.session.impersonatedBy, ctx.admin.user.id, "getSession with the impersonation token: impersonatedBy");
  // The raw token in the body works too.
  const raw = makeClient(data.session.token);
  const viaRaw = ok(await raw.client.getSession(), "getSession with data.session.token");
  checkUser(viaRaw.user, { id: ctx.created.id }, "getSession with data.session.token");
  ctx.impersonation = { ...raw, token: data.session.token, id: data.session.id };
  // The user's own list-sessions leaves the impersonation session out (contract §1.5).
  const own = ok(await ctx.createdSession.client.listSessions(), "listSessions of the impersonated user");
  check(Array.isArray(own) && !own.some((session) => session.id === data.session.id),
        `listSessions of the impersonated user shows the impersonation session: ${show(own)}`);
  // A bearer client cannot stop impersonating (that needs the admin_session cookie); it goes back
  // to the admin's own token, which still works.
  state.token = ctx.admin.token;
  const admin = ok(await client.getSession(), "getSession (admin) after impersonating");
  check(admin && admin.user && admin.user.id === ctx.admin.user.id,
        `getSession (admin) after impersonating: expected the admin, got ${show(admin)}`);
});

await step("admin.removeUser deletes the user and its sessions", async () => {
  const { client } = ctx.admin;
  const data = ok(await client.admin.removeUser({ userId: ctx.created.id }), "admin.removeUser");
  eq(JSON.stringify(data), JSON.stringify({ success: true }), "admin.removeUser: data");
  failed(await client.admin.getUser({ query: { id: ctx.created.id } }),
         { status: 404, code: "NOT_FOUND", reason: "USER_NOT_FOUND", message: "User not found" },
         "admin.getUser of the removed user");
  for (const [label, session] of [["own", ctx.createdSession], ["impersonation", ctx.impersonation]]) {
    const gone = await session.client.getSession();
    eq(gone.error, null, `getSession with the removed user's ${label} session: error`);
    eq(gone.data, null, `getSession with the removed user's ${label} session: data`);
  }
  failed(await makeClient().client.signIn.email({ email: createdEmail, password: createdPassword2 }),
         { status: 401, code: "UNAUTHORIZED", reason: "INVALID_EMAIL_OR_PASSWORD" },
         "signIn.email as the removed user");
  failed(await client.admin.removeUser({ userId: ctx.admin.user.id }),
         { status: 400, envelope: true, reason: "YOU_CANNOT_REMOVE_YOURSELF" }, "admin.removeUser (self)");
});

await step("a non-admin calling admin.listUsers gets 403", async () => {
  // Contract §1.18: 403 YOU_ARE_NOT_ALLOWED_TO_LIST_USERS "You are not allowed to list users".
  failed(await ctx.sessionB.client.admin.listUsers({ query: { limit: 10 } }),
         { status: 403, code: "FORBIDDEN", reason: "YOU_ARE_NOT_ALLOWED_TO_LIST_USERS",
           message: "You are not allowed to list users" },
         "admin.listUsers as a member");
  // Without a session it is 401 (Better Auth: empty body; cairn D12/D17: the envelope).
  failed(await makeClient().client.admin.listUsers({ query: { limit: 10 } }), { status: 401 },
         "admin.listUsers without a session");
});

await step("signOut ends the session", async () => {
  const { client } = ctx.sessionB;
  const data = ok(await client.signOut(), "signOut");
  eq(JSON.stringify(data), JSON.stringify({ success: true }), "signOut: data");
  const after = await client.getSession();
  eq(after.error, null, "getSession after signOut: error");
  eq(after.data, null, "getSession after signOut: data");
  failed(await client.listSessions(), { status: 401, code: "UNAUTHORIZED" }, "listSessions after signOut");
  // Signing out without a session still answers success (contract §1.3).
  const anonymous = ok(await makeClient().client.signOut(), "signOut without a session");
  eq(JSON.stringify(anonymous), JSON.stringify({ success: true }), "signOut without a session: data");
});

if (failures > 0) {
  console.log(`better-auth compat: FAILED, ${failures} step(s) failed, ${passed} passed`);
  process.exit(1);
}
console.log(`better-auth compat: all ${passed} steps passed` +
            (notes.length ? ` (${notes.length} note(s) above)` : ""));
process.exit(0);
