// The simulated network's control API over real HTTP: whole answers and whole error bodies,
// phones in paths encoded or not, the typed client's errors; and the socket's answers to
// frames the protocol does not allow.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SimulatedNetworkControl, SimulatedNetworkControlError } from "../../../server/gateway/network/simulated/index.ts";
import { closeCodes } from "../../../server/gateway/network/simulated/protocol.ts";
import { pairedSession, startHarness, type Harness } from "./simulated-harness.ts";

const gatewayNumber = "+4915112345678";
const contact = "+33612345678";
let harness: Harness;

beforeAll(async () => {
  harness = await startHarness();
  await pairedSession(harness, "inst-1", gatewayNumber);
});
afterAll(async () => {
  await harness.close();
});

async function call(method: string, path: string, body?: unknown, rawBody?: string) {
  const response = await fetch(harness.network.url + path, { method, body: rawBody ?? (body === undefined ? undefined : JSON.stringify(body)) });
  return { status: response.status, body: await response.json() };
}

const refusal = (status: number, code: string, message: string) => ({ status, body: { error: { code, message } } });
const encoded = encodeURIComponent(gatewayNumber);

describe("control API refusals", () => {
  test("scan: unknown code 404, missing code 400, bad phone 400, not JSON 400", async () => {
    expect(await call("POST", `/phones/${encodeURIComponent(contact)}/scan`, { code: "sim-pair:nope" })).toEqual(refusal(404, "unknown_code", "no session shows this pairing code"));
    expect(await call("POST", `/phones/${encodeURIComponent(contact)}/scan`, {})).toEqual(refusal(400, "invalid_request", "body.code must be a string"));
    expect(await call("POST", "/phones/4915112345678/scan", { code: "x" })).toEqual(refusal(400, "invalid_phone", '"4915112345678" is not an E.164 number (a plus sign and 8 to 15 digits)'));
    expect(await call("POST", "/phones/%E0%A4%A/scan", { code: "x" })).toEqual(refusal(400, "invalid_phone", '"%E0%A4%A" is not an E.164 number (a plus sign and 8 to 15 digits)'));
    expect(await call("POST", `/phones/${encodeURIComponent(contact)}/scan`, undefined, "{code:")).toEqual(refusal(400, "invalid_json", "the body is not JSON"));
    expect(await call("POST", `/phones/${encodeURIComponent(contact)}/scan`, undefined, "[1]")).toEqual(refusal(400, "invalid_request", "body must be a JSON object"));
  });

  test("a contact's message: to a number without a device 404, bad recipient or content 400", async () => {
    expect(await call("POST", `/phones/${encodeURIComponent(contact)}/messages`, { to: "+4915100000000", text: "hi" })).toEqual(refusal(404, "not_paired", "+4915100000000 has no linked gateway device"));
    expect(await call("POST", `/phones/${encodeURIComponent(contact)}/messages`, { to: "12345", text: "hi" })).toEqual(refusal(400, "invalid_phone", 'body.to "12345" is not an E.164 number'));
    expect(await call("POST", `/phones/${encodeURIComponent(contact)}/messages`, { to: gatewayNumber })).toEqual(refusal(400, "invalid_request", "body needs exactly one of text and media"));
    expect(await call("POST", `/phones/${encodeURIComponent(contact)}/messages`, { to: gatewayNumber, text: "a", media: {} })).toEqual(refusal(400, "invalid_request", "body needs exactly one of text and media"));
    expect(await call("POST", `/phones/${encodeURIComponent(contact)}/messages`, { to: gatewayNumber, media: { type: "gif", mimeType: "image/gif", dataBase64: "" } })).toEqual(
      refusal(400, "invalid_request", "body.media.type must be one of image, document, audio, video, sticker"),
    );
    expect(await call("POST", `/phones/${encodeURIComponent(contact)}/messages`, { to: gatewayNumber, media: { type: "image", mimeType: "image/png", dataBase64: "not base64!" } })).toEqual(
      refusal(400, "invalid_request", "body.media.dataBase64 must be base64"),
    );
  });

  test("read, online, refuse, drop, logout and unknown routes", async () => {
    expect(await call("POST", `/phones/${encodeURIComponent(contact)}/read`, { networkId: "m-404" })).toEqual(refusal(404, "unknown_message", `${contact} received no message "m-404"`));
    expect(await call("PUT", `/phones/${encodeURIComponent(contact)}/online`, { online: "yes" })).toEqual(refusal(400, "invalid_request", "body.online must be true or false"));
    expect(await call("PUT", `/phones/${encoded}/refuse`, { mode: "sometimes" })).toEqual(refusal(400, "invalid_request", 'body.mode must be "transient", "permanent" or null'));
    expect(await call("PUT", `/phones/${encoded}/refuse`, { mode: "permanent", reason: 7 })).toEqual(refusal(400, "invalid_request", "body.reason must be a string"));
    expect(await call("POST", `/devices/${encodeURIComponent(contact)}/drop`)).toEqual(refusal(404, "unknown_device", `${contact} has no linked gateway device`));
    expect(await call("POST", `/devices/${encodeURIComponent(contact)}/logout`)).toEqual(refusal(404, "unknown_device", `${contact} has no linked gateway device`));
    expect(await call("GET", "/phones")).toEqual(refusal(404, "not_found", "no control route GET /phones"));
    expect(await call("DELETE", `/phones/${encoded}/inbox`)).toEqual(refusal(404, "not_found", `no control route DELETE /phones/${encoded}/inbox`));
    expect(await call("GET", `/phones/${encoded}/inbox/extra`)).toEqual(refusal(404, "not_found", `no control route GET /phones/${encoded}/inbox/extra`));
    expect(await call("GET", "/socket")).toEqual(refusal(426, "upgrade_required", "/socket is a WebSocket"));
  });

  test("dropping a device with no connected session is 409", async () => {
    const other = await pairedSession(harness, "inst-2", "+4915187654321");
    await other.session.close();
    expect(await call("POST", `/devices/${encodeURIComponent("+4915187654321")}/drop`)).toEqual(refusal(409, "not_connected", "+4915187654321's device has no connected session"));
  });

  test("phones in paths may be encoded or carry a literal plus", async () => {
    expect(await call("PUT", `/phones/${contact}/online`, { online: true })).toEqual({ status: 200, body: { phone: contact, online: true } });
    expect(await call("GET", `/phones/${encodeURIComponent(contact)}/inbox`)).toEqual({ status: 200, body: { messages: [] } });
    expect(await call("PUT", `/phones/${gatewayNumber}/refuse`, { mode: null })).toEqual({ status: 200, body: { phone: gatewayNumber, refusal: null } });
  });

  test("the typed client throws the API's status and code", async () => {
    const control = new SimulatedNetworkControl(harness.network.url);
    const failure = await control.scan(contact, "sim-pair:nope").catch((error: unknown) => error);
    if (!(failure instanceof SimulatedNetworkControlError)) throw new Error(`expected a SimulatedNetworkControlError, got ${String(failure)}`);
    expect({ status: failure.status, code: failure.code, message: failure.message }).toEqual({ status: 404, code: "unknown_code", message: "404 unknown_code: no session shows this pairing code" });
  });
});

describe("socket protocol errors", () => {
  async function rawSocket() {
    const socket = new WebSocket(harness.network.url.replace("http", "ws") + "/socket");
    await new Promise((resolve) => socket.addEventListener("open", resolve, { once: true }));
    const frames: unknown[] = [];
    socket.addEventListener("message", (event) => frames.push(JSON.parse(event.data as string)));
    const closed = new Promise<{ code: number; reason: string }>((resolve) => socket.addEventListener("close", (event) => resolve({ code: event.code, reason: event.reason }), { once: true }));
    return { socket, frames, closed };
  }

  test("a frame that is not JSON, or of no known type, closes the connection with a protocol error", async () => {
    const garbage = await rawSocket();
    garbage.socket.send("{nope");
    expect(await garbage.closed).toEqual({ code: closeCodes.protocolError, reason: "protocol error: frame is not JSON" });
    const unknown = await rawSocket();
    unknown.socket.send(JSON.stringify({ type: "subscribe" }));
    expect(await unknown.closed).toEqual({ code: closeCodes.protocolError, reason: "protocol error: frame.type must be one of hello, send, ack, logout" });
    const twice = await rawSocket();
    twice.socket.send(JSON.stringify({ type: "hello", credential: null }));
    twice.socket.send(JSON.stringify({ type: "hello", credential: null }));
    expect(await twice.closed).toEqual({ code: closeCodes.protocolError, reason: "hello sent twice" });
  });

  test("a malformed send is refused permanently on the open connection; one without a usable request id is a protocol error", async () => {
    const raw = await rawSocket();
    raw.socket.send(JSON.stringify({ type: "send", requestId: 7, messageId: "m-1", to: contact, content: { type: "image", mimeType: "image/png" } }));
    raw.socket.send(JSON.stringify({ type: "send", requestId: 8, messageId: "m-1", to: contact, content: { type: "text", text: "x" } }));
    raw.socket.send(JSON.stringify({ type: "send", requestId: "nine" }));
    expect(await raw.closed).toEqual({ code: closeCodes.protocolError, reason: "protocol error: frame.requestId must be an integer" });
    expect(raw.frames).toEqual([
      { type: "sendResult", requestId: 7, ok: false, transient: false, reason: "malformed send: content.dataBase64 must be a string" },
      { type: "sendResult", requestId: 8, ok: false, transient: true, reason: "the session is not paired" },
    ]);
  });
});
