// /app/projects/{id}/findings/destinations over real HTTP: the DTO (the URL and the signing
// secret never in any answer nor audit row; secret_hint instead), every limit at its edge, the
// per-kind rules on secrets, dry_run, audit rows, roles (viewers read, members write), tenancy,
// and the region's copy after each change.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestService, type TestService } from "../../helpers/service.ts";
import { addMember, createProject, signUp, type SignedUpUser } from "../../helpers/accounts.ts";
import { isoPattern, uuidPattern } from "../../helpers/client.ts";
import {
  channelLengthMax, destinationUrlLengthMax, destinationsPerProjectMax, findingsNameLengthMax, recipientLengthMax, recipientsMax, signingSecretLengthMax,
  signingSecretLengthMin, whsecKeyBytesMax, whsecKeyBytesMin,
} from "../../../server/control/findings/findings-limits.ts";
import {
  auditRows, destinationsPath, missingScope, regionConfig, regionDestination, regionProject, rulesPath, slackUrl, validation, webhookUrl, whsec,
} from "./fixture.ts";

let service: TestService;
let owner: SignedUpUser;
let project: any;

beforeAll(async () => {
  service = await startTestService({ REGIONS: "eu,us" });
  owner = await signUp(service, "Owner");
  project = (await createProject(owner, "Shop", "eu")).project;
});
afterAll(() => service.close());

const base = () => destinationsPath(project.id);
const create = (body: unknown, user = owner, projectId = project.id) => user.client.post(destinationsPath(projectId), body);

describe("findings destinations", () => {
  test("create, list, update and delete a Slack destination; the region holds each state", async () => {
    const created = await create({ kind: "slack", name: "Alerts channel", secret: slackUrl, config: { to: ["@oncall"], channel: "#alerts" } });
    expect(created.status).toBe(201);
    const dto = created.body;
    expect(dto).toEqual({
      id: expect.stringMatching(uuidPattern),
      project_id: project.id,
      kind: "slack",
      name: "Alerts channel",
      enabled: true,
      min_severity: "info",
      config: { to: ["@oncall"], channel: "#alerts" },
      has_secret: true,
      created_at: expect.stringMatching(isoPattern),
      updated_at: dto.created_at,
      created_by: owner.userId,
      secret_hint: "https://hooks.slack.com/…AbCd",
    });
    expect(regionConfig(service, project.id)).toEqual({
      ...regionProject(service, project), destinations: [regionDestination(dto, slackUrl, null)], rules: [], metrics: [],
    });
    expect(await owner.client.get(base())).toEqual(expect.objectContaining({ status: 200, body: { destinations: [dto] } }));

    const updated = await owner.client.patch(`${base()}/${dto.id}`, { name: "Renamed", enabled: false, min_severity: "critical", config: { to: [] } });
    expect(updated.status).toBe(200);
    expect(updated.body).toEqual({ ...dto, name: "Renamed", enabled: false, min_severity: "critical", config: { to: [], channel: null }, updated_at: expect.stringMatching(isoPattern) });
    expect(regionConfig(service, project.id)!.destinations).toEqual([regionDestination(updated.body, slackUrl, null)]);

    const newUrl = "https://hooks.slack.com/services/T0001/B0002/OtherToken1234";
    const rotated = await owner.client.patch(`${base()}/${dto.id}`, { secret: newUrl });
    expect([rotated.status, rotated.body.secret_hint, rotated.body.has_secret]).toEqual([200, "https://hooks.slack.com/…1234", true]);
    expect(regionConfig(service, project.id)!.destinations[0]!.secret).toBe(newUrl);
    const cleared = await owner.client.patch(`${base()}/${dto.id}`, { secret: null });
    expect([cleared.status, cleared.body.secret_hint, cleared.body.has_secret]).toEqual([200, null, false]);
    expect(regionConfig(service, project.id)!.destinations[0]!.secret).toBeNull();

    const deleted = await owner.client.delete(`${base()}/${dto.id}`);
    expect([deleted.status, deleted.body]).toEqual([204, undefined]);
    expect(regionConfig(service, project.id)).toBeNull();
    expect((await owner.client.get(base())).body).toEqual({ destinations: [] });
    expect(await owner.client.delete(`${base()}/${dto.id}`)).toMatchObject({ status: 404, body: { error: { code: "not_found", message: "findings destination not found" } } });

    const audit = auditRows(service, dto.id);
    expect(audit.map((row) => [row.action, row.target_type])).toEqual([
      ["findings_destination.create", "findings_destination"], ["findings_destination.update", "findings_destination"],
      ["findings_destination.update", "findings_destination"], ["findings_destination.update", "findings_destination"],
      ["findings_destination.delete", "findings_destination"],
    ]);
    expect(audit[0]).toMatchObject({ before: null, after: dto });
    expect(audit[1]).toMatchObject({ before: dto, after: updated.body });
    expect(audit[4]).toMatchObject({ before: cleared.body, after: null });
    const logged = JSON.stringify(audit);
    for (const secret of [slackUrl, newUrl, "SecretToken", "OtherToken"]) expect(logged).not.toContain(secret);
  });

  test("a webhook destination needs a signing secret with its URL; neither is in any answer or audit row", async () => {
    expect(await create({ kind: "webhook", name: "No key", secret: webhookUrl })).toEqual(expect.objectContaining({
      status: 400, body: validation("webhook destinations with a URL (secret) require a signing_secret"),
    }));
    const plain = "a-plain-signing-secret-value";
    const created = await create({ kind: "webhook", name: "Receiver", secret: webhookUrl, signing_secret: plain, min_severity: "warning" });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(uuidPattern), project_id: project.id, kind: "webhook", name: "Receiver", enabled: true, min_severity: "warning",
      config: { to: [], channel: null }, has_secret: true, created_at: expect.stringMatching(isoPattern), updated_at: created.body.created_at,
      created_by: owner.userId, secret_hint: "https://receiver.example.com/…9876",
    });
    const id = created.body.id;
    expect(regionConfig(service, project.id)!.destinations.find((item) => item.id === id)).toEqual(regionDestination(created.body, webhookUrl, plain));

    // The signing secret can be replaced alone; removing it while a URL is set is refused.
    const replaced = await owner.client.patch(`${base()}/${id}`, { signing_secret: whsec });
    expect(replaced.status).toBe(200);
    expect(regionConfig(service, project.id)!.destinations.find((item) => item.id === id)!.signing_secret).toBe(whsec);
    expect(await owner.client.patch(`${base()}/${id}`, { signing_secret: null })).toEqual(expect.objectContaining({
      status: 400, body: validation("webhook destinations with a URL (secret) require a signing_secret"),
    }));
    // Without a URL a webhook destination needs no signing secret (it delivers nothing until one is set).
    const noUrl = await owner.client.patch(`${base()}/${id}`, { secret: null, signing_secret: null });
    expect([noUrl.status, noUrl.body.has_secret, noUrl.body.secret_hint]).toEqual([200, false, null]);
    expect(regionConfig(service, project.id)!.destinations.find((item) => item.id === id)).toMatchObject({ secret: null, signing_secret: null });
    const again = await owner.client.patch(`${base()}/${id}`, { secret: webhookUrl, signing_secret: plain });

    const answers = [
      created, replaced, noUrl, again,
      await owner.client.get(base()),
      await owner.client.patch(`${base()}/${id}?dry_run=true`, { secret: "https://other.example.com/x-secret-path-5555", signing_secret: "another-plain-secret-4444" }),
      await owner.client.delete(`${base()}/${id}?dry_run=true`),
    ];
    const secrets = [webhookUrl, "hidden", plain, whsec, "x-secret-path", "another-plain-secret"];
    for (const reply of answers) {
      for (const secret of secrets) expect([reply.status, JSON.stringify(reply.body).includes(secret)]).toEqual([reply.status, false]);
    }
    const logged = JSON.stringify(auditRows(service, id));
    for (const secret of secrets) expect(logged.includes(secret)).toBe(false);
  });

  test("the kind's rules: slack takes no signing secret; the kind cannot change", async () => {
    expect(await create({ kind: "slack", name: "S", secret: slackUrl, signing_secret: whsec })).toEqual(expect.objectContaining({
      status: 400, body: validation("slack destinations take no signing_secret"),
    }));
    const slack = await create({ kind: "slack", name: "S", secret: slackUrl });
    expect(await owner.client.patch(`${base()}/${slack.body.id}`, { signing_secret: whsec })).toEqual(expect.objectContaining({
      status: 400, body: validation("slack destinations take no signing_secret"),
    }));
    expect(await owner.client.patch(`${base()}/${slack.body.id}`, { kind: "webhook" })).toEqual(expect.objectContaining({
      status: 400, body: validation("body /kind: Unexpected property"),
    }));
    expect((await create({ kind: "email", name: "E" })).status).toBe(400);
    // No secret at all: kept, delivers nothing until a URL is set.
    const bare = await create({ kind: "slack", name: "Later" });
    expect([bare.status, bare.body.has_secret, bare.body.secret_hint]).toEqual([201, false, null]);
    await owner.client.delete(`${base()}/${slack.body.id}`);
    await owner.client.delete(`${base()}/${bare.body.id}`);
  });

  test("every limit at its edge", async () => {
    const name = (length: number) => "n".repeat(length);
    const ok = async (body: Record<string, unknown>) => {
      const reply = await create({ kind: "slack", name: "Edge", ...body });
      expect([body, reply.status]).toEqual([body, 201]);
      await owner.client.delete(`${base()}/${reply.body.id}`);
      return reply.body;
    };
    const refused = async (body: Record<string, unknown>, message: string) => {
      const reply = await create({ kind: "slack", name: "Edge", ...body });
      expect([body, reply.status, reply.body]).toEqual([body, 400, validation(message)]);
    };
    const nameMessage = `name must be 1 to ${findingsNameLengthMax} characters, not only white space`;
    expect((await ok({ name: name(findingsNameLengthMax) })).name).toBe(name(findingsNameLengthMax));
    await ok({ name: "n" });
    await refused({ name: name(findingsNameLengthMax + 1) }, nameMessage);
    await refused({ name: "" }, nameMessage);
    await refused({ name: "   " }, nameMessage);

    const urlOf = (length: number) => { const head = "https://hooks.slack.com/"; return head + "x".repeat(length - head.length); };
    const urlMessage = `secret must be an http or https URL of at most ${destinationUrlLengthMax} characters`;
    expect((await ok({ secret: urlOf(destinationUrlLengthMax) })).secret_hint).toBe("https://hooks.slack.com/…xxxx");
    await refused({ secret: urlOf(destinationUrlLengthMax + 1) }, urlMessage);
    await ok({ secret: "http://127.0.0.1:9/x" });
    for (const bad of ["ftp://hooks.slack.com/x", "hooks.slack.com/services/x", "", "javascript:alert(1)", "https://"]) await refused({ secret: bad }, urlMessage);

    const recipients = (count: number, length = 5) => Array.from({ length: count }, (_, index) => `${index}`.padStart(length, "r"));
    expect((await ok({ config: { to: recipients(recipientsMax, recipientLengthMax) } })).config.to).toHaveLength(recipientsMax);
    await refused({ config: { to: recipients(recipientsMax + 1) } }, `config.to takes at most ${recipientsMax} recipients`);
    const recipientMessage = `config.to: each recipient must be 1 to ${recipientLengthMax} characters, not only white space`;
    await refused({ config: { to: [name(recipientLengthMax + 1)] } }, recipientMessage);
    await refused({ config: { to: [""] } }, recipientMessage);
    expect((await ok({ config: { channel: name(channelLengthMax) } })).config).toEqual({ to: [], channel: name(channelLengthMax) });
    const channelMessage = `config.channel must be null or 1 to ${channelLengthMax} characters, not only white space`;
    await refused({ config: { channel: name(channelLengthMax + 1) } }, channelMessage);
    await refused({ config: { channel: "" } }, channelMessage);
    await refused({ config: { to: [], extra: 1 } }, "body /config/extra: Unexpected property");

    const webhook = (signing: string) => ({ kind: "webhook", secret: webhookUrl, signing_secret: signing });
    const plainMessage = `signing_secret must be whsec_<base64> or ${signingSecretLengthMin} to ${signingSecretLengthMax} visible ASCII characters`;
    await ok(webhook("s".repeat(signingSecretLengthMin)));
    await ok(webhook("s".repeat(signingSecretLengthMax)));
    await refused(webhook("s".repeat(signingSecretLengthMin - 1)), plainMessage);
    await refused(webhook("s".repeat(signingSecretLengthMax + 1)), plainMessage);
    await refused(webhook("has a space in it here"), plainMessage);
    const whsecOf = (bytes: number) => `whsec_${Buffer.alloc(bytes, 7).toString("base64")}`;
    const whsecMessage = `signing_secret starting with whsec_ must be whsec_ and the base64 of ${whsecKeyBytesMin} to ${whsecKeyBytesMax} bytes`;
    await ok(webhook(whsecOf(whsecKeyBytesMin)));
    await ok(webhook(whsecOf(whsecKeyBytesMax)));
    await refused(webhook(whsecOf(whsecKeyBytesMin - 1)), whsecMessage);
    await refused(webhook(whsecOf(whsecKeyBytesMax + 1)), whsecMessage);
    await refused(webhook("whsec_not*base64*at*all*but*long*enough"), whsecMessage);

    await refused({ min_severity: "fatal" }, expect.stringMatching(/^body \/min_severity: /) as unknown as string);
  });

  test(`at most ${destinationsPerProjectMax} destinations per project`, async () => {
    const { project: full } = await createProject(owner, "Full", "eu");
    for (let index = 0; index < destinationsPerProjectMax; index++) {
      expect((await create({ kind: "slack", name: `d${index}` }, owner, full.id)).status).toBe(201);
    }
    expect(await create({ kind: "slack", name: "one more" }, owner, full.id)).toEqual(expect.objectContaining({
      status: 400, body: validation(`a project has at most ${destinationsPerProjectMax} findings destinations`),
    }));
    const list = await owner.client.get(destinationsPath(full.id));
    expect(list.body.destinations).toHaveLength(destinationsPerProjectMax);
    expect(regionConfig(service, full.id)!.destinations).toHaveLength(destinationsPerProjectMax);
  });

  test("dry_run previews a create, an update and a delete; nothing changes and nothing is audited", async () => {
    const before = (await owner.client.get(base())).body;
    const dryCreate = await owner.client.post(`${base()}?dry_run=true`, { kind: "slack", name: "Maybe", secret: slackUrl });
    expect(dryCreate.status).toBe(200);
    expect(dryCreate.body).toEqual({
      action: "findings_destination.create", dry_run: true, before: null,
      after: {
        id: expect.stringMatching(uuidPattern), project_id: project.id, kind: "slack", name: "Maybe", enabled: true, min_severity: "info",
        config: { to: [], channel: null }, has_secret: true, created_at: expect.stringMatching(isoPattern), updated_at: expect.stringMatching(isoPattern),
        created_by: owner.userId, secret_hint: "https://hooks.slack.com/…AbCd",
      },
    });
    expect((await owner.client.get(base())).body).toEqual(before);
    expect(auditRows(service, dryCreate.body.after.id)).toEqual([]);

    const real = (await create({ kind: "slack", name: "Real", secret: slackUrl })).body;
    const config = regionConfig(service, project.id);
    const dryUpdate = await owner.client.patch(`${base()}/${real.id}?dry_run=true`, { name: "Changed" });
    expect(dryUpdate.body).toEqual({ action: "findings_destination.update", dry_run: true, before: real, after: { ...real, name: "Changed", updated_at: expect.stringMatching(isoPattern) } });
    const dryDelete = await owner.client.delete(`${base()}/${real.id}?dry_run=true`);
    expect([dryDelete.status, dryDelete.body]).toEqual([200, { action: "findings_destination.delete", dry_run: true, before: real, after: null }]);
    expect((await owner.client.get(base())).body.destinations).toContainEqual(real);
    expect(regionConfig(service, project.id)).toEqual(config);
    expect(auditRows(service, real.id).map((row) => row.action)).toEqual(["findings_destination.create"]);
    // A dry run is validated like the write.
    expect(await owner.client.patch(`${base()}/${real.id}?dry_run=true`, { name: "" })).toMatchObject({ status: 400 });
    await owner.client.delete(`${base()}/${real.id}`);
  });

  test("viewers read, members write; writes without alerts:write are 403", async () => {
    const viewer = await addMember(service, owner, "viewer");
    const member = await addMember(service, owner, "member");
    const existing = (await create({ kind: "slack", name: "Roles" })).body;
    expect(await viewer.client.get(base())).toMatchObject({ status: 200 });
    for (const [method, path, body] of [
      ["POST", base(), { kind: "slack", name: "x" }],
      ["PATCH", `${base()}/${existing.id}`, { name: "x" }],
      ["DELETE", `${base()}/${existing.id}`, undefined],
      ["POST", `${base()}/${existing.id}/test`, undefined],
    ] as const) {
      const reply = await viewer.client.request(method, path, body);
      expect([method, path, reply.status, reply.body]).toEqual([method, path, 403, missingScope("alerts:write")]);
    }
    const byMember = await create({ kind: "slack", name: "By member" }, member);
    expect([byMember.status, byMember.body.created_by]).toEqual([201, member.userId]);
    expect((await member.client.patch(`${base()}/${existing.id}`, { name: "Member renamed" })).status).toBe(200);
    expect((await member.client.delete(`${base()}/${byMember.body.id}`)).status).toBe(204);
    await owner.client.delete(`${base()}/${existing.id}`);
  });

  test("another project's destination, a malformed id and another tenant's project are 404", async () => {
    const mine = (await create({ kind: "slack", name: "Mine" })).body;
    const other = (await createProject(owner, "Other", "eu")).project;
    const notFound = { error: { code: "not_found", message: "findings destination not found" } };
    for (const [method, suffix] of [["PATCH", ""], ["DELETE", ""], ["POST", "/test"]] as const) {
      const reply = await owner.client.request(method, `${destinationsPath(other.id)}/${mine.id}${suffix}`, method === "PATCH" ? { name: "x" } : undefined);
      expect([method, reply.status, reply.body]).toEqual([method, 404, notFound]);
    }
    expect((await owner.client.patch(`${base()}/not-a-uuid`, { name: "x" })).body).toEqual(notFound);
    const stranger = await signUp(service, "Stranger");
    const projectNotFound = { error: { code: "not_found", message: "project not found" } };
    for (const [method, path] of [["GET", base()], ["POST", base()], ["PATCH", `${base()}/${mine.id}`], ["DELETE", `${base()}/${mine.id}`], ["POST", `${base()}/${mine.id}/test`]] as const) {
      const reply = await stranger.client.request(method, path, method === "GET" || method === "DELETE" ? undefined : { kind: "slack", name: "x" });
      expect([method, path, reply.status, reply.body]).toEqual([method, path, 404, projectNotFound]);
    }
    expect((await owner.client.get(destinationsPath("not-a-uuid"))).status).toBe(404);
    await owner.client.delete(`${base()}/${mine.id}`);
  });

  test("the project's region holds the configuration in that region only; a region not served is 503", async () => {
    const { project: usProject } = await createProject(owner, "US", "us");
    const created = await create({ kind: "slack", name: "US alerts", secret: slackUrl }, owner, usProject.id);
    expect(regionConfig(service, usProject.id, "us")).toEqual({
      ...regionProject(service, usProject), destinations: [regionDestination(created.body, slackUrl, null)], rules: [], metrics: [],
    });
    expect(regionConfig(service, usProject.id, "eu")).toBeNull();

    // A region this deployment no longer serves: nothing could evaluate or deliver there.
    const links = service.ctx.regions as Map<string, unknown>;
    const us = links.get("us");
    links.delete("us");
    try {
      const unavailable = { error: { code: "unavailable", message: "region us is not served by this deployment" } };
      const destination = await create({ kind: "slack", name: "Nowhere" }, owner, usProject.id);
      expect([destination.status, destination.body]).toEqual([503, unavailable]);
      const rule = await owner.client.post(rulesPath(usProject.id), { name: "Nowhere", target: { kind: "ingestion_warnings" } });
      expect([rule.status, rule.body]).toEqual([503, unavailable]);
      const sent = await owner.client.post(`${destinationsPath(usProject.id)}/${created.body.id}/test`);
      expect([sent.status, sent.body]).toEqual([503, unavailable]);
    } finally {
      links.set("us", us);
    }
  });

  test("signed out: 401", async () => {
    const reply = await fetch(`${service.url}${base()}`);
    expect(reply.status).toBe(401);
    await reply.body?.cancel();
  });
});
