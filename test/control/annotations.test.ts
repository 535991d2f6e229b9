// Annotations on /app (docs/annotations.md): the window's defaults and filters, whole bodies,
// limits at their edges, and the system annotations the service writes itself (flag production
// changes, experiment launch/stop/ship, project renames), which answer 409 to changes.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { reply, validation } from "../helpers/replies.ts";
import { startTestService, type TestService } from "../helpers/service.ts";
import { addMember, createProject, signUp, type SignedUpUser } from "../helpers/accounts.ts";
import { isoPattern, uuidPattern } from "../helpers/client.ts";
import { annotations } from "../../server/control/db/schema.ts";

let service: TestService;
let owner: SignedUpUser;
let viewer: SignedUpUser;
let projectId: string;
let base: string;

const daysFromNow = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString();

beforeAll(async () => {
  service = await startTestService();
  owner = await signUp(service, "Annotation Owner");
  viewer = await addMember(service, owner, "viewer");
  projectId = (await createProject(owner, "Notes")).project.id;
  base = `/app/projects/${projectId}/annotations`;
});
afterAll(async () => {
  await service.close();
});

describe("people's annotations", () => {
  test("create, update and delete, with whole bodies", async () => {
    const created = await owner.client.post(base, { content: " Released 2.0 <b>now</b> ", kind: "release", occurred_at: "2026-11-20T10:00:00+01:00", ref: { url: "https://example.com/2.0" } });
    expect(reply(created)).toEqual({
      status: 201,
      body: {
        id: expect.stringMatching(uuidPattern), project_id: projectId, content: "Released 2.0 <b>now</b>", kind: "release", occurred_at: "2026-11-20T09:00:00.000Z",
        source: "user", created_at: expect.stringMatching(isoPattern), created_by: owner.userId, ref: { url: "https://example.com/2.0" },
      },
    });
    const id = created.body.id;
    expect(reply(await owner.client.patch(`${base}/${id}`, { content: "Released 2.0", kind: null, occurred_at: "2026-11-21T00:00:00Z" }))).toEqual({
      status: 200, body: { ...created.body, content: "Released 2.0", occurred_at: "2026-11-21T00:00:00.000Z" },
    });
    expect(reply(await owner.client.patch(`${base}/${id}?dry_run=true`, { kind: "incident" }))).toEqual({
      status: 200, body: { action: "annotation.update", dry_run: true, before: expect.objectContaining({ kind: "release" }), after: expect.objectContaining({ kind: "incident" }) },
    });
    expect(reply(await owner.client.delete(`${base}/${id}`))).toEqual({ status: 204, body: undefined });
    expect(reply(await owner.client.delete(`${base}/${id}`))).toEqual({ status: 404, body: { error: { code: "not_found", message: "annotation not found" } } });
  });

  test("bad input is a 400 naming the field; limits at their edges", async () => {
    const post = async (body: Record<string, unknown>) => reply(await owner.client.post(base, body));
    const at = "2026-11-20T10:00:00Z";
    expect(await post({ content: "x", kind: "flag", occurred_at: at })).toEqual(validation("body /kind: Expected union value"));
    expect(await post({ content: "x", kind: "note", occurred_at: "yesterday" })).toEqual(validation("body /occurred_at must be an RFC 3339 timestamp such as 2026-11-27T09:30:00Z"));
    expect(await post({ content: "   ", kind: "note", occurred_at: at })).toEqual(validation("body /content: Expected string to match '\\S'"));
    expect((await post({ content: "c".repeat(1000), kind: "note", occurred_at: at })).status).toBe(201);
    expect(await post({ content: "c".repeat(1001), kind: "note", occurred_at: at })).toEqual(validation("body /content: Expected string length less or equal to 1000"));
    const ref = (bytes: number) => ({ v: "r".repeat(bytes - '{"v":""}'.length) });
    expect((await post({ content: "x", kind: "note", occurred_at: at, ref: ref(2048) })).status).toBe(201);
    expect(await post({ content: "x", kind: "note", occurred_at: at, ref: ref(2049) })).toEqual(validation("body /ref: at most 2048 bytes of JSON"));
    expect(await post({ content: "x", kind: "note", occurred_at: at, ref: [1] })).toEqual(validation("body /ref: Expected union value"));
    expect(reply(await viewer.client.post(base, { content: "x", kind: "note", occurred_at: at }))).toEqual({ status: 403, body: { error: { code: "missing_scope", message: "requires scope `annotations:write`" } } });
  });

  test("the list covers 90 days ago to a day ahead by default, oldest first; from, to and kind narrow it", async () => {
    const project = (await createProject(owner, "Window")).project.id;
    const url = `/app/projects/${project}/annotations`;
    const make = async (content: string, kind: string, occurred_at: string) => (await owner.client.post(url, { content, kind, occurred_at })).body;
    const ancient = await make("ancient", "note", daysFromNow(-91));
    const old = await make("old", "note", daysFromNow(-89));
    const recent = await make("recent", "incident", daysFromNow(-1));
    const soon = await make("soon", "campaign", daysFromNow(0.5));
    await make("later", "campaign", daysFromNow(2));
    const list = async (query = "") => reply(await owner.client.get(`${url}${query}`));
    expect(await list()).toEqual({ status: 200, body: { annotations: [old, recent, soon], next_offset: null } });
    expect(await list(`?from=${daysFromNow(-100)}&to=${daysFromNow(-90)}`)).toEqual({ status: 200, body: { annotations: [ancient], next_offset: null } });
    expect(await list("?kind=incident")).toEqual({ status: 200, body: { annotations: [recent], next_offset: null } });
    expect(await list("?limit=2")).toEqual({ status: 200, body: { annotations: [old, recent], next_offset: 2 } });
    expect(await list("?from=yesterday")).toEqual(validation("from must be an RFC 3339 timestamp such as 2026-11-27T09:30:00Z"));
    expect(await list(`?from=${daysFromNow(0)}&to=${daysFromNow(-1)}`)).toEqual(validation(expect.stringMatching(/^from \(.+\) must be before to \(.+\)$/) as unknown as string));
    expect(await list("?kind=memo")).toEqual(validation("kind must be one of note, release, incident, campaign, flag, experiment, project"));
  });
});

describe("system annotations", () => {
  test("flag production changes, experiment launch/stop/ship and renames are annotated and cannot be changed", async () => {
    const project = (await createProject(owner, "Systems")).project.id;
    const app = `/app/projects/${project}`;
    const flag = (await owner.client.post(`${app}/flags`, { key: "checkout", name: "Checkout" })).body;
    expect((await owner.client.patch(`${app}/flags/${flag.id}/environments/production`, { enabled: true })).status).toBe(200);
    expect((await owner.client.patch(`${app}/flags/${flag.id}/environments/staging`, { enabled: true })).status).toBe(200);
    expect((await owner.client.patch(`${app}/flags/${flag.id}/environments/production`, { rules: [{ rollout_percentage: 50 }] })).status).toBe(200);
    expect((await owner.client.patch(`${app}/flags/${flag.id}/environments/production`, { enabled: false })).status).toBe(200);
    const variants = [{ key: "control", rollout_percentage: 50 }, { key: "test", rollout_percentage: 50 }];
    const mv = (await owner.client.post(`${app}/flags`, { key: "mv", name: "MV", kind: "multivariate", variants })).body;
    const metric = (await owner.client.post(`${app}/metrics`, { key: "m", name: "M", query: { kind: "proportion", event: "bought" } })).body;
    const experiment = (await owner.client.post(`${app}/experiments`, { flag_id: mv.id, key: "exp", name: "Big test", primary_metric_id: metric.id })).body;
    expect((await owner.client.post(`${app}/experiments/${experiment.id}/launch`)).status).toBe(200);
    expect((await owner.client.post(`${app}/experiments/${experiment.id}/stop`)).status).toBe(200);
    expect((await owner.client.post(`${app}/experiments/${experiment.id}/ship`, { variant: "test", override_block: true })).status).toBe(200);
    expect((await owner.client.patch(app, { name: "Systems 2" })).status).toBe(200);

    const listed = await owner.client.get(`${app}/annotations`);
    const system = (kind: string, content: string, ref: Record<string, unknown>) => ({
      id: expect.stringMatching(uuidPattern), project_id: project, content, kind, occurred_at: expect.stringMatching(isoPattern), source: "system",
      created_at: expect.stringMatching(isoPattern), created_by: owner.userId, ref,
    });
    const flagRef = (version: number, enabled: boolean) => ({ flag_id: flag.id, key: "checkout", environment: "production", version, enabled });
    const expRef = (action: string) => ({ experiment_id: experiment.id, key: "exp", environment: "production", action });
    expect(reply(listed)).toEqual({
      status: 200,
      body: {
        annotations: [
          system("flag", 'Flag "checkout" turned on in production', flagRef(2, true)),
          system("flag", 'Flag "checkout" configuration changed in production', flagRef(3, true)),
          system("flag", 'Flag "checkout" turned off in production', flagRef(4, false)),
          system("experiment", 'Experiment "Big test" launched in production', expRef("launch")),
          system("experiment", 'Experiment "Big test" stopped in production', expRef("stop")),
          system("experiment", 'Experiment "Big test" shipped in production (variant "test")', expRef("ship")),
          system("project", 'Project renamed from "Systems" to "Systems 2"', { setting: "name", before: "Systems", after: "Systems 2" }),
        ],
        next_offset: null,
      },
    });
    const first = listed.body.annotations[0].id;
    const frozen = { status: 409, body: { error: { code: "conflict", message: "system annotations record what the service did and cannot be changed" } } };
    expect(reply(await owner.client.patch(`${app}/annotations/${first}`, { content: "edited" }))).toEqual(frozen);
    expect(reply(await owner.client.delete(`${app}/annotations/${first}`))).toEqual(frozen);
    // Within one transaction: a refused write leaves no annotation behind.
    const count = () => service.ctx.db.select().from(annotations).all().filter((row) => row.projectId === project).length;
    const before = count();
    expect((await viewer.client.patch(`${app}/flags/${flag.id}/environments/production`, { enabled: true })).status).toBe(403);
    expect(count()).toBe(before);
  });
});
