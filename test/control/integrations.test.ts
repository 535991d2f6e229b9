// The six /v1 revenue-integration routes and their console mirrors over real HTTP: the DTO,
// per-provider validation at its limits, scopes, tenancy, Idempotency-Key, dry_run, the region's
// copy, and that neither the secret nor the path token ever leaves in an answer or the audit log.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { startTestService, type TestService } from "../helpers/service.ts";
import { addMember, createProject, createToken, signUp, v1, type SignedUpUser } from "../helpers/accounts.ts";
import { isoPattern, uuidPattern } from "../helpers/client.ts";
import {
  integrationConfigBytesMax, integrationNameLengthMax, integrationSecretLengthMax, integrationSecretLengthMin, playProductIdLengthMax,
} from "../../server/control/integrations/integration-config.ts";

let service: TestService;
let owner: SignedUpUser;
let project: any;
let pat: string;

const stripeSecret = "whsec_0123456789abcdefABCDEF";
const rcSecret = "Bearer rc-webhook-authorization-value";

beforeAll(async () => {
  service = await startTestService();
  owner = await signUp(service, "Owner");
  project = (await createProject(owner, "Shop", "eu")).project;
  pat = (await createToken(owner, ["projects:write"])).secret;
});
afterAll(() => service.close());

const base = () => `/v1/projects/${project.id}/integrations`;
const create = (body: unknown, headers: Record<string, string> = {}) => v1(service, pat, "POST", base(), body, headers);
const validation = (message: string) => ({ error: { code: "validation", message } });
const tokenPattern = "[A-Za-z0-9_-]{43}";

function regionRow(id: string): any {
  const db = new Database(join(service.dataDir, "eu", "region.sqlite"), { readonly: true });
  try {
    return db.query("SELECT token, project_id, provider, status, secret, config FROM revenue_integrations WHERE id = ?").get(id);
  } finally {
    db.close();
  }
}

function auditRows(targetId: string): { action: string; before: string | null; after: string | null }[] {
  const db = new Database(join(service.dataDir, "control.sqlite"), { readonly: true });
  try {
    return db.query("SELECT action, before, after FROM audit_log WHERE target_id = ? ORDER BY id").all(targetId) as any;
  } finally {
    db.close();
  }
}

describe("/v1 integrations", () => {
  test("create, list, get, update, rotate-token and delete, mirrored into the region", async () => {
    const created = await create({ provider: "revenuecat", name: "RevenueCat", secret: rcSecret, config: { accept_sandbox: true } });
    expect(created.status).toBe(201);
    const dto = created.body;
    expect(dto).toEqual({
      id: expect.stringMatching(uuidPattern),
      project_id: project.id,
      provider: "revenuecat",
      status: "active",
      has_secret: true,
      region_synced: true,
      webhook_url: expect.stringMatching(new RegExp(`^${service.url}/ingest/eu/wh/revenuecat/${tokenPattern}$`)),
      config: { accept_sandbox: true },
      created_at: expect.stringMatching(isoPattern),
      updated_at: dto.created_at,
      name: "RevenueCat",
      secret_last4: "alue",
    });
    const token = dto.webhook_url.split("/").at(-1);
    expect(regionRow(dto.id)).toEqual({ token, project_id: project.id, provider: "revenuecat", status: "active", secret: rcSecret, config: '{"accept_sandbox":true}' });

    const appStore = await create({ provider: "app_store", config: { bundle_id: "com.example.app", accept_sandbox: true } });
    expect([appStore.status, appStore.body.has_secret, appStore.body.secret_last4, appStore.body.name]).toEqual([201, false, null, null]);

    expect(await v1(service, pat, "GET", base())).toEqual(expect.objectContaining({ status: 200, body: { integrations: [dto, appStore.body] } }));
    expect((await v1(service, pat, "GET", `${base()}/${dto.id}`)).body).toEqual(dto);

    const updated = await v1(service, pat, "PATCH", `${base()}/${dto.id}`, { name: "RC", status: "disabled", secret: "Bearer another-value-9876" });
    expect(updated.status).toBe(200);
    expect(updated.body).toEqual({ ...dto, name: "RC", status: "disabled", secret_last4: "9876", updated_at: expect.stringMatching(isoPattern) });
    expect(regionRow(dto.id)).toMatchObject({ status: "disabled", secret: "Bearer another-value-9876", token });

    const rotated = await v1(service, pat, "POST", `${base()}/${dto.id}/rotate-token`);
    expect(rotated.status).toBe(200);
    const newToken = rotated.body.webhook_url.split("/").at(-1);
    expect(newToken).not.toBe(token);
    expect(rotated.body).toEqual({ ...updated.body, webhook_url: `${service.url}/ingest/eu/wh/revenuecat/${newToken}`, updated_at: expect.stringMatching(isoPattern) });
    expect(regionRow(dto.id).token).toBe(newToken);

    const deleted = await v1(service, pat, "DELETE", `${base()}/${dto.id}`);
    expect([deleted.status, deleted.body]).toEqual([204, undefined]);
    expect(regionRow(dto.id)).toBeNull();
    expect((await v1(service, pat, "GET", `${base()}/${dto.id}`)).status).toBe(404);
    expect((await v1(service, pat, "DELETE", `${base()}/${dto.id}`)).status).toBe(404);

    // Neither the secret nor the token is in the audit log.
    const audit = auditRows(dto.id);
    expect(audit.map((row) => row.action)).toEqual(["integration.create", "integration.update", "integration.rotate_token", "integration.delete"]);
    const logged = JSON.stringify(audit);
    for (const secret of [rcSecret, "Bearer another-value-9876", token, newToken]) expect(logged).not.toContain(secret);
    expect(JSON.parse(audit[0]!.after!)).toEqual({
      id: dto.id, project_id: project.id, provider: "revenuecat", status: "active", has_secret: true, config: { accept_sandbox: true }, name: "RevenueCat", secret_last4: "alue",
    });
  });

  test("the secret is never in any answer", async () => {
    const created = await create({ provider: "stripe", secret: stripeSecret });
    const answers = [
      created,
      await v1(service, pat, "GET", base()),
      await v1(service, pat, "GET", `${base()}/${created.body.id}`),
      await v1(service, pat, "PATCH", `${base()}/${created.body.id}?dry_run=true`, { secret: "whsec_replacement0000" }),
      await v1(service, pat, "PATCH", `${base()}/${created.body.id}`, { name: "Stripe live" }),
      await owner.client.get(`/app/projects/${project.id}/integrations`),
    ];
    for (const reply of answers) {
      expect(reply.status).toBe(200 + (reply === created ? 1 : 0));
      expect(JSON.stringify(reply.body)).not.toContain(stripeSecret.slice(0, -4));
      expect(JSON.stringify(reply.body)).not.toContain("whsec_replacement");
    }
  });

  test("per-provider secret and config rules, each limit at its edge", async () => {
    const refused: [unknown, string][] = [
      [{ provider: "stripe" }, "stripe integrations require a secret"],
      [{ provider: "stripe", secret: "not-a-signing-secret" }, "secret must be the endpoint's signing secret, starting with whsec_"],
      [{ provider: "revenuecat" }, "revenuecat integrations require a secret"],
      [{ provider: "revenuecat", secret: "x".repeat(integrationSecretLengthMin - 1) }, `secret must be ${integrationSecretLengthMin} to ${integrationSecretLengthMax} characters`],
      [{ provider: "revenuecat", secret: " padded-value " }, "secret must be the Authorization header value set in RevenueCat (visible ASCII characters)"],
      [{ provider: "revenuecat", secret: rcSecret, config: { sandbox: true } }, "config.sandbox is not a setting of revenuecat integrations (known: accept_sandbox)"],
      [{ provider: "revenuecat", secret: rcSecret, config: { accept_sandbox: "yes" } }, "config.accept_sandbox must be true or false"],
      [{ provider: "stripe", secret: stripeSecret, config: { anything: 1 } }, "config.anything is not a setting of stripe integrations (they take none)"],
      [{ provider: "app_store", config: {} }, "config.bundle_id is required for app_store integrations"],
      [{ provider: "app_store", secret: "whsec_abcdefgh", config: { bundle_id: "com.example.app" } }, "app_store integrations take no secret"],
      [{ provider: "app_store", config: { bundle_id: "com.example.app", environment: "Production" } }, "config.environment is not a setting of app_store integrations (known: bundle_id, accept_sandbox)"],
      [{ provider: "app_store", config: { bundle_id: "com.example.app", accept_sandbox: 1 } }, "config.accept_sandbox must be true or false"],
      [{ provider: "play_store", config: { package_name: "com.example", products: { pro: { amount_minor: 999, currency: "USD", period: "month", period_count: 0 } } } },
        "config.products.pro.period_count must be a positive integer"],
      [{ provider: "play_store", config: { package_name: "com.example", products: { pro: { amount_minor: 999, currency: "USD", price: 1 } } } },
        "config.products.pro must be {amount_minor, currency, period, period_count, free_trial} (period and after optional)"],
      [{ provider: "play_store", config: {} }, "config.package_name is required for play_store integrations"],
      [{ provider: "play_store", config: { package_name: "com.example", products: { pro: { amount_minor: 9.5, currency: "USD", period: "month" } } } },
        "config.products.pro.amount_minor must be a non-negative integer (minor units of currency)"],
      [{ provider: "play_store", config: { package_name: "com.example", products: { pro: { amount_minor: 999, currency: "usd", period: "month" } } } },
        "config.products.pro.currency must be an ISO 4217 code such as USD"],
      [{ provider: "play_store", config: { package_name: "com.example", products: { pro: { amount_minor: 999, currency: "USD", period: "quarter" } } } },
        "config.products.pro.period must be one of day, week, month, year"],
      [{ provider: "stripe", secret: stripeSecret, name: " " }, "name must not be empty (send null for no name)"],
      [{ provider: "stripe", secret: stripeSecret, name: "n".repeat(integrationNameLengthMax + 1) }, `body /name: Expected string length less or equal to ${integrationNameLengthMax}`],
      [{ provider: "paypal" }, expect.stringMatching(/^body \/provider: /) as unknown as string],
    ];
    for (const [body, message] of refused) {
      const reply = await create(body);
      expect([body, reply.status, reply.body]).toEqual([body, 400, validation(message)]);
    }
    // At the limits: accepted.
    const longest = await create({ provider: "revenuecat", secret: "s".repeat(integrationSecretLengthMax), name: "n".repeat(integrationNameLengthMax) });
    expect([longest.status, longest.body.secret_last4]).toEqual([201, "ssss"]);
    const shortest = await create({ provider: "revenuecat", secret: "s".repeat(integrationSecretLengthMin) });
    expect(shortest.status).toBe(201);
    const tooLong = await create({ provider: "revenuecat", secret: "s".repeat(integrationSecretLengthMax + 1) });
    expect(tooLong.status).toBe(400);

    // Fixed-size products, then the package name makes up the exact size.
    const price = { amount_minor: 1, currency: "USD", period: "day" };
    const configOfSize = (bytes: number) => {
      const products: Record<string, unknown> = {};
      const size = (name: string) => JSON.stringify({ package_name: name, products }).length;
      for (let index = 0; size("p") + 160 < bytes - 100; index++) products[String(index).padStart(100, "0")] = price;
      return { package_name: "p".repeat(bytes - size("")), products };
    };
    const atLimit = configOfSize(integrationConfigBytesMax);
    expect(JSON.stringify(atLimit).length).toBe(integrationConfigBytesMax);
    expect((await create({ provider: "play_store", config: atLimit })).status).toBe(201);
    const overLimit = { ...atLimit, package_name: `${atLimit.package_name}p` };
    expect(await create({ provider: "play_store", config: overLimit })).toMatchObject({ status: 400, body: validation(`config must be at most ${integrationConfigBytesMax} bytes as JSON`) });

    const table = { coins: { amount_minor: 199, currency: "USD" }, pro: { amount_minor: 999, currency: "USD", period: "month", period_count: 3, free_trial: true } };
    expect((await create({ provider: "play_store", config: { package_name: "com.example", products: table } })).status).toBe(201);
    const priced = (productId: string) => ({ package_name: "com.example", products: { [productId]: { amount_minor: 1, currency: "USD", period: "day" } } });
    expect((await create({ provider: "play_store", config: priced("p".repeat(playProductIdLengthMax)) })).status).toBe(201);
    expect(await create({ provider: "play_store", config: priced("p".repeat(playProductIdLengthMax + 1)) }))
      .toMatchObject({ status: 400, body: validation(`config.products: product ids must be 1 to ${playProductIdLengthMax} characters`) });

    const stripe = await create({ provider: "stripe", secret: stripeSecret });
    const noProvider = await v1(service, pat, "PATCH", `${base()}/${stripe.body.id}`, { provider: "revenuecat" });
    expect(noProvider.status).toBe(400);
    const badSecret = await v1(service, pat, "PATCH", `${base()}/${stripe.body.id}`, { secret: "nope-nope-nope" });
    expect([badSecret.status, badSecret.body]).toEqual([400, validation("secret must be the endpoint's signing secret, starting with whsec_")]);
  });

  test("scopes: reads need projects:read, writes projects:write (403 missing_scope); a member may not write", async () => {
    const created = await create({ provider: "stripe", secret: stripeSecret });
    const reader = (await createToken(owner, ["projects:read"])).secret;
    expect((await v1(service, reader, "GET", base())).status).toBe(200);
    expect((await v1(service, reader, "GET", `${base()}/${created.body.id}`)).status).toBe(200);
    const missing = { error: { code: "missing_scope", message: "requires scope `projects:write`" } };
    for (const [method, path, body] of [
      ["POST", base(), { provider: "stripe", secret: stripeSecret }],
      ["PATCH", `${base()}/${created.body.id}`, { name: "x" }],
      ["DELETE", `${base()}/${created.body.id}`, undefined],
      ["POST", `${base()}/${created.body.id}/rotate-token`, undefined],
    ] as const) {
      const reply = await v1(service, reader, method, path, body);
      expect([method, path, reply.status, reply.body]).toEqual([method, path, 403, missing]);
    }
    const orgOnly = (await createToken(owner, ["org:read"])).secret;
    expect(await v1(service, orgOnly, "GET", base())).toMatchObject({ status: 403, body: { error: { code: "missing_scope", message: "requires scope `projects:read`" } } });

    const member = await addMember(service, owner, "member");
    const memberToken = (await createToken(member, ["projects:read"])).secret;
    expect((await v1(service, memberToken, "GET", base())).status).toBe(200);
    const consoleWrite = await member.client.post(`/app/projects/${project.id}/integrations`, { provider: "stripe", secret: stripeSecret });
    expect([consoleWrite.status, consoleWrite.body]).toEqual([403, missing]);
  });

  test("another project's integration, a malformed id and another tenant's project are 404", async () => {
    const created = await create({ provider: "stripe", secret: stripeSecret });
    const other = (await createProject(owner, "Other", "eu")).project;
    const notFound = { error: { code: "not_found", message: "integration not found" } };
    for (const [method, suffix] of [["GET", ""], ["PATCH", ""], ["DELETE", ""], ["POST", "/rotate-token"]] as const) {
      const reply = await v1(service, pat, method, `/v1/projects/${other.id}/integrations/${created.body.id}${suffix}`, method === "PATCH" ? { name: "x" } : undefined);
      expect([method, reply.status, reply.body]).toEqual([method, 404, notFound]);
    }
    expect((await v1(service, pat, "GET", `${base()}/not-a-uuid`)).body).toEqual(notFound);
    const stranger = await signUp(service, "Stranger");
    const strangerPat = (await createToken(stranger, ["projects:write"])).secret;
    const foreign = await v1(service, strangerPat, "GET", base());
    expect([foreign.status, foreign.body]).toEqual([404, { error: { code: "not_found", message: "project not found" } }]);
    expect((await v1(service, strangerPat, "POST", base(), { provider: "stripe", secret: stripeSecret })).status).toBe(404);
  });

  test("Idempotency-Key replays a create and a rotate-token; another request with the key is 422; dry_run changes nothing", async () => {
    const body = { provider: "stripe", secret: stripeSecret, name: "Once" };
    const first = await create(body, { "Idempotency-Key": "create-once" });
    const replay = await create(body, { "Idempotency-Key": "create-once" });
    expect([replay.status, replay.body, replay.headers.get("idempotent-replayed")]).toEqual([201, first.body, "true"]);
    const reused = await create({ ...body, name: "Twice" }, { "Idempotency-Key": "create-once" });
    expect([reused.status, reused.body.error.code]).toEqual([422, "idempotency_key_reused"]);
    const named = (await v1(service, pat, "GET", base())).body.integrations.filter((item: any) => item.name === "Once");
    expect(named).toHaveLength(1);

    const path = `${base()}/${first.body.id}/rotate-token`;
    const rotated = await v1(service, pat, "POST", path, undefined, { "Idempotency-Key": "rotate-1" });
    const again = await v1(service, pat, "POST", path, undefined, { "Idempotency-Key": "rotate-1" });
    expect([again.status, again.body]).toEqual([200, rotated.body]);
    expect((await v1(service, pat, "GET", `${base()}/${first.body.id}`)).body.webhook_url).toBe(rotated.body.webhook_url);

    const dry = await v1(service, pat, "POST", `${path}?dry_run=true`);
    expect(dry.body).toEqual({
      action: "integration.rotate_token", dry_run: true,
      before: { id: first.body.id, project_id: project.id, provider: "stripe", status: "active", has_secret: true, config: {}, name: "Once", secret_last4: "CDEF" },
      after: { id: first.body.id, project_id: project.id, provider: "stripe", status: "active", has_secret: true, config: {}, name: "Once", secret_last4: "CDEF" },
    });
    expect((await v1(service, pat, "GET", `${base()}/${first.body.id}`)).body.webhook_url).toBe(rotated.body.webhook_url);
    const dryDelete = await v1(service, pat, "DELETE", `${base()}/${first.body.id}?dry_run=true`);
    expect([dryDelete.status, dryDelete.body.action]).toEqual([200, "integration.delete"]);
    expect((await v1(service, pat, "GET", `${base()}/${first.body.id}`)).status).toBe(200);
  });

  test("the console mirror: same answers and checks under /app", async () => {
    const path = `/app/projects/${project.id}/integrations`;
    const created = await owner.client.post(path, { provider: "play_store", name: "Play", config: { package_name: "com.example.app", products: { pro_monthly: { amount_minor: 499, currency: "EUR", period: "month" } } } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ provider: "play_store", name: "Play", has_secret: false, region_synced: true });
    expect((await owner.client.get(`${path}/${created.body.id}`)).body).toEqual(created.body);
    expect((await v1(service, pat, "GET", `${base()}/${created.body.id}`)).body).toEqual(created.body);
    const bad = await owner.client.post(path, { provider: "play_store", secret: "whsec_abcdefgh", config: { package_name: "x" } });
    expect([bad.status, bad.body]).toEqual([400, validation("play_store integrations take no secret")]);
    const patched = await owner.client.patch(`${path}/${created.body.id}`, { status: "disabled" });
    expect([patched.status, patched.body.status]).toEqual([200, "disabled"]);
    const rotated = await owner.client.post(`${path}/${created.body.id}/rotate-token`);
    expect([rotated.status, rotated.body.webhook_url === created.body.webhook_url]).toEqual([200, false]);
    const removed = await owner.client.delete(`${path}/${created.body.id}`);
    expect([removed.status, removed.body]).toEqual([204, undefined]);
    expect((await owner.client.get(`${path}/${created.body.id}`)).status).toBe(404);
  });

  test("a deleted project's integrations leave the region", async () => {
    const doomed = (await createProject(owner, "Doomed", "eu")).project;
    const created = await v1(service, pat, "POST", `/v1/projects/${doomed.id}/integrations`, { provider: "stripe", secret: stripeSecret });
    expect(regionRow(created.body.id)).not.toBeNull();
    expect((await v1(service, pat, "DELETE", `/v1/projects/${doomed.id}`)).status).toBe(204);
    expect(regionRow(created.body.id)).toBeNull();
  });
});
