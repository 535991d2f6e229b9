// Region tokens are verified offline, yet stop working as soon as what they were issued under
// goes away: their project is deleted, their owner leaves the organisation or is downgraded,
// or the access token they were cut from is revoked (issue 34, item 11; README, Region token
// revocation). A region in another process is covered in remote-region.test.ts.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestService, type TestService } from "../helpers/service.ts";
import { addMember, createProject, createToken, regionTokenFor, signUp, v1, type SignedUpUser } from "../helpers/accounts.ts";
import { bearer, call, type Reply } from "../helpers/client.ts";

let service: TestService;
let owner: SignedUpUser;
let project: any;
let ownerRegionToken: string;

beforeAll(async () => {
  service = await startTestService({ REGIONS: "eu,us" });
  owner = await signUp(service, "Owner");
  ({ project } = await createProject(owner, "Revocations", "eu"));
  const pat = await createToken(owner, ["query:read", "persons:read"]);
  ownerRegionToken = await regionTokenFor(service, pat.secret, project.id, ["query:read", "persons:read"]);
});
afterAll(async () => { await service.close(); });

const persons = (token: string) => call(service.url, "GET", "/region/eu/persons", { headers: bearer(token) });
const sql = (token: string) => call(service.url, "POST", "/region/eu/sql", { headers: bearer(token), body: { sql: "SELECT 1 AS one" } });
const claims = (token: string) => call(service.url, "GET", "/region/eu/token", { headers: bearer(token) });

const noPersons = { results: [], next_cursor: null };
const one = { columns: ["one"], types: ["INTEGER"], rows: [[1]], truncated: false };

function expectRevoked(reply: Reply, why: string) {
  expect([reply.status, reply.body, reply.headers.get("www-authenticate")]).toEqual([
    401, { error: { code: "unauthorized", message: `region token revoked: ${why}` } }, 'Bearer realm="svc-analytics"',
  ]);
}

async function membershipId(user: SignedUpUser): Promise<string> {
  const members = (await owner.client.get(`/app/orgs/${owner.orgId}/members`)).body.members;
  return members.find((member: any) => member.user_id === user.userId).id;
}

async function expectStillWorks() {
  expect([(await persons(ownerRegionToken)).status, (await persons(ownerRegionToken)).body]).toEqual([200, noPersons]);
}

describe("a removed member", () => {
  test("their region tokens are refused at once; everyone else's keep working", async () => {
    const member = await addMember(service, owner, "member");
    const pat = await createToken(member, ["query:read", "persons:read"]);
    const token = await regionTokenFor(service, pat.secret, project.id, ["query:read", "persons:read"]);
    expect([(await persons(token)).status, (await persons(token)).body]).toEqual([200, noPersons]);

    expect((await owner.client.delete(`/app/orgs/${owner.orgId}/members/${await membershipId(member)}`)).status).toBe(204);
    const why = "its owner is no longer a member of the organisation";
    expectRevoked(await persons(token), why);
    expectRevoked(await claims(token), why);
    await expectStillWorks();
  });

  test("a member who leaves is refused too", async () => {
    const member = await addMember(service, owner, "viewer");
    const pat = await createToken(member, ["query:read"]);
    const token = await regionTokenFor(service, pat.secret, project.id, ["query:read"]);
    expect((await claims(token)).status).toBe(200);
    expect((await member.client.delete(`/app/orgs/${owner.orgId}/members/${await membershipId(member)}`)).status).toBe(204);
    expectRevoked(await claims(token), "its owner is no longer a member of the organisation");
  });
});

describe("a downgraded member", () => {
  test("loses at once the scopes the new role lacks; a lost write still implies the read the role keeps", async () => {
    const admin = await addMember(service, owner, "admin");
    const pat = await createToken(admin, ["query:read", "persons:write", "sql.raw"]);
    const token = await regionTokenFor(service, pat.secret, project.id, ["query:read", "persons:write", "sql.raw"]);
    expect([(await sql(token)).status, (await sql(token)).body]).toEqual([200, one]);

    const changed = await owner.client.patch(`/app/orgs/${owner.orgId}/members/${await membershipId(admin)}`, { role: "viewer" });
    expect([changed.status, changed.body.role]).toEqual([200, "viewer"]);
    const refused = await sql(token);
    expect([refused.status, refused.body]).toEqual([
      403, { error: { code: "forbidden", message: "region token lacks scope sql.raw: its owner's role no longer holds it" } },
    ]);
    expect([(await persons(token)).status, (await persons(token)).body]).toEqual([200, noPersons]);
    const seen = await claims(token);
    expect([seen.status, seen.body.scopes]).toEqual([200, ["query:read", "persons:read"]]);

    // A token issued under the new role carries only what the role holds.
    const narrowed = await v1(service, pat.secret, "POST", `/v1/projects/${project.id}/region-token`);
    expect([narrowed.status, narrowed.body.scopes]).toEqual([200, ["query:read", "persons:read"]]);
  });

  test("an upgrade takes nothing away", async () => {
    const member = await addMember(service, owner, "member");
    const pat = await createToken(member, ["query:read", "sql.raw"]);
    const token = await regionTokenFor(service, pat.secret, project.id, ["query:read", "sql.raw"]);
    expect((await owner.client.patch(`/app/orgs/${owner.orgId}/members/${await membershipId(member)}`, { role: "admin" })).status).toBe(200);
    expect([(await sql(token)).status, (await sql(token)).body]).toEqual([200, one]);
    expect((await claims(token)).body.scopes).toEqual(["query:read", "sql.raw"]);
  });
});

describe("a deleted project", () => {
  for (const via of ["console", "v1"] as const) {
    test(`its region tokens are refused at once (deleted via ${via}); the owner's other projects are untouched`, async () => {
      const { project: doomed } = await createProject(owner, `Doomed via ${via}`, "eu");
      const pat = await createToken(owner, ["query:read", "projects:write"]);
      const token = await regionTokenFor(service, pat.secret, doomed.id, ["query:read"]);
      expect((await call(service.url, "GET", "/region/eu/schema/events", { headers: bearer(token) })).body).toEqual({ events: [] });
      const sibling = await regionTokenFor(service, pat.secret, project.id, ["query:read"]);

      const deleted = via === "console"
        ? await owner.client.delete(`/app/projects/${doomed.id}`)
        : await v1(service, pat.secret, "DELETE", `/v1/projects/${doomed.id}`);
      expect(deleted.status).toBe(204);
      expectRevoked(await call(service.url, "GET", "/region/eu/schema/events", { headers: bearer(token) }), "its project was deleted");
      expect([(await claims(sibling)).status, (await claims(sibling)).body.project_id]).toEqual([200, project.id]);
    });
  }

  test("a dry run revokes nothing", async () => {
    const { project: kept } = await createProject(owner, "Dry run", "eu");
    const pat = await createToken(owner, ["query:read", "projects:write"]);
    const token = await regionTokenFor(service, pat.secret, kept.id, ["query:read"]);
    expect((await v1(service, pat.secret, "DELETE", `/v1/projects/${kept.id}?dry_run=true`)).status).toBe(200);
    expect((await claims(token)).status).toBe(200);
  });
});

describe("a revoked access token", () => {
  test("the region tokens cut from it are refused at once; those of the owner's other access tokens are not", async () => {
    const revoked = await createToken(owner, ["query:read"]);
    const other = await createToken(owner, ["query:read"]);
    const token = await regionTokenFor(service, revoked.secret, project.id, ["query:read"]);
    const otherToken = await regionTokenFor(service, other.secret, project.id, ["query:read"]);
    expect((await claims(token)).status).toBe(200);
    expect((await owner.client.delete(`/app/tokens/${revoked.token.id}`)).status).toBe(204);
    expectRevoked(await claims(token), "the access token it was issued with was revoked");
    expect((await claims(otherToken)).status).toBe(200);
  });
});

describe("across a restart", () => {
  test("the region still refuses a revoked token (revocations are kept in region.sqlite until the tokens expire)", async () => {
    // A fixed PUBLIC_URL keeps the token issuer the same on the restart's new port.
    const alone = await startTestService({ REGIONS: "eu", PUBLIC_URL: "http://analytics.test" });
    let restarted: TestService | null = null;
    try {
      const boss = await signUp(alone, "Boss");
      const { project: own } = await createProject(boss, "Restart", "eu");
      const member = await addMember(alone, boss, "member");
      const pat = await createToken(member, ["query:read"]);
      const token = await regionTokenFor(alone, pat.secret, own.id, ["query:read"]);
      const members = (await boss.client.get(`/app/orgs/${boss.orgId}/members`)).body.members;
      const id = members.find((m: any) => m.user_id === member.userId).id;
      expect((await boss.client.delete(`/app/orgs/${boss.orgId}/members/${id}`)).status).toBe(204);

      restarted = await alone.restart();
      const reply = await call(restarted.url, "GET", "/region/eu/token", { headers: bearer(token) });
      expectRevoked(reply, "its owner is no longer a member of the organisation");
    } finally {
      await (restarted ?? alone).close();
    }
  });
});
