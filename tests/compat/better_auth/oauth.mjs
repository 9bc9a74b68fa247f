// OAuth sign-in routes (D18) with the official Better Auth client: signIn.social and linkSocial
// (with disableRedirect, as a program without a browser uses them), listAccounts and
// unlinkAccount. The server runs with the `github` provider pointed at a loopback address that
// nobody answers (GITHUB_URL): starting the flow needs no call to the provider; the callback
// itself is covered by tests/e2e/auth_oauth_test.cpp against a real OpenID provider.
//
//   node oauth.mjs <base-url>
import { createAuthClient } from "better-auth/client";
import { inspect } from "node:util";

const baseURL = (process.argv[2] || "").replace(/\/+$/, "");
if (!baseURL) {
  console.error("usage: node oauth.mjs <base-url>");
  process.exit(2);
}
const origin = new URL(baseURL).origin;
const githubURL = process.env.GITHUB_URL || "http://127.0.0.1:9";
setTimeout(() => {
  console.error("FAIL: oauth.mjs did not finish within 60 s");
  process.exit(1);
}, 60_000).unref();

function fail(message) {
  console.log(`FAIL: ${message}`);
  process.exit(1);
}
function check(condition, message) {
  if (!condition) fail(message);
}
const show = (value) => inspect(value, { depth: 6, breakLength: Infinity, compact: true });

function makeClient() {
  const state = { token: "" };
  const client = createAuthClient({
    baseURL,
    fetchOptions: {
      headers: { origin },
      auth: { type: "Bearer", token: () => state.token },
      onSuccess: (ctx) => {
        const header = ctx.response.headers.get("set-auth-token");
        if (header) state.token = header;
      },
    },
  });
  return { client, state };
}

const { client } = makeClient();
const email = `oauth-${Date.now()}@example.com`;
const signedUp = await client.signUp.email({ name: "OAuth User", email, password: "correct horse 1" });
check(signedUp.error === null, `signUp.email: ${show(signedUp.error)}`);
console.log("ok  signUp.email");

function checkAuthorizationURL(data, what) {
  check(data && typeof data.url === "string", `${what}: no url in ${show(data)}`);
  eq(data.redirect, false, `${what}: redirect`);
  const url = new URL(data.url);
  eq(`${url.origin}${url.pathname}`, `${githubURL}/login/oauth/authorize`, `${what}: endpoint`);
  eq(url.searchParams.get("client_id"), "compat-github-client", `${what}: client_id`);
  eq(url.searchParams.get("redirect_uri"), `${baseURL}/api/auth/callback/github`, `${what}: redirect_uri`);
  eq(url.searchParams.get("code_challenge_method"), "S256", `${what}: code_challenge_method`);
  check((url.searchParams.get("state") || "").length >= 43, `${what}: state`);
}
function eq(actual, expected, what) {
  if (actual !== expected) fail(`${what}: expected ${show(expected)}, got ${show(actual)}`);
}

const social = await makeClient().client.signIn.social({
  provider: "github", callbackURL: "/welcome", disableRedirect: true,
});
check(social.error === null, `signIn.social: ${show(social.error)}`);
checkAuthorizationURL(social.data, "signIn.social");
console.log("ok  signIn.social answers the provider's authorization URL");

const untrusted = await makeClient().client.signIn.social({
  provider: "github", callbackURL: "https://evil.example.com/", disableRedirect: true,
});
eq(untrusted.error?.status, 400, `signIn.social to an untrusted origin: ${show(untrusted)}`);
eq(untrusted.error?.error, "INVALID_CALLBACK_URL", "signIn.social to an untrusted origin: reason");
console.log("ok  signIn.social refuses an untrusted callbackURL");

const link = await client.linkSocial({ provider: "github", callbackURL: "/settings", disableRedirect: true });
check(link.error === null, `linkSocial: ${show(link.error)}`);
checkAuthorizationURL(link.data, "linkSocial");
console.log("ok  linkSocial answers the provider's authorization URL");

const accounts = await client.listAccounts();
check(accounts.error === null, `listAccounts: ${show(accounts.error)}`);
check(Array.isArray(accounts.data) && accounts.data.length === 1, `listAccounts: ${show(accounts.data)}`);
const [credential] = accounts.data;
eq(credential.providerId, "credential", "listAccounts: providerId");
check(credential.createdAt instanceof Date, `listAccounts: createdAt ${show(credential.createdAt)}`);
check(Array.isArray(credential.scopes), "listAccounts: scopes");
console.log("ok  listAccounts lists the password account");

const unlink = await client.unlinkAccount({ accountId: credential.id });
eq(unlink.error?.status, 400, `unlinkAccount of the last account: ${show(unlink)}`);
eq(unlink.error?.error, "FAILED_TO_UNLINK_LAST_ACCOUNT", "unlinkAccount: reason");
eq(unlink.error?.message, "You can't unlink your last account", "unlinkAccount: message");
console.log("ok  unlinkAccount keeps the last way to sign in");
console.log("better-auth oauth: all steps passed");
process.exit(0);
