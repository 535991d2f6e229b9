// The messaging gateway's projects and keys over real HTTP (the one process `npm start` runs,
// gateway at /gateway, its SQLite store in the data directory): the root key creates projects
// (webhook secret shown once), mints and revokes keys (shown once), rotates the webhook secret,
// suspends and enables; every refusal of a key is the same 401; another project's resource is
// 404; each project's audit trail shows what operators did to it.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { call, isoPattern, uuidPattern, type Reply } from "../helpers/client.ts";
import { reply, validation } from "../helpers/replies.ts";
import { startTestService, type TestService } from "../helpers/service.ts";

const rootKey = "gw_root_test_0123456789abcdefghijklmnop";
let service: TestService;

const gw = (method: string, path: string, key: string | null, body?: unknown): Promise<Reply> =>
  call(service.url, method, `/gateway${path}`, { body, headers: key === null ? {} : { apikey: key } });

const unauthorized = { status: 401, body: { error: { code: "unauthorized", message: "missing or invalid API key (send it in the apikey header)" } } };

beforeAll(async () => {
  service = await startTestService({ GATEWAY_ROOT_KEY: rootKey });
});
afterAll(async () => {
  await service.close();
});

async function createProject(name: string, webhookUrl?: string) {
  const created = await gw("POST", "/v1/projects", rootKey, webhookUrl === undefined ? { name } : { name, webhookUrl });
  expect(created.status).toBe(201);
  return created.body as { project: { id: string; webhookUrl: string | null }; webhookSecret: string };
}

async function mintKey(projectId: string, name?: string) {
  const minted = await gw("POST", `/v1/projects/${projectId}/keys`, rootKey, name === undefined ? undefined : { name });
  expect(minted.status).toBe(201);
  return minted.body as { key: Record<string, unknown> & { id: string }; secret: string };
}

describe("projects", () => {
  test("create answers the project and its webhook secret once; read and list never show the secret", async () => {
    const created = await gw("POST", "/v1/projects", rootKey, { name: " Acme support ", webhookUrl: "https://hooks.acme.example/wa" });
    const project = {
      id: expect.stringMatching(uuidPattern), name: "Acme support", webhookUrl: "https://hooks.acme.example/wa", state: "active", suspendedAt: null,
      createdAt: expect.stringMatching(isoPattern), updatedAt: expect.stringMatching(isoPattern),
    };
    expect(reply(created)).toEqual({ status: 201, body: { project, webhookSecret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/) } });
    const id = created.body.project.id;
    expect(reply(await gw("GET", `/v1/projects/${id}`, rootKey))).toEqual({ status: 200, body: created.body.project });
    const listed = await gw("GET", "/v1/projects?limit=200", rootKey);
    expect(listed.status).toBe(200);
    expect(listed.body.projects.find((candidate: { id: string }) => candidate.id === id)).toEqual(created.body.project);
    expect(JSON.stringify(listed.body)).not.toContain(created.body.webhookSecret);
  });

  test("bad bodies are refused with the field at fault", async () => {
    expect(reply(await gw("POST", "/v1/projects", rootKey, { name: "" }))).toEqual(validation("body /name: Expected string length greater or equal to 1"));
    expect(reply(await gw("POST", "/v1/projects", rootKey, { name: "x".repeat(201) }))).toEqual(validation("body /name: Expected string length less or equal to 200"));
    expect(reply(await gw("POST", "/v1/projects", rootKey, { name: "a", webhookUrl: "ftp://files.example/x" }))).toEqual(validation("webhookUrl: must be an http:// or https:// URL"));
    expect(reply(await gw("POST", "/v1/projects", rootKey, { name: "a", webhookUrl: "not a url" }))).toEqual(validation('webhookUrl: "not a url" is not a URL'));
    expect((await gw("POST", "/v1/projects", rootKey, { name: "a", colour: "blue" })).status).toBe(400);
    expect(reply(await gw("POST", "/v1/projects", rootKey, { name: "x".repeat(200) })).status).toBe(201);
  });

  test("lists page newest first with a cursor; the page size is 1 to 200", async () => {
    const names = ["page-a", "page-b", "page-c"];
    const ids: string[] = [];
    for (const name of names) ids.push((await createProject(name)).project.id);
    const first = await gw("GET", "/v1/projects?limit=2", rootKey);
    expect(first.body.projects.map((project: { id: string }) => project.id)).toEqual([ids[2], ids[1]]);
    expect(first.body.nextCursor).toBe(ids[1]);
    const second = await gw("GET", `/v1/projects?limit=1&cursor=${ids[1]}`, rootKey);
    expect(second.body.projects.map((project: { id: string }) => project.id)).toEqual([ids[0]]);
    expect((await gw("GET", "/v1/projects?limit=0", rootKey)).status).toBe(400);
    expect((await gw("GET", "/v1/projects?limit=201", rootKey)).status).toBe(400);
  });

  test("an unknown project is 404", async () => {
    const missing = { status: 404, body: { error: { code: "not_found", message: "project not found" } } };
    expect(reply(await gw("GET", "/v1/projects/0190aaaa-0000-7000-8000-000000000000", rootKey))).toEqual(missing);
    expect(reply(await gw("POST", "/v1/projects/nope/keys", rootKey))).toEqual(missing);
    expect(reply(await gw("POST", "/v1/projects/nope/disable", rootKey))).toEqual(missing);
    const unknownId = "0190aaaa-0000-7000-8000-000000000000";
    expect(reply(await gw("GET", `/v1/projects/${unknownId}/keys`, rootKey))).toEqual(missing);
    expect(reply(await gw("POST", `/v1/projects/${unknownId}/webhook/rotate`, rootKey))).toEqual(missing);
    expect(reply(await gw("POST", `/v1/projects/${unknownId}/enable`, rootKey))).toEqual(missing);
  });
});

describe("keys and the one 401", () => {
  test("a minted key is shown once and reaches its project's routes; revoked, it is refused like any other", async () => {
    const { project } = await createProject("Keys");
    const minted = await mintKey(project.id, "backend");
    expect(minted).toEqual({
      key: { id: expect.stringMatching(uuidPattern), projectId: project.id, name: "backend", last4: minted.secret.slice(-4), state: "active", createdAt: expect.stringMatching(isoPattern), revokedAt: null },
      secret: expect.stringMatching(/^gw_live_[0-9A-Za-z]{40}$/),
    });
    const listed = await gw("GET", `/v1/projects/${project.id}/keys`, rootKey);
    expect(reply(listed)).toEqual({ status: 200, body: { keys: [minted.key] } });
    expect((await gw("GET", "/v1/audit", minted.secret)).status).toBe(200);

    const revoked = await gw("POST", `/v1/projects/${project.id}/keys/${minted.key.id}/revoke`, rootKey);
    expect(reply(revoked)).toEqual({ status: 200, body: { ...minted.key, state: "revoked", revokedAt: expect.stringMatching(isoPattern) } });
    expect(reply(await gw("GET", "/v1/audit", minted.secret))).toEqual(unauthorized);
    const other = await createProject("Other");
    expect(reply(await gw("POST", `/v1/projects/${other.project.id}/keys/${minted.key.id}/revoke`, rootKey))).toEqual({ status: 404, body: { error: { code: "not_found", message: "key not found" } } });
  });

  test("missing, unknown, revoked and suspended keys, and a key on the wrong side, all get the same answer", async () => {
    const { project } = await createProject("Suspended");
    const live = await mintKey(project.id);
    const revoked = await mintKey(project.id);
    await gw("POST", `/v1/projects/${project.id}/keys/${revoked.key.id}/revoke`, rootKey);
    await gw("POST", `/v1/projects/${project.id}/disable`, rootKey);
    const answers = [
      await gw("GET", "/v1/audit", null),
      await gw("GET", "/v1/audit", "gw_live_unknown"),
      await gw("GET", "/v1/audit", revoked.secret),
      await gw("GET", "/v1/audit", live.secret),
      await gw("GET", "/v1/audit", rootKey),
      await gw("GET", "/v1/projects", live.secret),
      await gw("GET", "/v1/projects", null),
      // Refused before the body is read: no 400 tells a caller without the key what a body needs.
      await gw("POST", "/v1/projects", null, { name: "" }),
    ];
    for (const answer of answers) expect(reply(answer)).toEqual(unauthorized);
    expect(new Set(answers.map((answer) => JSON.stringify([...answer.headers].filter(([name]) => name !== "date")))).size).toBe(1);
  });
});

describe("suspension, webhook and audit", () => {
  test("disable suspends the project's keys; enable brings them back; both are on the project's trail", async () => {
    const { project } = await createProject("Lifecycle");
    const { secret } = await mintKey(project.id);
    const disabled = await gw("POST", `/v1/projects/${project.id}/disable`, rootKey);
    expect(disabled.body).toMatchObject({ state: "suspended", suspendedAt: expect.stringMatching(isoPattern) });
    expect(reply(await gw("POST", `/v1/projects/${project.id}/disable`, rootKey))).toEqual({ status: 200, body: disabled.body });
    expect(reply(await gw("GET", "/v1/audit", secret))).toEqual(unauthorized);
    const enabled = await gw("POST", `/v1/projects/${project.id}/enable`, rootKey);
    expect(enabled.body).toMatchObject({ state: "active", suspendedAt: null });
    const trail = await gw("GET", "/v1/audit", secret);
    expect(trail.status).toBe(200);
    expect(trail.body.entries.map(({ actor, action }: { actor: string; action: string }) => [actor, action])).toEqual([
      ["root", "project.enabled"],
      ["root", "project.disabled"],
      ["root", "key.minted"],
      ["root", "project.created"],
    ]);
    expect(trail.body.entries[3]).toEqual({
      id: expect.stringMatching(uuidPattern), projectId: project.id, actor: "root", action: "project.created", target: project.id,
      detail: { name: "Lifecycle", webhookUrl: null }, at: expect.stringMatching(isoPattern),
    });
    expect(trail.body.nextCursor).toBeNull();
  });

  test("rotating the webhook secret answers a new one and names the receiver that must switch to it", async () => {
    const { project, webhookSecret } = await createProject("Rotate", "https://hooks.acme.example/in");
    const rotated = await gw("POST", `/v1/projects/${project.id}/webhook/rotate`, rootKey);
    expect(rotated.status).toBe(200);
    expect(rotated.body.webhookSecret).not.toBe(webhookSecret);
    expect(rotated.body.mustReconnect).toEqual([{ kind: "webhook", url: "https://hooks.acme.example/in", action: "verify signatures with the new webhookSecret" }]);
    const cleared = await gw("PUT", `/v1/projects/${project.id}/webhook`, rootKey, { url: null });
    expect(cleared.body.webhookUrl).toBeNull();
    expect((await gw("POST", `/v1/projects/${project.id}/webhook/rotate`, rootKey)).body.mustReconnect).toEqual([]);
    expect(reply(await gw("PUT", `/v1/projects/${project.id}/webhook`, rootKey, { url: "mailto:a@b.c" }))).toEqual(validation("webhookUrl: must be an http:// or https:// URL"));
  });

  test("the operators' trail spans projects; a project's trail holds only its own", async () => {
    const a = await createProject("Trail A");
    const b = await createProject("Trail B");
    const admin = await gw("GET", "/v1/admin/audit?limit=2", rootKey);
    expect(admin.body.entries.map(({ target }: { target: string }) => target)).toEqual([b.project.id, a.project.id]);
    const { secret } = await mintKey(a.project.id);
    const own = await gw("GET", "/v1/audit", secret);
    expect(new Set(own.body.entries.map(({ projectId }: { projectId: string }) => projectId))).toEqual(new Set([a.project.id]));
  });

  test("the trails' page size is 1 to 200 and a cursor at most 64 characters; bad values are 400", async () => {
    const { secret } = await mintKey((await createProject("Trail C")).project.id);
    for (const [path, key] of [["/v1/audit", secret], ["/v1/admin/audit", rootKey]] as const) {
      expect(reply(await gw("GET", `${path}?limit=200`, key)).status).toBe(200);
      expect(reply(await gw("GET", `${path}?cursor=${"f".repeat(64)}`, key)).status).toBe(200);
      for (const query of ["limit=0", "limit=201", "limit=abc", `cursor=${"f".repeat(65)}`, "cursor="]) {
        const refused = await gw("GET", `${path}?${query}`, key);
        expect([refused.status, refused.body.error.code]).toEqual([400, "validation"]);
      }
    }
  });
});
