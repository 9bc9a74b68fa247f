// The official Better Auth 1.7.25 organizationClient against a running cairn server started with
// `auth.organizations: true` (run_better_auth_compat.sh runs this after compat.mjs): create an
// organization, invite a second user, read the invitation from the outbox, accept it as that
// user, set the active organization, list members, change a role, ask has-permission, leave. Bearer clients with an
// Origin header, as compat.mjs does.
//
//   CAIRN_OUTBOX_DIR=<data-dir>/outbox node organization.mjs <base-url>
//
// One line per step on stdout; the first failure exits 1 with what was expected and what came.
import { createAuthClient } from "better-auth/client";
import { organizationClient } from "better-auth/client/plugins";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { inspect } from "node:util";

const baseArg = process.argv[2];
const outbox = process.env.CAIRN_OUTBOX_DIR;
if (!baseArg || !outbox) {
  console.error("usage: CAIRN_OUTBOX_DIR=<dir> node organization.mjs <base-url>");
  process.exit(2);
}
const baseURL = baseArg.replace(/\/+$/, "");
const origin = new URL(baseURL).origin;
const REQUEST_TIMEOUT_MS = 15_000;
setTimeout(() => {
  console.error("FAIL: the organization run did not finish within 60 s");
  process.exit(1);
}, 60_000).unref();

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
function failed(result, expected, what) {
  if (result.error === null) fail(`${what}: expected an error, got data ${show(result.data)}`);
  eq(result.error.status, expected.status, `${what}: error.status (${show(result.error)})`);
  eq(result.error.error, expected.reason, `${what}: error.error (${show(result.error)})`);
}

function makeClient() {
  const state = { token: null };
  const client = createAuthClient({
    baseURL,
    plugins: [organizationClient()],
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

// The newest .eml in the outbox addressed to `to`, as text (quoted-printable soft breaks joined).
function lastMailTo(to) {
  const files = readdirSync(outbox).filter((name) => name.endsWith(".eml")).sort().reverse();
  for (const name of files) {
    const raw = readFileSync(join(outbox, name), "utf8");
    if (new RegExp(`^To: .*${to.replace(/[.]/g, "\\.")}`, "mi").test(raw)) {
      return raw.replace(/=\r?\n/g, "").replace(/=3D/g, "=");
    }
  }
  fail(`no mail to ${to} in ${outbox}`);
}

let passed = 0;
async function step(name, body) {
  try {
    const detail = await body();
    passed += 1;
    console.log(`ok   ${name}${detail ? ` — ${detail}` : ""}`);
  } catch (error) {
    const message = error instanceof CheckFailure ? error.message : (error?.stack ?? String(error));
    console.log(`FAIL ${name}\n     ${message}`);
    console.log(`better-auth organization: FAILED at "${name}" (${passed} steps passed before it)`);
    process.exit(1);
  }
}

const run = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
const owner = makeClient();
const guest = makeClient();
const ownerEmail = `org-owner-${run}@example.com`;
const guestEmail = `org-guest-${run}@example.com`;
const ctx = {};

console.log(`better-auth organization: ${baseURL}, run ${run}`);

await step("two users sign up", async () => {
  const a = ok(await owner.client.signUp.email({ name: "Org Owner", email: ownerEmail, password: "owner-password-1" }), "owner sign-up");
  const b = ok(await guest.client.signUp.email({ name: "Org Guest", email: guestEmail, password: "guest-password-1" }), "guest sign-up");
  owner.state.token ??= a.token;
  guest.state.token ??= b.token;
  ctx.ownerId = a.user.id;
  ctx.guestId = b.user.id;
});

await step("organization.create makes the caller owner and the organization active", async () => {
  const org = ok(await owner.client.organization.create({ name: "Compat Org", slug: `compat-${run}`, metadata: { tier: "gold" } }),
                 "organization.create");
  eq(org.name, "Compat Org", "create: name");
  eq(org.metadata?.tier, "gold", "create: metadata.tier");
  check(org.createdAt instanceof Date, `create: createdAt must parse to a Date, got ${show(org.createdAt)}`);
  eq(org.members?.[0]?.role, "owner", "create: members[0].role");
  ctx.orgId = org.id;
  const session = ok(await owner.client.getSession(), "getSession");
  eq(session.session.activeOrganizationId, org.id, "getSession: session.activeOrganizationId");
  const list = ok(await owner.client.organization.list(), "organization.list");
  check(list.length === 1 && list[0].id === org.id, `organization.list: ${show(list)}`);
  return `organization ${org.id}`;
});

await step("organization.checkSlug answers taken and free", async () => {
  failed(await owner.client.organization.checkSlug({ slug: `compat-${run}` }),
         { status: 400, reason: "ORGANIZATION_SLUG_ALREADY_TAKEN" }, "checkSlug taken");
  eq(ok(await owner.client.organization.checkSlug({ slug: `free-${run}` }), "checkSlug free").status, true,
     "checkSlug free: status");
});

await step("organization.inviteMember mails the invitation", async () => {
  const invitation = ok(await owner.client.organization.inviteMember({ email: guestEmail, role: "member", organizationId: ctx.orgId }),
                        "inviteMember");
  eq(invitation.status, "pending", "inviteMember: status");
  eq(invitation.email, guestEmail, "inviteMember: email");
  check(invitation.expiresAt instanceof Date && invitation.expiresAt.getTime() > Date.now() + 47 * 3600_000,
        `inviteMember: expiresAt must be ~48 h away, got ${show(invitation.expiresAt)}`);
  const mail = lastMailTo(guestEmail);
  const match = mail.match(/get-invitation\?id=([A-Za-z0-9]+)/);
  check(match, `the invitation mail has no get-invitation link:\n${mail}`);
  eq(match[1], invitation.id, "the id in the mail");
  ctx.invitationId = match[1];
});

await step("the guest reads and accepts the invitation from the mail", async () => {
  failed(await owner.client.organization.acceptInvitation({ invitationId: ctx.invitationId }),
         { status: 403, reason: "YOU_ARE_NOT_THE_RECIPIENT_OF_THE_INVITATION" }, "accept as the wrong user");
  const viewed = ok(await guest.client.organization.getInvitation({ query: { id: ctx.invitationId } }), "getInvitation");
  eq(viewed.organizationName, "Compat Org", "getInvitation: organizationName");
  eq(viewed.inviterEmail, ownerEmail, "getInvitation: inviterEmail");
  const accepted = ok(await guest.client.organization.acceptInvitation({ invitationId: ctx.invitationId }), "acceptInvitation");
  eq(accepted.invitation.status, "accepted", "acceptInvitation: invitation.status");
  eq(accepted.member.userId, ctx.guestId, "acceptInvitation: member.userId");
  ctx.guestMemberId = accepted.member.id;
  const session = ok(await guest.client.getSession(), "guest getSession");
  eq(session.session.activeOrganizationId, ctx.orgId, "guest session.activeOrganizationId");
});

await step("organization.setActive switches and clears the active organization", async () => {
  const cleared = await guest.client.organization.setActive({ organizationId: null });
  eq(cleared.error, null, "setActive(null): error");
  eq(ok(await guest.client.getSession(), "getSession").session.activeOrganizationId, null,
     "after setActive(null): activeOrganizationId");
  const active = ok(await guest.client.organization.setActive({ organizationId: ctx.orgId }), "setActive");
  eq(active.id, ctx.orgId, "setActive: id");
  eq(ok(await guest.client.getSession(), "getSession").session.activeOrganizationId, ctx.orgId,
     "after setActive: activeOrganizationId");
  const member = ok(await guest.client.organization.getActiveMember(), "getActiveMember");
  eq(member.role, "member", "getActiveMember: role");
});

await step("organization.listMembers and getFullOrganization show both members", async () => {
  const listed = ok(await owner.client.organization.listMembers({ query: { organizationId: ctx.orgId } }), "listMembers");
  eq(listed.total, 2, "listMembers: total");
  const emails = listed.members.map((m) => m.user.email).sort();
  eq(emails.join(","), [ownerEmail, guestEmail].sort().join(","), "listMembers: emails");
  const full = ok(await owner.client.organization.getFullOrganization({ query: { organizationId: ctx.orgId } }),
                  "getFullOrganization");
  eq(full.members.length, 2, "getFullOrganization: members");
  // A member may not change roles; the owner may.
  failed(await guest.client.organization.updateMemberRole({ memberId: ctx.guestMemberId, role: "admin" }),
         { status: 403, reason: "YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_MEMBER" }, "updateMemberRole as a member");
});

await step("organization.updateMemberRole makes the guest an admin", async () => {
  const updated = ok(await owner.client.organization.updateMemberRole({ memberId: ctx.guestMemberId, role: "admin", organizationId: ctx.orgId }),
                     "updateMemberRole");
  eq(updated.role, "admin", "updateMemberRole: role");
  const role = ok(await guest.client.organization.getActiveMemberRole(), "getActiveMemberRole");
  eq(role.role, "admin", "getActiveMemberRole: role");
  check(owner.client.organization.checkRolePermission({ role: "admin", permissions: { member: ["update"] } }),
        "checkRolePermission: an admin may update members");
  const granted = ok(await guest.client.organization.hasPermission({ permissions: { member: ["update"] } }),
                     "hasPermission (admin, member update)");
  eq(granted.success, true, "hasPermission: member update");
  const denied = ok(await guest.client.organization.hasPermission({ permissions: { organization: ["delete"] } }),
                    "hasPermission (admin, organization delete)");
  eq(denied.success, false, "hasPermission: organization delete");
});

await step("organization.leave: the guest leaves, the last owner may not", async () => {
  failed(await owner.client.organization.leave({ organizationId: ctx.orgId }),
         { status: 400, reason: "YOU_CANNOT_LEAVE_THE_ORGANIZATION_AS_THE_ONLY_OWNER" }, "owner leaves");
  const left = ok(await guest.client.organization.leave({ organizationId: ctx.orgId }), "leave");
  eq(left.userId, ctx.guestId, "leave: userId");
  eq(ok(await guest.client.getSession(), "getSession").session.activeOrganizationId, null,
     "after leave: activeOrganizationId");
  failed(await guest.client.organization.getFullOrganization({ query: { organizationId: ctx.orgId } }),
         { status: 404, reason: "ORGANIZATION_NOT_FOUND" }, "getFullOrganization after leaving");
  const listed = ok(await owner.client.organization.listMembers({ query: { organizationId: ctx.orgId } }), "listMembers");
  eq(listed.total, 1, "listMembers after leave: total");
});

await step("organization.delete removes it and clears the active organization", async () => {
  const deleted = ok(await owner.client.organization.delete({ organizationId: ctx.orgId }), "delete");
  eq(deleted.id, ctx.orgId, "delete: id");
  eq(ok(await owner.client.getSession(), "getSession").session.activeOrganizationId, null,
     "after delete: activeOrganizationId");
  eq(ok(await owner.client.organization.list(), "list").length, 0, "list after delete");
});

console.log(`better-auth organization: all ${passed} steps passed`);
process.exit(0);
