// Organisations, members and invitations over the console API (spec 1: "Console API:
// organisations, members, billing" members/invitations rows, Authentication 4-9, Errors).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestService, type TestService } from "../helpers/service.ts";
import { call, bearer, isoPattern, uuidPattern, type Reply } from "../helpers/client.ts";
import { signUp, type SignedUpUser } from "../helpers/accounts.ts";

const challenge = 'Bearer realm="svc-analytics"';

let service: TestService;
// One owner creates a fresh organisation per test; the others are invited into it as needed.
let owner: SignedUpUser;
let alice: SignedUpUser;
let bob: SignedUpUser;
let carol: SignedUpUser;
let dave: SignedUpUser;

beforeAll(async () => {
  service = await startTestService();
  owner = await signUp(service, "Olivia Owner");
  alice = await signUp(service, "Alice Example");
  bob = await signUp(service, "Bob Example");
  carol = await signUp(service, "Carol Example");
  dave = await signUp(service, "Dave Example");
});
afterAll(async () => {
  await service.close();
});

const errorBody = (code: string, message: unknown = expect.any(String)) => ({ error: { code, message } });

function expectError(reply: Reply, status: number, code: string, message: unknown = expect.any(String)) {
  expect({ status: reply.status, body: reply.body }).toEqual({ status, body: errorBody(code, message) });
}

/** 409s: the spec gives the status but names no code for them. */
function expectConflict(reply: Reply) {
  expect(reply.status).toBe(409);
  expect(reply.body).toEqual(errorBody(expect.any(String)));
}

let orgCounter = 0;
async function newOrg(by: SignedUpUser = owner): Promise<{ id: string; name: string; slug: string }> {
  const name = `Team ${++orgCounter}`;
  const reply = await by.client.post("/app/orgs", { name });
  expect(reply.status).toBe(201);
  return reply.body;
}

const invitationDto = (orgId: string, email: string, role: string) => ({
  id: expect.stringMatching(uuidPattern),
  org_id: orgId,
  email,
  role,
  status: "pending",
  expires_at: expect.stringMatching(isoPattern),
  created_at: expect.stringMatching(isoPattern),
});

const memberDto = (user: SignedUpUser, name: string, role: string, id: unknown = expect.stringMatching(uuidPattern)) => ({
  id,
  user_id: user.userId,
  name,
  email: user.email,
  role,
  created_at: expect.stringMatching(isoPattern),
});

const orgDto = (org: { id: string; name: string; slug: string }, role: string) => ({
  id: org.id,
  name: org.name,
  slug: org.slug,
  role,
  created_at: expect.stringMatching(isoPattern),
});

async function invite(orgId: string, by: SignedUpUser, email: string, role: string): Promise<{ invitation: any; token: string }> {
  const reply = await by.client.post(`/app/orgs/${orgId}/invitations`, { email, role });
  expect(reply.status).toBe(201);
  return { invitation: reply.body, token: service.lastMail(email, "invitation").token };
}

async function join(orgId: string, user: SignedUpUser, role: string, by: SignedUpUser = owner): Promise<void> {
  const { token } = await invite(orgId, by, user.email, role);
  const accepted = await user.client.post("/app/invitations/accept", { token });
  expect(accepted.status).toBe(200);
  expect(accepted.body.role).toBe(role);
}

async function members(orgId: string, as: SignedUpUser = owner): Promise<{ members: any[]; invitations: any[] }> {
  const reply = await as.client.get(`/app/orgs/${orgId}/members`);
  expect(reply.status).toBe(200);
  return reply.body;
}

async function memberIdOf(orgId: string, user: SignedUpUser): Promise<string> {
  const found = (await members(orgId)).members.find((member) => member.user_id === user.userId);
  expect(found).toBeDefined();
  return found.id;
}

const orgIdsOf = async (user: SignedUpUser): Promise<string[]> => {
  const reply = await user.client.get("/app/orgs");
  expect(reply.status).toBe(200);
  return reply.body.orgs.map((org: any) => org.id);
};

describe("organisations", () => {
  test("POST /app/orgs is 201 OrgDto with role owner, and the org is listed", async () => {
    const reply = await owner.client.post("/app/orgs", { name: "Acme Analytics" });
    expect(reply.status).toBe(201);
    expect(reply.body).toEqual({
      id: expect.stringMatching(uuidPattern),
      name: "Acme Analytics",
      slug: expect.any(String),
      role: "owner",
      created_at: expect.stringMatching(isoPattern),
    });
    expect(Object.keys(reply.body).sort()).toEqual(["created_at", "id", "name", "role", "slug"]);

    const listed = await owner.client.get("/app/orgs");
    expect(listed.status).toBe(200);
    expect(listed.body.orgs).toContainEqual(reply.body);
    // Other users do not see it.
    expect(await orgIdsOf(alice)).not.toContain(reply.body.id);

    // Its only member is the creator, as owner.
    expect(await members(reply.body.id)).toEqual({ members: [memberDto(owner, "Olivia Owner", "owner")], invitations: [] });
  });

  test("POST /app/orgs: an empty, blank or missing name is 400; no session is 401", async () => {
    for (const body of [{ name: "" }, { name: "   " }, {}, { name: 7 }]) {
      const reply = await owner.client.post("/app/orgs", body);
      expectError(reply, 400, "validation");
    }
    const anonymous = await call(service.url, "POST", "/app/orgs", { body: { name: "Nobody's" } });
    expectError(anonymous, 401, "unauthorized");
    expect(anonymous.headers.get("www-authenticate")).toBe(challenge);
  });

  test("PATCH /app/orgs/{org}: owner and admin rename (200 OrgDto); viewer and member are 403 missing_scope org:write", async () => {
    const org = await newOrg();
    await join(org.id, alice, "admin");
    await join(org.id, bob, "viewer");
    await join(org.id, carol, "member");

    const renamed = await owner.client.patch(`/app/orgs/${org.id}`, { name: "Renamed Team" });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toEqual(orgDto({ ...org, name: "Renamed Team" }, "owner"));

    const byAdmin = await alice.client.patch(`/app/orgs/${org.id}`, { name: "Admin Named" });
    expect(byAdmin.status).toBe(200);
    expect(byAdmin.body).toEqual(orgDto({ ...org, name: "Admin Named" }, "admin"));

    expectError(await bob.client.patch(`/app/orgs/${org.id}`, { name: "Viewer Named" }), 403, "missing_scope", "requires scope `org:write`");
    expectError(await carol.client.patch(`/app/orgs/${org.id}`, { name: "Member Named" }), 403, "missing_scope", "requires scope `org:write`");

    // The refused renames changed nothing.
    const seen = await bob.client.get("/app/orgs");
    expect(seen.body.orgs).toContainEqual(orgDto({ ...org, name: "Admin Named" }, "viewer"));
  });

  test("PATCH /app/orgs/{org}: non-member, unknown and malformed org ids are 404; an empty or blank name is 400", async () => {
    const org = await newOrg();
    expectError(await dave.client.patch(`/app/orgs/${org.id}`, { name: "Hijacked" }), 404, "not_found");
    expectError(await owner.client.patch(`/app/orgs/${crypto.randomUUID()}`, { name: "Ghost" }), 404, "not_found");
    expectError(await owner.client.patch("/app/orgs/not-a-uuid", { name: "Ghost" }), 404, "not_found");
    expectError(await owner.client.patch(`/app/orgs/${org.id}`, { name: "" }), 400, "validation");
    expectError(await owner.client.patch(`/app/orgs/${org.id}`, { name: " \t " }), 400, "validation", "name must not be empty");
    expect((await owner.client.get("/app/orgs")).body.orgs).toContainEqual(orgDto(org, "owner"));
  });
});

describe("invitations", () => {
  test("201 InvitationDto; duplicate pending is 409 (also in another case); an existing member is 409", async () => {
    const org = await newOrg();
    const reply = await owner.client.post(`/app/orgs/${org.id}/invitations`, { email: alice.email, role: "member" });
    expect(reply.status).toBe(201);
    expect(reply.body).toEqual(invitationDto(org.id, alice.email, "member"));
    expect(Object.keys(reply.body).sort()).toEqual(["created_at", "email", "expires_at", "id", "org_id", "role", "status"]);
    expect(Date.parse(reply.body.expires_at)).toBeGreaterThan(Date.parse(reply.body.created_at));
    const mail = service.lastMail(alice.email, "invitation");
    expect(typeof mail.token).toBe("string");
    expect(mail.link).toBe(`${service.url}/invitations/accept?token=${mail.token}`);

    expectConflict(await owner.client.post(`/app/orgs/${org.id}/invitations`, { email: alice.email, role: "member" }));
    expectConflict(await owner.client.post(`/app/orgs/${org.id}/invitations`, { email: alice.email, role: "admin" }));
    expectConflict(await owner.client.post(`/app/orgs/${org.id}/invitations`, { email: alice.email.toUpperCase(), role: "viewer" }));
    // The owner is already a member.
    expectConflict(await owner.client.post(`/app/orgs/${org.id}/invitations`, { email: owner.email, role: "viewer" }));

    // Once accepted, inviting the same address again is 409 too.
    const accepted = await alice.client.post("/app/invitations/accept", { token: mail.token });
    expect(accepted.status).toBe(200);
    expectConflict(await owner.client.post(`/app/orgs/${org.id}/invitations`, { email: alice.email, role: "viewer" }));

    // Only the original invitation exists, now accepted: nothing pending.
    expect((await members(org.id)).invitations).toEqual([]);
  });

  test("an address without an account can be invited; bad role or email is 400", async () => {
    const org = await newOrg();
    const email = `newcomer-${crypto.randomUUID().slice(0, 8)}@example.com`;
    const reply = await owner.client.post(`/app/orgs/${org.id}/invitations`, { email, role: "viewer" });
    expect(reply.status).toBe(201);
    expect(reply.body).toEqual(invitationDto(org.id, email, "viewer"));

    for (const body of [
      { email: `x-${crypto.randomUUID().slice(0, 8)}@example.com`, role: "superuser" },
      { email: `x-${crypto.randomUUID().slice(0, 8)}@example.com`, role: "" },
      { email: "not-an-email", role: "viewer" },
      { email: `x-${crypto.randomUUID().slice(0, 8)}@example.com` },
      { role: "viewer" },
    ]) {
      const bad = await owner.client.post(`/app/orgs/${org.id}/invitations`, body);
      expect({ body, status: bad.status }).toEqual({ body, status: 400 });
      expect(bad.body).toEqual(errorBody("validation"));
    }
    expect((await members(org.id)).invitations).toEqual([reply.body]);
  });

  test("accept by the wrong signed-in user is 404 and leaves the invitation usable; the right user gets 200 OrgDto with the invited role", async () => {
    const org = await newOrg();
    const { token } = await invite(org.id, owner, bob.email, "admin");

    const wrong = await carol.client.post("/app/invitations/accept", { token });
    expectError(wrong, 404, "not_found");
    expect(await orgIdsOf(carol)).not.toContain(org.id);

    const right = await bob.client.post("/app/invitations/accept", { token });
    expect(right.status).toBe(200);
    expect(right.body).toEqual(orgDto(org, "admin"));
    expect(Object.keys(right.body).sort()).toEqual(["created_at", "id", "name", "role", "slug"]);

    const bobsOrgs = await bob.client.get("/app/orgs");
    expect(bobsOrgs.body.orgs).toContainEqual(orgDto(org, "admin"));
    const me = await bob.client.get("/app/me");
    expect(me.body.orgs).toContainEqual(orgDto(org, "admin"));

    // Single use: a second accept is 404.
    expectError(await bob.client.post("/app/invitations/accept", { token }), 404, "not_found");
    const listed = (await members(org.id)).members;
    expect(listed).toHaveLength(2);
    expect(listed).toEqual(expect.arrayContaining([memberDto(owner, "Olivia Owner", "owner"), memberDto(bob, "Bob Example", "admin")]));
  });

  test("accept: unknown token is 404, malformed body 400, no session 401", async () => {
    expectError(await bob.client.post("/app/invitations/accept", { token: "no-such-invitation-token-00000000000000000" }), 404, "not_found");
    expectError(await bob.client.post("/app/invitations/accept", {}), 400, "validation");
    const org = await newOrg();
    const { token } = await invite(org.id, owner, dave.email, "viewer");
    const anonymous = await call(service.url, "POST", "/app/invitations/accept", { body: { token } });
    expectError(anonymous, 401, "unauthorized");
    expect(anonymous.headers.get("www-authenticate")).toBe(challenge);
    // The anonymous attempt did not use the token.
    expect((await dave.client.post("/app/invitations/accept", { token })).status).toBe(200);
  });

  test("DELETE invitation is 204, then accepting it is 404; a revoked invitation frees the address", async () => {
    const org = await newOrg();
    await join(org.id, alice, "viewer");
    const { invitation, token } = await invite(org.id, owner, carol.email, "member");

    // A viewer cannot revoke it; non-members, unknown and malformed ids are 404.
    expectError(await alice.client.delete(`/app/orgs/${org.id}/invitations/${invitation.id}`), 403, "missing_scope", "requires scope `members.write`");
    expectError(await dave.client.delete(`/app/orgs/${org.id}/invitations/${invitation.id}`), 404, "not_found");
    expectError(await owner.client.delete(`/app/orgs/${org.id}/invitations/${crypto.randomUUID()}`), 404, "not_found");
    expectError(await owner.client.delete(`/app/orgs/${org.id}/invitations/not-a-uuid`), 404, "not_found");
    const otherOrg = await newOrg();
    expectError(await owner.client.delete(`/app/orgs/${otherOrg.id}/invitations/${invitation.id}`), 404, "not_found");
    expect((await members(org.id)).invitations).toEqual([invitation]);

    const revoked = await owner.client.delete(`/app/orgs/${org.id}/invitations/${invitation.id}`);
    expect(revoked.status).toBe(204);
    expect(revoked.body).toBeUndefined();
    expect((await members(org.id)).invitations).toEqual([]);

    expectError(await carol.client.post("/app/invitations/accept", { token }), 404, "not_found");
    expect(await orgIdsOf(carol)).not.toContain(org.id);
    expectError(await owner.client.delete(`/app/orgs/${org.id}/invitations/${invitation.id}`), 404, "not_found");

    // No pending invitation remains, so the address can be invited again.
    const again = await owner.client.post(`/app/orgs/${org.id}/invitations`, { email: carol.email, role: "member" });
    expect(again.status).toBe(201);
    expect(again.body.id).not.toBe(invitation.id);
  });

  test("inviting needs members.write: viewer and member are 403 missing_scope; a non-member is 404", async () => {
    const org = await newOrg();
    await join(org.id, alice, "viewer");
    await join(org.id, bob, "member");
    const body = { email: `someone-${crypto.randomUUID().slice(0, 8)}@example.com`, role: "viewer" };
    expectError(await alice.client.post(`/app/orgs/${org.id}/invitations`, body), 403, "missing_scope", "requires scope `members.write`");
    expectError(await bob.client.post(`/app/orgs/${org.id}/invitations`, body), 403, "missing_scope", "requires scope `members.write`");
    expectError(await dave.client.post(`/app/orgs/${org.id}/invitations`, body), 404, "not_found");
    expectError(await owner.client.post("/app/orgs/not-a-uuid/invitations", body), 404, "not_found");
    expect((await members(org.id)).invitations).toEqual([]);
  });
});

describe("members", () => {
  test("GET members: exact MemberDto fields; pending invitations for admins and owners, [] for members and viewers", async () => {
    const org = await newOrg();
    await join(org.id, alice, "admin");
    await join(org.id, bob, "member");
    await join(org.id, carol, "viewer");
    const pending = (await invite(org.id, owner, dave.email, "member")).invitation;
    expect(pending).toEqual(invitationDto(org.id, dave.email, "member"));

    const expectedMembers = [
      memberDto(owner, "Olivia Owner", "owner"),
      memberDto(alice, "Alice Example", "admin"),
      memberDto(bob, "Bob Example", "member"),
      memberDto(carol, "Carol Example", "viewer"),
    ];
    const asOwner = await members(org.id, owner);
    expect(Object.keys(asOwner).sort()).toEqual(["invitations", "members"]);
    expect(asOwner.members).toHaveLength(4);
    expect(asOwner.members).toEqual(expect.arrayContaining(expectedMembers));
    for (const member of asOwner.members) {
      expect(Object.keys(member).sort()).toEqual(["created_at", "email", "id", "name", "role", "user_id"]);
    }
    expect(new Set(asOwner.members.map((member: any) => member.id)).size).toBe(4);
    expect(asOwner.invitations).toEqual([pending]);

    const asAdmin = await members(org.id, alice);
    expect(asAdmin).toEqual(asOwner);

    for (const user of [bob, carol]) {
      const view = await members(org.id, user);
      expect(view).toEqual({ members: asOwner.members, invitations: [] });
    }
  });

  test("GET members: non-member, unknown and malformed org ids are 404; no session is 401", async () => {
    const org = await newOrg();
    expectError(await dave.client.get(`/app/orgs/${org.id}/members`), 404, "not_found");
    expectError(await owner.client.get(`/app/orgs/${crypto.randomUUID()}/members`), 404, "not_found");
    expectError(await owner.client.get("/app/orgs/xyz/members"), 404, "not_found");
    const anonymous = await call(service.url, "GET", `/app/orgs/${org.id}/members`);
    expectError(anonymous, 401, "unauthorized");
    expect(anonymous.headers.get("www-authenticate")).toBe(challenge);
  });

  test("PATCH member role: 200 MemberDto; admin cannot grant or touch owner (403 scope_not_held); viewer is 403 missing_scope", async () => {
    const org = await newOrg();
    await join(org.id, alice, "admin");
    await join(org.id, bob, "viewer");
    await join(org.id, carol, "member");
    const bobId = await memberIdOf(org.id, bob);
    const carolId = await memberIdOf(org.id, carol);
    const ownerId = await memberIdOf(org.id, owner);

    const changed = await alice.client.patch(`/app/orgs/${org.id}/members/${carolId}`, { role: "viewer" });
    expect(changed.status).toBe(200);
    expect(changed.body).toEqual(memberDto(carol, "Carol Example", "viewer", carolId));
    expect(Object.keys(changed.body).sort()).toEqual(["created_at", "email", "id", "name", "role", "user_id"]);

    // An admin cannot grant owner, nor change an owner's role, nor invite an owner.
    expectError(await alice.client.patch(`/app/orgs/${org.id}/members/${bobId}`, { role: "owner" }), 403, "scope_not_held");
    expectError(await alice.client.patch(`/app/orgs/${org.id}/members/${ownerId}`, { role: "member" }), 403, "scope_not_held");
    expectError(
      await alice.client.post(`/app/orgs/${org.id}/invitations`, { email: dave.email, role: "owner" }),
      403,
      "scope_not_held",
    );

    // A viewer cannot change roles, not even their own.
    expectError(await bob.client.patch(`/app/orgs/${org.id}/members/${carolId}`, { role: "admin" }), 403, "missing_scope", "requires scope `members.write`");
    expectError(await bob.client.patch(`/app/orgs/${org.id}/members/${bobId}`, { role: "admin" }), 403, "missing_scope", "requires scope `members.write`");

    // Unknown role is 400; unknown, malformed and foreign member ids are 404.
    expectError(await owner.client.patch(`/app/orgs/${org.id}/members/${bobId}`, { role: "emperor" }), 400, "validation");
    expectError(await owner.client.patch(`/app/orgs/${org.id}/members/${bobId}`, {}), 400, "validation");
    expectError(await owner.client.patch(`/app/orgs/${org.id}/members/${crypto.randomUUID()}`, { role: "member" }), 404, "not_found");
    expectError(await owner.client.patch(`/app/orgs/${org.id}/members/not-a-uuid`, { role: "member" }), 404, "not_found");
    const otherOrg = await newOrg();
    expectError(await owner.client.patch(`/app/orgs/${otherOrg.id}/members/${bobId}`, { role: "member" }), 404, "not_found");
    expectError(await dave.client.patch(`/app/orgs/${org.id}/members/${bobId}`, { role: "member" }), 404, "not_found");

    // Only the admin's one change happened.
    const listed = (await members(org.id)).members;
    expect(listed).toHaveLength(4);
    expect(listed).toEqual(
      expect.arrayContaining([
        memberDto(owner, "Olivia Owner", "owner", ownerId),
        memberDto(alice, "Alice Example", "admin"),
        memberDto(bob, "Bob Example", "viewer", bobId),
        memberDto(carol, "Carol Example", "viewer", carolId),
      ]),
    );
    expect((await bob.client.get("/app/orgs")).body.orgs).toContainEqual(orgDto(org, "viewer"));
    expect((await carol.client.get("/app/orgs")).body.orgs).toContainEqual(orgDto(org, "viewer"));
  });

  test("the last owner cannot be demoted or removed (409); after a second owner is added, the first can be demoted", async () => {
    const org = await newOrg();
    await join(org.id, alice, "admin");
    const ownerId = await memberIdOf(org.id, owner);
    const aliceId = await memberIdOf(org.id, alice);

    expectConflict(await owner.client.patch(`/app/orgs/${org.id}/members/${ownerId}`, { role: "admin" }));
    expectConflict(await owner.client.patch(`/app/orgs/${org.id}/members/${ownerId}`, { role: "viewer" }));
    expectConflict(await owner.client.delete(`/app/orgs/${org.id}/members/${ownerId}`));
    expect((await owner.client.get("/app/orgs")).body.orgs).toContainEqual(orgDto(org, "owner"));

    const promoted = await owner.client.patch(`/app/orgs/${org.id}/members/${aliceId}`, { role: "owner" });
    expect(promoted.status).toBe(200);
    expect(promoted.body).toEqual(memberDto(alice, "Alice Example", "owner", aliceId));

    const demoted = await owner.client.patch(`/app/orgs/${org.id}/members/${ownerId}`, { role: "admin" });
    expect(demoted.status).toBe(200);
    expect(demoted.body).toEqual(memberDto(owner, "Olivia Owner", "admin", ownerId));
    expect((await owner.client.get("/app/orgs")).body.orgs).toContainEqual(orgDto(org, "admin"));

    // Alice is now the last owner: she cannot step down or leave, and the admin cannot touch her.
    expectConflict(await alice.client.patch(`/app/orgs/${org.id}/members/${aliceId}`, { role: "member" }));
    expectConflict(await alice.client.delete(`/app/orgs/${org.id}/members/${aliceId}`));
    expectError(await owner.client.patch(`/app/orgs/${org.id}/members/${aliceId}`, { role: "member" }), 403, "scope_not_held");
    expectError(await owner.client.delete(`/app/orgs/${org.id}/members/${aliceId}`), 403, "scope_not_held");
    const listed = (await members(org.id)).members;
    expect(listed).toHaveLength(2);
    expect(listed).toEqual(
      expect.arrayContaining([memberDto(owner, "Olivia Owner", "admin", ownerId), memberDto(alice, "Alice Example", "owner", aliceId)]),
    );
  });

  test("DELETE member is 204: the org leaves the removed user's list and their tokens for it become 401 on /v1/me", async () => {
    const org = await newOrg();
    await join(org.id, bob, "member");
    await join(org.id, carol, "viewer");
    const bobId = await memberIdOf(org.id, bob);

    const created = await bob.client.post("/app/tokens", { name: "bob's token", org_id: org.id, scopes: ["org:read", "projects:read"] });
    expect(created.status).toBe(201);
    const before = await call(service.url, "GET", "/v1/me", { headers: bearer(created.body.secret) });
    expect(before.status).toBe(200);
    expect(before.body.org).toEqual(orgDto(org, "member"));

    // A viewer cannot remove; a non-member sees 404.
    expectError(await carol.client.delete(`/app/orgs/${org.id}/members/${bobId}`), 403, "missing_scope", "requires scope `members.write`");
    expectError(await dave.client.delete(`/app/orgs/${org.id}/members/${bobId}`), 404, "not_found");
    expect((await call(service.url, "GET", "/v1/me", { headers: bearer(created.body.secret) })).status).toBe(200);

    const removed = await owner.client.delete(`/app/orgs/${org.id}/members/${bobId}`);
    expect(removed.status).toBe(204);
    expect(removed.body).toBeUndefined();

    expect(await orgIdsOf(bob)).not.toContain(org.id);
    expect((await bob.client.get("/app/me")).body.orgs.map((o: any) => o.id)).not.toContain(org.id);
    // Bob still has his own account and personal organisation.
    expect(await orgIdsOf(bob)).toContain(bob.orgId);

    const after = await call(service.url, "GET", "/v1/me", { headers: bearer(created.body.secret) });
    expectError(after, 401, "unauthorized");
    expect(after.headers.get("www-authenticate")).toBe(challenge);

    expectError(await bob.client.get(`/app/orgs/${org.id}/members`), 404, "not_found");
    expect((await members(org.id)).members.map((member: any) => member.user_id).sort()).toEqual([owner.userId, carol.userId].sort());

    // Removing again, or unknown / malformed ids, is 404.
    expectError(await owner.client.delete(`/app/orgs/${org.id}/members/${bobId}`), 404, "not_found");
    expectError(await owner.client.delete(`/app/orgs/${org.id}/members/${crypto.randomUUID()}`), 404, "not_found");
    expectError(await owner.client.delete(`/app/orgs/${org.id}/members/not-a-uuid`), 404, "not_found");
  });
});
