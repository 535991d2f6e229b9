// Feature flags in the control plane (spec 1: FlagDto and related resources, scopes
// flags:* and flags.production, DryRun; docs/flags.md for what the spec leaves open):
// console and /v1 with the same bodies, per-environment configuration, validation,
// the production gate, dry runs, archive, publications into the region, secret keys.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestService, type TestService } from "../helpers/service.ts";
import { addMember, createProject, createToken, signUp, v1, type SignedUpUser } from "../helpers/accounts.ts";
import { isoPattern, uuidPattern } from "../helpers/client.ts";

let service: TestService;
let owner: SignedUpUser;
let member: SignedUpUser;
let project: any;

beforeAll(async () => {
  service = await startTestService();
  owner = await signUp(service, "Flag Owner");
  member = await addMember(service, owner, "member");
  project = (await createProject(owner, "Flags")).project;
});

afterAll(async () => {
  await service.stop();
});

const flagsPath = () => `/app/projects/${project.id}/flags`;
const environments = ["development", "production", "staging"];

/** The configuration every environment of a new flag gets. */
const newConfig = (environment: string, extra: Record<string, unknown> = {}) => ({
  environment,
  enabled: false,
  payload: null,
  rules: [{ properties: [], rollout_percentage: null, variant: null }],
  salt: "",
  stickiness: "distinct_id",
  variants: [],
  version: 1,
  updated_at: expect.stringMatching(isoPattern),
  updated_by: owner.userId,
  ...extra,
});

const regionSnapshot = (environment: string) => service.nodes.get("eu")!.store.flags.snapshot(project.id, environment);

describe("console flags", () => {
  let flag: any;

  test("create: 201 FlagDto with one disabled configuration per environment, published to the region", async () => {
    const reply = await owner.client.post(flagsPath(), { key: "new-checkout", name: "New checkout", description: "Redesign", tags: ["checkout"], payload: { color: "blue" } });
    expect(reply.status).toBe(201);
    flag = reply.body;
    expect(flag).toEqual({
      id: expect.stringMatching(uuidPattern),
      project_id: project.id,
      key: "new-checkout",
      name: "New checkout",
      kind: "boolean",
      tags: ["checkout"],
      environments: Object.fromEntries(environments.map((env) => [env, newConfig(env, { payload: { color: "blue" } })])),
      created_at: expect.stringMatching(isoPattern),
      updated_at: flag.created_at,
      archived_at: null,
      created_by: owner.userId,
      description: "Redesign",
      experiment_id: null,
      owner_id: null,
    });
    const snapshot = regionSnapshot("production")!;
    expect(snapshot.version).toBe(1);
    expect(snapshot.flags).toEqual([{
      id: expect.any(Number), key: "new-checkout", name: "New checkout", description: "Redesign", kind: "boolean", enabled: false,
      payload: { color: "blue" }, rules: [{ properties: [], rollout_percentage: null, variant: null }], variants: [], salt: "", stickiness: "distinct_id", version: 1,
    }]);
  });

  test("get and list (archived flags only with include_archived)", async () => {
    expect(await owner.client.get(`${flagsPath()}/${flag.id}`)).toMatchObject({ status: 200, body: flag });
    expect(await owner.client.get(flagsPath())).toMatchObject({ status: 200, body: { flags: [flag] } });
  });

  test("a taken key is 409; bad keys, kinds and variants are 400 with the reason", async () => {
    const taken = await owner.client.post(flagsPath(), { key: "new-checkout", name: "Again" });
    expect(taken).toMatchObject({ status: 409, body: { error: { code: "conflict", message: 'a flag with key "new-checkout" already exists' } } });
    const cases: [Record<string, unknown>, string][] = [
      [{ key: "has space", name: "x" }, "key"],
      [{ key: "mv", name: "x", kind: "multivariate", variants: [{ key: "a", rollout_percentage: 50 }, { key: "b", rollout_percentage: 40 }] }, "variant rollout percentages must sum to 100 (they sum to 90)"],
      [{ key: "mv", name: "x", kind: "multivariate", variants: [{ key: "a", rollout_percentage: 100 }] }, "a multivariate flag needs at least 2 variants"],
      [{ key: "mv", name: "x", kind: "multivariate", variants: [{ key: "a", rollout_percentage: 50 }, { key: "a", rollout_percentage: 50 }] }, "variant keys must be unique"],
      [{ key: "b", name: "x", variants: [{ key: "a", rollout_percentage: 100 }] }, "a boolean flag has no variants (create it with kind multivariate)"],
      [{ key: "b", name: "x", rules: [{ variant: "a" }] }, 'rules[0].variant: "a" is not one of the flag\'s variants'],
      [{ key: "b", name: "x", rules: [{ properties: [{ type: "person", key: "plan", operator: "eq" }] }] }, "rules[0].properties[0]: eq needs a value"],
      [{ key: "b", name: "x", rules: [{ properties: [{ type: "person", key: "plan", operator: "in", value: "pro" }] }] }, "rules[0].properties[0]: in needs an array value"],
      [{ key: "b", name: "x", rules: [{ properties: [{ type: "person", key: "plan", operator: "is_set", value: 1 }] }] }, "rules[0].properties[0]: is_set takes no value"],
      [{ key: "b", name: "x", rules: [{ properties: [{ type: "person", key: "email", operator: "regex", value: "(" }] }] }, 'rules[0].properties[0]: "(" is not a valid regular expression'],
      [{ key: "b", name: "x", rules: [{ properties: [{ type: "group", key: "size", operator: "gt", value: 5 }] }] }, "rules[0].properties[0]: a group condition needs group_type"],
      [{ key: "b", name: "x", rules: [{ properties: [{ type: "person", key: "age", operator: "gt", value: true }] }] }, "rules[0].properties[0]: gt compares numbers or text, not booleans"],
      [{ key: "b", name: "x", stickiness: "device" }, 'stickiness must be "distinct_id" or "group:<group type>"'],
      [{ key: "b", name: "x", rules: [{ rollout_percentage: 101 }] }, "rollout_percentage"],
    ];
    for (const [body, message] of cases) {
      const reply = await owner.client.post(flagsPath(), body);
      expect([reply.status, reply.body.error.code]).toEqual([400, "validation"]);
      expect(reply.body.error.message).toContain(message);
    }
  });

  test("update: name, tags, owner; a new publication of every environment", async () => {
    const reply = await owner.client.patch(`${flagsPath()}/${flag.id}`, { name: "Checkout v2", tags: [], owner_id: owner.userId });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ ...flag, name: "Checkout v2", tags: [], owner_id: owner.userId, updated_at: expect.stringMatching(isoPattern) });
    flag = reply.body;
    expect(regionSnapshot("staging")!.version).toBe(2);
    expect(regionSnapshot("staging")!.flags[0]!.name).toBe("Checkout v2");
  });

  test("environment configuration: version increments, updated_by recorded, only that environment republished", async () => {
    const rules = [{ properties: [{ type: "person", key: "plan", operator: "in", value: ["pro", "team"] }], rollout_percentage: 50 }];
    const reply = await member.client.patch(`${flagsPath()}/${flag.id}/environments/staging`, { enabled: true, rules, salt: "s1" });
    expect(reply.status).toBe(200);
    expect(reply.body.environments.staging).toEqual(newConfig("staging", {
      enabled: true, payload: { color: "blue" }, rules: [{ ...rules[0], variant: null }], salt: "s1", version: 2, updated_by: member.userId,
    }));
    expect(reply.body.environments.production).toEqual(flag.environments.production);
    expect(regionSnapshot("staging")!.version).toBe(3);
    expect(regionSnapshot("staging")!.flags[0]).toMatchObject({ enabled: true, salt: "s1", version: 2 });
    expect(regionSnapshot("production")!.version).toBe(2);
    const cleared = await member.client.patch(`${flagsPath()}/${flag.id}/environments/staging`, { payload: null });
    expect(cleared.body.environments.staging).toMatchObject({ payload: null, version: 3 });
    const unknown = await owner.client.patch(`${flagsPath()}/${flag.id}/environments/qa`, { enabled: true });
    expect(unknown).toMatchObject({ status: 404, body: { error: { code: "not_found", message: "environment not found" } } });
    flag = cleared.body;
  });

  test("production: enabling needs flags.production (a member lacks it), switching off does not", async () => {
    const path = `${flagsPath()}/${flag.id}/environments/production`;
    const refused = await member.client.patch(path, { enabled: true });
    expect(refused).toMatchObject({ status: 403, body: { error: { code: "missing_scope" } } });
    expect(refused.body.error.message).toContain("flags.production");
    const enabled = await owner.client.patch(path, { enabled: true });
    expect(enabled.body.environments.production).toMatchObject({ enabled: true, version: 2 });
    // Editing a live production configuration keeps needing the scope...
    expect((await member.client.patch(path, { rules: [] })).status).toBe(403);
    // ...but the kill switch is open to anyone who may write flags.
    const off = await member.client.patch(path, { enabled: false });
    expect(off.body.environments.production).toMatchObject({ enabled: false, version: 3, updated_by: member.userId });
    flag = off.body;
  });

  test("dry runs change nothing and return the audit action with before and after", async () => {
    const preview = await owner.client.patch(`${flagsPath()}/${flag.id}/environments/development?dry_run=true`, { enabled: true });
    expect(preview).toMatchObject({ status: 200, body: { action: "flag.environment.update", dry_run: true, before: flag.environments.development } });
    expect(preview.body.after).toEqual({ ...flag.environments.development, enabled: true, version: 2, updated_at: expect.stringMatching(isoPattern) });
    const created = await owner.client.post(`${flagsPath()}?dry_run=true`, { key: "preview-only", name: "Preview" });
    expect(created.body).toMatchObject({ action: "flag.create", dry_run: true, before: null, after: { key: "preview-only" } });
    expect(await owner.client.get(`${flagsPath()}/${flag.id}`)).toMatchObject({ body: flag });
    expect((await owner.client.get(flagsPath())).body.flags.map((f: any) => f.key)).toEqual(["new-checkout"]);
  });

  test("publications: versions per environment, newest first, all published", async () => {
    const reply = await owner.client.get(`${flagsPath()}/publications?environment=production`);
    expect(reply.status).toBe(200);
    expect(reply.body.publications.map((p: any) => [p.environment, p.version, p.status, p.error])).toEqual([
      ["production", 4, "published", null], ["production", 3, "published", null], ["production", 2, "published", null], ["production", 1, "published", null],
    ]);
    expect(reply.body.publications[0]).toEqual({
      id: expect.stringMatching(uuidPattern), environment: "production", status: "published", version: 4, checksum: expect.stringMatching(/^[0-9a-f]{64}$/),
      created_at: expect.stringMatching(isoPattern), error: null, published_at: expect.stringMatching(isoPattern),
    });
    expect((await owner.client.get(`${flagsPath()}/publications`)).body.publications).toHaveLength(4 + 4 + 2);
  });

  test("archive: 200 with archived_at, gone from the region's snapshot, further writes 409", async () => {
    const reply = await owner.client.delete(`${flagsPath()}/${flag.id}`);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ ...flag, archived_at: expect.stringMatching(isoPattern), updated_at: expect.stringMatching(isoPattern) });
    expect(regionSnapshot("production")!.flags).toEqual([]);
    expect((await owner.client.get(flagsPath())).body).toEqual({ flags: [] });
    expect((await owner.client.get(`${flagsPath()}?include_archived=true`)).body.flags.map((f: any) => f.key)).toEqual(["new-checkout"]);
    expect(await owner.client.delete(`${flagsPath()}/${flag.id}`)).toMatchObject({ status: 409, body: { error: { code: "conflict", message: "the flag is archived" } } });
    expect((await owner.client.patch(`${flagsPath()}/${flag.id}/environments/staging`, { enabled: false })).status).toBe(409);
  });

  test("unknown, malformed and other projects' flags are 404", async () => {
    const other = (await createProject(owner, "Other")).project;
    for (const path of [`${flagsPath()}/${crypto.randomUUID()}`, `${flagsPath()}/not-a-uuid`, `/app/projects/${other.id}/flags/${flag.id}`]) {
      expect(await owner.client.get(path)).toMatchObject({ status: 404, body: { error: { code: "not_found" } } });
    }
  });
});

describe("/v1 flags take the same bodies; scopes", () => {
  test("multivariate flag through /v1 with a flags:write token; reads need flags:read", async () => {
    const writer = await createToken(owner, ["flags:write"]);
    const variants = [{ key: "control", rollout_percentage: 50 }, { key: "test", rollout_percentage: 50, payload: { discount: 10 } }];
    const created = await v1(service, writer.secret, "POST", `/v1/projects/${project.id}/flags`, { key: "pricing", name: "Pricing", kind: "multivariate", variants, rules: [{ rollout_percentage: 20 }] });
    expect(created.status).toBe(201);
    expect(created.body.environments.production).toEqual(newConfig("production", {
      rules: [{ properties: [], rollout_percentage: 20, variant: null }],
      variants: [{ key: "control", name: null, rollout_percentage: 50, payload: null }, { key: "test", name: null, rollout_percentage: 50, payload: { discount: 10 } }],
    }));
    const got = await v1(service, writer.secret, "GET", `/v1/projects/${project.id}/flags/${created.body.id}`);
    expect(got).toMatchObject({ status: 200, body: created.body });
    const reader = await createToken(owner, ["projects:read"]);
    expect(await v1(service, reader.secret, "GET", `/v1/projects/${project.id}/flags`)).toMatchObject({ status: 403, body: { error: { code: "missing_scope" } } });
    const dry = await v1(service, writer.secret, "PATCH", `/v1/projects/${project.id}/flags/${created.body.id}/environments/production?dry_run=true`, { enabled: true });
    expect(dry).toMatchObject({ status: 403, body: { error: { code: "missing_scope" } } });
    const production = await createToken(owner, ["flags:write", "flags.production"]);
    const live = await v1(service, production.secret, "PATCH", `/v1/projects/${project.id}/flags/${created.body.id}/environments/production`, { enabled: true });
    expect(live.body.environments.production).toMatchObject({ enabled: true, version: 2 });
    expect((await v1(service, production.secret, "GET", `/v1/projects/${project.id}/flags/publications?environment=production`)).body.publications[0].status).toBe("published");
  });

  test("the flag routes are served but absent from /openapi.json", async () => {
    const document = (await owner.client.get("/openapi.json")).body;
    expect(Object.keys(document.paths).filter((path) => path.includes("flag"))).toEqual([]);
  });
});

describe("flag secret keys", () => {
  test("created once-shown, listed by prefix, revoked (409 twice), mirrored into the region by hash", async () => {
    const created = await owner.client.post(`/app/projects/${project.id}/flag-secret-keys`, { environment: "production", name: "backend" });
    expect(created.status).toBe(201);
    const { key, secret } = created.body;
    expect(secret).toMatch(/^svc_fsk_[0-9A-Za-z]{40}$/);
    expect(key).toEqual({
      id: expect.stringMatching(uuidPattern), project_id: project.id, environment: "production", name: "backend", prefix: secret.slice(0, 14),
      created_at: expect.stringMatching(isoPattern), created_by: owner.userId, revoked_at: null,
    });
    expect((await owner.client.get(`/app/projects/${project.id}/flag-secret-keys`)).body).toEqual({ keys: [key] });
    const hash = new Bun.CryptoHasher("sha256").update(secret).digest("hex");
    expect(service.nodes.get("eu")!.store.flags.findSecretKey(hash)).toEqual({ id: key.id, secretHash: hash, projectId: project.id, environment: "production", revokedAt: null });
    const bad = await owner.client.post(`/app/projects/${project.id}/flag-secret-keys`, { environment: "qa", name: "x" });
    expect(bad).toMatchObject({ status: 400, body: { error: { code: "validation", message: 'environment "qa" is not one of the project\'s environments' } } });
    const revoked = await owner.client.post(`/app/projects/${project.id}/flag-secret-keys/${key.id}/revoke`);
    expect(revoked.body).toEqual({ ...key, revoked_at: expect.stringMatching(isoPattern) });
    expect(service.nodes.get("eu")!.store.flags.findSecretKey(hash)!.revokedAt).toBe(revoked.body.revoked_at);
    expect((await owner.client.post(`/app/projects/${project.id}/flag-secret-keys/${key.id}/revoke`)).status).toBe(409);
  });
});
