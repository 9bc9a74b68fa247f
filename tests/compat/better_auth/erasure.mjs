// Account erasure (D19a) through the official Better Auth 1.7.25 client: `deleteUser` with a
// wrong password is refused, with the right one it answers as Better Auth does and schedules the
// erasure (the server keeps ACCOUNT_DELETION_GRACE_DAYS at its default, 7): the session ends and
// signing in is refused with ACCOUNT_DELETION_SCHEDULED. Run after compat.mjs by
// run_better_auth_compat.sh, against the same server.
//
//   node erasure.mjs <base-url>
import { createAuthClient } from "better-auth/client";
import { inspect } from "node:util";

const baseArg = process.argv[2];
if (!baseArg) {
  console.error("usage: node erasure.mjs <base-url>");
  process.exit(2);
}
const baseURL = baseArg.replace(/\/+$/, "");
const origin = new URL(baseURL).origin;
setTimeout(() => {
  console.error("FAIL: erasure.mjs did not finish within 60 s");
  process.exit(1);
}, 60_000).unref();

const show = (value) => inspect(value, { depth: 6, breakLength: Infinity, compact: true });
function eq(actual, expected, what) {
  if (actual !== expected) throw new Error(`${what}: expected ${show(expected)}, got ${show(actual)}`);
}
function ok(result, what) {
  if (result.error !== null) throw new Error(`${what}: expected success, got ${show(result.error)}`);
  return result.data;
}
function failed(result, status, code, reason, what) {
  if (result.error === null) throw new Error(`${what}: expected an error, got ${show(result.data)}`);
  eq(result.error.status, status, `${what}: status (${show(result.error)})`);
  eq(result.error.code, code, `${what}: code`);
  eq(result.error.error, reason, `${what}: error`);
}

function makeClient() {
  const state = { token: null };
  const client = createAuthClient({
    baseURL,
    fetchOptions: {
      headers: { origin },
      timeout: 15_000,
      auth: { type: "Bearer", token: () => state.token ?? "" },
      onSuccess: (ctx) => {
        const header = ctx.response.headers.get("set-auth-token");
        if (header) state.token = header;
      },
    },
  });
  return { client, state };
}

let passed = 0;
async function step(name, body) {
  try {
    await body();
    passed += 1;
    console.log(`ok   ${name}`);
  } catch (error) {
    console.log(`FAIL ${name}\n     ${error?.message ?? String(error)}`);
    console.log(`better-auth erasure: FAILED at "${name}" (${passed} steps passed before it)`);
    process.exit(1);
  }
}

const email = `leaving-${Date.now().toString(36)}@example.com`;
const password = "leaving-password-1";
const { client } = makeClient();

await step("signUp.email for the account to erase", async () => {
  ok(await client.signUp.email({ name: "Leaving", email, password }), "signUp.email");
});

await step("deleteUser with a wrong password is refused", async () => {
  failed(await client.deleteUser({ password: "not-the-password" }), 400, "VALIDATION_ERROR",
         "INVALID_PASSWORD", "deleteUser");
  eq(ok(await client.getSession(), "getSession").user.email, email, "the session is still live");
});

await step("deleteUser schedules the erasure and ends the session", async () => {
  const data = ok(await client.deleteUser({ password }), "deleteUser");
  eq(JSON.stringify(data), JSON.stringify({ success: true, message: "User deleted" }), "data");
  eq(ok(await client.getSession(), "getSession after deleteUser"), null, "session");
});

await step("signIn.email is refused while the erasure is scheduled", async () => {
  failed(await makeClient().client.signIn.email({ email, password }), 403, "FORBIDDEN",
         "ACCOUNT_DELETION_SCHEDULED", "signIn.email");
});

console.log(`better-auth erasure: all ${passed} steps passed`);
process.exit(0);
