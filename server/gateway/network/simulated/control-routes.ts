// The simulated network's HTTP control API: what phones and the network itself do, driven by
// tests, demos and benchmarks. JSON in and out; every refusal is {"error":{"code","message"}}.
// Phones in paths are E.164, URL-encoded (%2B4915…) or with a literal plus.
import { e164Pattern } from "../network.ts";
import { ControlError } from "./control-error.ts";
import type { SimulatedNetworkState } from "./network-state.ts";
import { fields, inboundContent, text, WireShapeError } from "./wire-shapes.ts";

type Body = Record<string, unknown>;
type PhoneRoute = (state: SimulatedNetworkState, phone: string, body: Body) => unknown;

/** Routes under /phones/{phone}/… and /devices/{phone}/…, by "METHOD collection/action". */
const phoneRoutes: Record<string, PhoneRoute> = {
  "POST phones/scan": (state, phone, body) => state.scan(phone, text(body, "code", "body")),
  "POST phones/messages": (state, phone, body) => {
    const to = text(body, "to", "body");
    if (!e164Pattern.test(to)) throw new ControlError(400, "invalid_phone", `body.to ${JSON.stringify(to)} is not an E.164 number`);
    return state.sendFromPhone(phone, to, inboundContent(body));
  },
  "GET phones/inbox": (state, phone) => ({ messages: state.inbox(phone) }),
  "POST phones/read": (state, phone, body) => state.read(phone, text(body, "networkId", "body")),
  "PUT phones/online": (state, phone, body) => {
    if (typeof body.online !== "boolean") throw new WireShapeError("body.online must be true or false");
    return state.setOnline(phone, body.online);
  },
  "PUT phones/refuse": (state, phone, body) => {
    if (body.mode !== null && body.mode !== "transient" && body.mode !== "permanent") throw new WireShapeError('body.mode must be "transient", "permanent" or null');
    const reason = body.reason === undefined ? undefined : text(body, "reason", "body");
    return state.refuse(phone, body.mode, reason);
  },
  "POST devices/drop": (state, phone) => state.drop(phone),
  "POST devices/logout": (state, phone) => state.logoutFromPhone(phone),
};

const plainRoutes: Record<string, (state: SimulatedNetworkState) => unknown> = {
  "GET /devices": (state) => ({ devices: state.devices() }),
  "GET /stats": (state) => state.stats(),
};

export async function handleControlRequest(state: SimulatedNetworkState, request: Request): Promise<Response> {
  try {
    return json(200, await route(state, request));
  } catch (error) {
    if (error instanceof ControlError) return json(error.status, { error: { code: error.code, message: error.message } });
    if (error instanceof WireShapeError) return json(400, { error: { code: "invalid_request", message: error.message } });
    throw error;
  }
}

async function route(state: SimulatedNetworkState, request: Request): Promise<unknown> {
  const { pathname } = new URL(request.url);
  const plain = plainRoutes[`${request.method} ${pathname}`];
  if (plain !== undefined) return plain(state);
  const [, collection, encodedPhone, action, ...rest] = pathname.split("/");
  const handler = rest.length === 0 ? phoneRoutes[`${request.method} ${collection}/${action}`] : undefined;
  if (handler === undefined || encodedPhone === undefined) throw new ControlError(404, "not_found", `no control route ${request.method} ${pathname}`);
  const phone = decodePhone(encodedPhone);
  const body = request.method === "GET" ? {} : await readBody(request);
  return handler(state, phone, body);
}

function decodePhone(segment: string): string {
  let phone: string;
  try {
    phone = decodeURIComponent(segment);
  } catch {
    phone = segment;
  }
  if (!e164Pattern.test(phone)) throw new ControlError(400, "invalid_phone", `${JSON.stringify(phone)} is not an E.164 number (a plus sign and 8 to 15 digits)`);
  return phone;
}

async function readBody(request: Request): Promise<Body> {
  const raw = await request.text();
  if (raw === "") return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new ControlError(400, "invalid_json", "the body is not JSON");
  }
  return fields(parsed, "body");
}

function json(status: number, body: unknown): Response {
  return Response.json(body, { status });
}
