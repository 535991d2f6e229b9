// The gateway's OpenAPI 3.1 contract (server/gateway/openapi.json) stays true: it is what
// scripts/gateway-openapi.ts generates, a valid document, lists exactly the 42 routes the app
// serves, is what GET /v1/openapi.json serves, and real answers of a running gateway (and its
// webhook posts) match the schemas it documents for their status.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import SwaggerParser from "@apidevtools/swagger-parser";
import Ajv2020, { type ValidateFunction } from "ajv/dist/2020";
import { readFileSync } from "node:fs";
import { gatewayOpenApiText } from "../../scripts/gateway-openapi.ts";
import { openApiFile } from "../../server/gateway/routes/openapi.ts";
import { startTestGateway, testRootKey, waitFor, type TestGateway } from "./harness.ts";

const committed = readFileSync(openApiFile, "utf8");
const document = JSON.parse(committed);
let dereferenced: any;
let gw: TestGateway;

beforeAll(async () => {
  dereferenced = await SwaggerParser.dereference(structuredClone(document));
  gw = await startTestGateway();
});
afterAll(async () => {
  await gw.close();
});

const documented = () => Object.entries(document.paths).flatMap(([path, methods]) => Object.keys(methods as object).map((method) => `${method.toUpperCase()} ${path}`));
const operationsOf = (doc: any) => Object.entries(doc.paths).flatMap(([path, methods]) => Object.entries(methods as Record<string, any>).map(([method, operation]) => ({ label: `${method.toUpperCase()} ${path}`, operation })));

describe("the document", () => {
  test("is what scripts/gateway-openapi.ts generates (run it after changing a route)", () => {
    expect(committed).toBe(gatewayOpenApiText());
  });

  test("is a valid OpenAPI 3.1 document, and the validator rejects a broken one", async () => {
    expect(document.openapi).toBe("3.1.0");
    await SwaggerParser.validate(structuredClone(document));
    const broken = structuredClone(document);
    broken.paths["/v1/send"].post.parameters[0].in = "body";
    await expect(SwaggerParser.validate(broken)).rejects.toThrow();
  });

  test("lists exactly the 42 (method, path) pairs the gateway's app serves", () => {
    const served = gw.gateway.routes().map(({ method, path }) => `${method} ${path.replace(/:(\w+)/g, "{$1}")}`);
    expect(documented().sort()).toEqual([...served].sort());
    expect(new Set(served).size).toBe(42);
    expect(served.length).toBe(42);
  });

  test("marks the ten routes the spec leaves unnamed, and says so in their descriptions", () => {
    const beyond = operationsOf(document).filter(({ operation }) => operation["x-beyond-spec"] === true);
    expect(beyond.map(({ label }) => label).sort()).toEqual([
      "GET /v1/instances",
      "GET /v1/openapi.json",
      "GET /v1/projects",
      "GET /v1/projects/{id}",
      "GET /v1/projects/{id}/keys",
      "POST /v1/instances/{id}/logout",
      "POST /v1/messages/{id}/cancel",
      "POST /v1/projects/{id}/enable",
      "POST /v1/projects/{id}/keys/{keyId}/revoke",
      "PUT /v1/projects/{id}/webhook",
    ]);
    for (const { label, operation } of operationsOf(document)) {
      expect([label, operation.description.startsWith("Beyond the spec")]).toEqual([label, operation["x-beyond-spec"] === true]);
    }
  });

  test("every operation has a unique operationId, a summary, a description, its key and a 500; keyed ones a 401 with the error body", () => {
    const ids = operationsOf(document).map(({ operation }) => operation.operationId);
    expect(new Set(ids).size).toBe(42);
    const errorBody = { $ref: "#/components/schemas/ErrorBody" };
    const keys: Record<string, string[]> = {};
    for (const { label, operation } of operationsOf(document)) {
      expect([label, typeof operation.summary, typeof operation.description]).toEqual([label, "string", "string"]);
      const key = operation.security.length === 0 ? "none" : Object.keys(operation.security[0])[0]!;
      (keys[key] ??= []).push(label);
      expect([label, operation.responses["500"].content["application/json"].schema]).toEqual([label, errorBody]);
      if (key !== "none") expect([label, operation.responses["401"].content["application/json"].schema]).toEqual([label, errorBody]);
    }
    expect(keys.none!.sort()).toEqual(["GET /", "GET /v1/about", "GET /v1/live", "GET /v1/openapi.json", "GET /v1/ready"]);
    expect(keys.projectKey!.length).toBe(17);
    expect(keys.rootKey!.length).toBe(20);
    expect(keys.rootKey!.every((label) => label.includes(" /v1/projects") || label.includes(" /v1/admin/"))).toBe(true);
    expect(document.components.securitySchemes.projectKey).toMatchObject({ type: "apiKey", in: "header", name: "apikey" });
    expect(document.components.securitySchemes.rootKey).toMatchObject({ type: "apiKey", in: "header", name: "apikey" });
  });

  test("GET /v1/openapi.json serves it as it is", async () => {
    const served = await fetch(`${gw.url}/v1/openapi.json`);
    expect([served.status, served.headers.get("content-type")]).toEqual([200, "application/json"]);
    expect(await served.text()).toBe(committed);
  });
});

describe("real answers match the documented schemas", () => {
  const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true, discriminator: true });
  ajv.addFormat("date-time", { type: "string", validate: (value: string) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(value) && !Number.isNaN(Date.parse(value)) });
  const compiled = new Map<object, ValidateFunction>();
  const problems = (schema: object, value: unknown) => {
    let validate = compiled.get(schema);
    if (!validate) compiled.set(schema, (validate = ajv.compile(schema)));
    return validate(value) ? [] : validate.errors!.map((error) => `${error.instancePath} ${error.message} ${JSON.stringify(error.params)}`);
  };
  const exercised = new Set<string>();

  /**
   * The reply's status is documented for the operation with the reply's media type, and a JSON
   * body matches that answer's schema.
   */
  function expectDocumented(method: string, template: string, reply: { status: number; body: unknown; headers: Headers }) {
    const label = `${method} ${template}`;
    const answer = dereferenced.paths[template]?.[method.toLowerCase()]?.responses[String(reply.status)];
    expect([label, reply.status, answer === undefined ? "undocumented" : "documented"]).toEqual([label, reply.status, "documented"]);
    const mediaType = reply.headers.get("content-type")!.split(";")[0]!;
    expect([label, reply.status, mediaType in answer.content]).toEqual([label, reply.status, true]);
    if (mediaType === "application/json") expect([label, reply.status, problems(answer.content[mediaType].schema, reply.body)]).toEqual([label, reply.status, []]);
    exercised.add(label);
  }

  /** Calls `template` with its ids filled in and checks the answer against the document. */
  async function documentedCall(gateway: TestGateway, method: string, template: string, options: { key?: string; body?: unknown; headers?: Record<string, string>; ids?: Record<string, string>; query?: string } = {}) {
    const path = template.replace(/\{(\w+)\}/g, (_, name: string) => options.ids![name]!) + (options.query ? `?${options.query}` : "");
    const reply = await gateway.call(method, path, options);
    expectDocumented(method, template, reply);
    return reply;
  }

  test("a schema that does not fit is reported (the check is not vacuous)", () => {
    const project = dereferenced.components.schemas.Project;
    expect(problems(project, { id: "p" })).not.toEqual([]);
    const message = dereferenced.paths["/v1/messages/{id}"].get.responses["200"].content["application/json"].schema;
    expect(problems(message, {})).not.toEqual([]);
  });

  test("public, project, root and admin answers, their refusals, and the webhook post", async () => {
    const posts: { headers: Record<string, string>; body: unknown }[] = [];
    const receiver = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch: async (request) => {
        posts.push({ headers: Object.fromEntries(request.headers), body: await request.json() });
        return new Response(null, { status: 204 });
      },
    });
    try {
      for (const path of ["/", "/v1/live", "/v1/ready", "/v1/about"]) expect((await documentedCall(gw, "GET", path)).status).toBe(200);

      const root = { key: testRootKey };
      const created = await documentedCall(gw, "POST", "/v1/projects", { ...root, body: { name: "Contract", webhookUrl: `http://127.0.0.1:${receiver.port}/hook` } });
      expect(created.status).toBe(201);
      const ids = { id: created.body.project.id as string };
      expect((await documentedCall(gw, "POST", "/v1/projects", { ...root, body: { name: "" } })).status).toBe(400);
      expect((await documentedCall(gw, "POST", "/v1/projects", { body: { name: "no key" } })).status).toBe(401);
      expect((await documentedCall(gw, "GET", "/v1/projects", { ...root, query: "limit=1" })).status).toBe(200);
      expect((await documentedCall(gw, "GET", "/v1/projects", { ...root, query: "limit=201" })).status).toBe(400);
      expect((await documentedCall(gw, "GET", "/v1/projects/{id}", { ...root, ids })).status).toBe(200);
      expect((await documentedCall(gw, "GET", "/v1/projects/{id}", { ...root, ids: { id: "no-such-project" } })).status).toBe(404);
      const minted = await documentedCall(gw, "POST", "/v1/projects/{id}/keys", { ...root, ids, body: { name: "ci" } });
      expect(minted.status).toBe(201);
      const spare = await documentedCall(gw, "POST", "/v1/projects/{id}/keys", { ...root, ids });
      expect((await documentedCall(gw, "POST", "/v1/projects/{id}/keys/{keyId}/revoke", { ...root, ids: { ...ids, keyId: spare.body.key.id } })).status).toBe(200);
      expect((await documentedCall(gw, "GET", "/v1/projects/{id}/keys", { ...root, ids })).status).toBe(200);
      const key = { key: minted.body.secret as string };

      expect((await documentedCall(gw, "GET", "/v1/messages", {})).status).toBe(401);
      expect((await documentedCall(gw, "GET", "/v1/messages", { key: testRootKey })).status).toBe(401);
      const registered = await documentedCall(gw, "POST", "/v1/instances", { ...key, body: { phone: "+4915100000001", label: "Front desk" } });
      expect(registered.status).toBe(201);
      expect((await documentedCall(gw, "POST", "/v1/instances", { ...key, body: { phone: "+4915100000001" } })).status).toBe(409);
      expect((await documentedCall(gw, "POST", "/v1/instances", { ...key, body: { phone: "+4915100000002", colour: "blue" } })).status).toBe(400);
      const instance = { id: registered.body.id as string };
      expect((await documentedCall(gw, "GET", "/v1/instances/{id}/qr", { ...key, ids: instance })).body).toEqual({ status: "pending" });
      expect((await documentedCall(gw, "GET", "/v1/instances/{id}/qr", { ...key, ids: instance, query: "format=svg" })).status).toBe(409);
      const connected = await documentedCall(gw, "POST", "/v1/instances/{id}/connect", { ...key, ids: instance });
      expect(connected.body.qr.status).toBe("code");
      expect((await documentedCall(gw, "GET", "/v1/instances/{id}/qr", { ...key, ids: instance })).body.status).toBe("code");
      expect((await documentedCall(gw, "GET", "/v1/instances/{id}/qr", { ...key, ids: instance, query: "format=svg" })).body).toStartWith("<svg");
      expect((await documentedCall(gw, "GET", "/v1/instances/{id}/qr", { ...key, ids: instance, query: "format=png" })).status).toBe(200);
      expect((await documentedCall(gw, "GET", "/v1/instances/{id}/qr", { ...key, ids: instance, query: "format=gif" })).status).toBe(400);
      expect((await documentedCall(gw, "GET", "/v1/instances/{id}/qr", { ...key, ids: { id: "x".repeat(65) } })).status).toBe(400);
      await gw.phones.scan("+4915100000001", connected.body.qr.code);
      await waitFor(async () => (await gw.call("GET", `/v1/instances/${instance.id}/number`, key)).body.connection === "open");
      expect((await documentedCall(gw, "GET", "/v1/instances/{id}/number", { ...key, ids: instance })).body.state).toBe("paired");
      expect((await documentedCall(gw, "POST", "/v1/instances/{id}/connect", { ...key, ids: instance })).status).toBe(409);
      expect((await documentedCall(gw, "GET", "/v1/instances/{id}/number", { ...key, ids: { id: "no-such-instance" } })).status).toBe(404);
      expect((await documentedCall(gw, "GET", "/v1/instances", key)).body.instances.length).toBe(1);

      const text = { to: "+4915199999999", text: "hello" };
      const sent = await documentedCall(gw, "POST", "/v1/send", { ...key, body: text, headers: { "idempotency-key": "order-1" } });
      expect(sent.status).toBe(202);
      const repeated = await documentedCall(gw, "POST", "/v1/send", { ...key, body: text, headers: { "idempotency-key": "order-1" } });
      expect([repeated.status, repeated.headers.get("idempotent-replayed"), repeated.body.id]).toEqual([202, "true", sent.body.id]);
      expect((await documentedCall(gw, "POST", "/v1/send", { ...key, body: { ...text, text: "other" }, headers: { "idempotency-key": "order-1" } })).status).toBe(422);
      expect((await documentedCall(gw, "POST", "/v1/send", { ...key, body: { to: "+4915199999999" } })).status).toBe(400);
      const image = { to: "+4915199999999", media: { type: "image", mimeType: "image/png", dataBase64: Buffer.alloc(5 * 1024 * 1024 + 1).toString("base64") } };
      expect((await documentedCall(gw, "POST", "/v1/send", { ...key, body: image })).status).toBe(413);
      const message = { id: sent.body.id as string };
      // The simulated phone acknowledges at once: the message goes on to delivered.
      await waitFor(async () => (await gw.call("GET", `/v1/messages/${message.id}`, key)).body.state === "delivered");
      expect((await documentedCall(gw, "GET", "/v1/messages/{id}", { ...key, ids: message })).body.state).toBe("delivered");
      expect((await documentedCall(gw, "GET", "/v1/messages/{id}", { ...key, ids: { id: "no-such-message" } })).status).toBe(404);
      expect((await documentedCall(gw, "POST", "/v1/messages/{id}/cancel", { ...key, ids: message })).status).toBe(409);
      expect((await documentedCall(gw, "GET", "/v1/messages", { ...key, query: "state=delivered" })).body.messages.length).toBe(1);
      expect((await documentedCall(gw, "GET", "/v1/sends", { ...key, query: `messageId=${message.id}` })).body.sends.length).toBe(1);
      expect((await documentedCall(gw, "GET", "/v1/pool", key)).body.ready).toBe(1);
      expect((await documentedCall(gw, "GET", "/v1/usage", key)).status).toBe(200);

      await gw.phones.sendFromPhone("+4915188888888", "+4915100000001", { text: "hi" });
      const delivered = async () => (await gw.call("GET", "/v1/deliveries?state=delivered", key)).body.deliveries.length;
      await waitFor(async () => posts.some((post) => (post.body as { event: string }).event === "message.received") && (await delivered()) === posts.length);
      expect(posts.map((post) => (post.body as { event: string }).event).sort()).toEqual(["instance.paired", "message.delivered", "message.received"]);
      const delivery = dereferenced.webhooks.delivery.post;
      for (const post of posts) {
        expect(problems(delivery.requestBody.content["application/json"].schema, post.body)).toEqual([]);
        for (const header of delivery.parameters) expect([header.name, problems(header.schema, post.headers[header.name])]).toEqual([header.name, []]);
      }
      const deliveries = await documentedCall(gw, "GET", "/v1/deliveries", { ...key, query: "state=delivered" });
      expect((await documentedCall(gw, "GET", "/v1/deliveries", { ...key, query: "state=lost" })).status).toBe(400);
      expect((await documentedCall(gw, "POST", "/v1/deliveries/{id}/replay", { ...key, ids: { id: deliveries.body.deliveries[0].id } })).status).toBe(409);
      expect((await documentedCall(gw, "POST", "/v1/deliveries/{id}/replay", { ...key, ids: { id: "no-such-delivery" } })).status).toBe(404);
      expect((await documentedCall(gw, "GET", "/v1/audit", key)).status).toBe(200);
      const offer = { to: "+4915199999999", media: { type: "document", mimeType: "application/pdf", dataBase64: "JVBERi0=", fileName: "a.pdf", caption: "the offer" } };
      const queuedOffer = await documentedCall(gw, "POST", "/v1/send", { ...key, body: offer });
      expect(queuedOffer.body.content).toEqual({ type: "document", mimeType: "application/pdf", fileName: "a.pdf", caption: "the offer", bytes: 5 });

      for (const path of ["/v1/admin/instances", "/v1/admin/alerts", "/v1/admin/shards", "/v1/admin/delivery-health", "/v1/admin/numbers", "/v1/admin/audit", "/v1/admin/deliveries"]) {
        expect((await documentedCall(gw, "GET", path, root)).status).toBe(200);
      }
      expect((await documentedCall(gw, "GET", "/v1/admin/numbers", key)).status).toBe(401);
      expect((await documentedCall(gw, "POST", "/v1/admin/sweep", root)).status).toBe(200);
      expect((await documentedCall(gw, "POST", "/v1/admin/deliveries/{id}/replay", { ...root, ids: { id: deliveries.body.deliveries[0].id } })).status).toBe(409);
      expect((await documentedCall(gw, "GET", "/v1/admin/metrics", root)).body).toContain("# TYPE");
      expect((await documentedCall(gw, "GET", "/v1/openapi.json")).body.openapi).toBe("3.1.0");

      expect((await documentedCall(gw, "POST", "/v1/instances/{id}/logout", { ...key, ids: instance })).body.state).toBe("pending");
      expect((await documentedCall(gw, "POST", "/v1/instances/{id}/retire", { ...key, ids: instance })).body.state).toBe("retired");
      expect((await documentedCall(gw, "POST", "/v1/instances/{id}/logout", { ...key, ids: instance })).status).toBe(409);
      const rotated = await documentedCall(gw, "POST", "/v1/projects/{id}/webhook/rotate", { ...root, ids });
      expect(rotated.body.mustReconnect).toEqual([{ kind: "webhook", url: `http://127.0.0.1:${receiver.port}/hook`, action: "verify signatures with the new webhookSecret" }]);
      expect((await documentedCall(gw, "PUT", "/v1/projects/{id}/webhook", { ...root, ids, body: { url: null } })).body.webhookUrl).toBeNull();
      expect((await documentedCall(gw, "PUT", "/v1/projects/{id}/webhook", { ...root, ids, body: {} })).status).toBe(400);
      expect((await documentedCall(gw, "POST", "/v1/projects/{id}/disable", { ...root, ids })).body.state).toBe("suspended");
      expect((await documentedCall(gw, "GET", "/v1/usage", key)).status).toBe(401);
      expect((await documentedCall(gw, "POST", "/v1/projects/{id}/enable", { ...root, ids })).body.state).toBe("active");
    } finally {
      receiver.stop(true);
    }
  });

  test("dead letters: replay (200, then 410 once the payload expired), the alert post, and 503s once the store is gone", async () => {
    const alertPosts: unknown[] = [];
    const receiver = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch: async (request) => {
        if (new URL(request.url).pathname === "/alert") {
          alertPosts.push(await request.json());
          return new Response(null, { status: 204 });
        }
        return new Response("receiver down", { status: 500 });
      },
    });
    const failing = await startTestGateway({ ALERT_WEBHOOK_URL: `http://127.0.0.1:${receiver.port}/alert` });
    try {
      const project = await failing.project(`http://127.0.0.1:${receiver.port}/hook`);
      const key = { key: project.key };
      const root = { key: testRootKey };
      await failing.pairedInstance(project.key, "+4915100000003");
      /** Moves the clock past each retry until every delivery of the project is dead. */
      const killDeliveries = async () => {
        for (let pass = 0; pass < 20; pass++) {
          const open = (await failing.call("GET", "/v1/deliveries", key)).body.deliveries.filter((delivery: { state: string }) => delivery.state !== "dead");
          if (open.length === 0) return;
          failing.clock.advance(7 * 3_600_000);
          await failing.sweep();
        }
        throw new Error("the deliveries did not die");
      };
      await killDeliveries();
      const dead = await documentedCall(failing, "GET", "/v1/deliveries", { ...key, query: "state=dead" });
      expect(dead.body.deliveries.map((delivery: { event: string; lastStatus: number }) => [delivery.event, delivery.lastStatus])).toContainEqual(["instance.paired", 500]);
      expect((await documentedCall(failing, "GET", "/v1/admin/alerts", root)).body.status).toBe("warning");
      const alertPost = dereferenced.webhooks.alert.post.requestBody.content["application/json"].schema;
      expect(alertPosts.length).toBeGreaterThan(0);
      for (const post of alertPosts) expect(problems(alertPost, post)).toEqual([]);

      const [first, second] = dead.body.deliveries as { id: string }[];
      expect((await documentedCall(failing, "POST", "/v1/deliveries/{id}/replay", { ...key, ids: { id: first!.id } })).body.state).toBe("pending");
      failing.clock.advance(31 * 24 * 3_600_000);
      expect((await documentedCall(failing, "POST", "/v1/admin/sweep", root)).body.payloadsExpired).toBeGreaterThan(0);
      await killDeliveries();
      expect((await documentedCall(failing, "POST", "/v1/admin/deliveries/{id}/replay", { ...root, ids: { id: (second ?? first)!.id } })).status).toBe(410);
      expect((await documentedCall(failing, "GET", "/v1/admin/deliveries", { ...root, query: "state=dead" })).body.deliveries.every((delivery: { payloadExpired: boolean }) => delivery.payloadExpired)).toBe(true);

      // With the store gone a project key cannot be checked, and the critical alert makes the report a 503.
      await failing.gateway.ctx.database.close();
      expect((await documentedCall(failing, "GET", "/v1/usage", key)).body.error.code).toBe("unavailable");
      expect((await documentedCall(failing, "GET", "/v1/admin/alerts", root)).body.status).toBe("critical");
    } finally {
      await failing.close();
      receiver.stop(true);
    }
  });

  test("every operation was answered and checked", () => {
    expect(documented().filter((label) => !exercised.has(label)).sort()).toEqual([]);
  });
});
