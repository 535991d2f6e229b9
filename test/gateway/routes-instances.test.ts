// A project's numbers over real HTTP: register (E.164, one in service per number across every
// project, without naming the holder), list with paging, the registry view, the QR state as
// JSON, PNG and SVG, connect (the phone scans the code), retire (history kept, idempotent, the
// number free again) and log out (the phone's device unlinked). Another project's instance is
// 404 on every route, like an unknown one.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { isoPattern, uuidPattern } from "../helpers/client.ts";
import { startTestGateway, waitFor, type TestGateway } from "./harness.ts";

let gw: TestGateway;
let nextNumber = 1_000;
/** A number no other test of this file uses. */
const freshPhone = () => `+4915100${nextNumber++}`;

beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(async () => {
  await gw.close();
});

const reply = (answer: { status: number; body: unknown }) => ({ status: answer.status, body: answer.body });
const notFound = { status: 404, body: { error: { code: "not_found", message: "instance not found" } } };

/** The registry view of a number just registered. */
const registeredBody = (projectId: string, phone: string, label = phone) => ({
  id: expect.stringMatching(uuidPattern),
  projectId,
  phone,
  label,
  state: "pending",
  connection: "closed",
  lastError: null,
  pairedAt: null,
  connectedAt: null,
  disconnectedAt: null,
  retiredAt: null,
  createdAt: expect.stringMatching(isoPattern),
  updatedAt: expect.stringMatching(isoPattern),
});

const pairedBody = (projectId: string, phone: string) => ({
  ...registeredBody(projectId, phone),
  state: "paired",
  connection: "open",
  pairedAt: expect.stringMatching(isoPattern),
  connectedAt: expect.stringMatching(isoPattern),
});

async function register(key: string, phone: string, label?: string) {
  const answer = await gw.call("POST", "/v1/instances", { key, body: label === undefined ? { phone } : { phone, label } });
  expect(answer.status).toBe(201);
  return answer.body as { id: string; projectId: string };
}

async function rawGet(path: string, key: string) {
  const response = await fetch(gw.url + path, { headers: { apikey: key } });
  return { status: response.status, contentType: response.headers.get("content-type"), cacheControl: response.headers.get("cache-control"), bytes: new Uint8Array(await response.arrayBuffer()) };
}

describe("register", () => {
  test("answers 201 with the number pending and closed; the label defaults to the number and is trimmed", async () => {
    const project = await gw.project();
    const phone = freshPhone();
    const registered = await gw.call("POST", "/v1/instances", { key: project.key, body: { phone } });
    expect(reply(registered)).toEqual({ status: 201, body: registeredBody(project.id, phone) });
    const labelled = freshPhone();
    expect(reply(await gw.call("POST", "/v1/instances", { key: project.key, body: { phone: ` ${labelled} `, label: "  Sales desk " } }))).toEqual({
      status: 201,
      body: registeredBody(project.id, labelled, "Sales desk"),
    });
    expect(reply(await gw.call("GET", `/v1/instances/${registered.body.id}/number`, { key: project.key }))).toEqual({ status: 200, body: registered.body });
  });

  test("a number that is not E.164 is 400, and so are unknown fields and a missing phone", async () => {
    const { key } = await gw.project();
    const notE164 = (phone: string) => ({ status: 400, body: { error: { code: "validation", message: `phone: "${phone}" is not an E.164 number (a plus sign and 8 to 15 digits)` } } });
    for (const phone of ["4915112345678", "+0151123456", "+49 151 1234567", "+1234567", "+1234567890123456"]) {
      expect(reply(await gw.call("POST", "/v1/instances", { key, body: { phone } }))).toEqual(notE164(phone));
    }
    expect(reply(await gw.call("POST", "/v1/instances", { key, body: { phone: freshPhone(), colour: "blue" } }))).toEqual({
      status: 400,
      body: { error: { code: "validation", message: "body /colour: Unexpected property" } },
    });
    expect(reply(await gw.call("POST", "/v1/instances", { key, body: {} }))).toEqual({ status: 400, body: { error: { code: "validation", message: "body /phone: Expected required property" } } });
    expect(reply(await gw.call("GET", "/v1/instances?limit=200", { key }))).toEqual({ status: 200, body: { instances: [], nextCursor: null } });
  });

  test("a number in service is 409, the same answer whether this project or another holds it", async () => {
    const holder = await gw.project();
    const other = await gw.project();
    const phone = freshPhone();
    await register(holder.key, phone);
    const taken = { status: 409, body: { error: { code: "conflict", message: `${phone} is already registered and in service; retire that instance first` } } };
    const again = await gw.call("POST", "/v1/instances", { key: holder.key, body: { phone } });
    const elsewhere = await gw.call("POST", "/v1/instances", { key: other.key, body: { phone } });
    expect(reply(again)).toEqual(taken);
    expect(reply(elsewhere)).toEqual(taken);
    expect(JSON.stringify(elsewhere.body)).not.toContain(holder.id);
    expect(reply(await gw.call("GET", "/v1/instances", { key: other.key }))).toEqual({ status: 200, body: { instances: [], nextCursor: null } });
  });
});

describe("list and read", () => {
  test("lists newest first by pages; the cursor of the last page is null; bad paging is 400", async () => {
    const project = await gw.project();
    const ids: string[] = [];
    for (let index = 0; index < 3; index += 1) ids.push((await register(project.key, freshPhone())).id);
    const first = await gw.call("GET", "/v1/instances?limit=2", { key: project.key });
    expect(first.status).toBe(200);
    expect(first.body.instances.map((instance: { id: string }) => instance.id)).toEqual([ids[2], ids[1]]);
    expect(first.body.nextCursor).toBe(ids[1]);
    const second = await gw.call("GET", `/v1/instances?limit=2&cursor=${ids[1]}`, { key: project.key });
    expect(second.body.instances.map((instance: { id: string }) => instance.id)).toEqual([ids[0]]);
    expect(second.body.nextCursor).toBeNull();
    const whole = await gw.call("GET", "/v1/instances", { key: project.key });
    for (const [index, instance] of whole.body.instances.entries()) {
      expect(instance).toEqual((await gw.call("GET", `/v1/instances/${ids[2 - index]}/number`, { key: project.key })).body);
    }
    expect((await gw.call("GET", "/v1/instances?limit=0", { key: project.key })).status).toBe(400);
    expect((await gw.call("GET", "/v1/instances?limit=201", { key: project.key })).status).toBe(400);
  });

  test("another project's instance is 404 on every instance route, like an unknown id; it is left as it was", async () => {
    const owner = await gw.project();
    const stranger = await gw.project();
    const phone = freshPhone();
    const id = await gw.pairedInstance(owner.key, phone);
    const before = (await gw.call("GET", `/v1/instances/${id}/number`, { key: owner.key })).body;
    const unknown = "0190aaaa-0000-7000-8000-000000000000";
    for (const target of [id, unknown]) {
      for (const [method, path] of [
        ["GET", `/v1/instances/${target}/number`],
        ["GET", `/v1/instances/${target}/qr`],
        ["GET", `/v1/instances/${target}/qr?format=png`],
        ["GET", `/v1/instances/${target}/qr?format=svg`],
        ["POST", `/v1/instances/${target}/connect`],
        ["POST", `/v1/instances/${target}/retire`],
        ["POST", `/v1/instances/${target}/logout`],
      ] as const) {
        expect({ method, path, ...reply(await gw.call(method, path, { key: stranger.key })) }).toEqual({ method, path, ...notFound });
      }
    }
    expect(reply(await gw.call("GET", `/v1/instances/${id}/number`, { key: owner.key }))).toEqual({ status: 200, body: { ...before, updatedAt: expect.stringMatching(isoPattern) } });
    expect((await gw.call("GET", `/v1/instances/${id}/number`, { key: owner.key })).body.state).toBe("paired");
  });
});

describe("QR code and connect", () => {
  test("the QR state is pending before connect, a code after it, paired once the phone scanned", async () => {
    const project = await gw.project();
    const phone = freshPhone();
    const { id } = await register(project.key, phone);
    expect(reply(await gw.call("GET", `/v1/instances/${id}/qr`, { key: project.key }))).toEqual({ status: 200, body: { status: "pending" } });
    expect(reply(await gw.call("GET", `/v1/instances/${id}/qr?format=json`, { key: project.key }))).toEqual({ status: 200, body: { status: "pending" } });

    const connected = await gw.call("POST", `/v1/instances/${id}/connect`, { key: project.key });
    const qr = { status: "code", code: expect.any(String), issuedAt: expect.stringMatching(isoPattern) };
    expect(reply(connected)).toEqual({ status: 200, body: { instance: { ...registeredBody(project.id, phone), connection: "connecting" }, qr } });
    const { code } = connected.body.qr;
    expect(code.length).toBeGreaterThan(0);
    expect(reply(await gw.call("GET", `/v1/instances/${id}/qr`, { key: project.key }))).toEqual({ status: 200, body: connected.body.qr });

    await gw.phones.scan(phone, code);
    await waitFor(async () => (await gw.call("GET", `/v1/instances/${id}/number`, { key: project.key })).body.connection === "open");
    expect(reply(await gw.call("GET", `/v1/instances/${id}/number`, { key: project.key }))).toEqual({ status: 200, body: { ...pairedBody(project.id, phone), id } });
    expect(reply(await gw.call("GET", `/v1/instances/${id}/qr`, { key: project.key }))).toEqual({ status: 200, body: { status: "paired" } });
    expect(await gw.phones.devices()).toContainEqual({ phone, connected: true, sessions: 1 });
  });

  test("the code is drawn as PNG and SVG; without a code an image is 409 no_code; an unknown format is 400", async () => {
    const project = await gw.project();
    const phone = freshPhone();
    const { id } = await register(project.key, phone);
    expect(reply(await gw.call("GET", `/v1/instances/${id}/qr?format=png`, { key: project.key }))).toEqual({
      status: 409,
      body: { error: { code: "no_code", message: "the instance is pending: there is no pairing code to draw (POST connect first)" } },
    });
    expect(reply(await gw.call("GET", `/v1/instances/${id}/qr?format=svg`, { key: project.key }))).toEqual({
      status: 409,
      body: { error: { code: "no_code", message: "the instance is pending: there is no pairing code to draw (POST connect first)" } },
    });
    expect((await gw.call("GET", `/v1/instances/${id}/qr?format=gif`, { key: project.key })).status).toBe(400);

    await gw.call("POST", `/v1/instances/${id}/connect`, { key: project.key });
    const png = await rawGet(`/v1/instances/${id}/qr?format=png`, project.key);
    expect({ status: png.status, contentType: png.contentType, cacheControl: png.cacheControl, signature: [...png.bytes.slice(0, 8)] }).toEqual({
      status: 200,
      contentType: "image/png",
      cacheControl: "no-store",
      signature: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a],
    });
    const svg = await rawGet(`/v1/instances/${id}/qr?format=svg`, project.key);
    const svgText = new TextDecoder().decode(svg.bytes);
    expect({ status: svg.status, contentType: svg.contentType, cacheControl: svg.cacheControl }).toEqual({ status: 200, contentType: "image/svg+xml", cacheControl: "no-store" });
    expect(svgText).toStartWith("<svg");
    expect(svgText.trimEnd()).toEndWith("</svg>");

    const { code } = (await gw.call("GET", `/v1/instances/${id}/qr`, { key: project.key })).body;
    await gw.phones.scan(phone, code);
    await waitFor(async () => (await gw.call("GET", `/v1/instances/${id}/qr`, { key: project.key })).body.status === "paired");
    expect(reply(await gw.call("GET", `/v1/instances/${id}/qr?format=png`, { key: project.key }))).toEqual({
      status: 409,
      body: { error: { code: "no_code", message: "the instance is paired: there is no pairing code to draw" } },
    });
  });

  test("connect on a connected instance is 409 already_connected; on a retired one 409 retired", async () => {
    const project = await gw.project();
    const id = await gw.pairedInstance(project.key, freshPhone());
    expect(reply(await gw.call("POST", `/v1/instances/${id}/connect`, { key: project.key }))).toEqual({
      status: 409,
      body: { error: { code: "already_connected", message: "the instance is already connected" } },
    });
    await gw.call("POST", `/v1/instances/${id}/retire`, { key: project.key });
    const retired = { status: 409, body: { error: { code: "retired", message: "the instance is retired; register the number again to use it" } } };
    expect(reply(await gw.call("POST", `/v1/instances/${id}/connect`, { key: project.key }))).toEqual(retired);
  });
});

describe("retire and logout", () => {
  test("retire keeps the history, answers the same again, unlinks the phone, and frees the number for a new registration", async () => {
    const project = await gw.project();
    const phone = freshPhone();
    const id = await gw.pairedInstance(project.key, phone);
    const sent = await gw.call("POST", "/v1/send", { key: project.key, body: { to: "+4917700000001", text: "before retiring" } });
    await waitFor(async () => (await gw.call("GET", `/v1/messages/${sent.body.id}`, { key: project.key })).body.state !== "queued");

    const retired = await gw.call("POST", `/v1/instances/${id}/retire`, { key: project.key });
    expect(reply(retired)).toEqual({
      status: 200,
      body: { ...pairedBody(project.id, phone), id, state: "retired", connection: "closed", retiredAt: expect.stringMatching(isoPattern) },
    });
    expect(reply(await gw.call("POST", `/v1/instances/${id}/retire`, { key: project.key }))).toEqual({ status: 200, body: retired.body });
    expect(reply(await gw.call("GET", `/v1/instances/${id}/number`, { key: project.key }))).toEqual({ status: 200, body: retired.body });
    expect(reply(await gw.call("GET", `/v1/instances/${id}/qr`, { key: project.key }))).toEqual({ status: 200, body: { status: "pending" } });
    expect((await gw.phones.devices()).filter((device) => device.phone === phone)).toEqual([]);
    const history = await gw.call("GET", `/v1/messages/${sent.body.id}`, { key: project.key });
    expect(history.body.instanceId).toBe(id);

    const again = await gw.call("POST", "/v1/instances", { key: project.key, body: { phone } });
    expect(reply(again)).toEqual({ status: 201, body: registeredBody(project.id, phone) });
    expect(again.body.id).not.toBe(id);
    const listed = await gw.call("GET", "/v1/instances", { key: project.key });
    expect(listed.body).toEqual({ instances: [again.body, retired.body], nextCursor: null });
  });

  test("logout unlinks the phone's device and leaves the number pending; connect then gives a new code", async () => {
    const project = await gw.project();
    const phone = freshPhone();
    const id = await gw.pairedInstance(project.key, phone);
    expect(await gw.phones.devices()).toContainEqual({ phone, connected: true, sessions: 1 });
    const loggedOut = await gw.call("POST", `/v1/instances/${id}/logout`, { key: project.key });
    expect(reply(loggedOut)).toEqual({
      status: 200,
      body: { ...pairedBody(project.id, phone), id, state: "pending", connection: "closed", pairedAt: null },
    });
    expect((await gw.phones.devices()).filter((device) => device.phone === phone)).toEqual([]);
    expect(reply(await gw.call("GET", `/v1/instances/${id}/qr`, { key: project.key }))).toEqual({ status: 200, body: { status: "pending" } });

    const reconnected = await gw.call("POST", `/v1/instances/${id}/connect`, { key: project.key });
    expect(reconnected.status).toBe(200);
    expect(reconnected.body.qr).toEqual({ status: "code", code: expect.any(String), issuedAt: expect.stringMatching(isoPattern) });
    await gw.phones.scan(phone, reconnected.body.qr.code);
    await waitFor(async () => (await gw.call("GET", `/v1/instances/${id}/number`, { key: project.key })).body.connection === "open");
    expect((await gw.call("GET", `/v1/instances/${id}/number`, { key: project.key })).body.state).toBe("paired");

    await gw.call("POST", `/v1/instances/${id}/retire`, { key: project.key });
    expect(reply(await gw.call("POST", `/v1/instances/${id}/logout`, { key: project.key }))).toEqual({ status: 409, body: { error: { code: "retired", message: "the instance is retired" } } });
  });
});
