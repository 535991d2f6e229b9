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

  /** The reply's status is documented for the operation, and its JSON body matches that status's schema. */
  function expectDocumented(method: string, template: string, reply: { status: number; body: unknown }) {
    const label = `${method} ${template}`;
    const answer = dereferenced.paths[template]?.[method.toLowerCase()]?.responses[String(reply.status)];
    expect([label, reply.status, answer === undefined ? "undocumented" : "documented"]).toEqual([label, reply.status, "documented"]);
    expect([label, reply.status, problems(answer.content["application/json"].schema, reply.body)]).toEqual([label, reply.status, []]);
    exercised.add(`${label} ${reply.status}`);
  }

  /** Calls `template` with its ids filled in and checks the answer against the document. */
  async function documentedCall(method: string, template: string, options: { key?: string; body?: unknown; headers?: Record<string, string>; ids?: Record<string, string>; query?: string } = {}) {
    const path = template.replace(/\{(\w+)\}/g, (_, name: string) => options.ids![name]!) + (options.query ? `?${options.query}` : "");
    const reply = await gw.call(method, path, options);
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
      for (const path of ["/", "/v1/live", "/v1/ready", "/v1/about"]) expect((await documentedCall("GET", path)).status).toBe(200);

      const root = { key: testRootKey };
      const created = await documentedCall("POST", "/v1/projects", { ...root, body: { name: "Contract", webhookUrl: `http://127.0.0.1:${receiver.port}/hook` } });
      expect(created.status).toBe(201);
      const ids = { id: created.body.project.id as string };
      expect((await documentedCall("POST", "/v1/projects", { ...root, body: { name: "" } })).status).toBe(400);
      expect((await documentedCall("POST", "/v1/projects", { body: { name: "no key" } })).status).toBe(401);
      expect((await documentedCall("GET", "/v1/projects", { ...root, query: "limit=1" })).status).toBe(200);
      expect((await documentedCall("GET", "/v1/projects", { ...root, query: "limit=201" })).status).toBe(400);
      expect((await documentedCall("GET", "/v1/projects/{id}", { ...root, ids })).status).toBe(200);
      expect((await documentedCall("GET", "/v1/projects/{id}", { ...root, ids: { id: "no-such-project" } })).status).toBe(404);
      const minted = await documentedCall("POST", "/v1/projects/{id}/keys", { ...root, ids, body: { name: "ci" } });
      expect(minted.status).toBe(201);
      const spare = await documentedCall("POST", "/v1/projects/{id}/keys", { ...root, ids });
      expect((await documentedCall("POST", "/v1/projects/{id}/keys/{keyId}/revoke", { ...root, ids: { ...ids, keyId: spare.body.key.id } })).status).toBe(200);
      expect((await documentedCall("GET", "/v1/projects/{id}/keys", { ...root, ids })).status).toBe(200);
      const key = { key: minted.body.secret as string };

      expect((await documentedCall("GET", "/v1/messages", {})).status).toBe(401);
      expect((await documentedCall("GET", "/v1/messages", { key: testRootKey })).status).toBe(401);
      const registered = await documentedCall("POST", "/v1/instances", { ...key, body: { phone: "+4915100000001", label: "Front desk" } });
      expect(registered.status).toBe(201);
      expect((await documentedCall("POST", "/v1/instances", { ...key, body: { phone: "+4915100000001" } })).status).toBe(409);
      expect((await documentedCall("POST", "/v1/instances", { ...key, body: { phone: "+4915100000002", colour: "blue" } })).status).toBe(400);
      const instance = { id: registered.body.id as string };
      expect((await documentedCall("GET", "/v1/instances/{id}/qr", { ...key, ids: instance })).body).toEqual({ status: "pending" });
      expect((await documentedCall("GET", "/v1/instances/{id}/qr", { ...key, ids: instance, query: "format=svg" })).status).toBe(409);
      const connected = await documentedCall("POST", "/v1/instances/{id}/connect", { ...key, ids: instance });
      expect(connected.body.qr.status).toBe("code");
      expect((await documentedCall("GET", "/v1/instances/{id}/qr", { ...key, ids: instance })).body.status).toBe("code");
      await gw.phones.scan("+4915100000001", connected.body.qr.code);
      await waitFor(async () => (await gw.call("GET", `/v1/instances/${instance.id}/number`, key)).body.connection === "open");
      expect((await documentedCall("GET", "/v1/instances/{id}/number", { ...key, ids: instance })).body.state).toBe("paired");
      expect((await documentedCall("POST", "/v1/instances/{id}/connect", { ...key, ids: instance })).status).toBe(409);
      expect((await documentedCall("GET", "/v1/instances/{id}/number", { ...key, ids: { id: "no-such-instance" } })).status).toBe(404);
      expect((await documentedCall("GET", "/v1/instances", key)).body.instances.length).toBe(1);

      const text = { to: "+4915199999999", text: "hello" };
      const sent = await documentedCall("POST", "/v1/send", { ...key, body: text, headers: { "idempotency-key": "order-1" } });
      expect(sent.status).toBe(202);
      expect((await documentedCall("POST", "/v1/send", { ...key, body: { ...text, text: "other" }, headers: { "idempotency-key": "order-1" } })).status).toBe(422);
      expect((await documentedCall("POST", "/v1/send", { ...key, body: { to: "+4915199999999" } })).status).toBe(400);
      const image = { to: "+4915199999999", media: { type: "image", mimeType: "image/png", dataBase64: Buffer.alloc(5 * 1024 * 1024 + 1).toString("base64") } };
      expect((await documentedCall("POST", "/v1/send", { ...key, body: image })).status).toBe(413);
      const message = { id: sent.body.id as string };
      // The simulated phone acknowledges at once: the message goes on to delivered.
      await waitFor(async () => (await gw.call("GET", `/v1/messages/${message.id}`, key)).body.state === "delivered");
      expect((await documentedCall("GET", "/v1/messages/{id}", { ...key, ids: message })).body.state).toBe("delivered");
      expect((await documentedCall("GET", "/v1/messages/{id}", { ...key, ids: { id: "no-such-message" } })).status).toBe(404);
      expect((await documentedCall("POST", "/v1/messages/{id}/cancel", { ...key, ids: message })).status).toBe(409);
      expect((await documentedCall("GET", "/v1/messages", { ...key, query: "state=delivered" })).body.messages.length).toBe(1);
      expect((await documentedCall("GET", "/v1/sends", { ...key, query: `messageId=${message.id}` })).body.sends.length).toBe(1);
      expect((await documentedCall("GET", "/v1/pool", key)).body.ready).toBe(1);
      expect((await documentedCall("GET", "/v1/usage", key)).status).toBe(200);

      await gw.phones.sendFromPhone("+4915188888888", "+4915100000001", { text: "hi" });
      const delivered = async () => (await gw.call("GET", "/v1/deliveries?state=delivered", key)).body.deliveries.length;
      await waitFor(async () => posts.some((post) => (post.body as { event: string }).event === "message.received") && (await delivered()) === posts.length);
      expect(posts.map((post) => (post.body as { event: string }).event).sort()).toEqual(["instance.paired", "message.delivered", "message.received"]);
      const delivery = dereferenced.webhooks.delivery.post;
      for (const post of posts) {
        expect(problems(delivery.requestBody.content["application/json"].schema, post.body)).toEqual([]);
        for (const header of delivery.parameters) expect([header.name, problems(header.schema, post.headers[header.name])]).toEqual([header.name, []]);
      }
      const deliveries = await documentedCall("GET", "/v1/deliveries", { ...key, query: "state=delivered" });
      expect((await documentedCall("GET", "/v1/deliveries", { ...key, query: "state=lost" })).status).toBe(400);
      expect((await documentedCall("POST", "/v1/deliveries/{id}/replay", { ...key, ids: { id: deliveries.body.deliveries[0].id } })).status).toBe(409);
      expect((await documentedCall("POST", "/v1/deliveries/{id}/replay", { ...key, ids: { id: "no-such-delivery" } })).status).toBe(404);
      expect((await documentedCall("GET", "/v1/audit", key)).status).toBe(200);

      for (const path of ["/v1/admin/instances", "/v1/admin/alerts", "/v1/admin/shards", "/v1/admin/delivery-health", "/v1/admin/numbers", "/v1/admin/audit", "/v1/admin/deliveries"]) {
        expect((await documentedCall("GET", path, root)).status).toBe(200);
      }
      expect((await documentedCall("GET", "/v1/admin/numbers", key)).status).toBe(401);
      expect((await documentedCall("POST", "/v1/admin/sweep", root)).status).toBe(200);
      expect((await documentedCall("POST", "/v1/admin/deliveries/{id}/replay", { ...root, ids: { id: deliveries.body.deliveries[0].id } })).status).toBe(409);
      const metrics = await gw.call("GET", "/v1/admin/metrics", root);
      expect([metrics.status, metrics.headers.get("content-type")?.startsWith("text/plain")]).toEqual([200, true]);

      expect((await documentedCall("POST", "/v1/instances/{id}/logout", { ...key, ids: instance })).body.state).toBe("pending");
      expect((await documentedCall("POST", "/v1/instances/{id}/retire", { ...key, ids: instance })).body.state).toBe("retired");
      expect((await documentedCall("POST", "/v1/instances/{id}/logout", { ...key, ids: instance })).status).toBe(409);
      expect((await documentedCall("PUT", "/v1/projects/{id}/webhook", { ...root, ids, body: { url: null } })).body.webhookUrl).toBeNull();
      expect((await documentedCall("POST", "/v1/projects/{id}/webhook/rotate", { ...root, ids })).body.mustReconnect).toEqual([]);
      expect((await documentedCall("POST", "/v1/projects/{id}/disable", { ...root, ids })).body.state).toBe("suspended");
      expect((await documentedCall("GET", "/v1/usage", key)).status).toBe(401);
      expect((await documentedCall("POST", "/v1/projects/{id}/enable", { ...root, ids })).body.state).toBe("active");
    } finally {
      receiver.stop(true);
    }
    // Every operation but the metrics (not JSON) and this document was answered at least once.
    const answered = new Set([...exercised].map((entry) => entry.split(" ").slice(0, 2).join(" ")));
    expect(documented().filter((label) => !answered.has(label)).sort()).toEqual(["GET /v1/admin/metrics", "GET /v1/openapi.json"]);
  });
});
