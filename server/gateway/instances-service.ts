// A project's numbers: register one, pair it (connect opens a session on the replica that holds
// it and waits for its first pairing code), read its QR state, retire it (history kept) or log
// it out (unlinked; a new scan pairs it again). Another project's number is 404.
import { ApiError, conflict, notFound, validation } from "../http/errors.ts";
import type { InboundEvents } from "./inbound-events.ts";
import type { AuditStore } from "./store/audit.ts";
import type { MessageStore } from "./store/messages.ts";
import type { Leases } from "./leases.ts";
import { e164Pattern } from "./network/network.ts";
import { firstEventWaitMs, type SessionHost } from "./session-host.ts";
import type { GatewayInstance, InstanceStore } from "./store/instances.ts";

export const instanceLabelLengthMax = 200;

/** Another replica took the number's lease meanwhile: the request goes to it. */
export class HeldElsewhere extends ApiError {
  constructor() {
    super(503, "owner_unavailable", "another replica holds this number and could not be reached; try again");
  }
}

export type QrState = { status: "paired" } | { status: "pending" } | { status: "code"; code: string; issuedAt: number };

export class InstancesService {
  constructor(
    private readonly instances: InstanceStore,
    private readonly sessions: SessionHost,
    private readonly leases: Leases,
    private readonly audit: AuditStore,
    private readonly messages: MessageStore,
    private readonly events: InboundEvents,
    private readonly now: () => number,
  ) {}

  async get(projectId: string, id: string): Promise<GatewayInstance> {
    const instance = await this.instances.ofProject(projectId, id);
    if (!instance) throw notFound("instance");
    return instance;
  }

  async register(projectId: string, keyId: string, phone: string, label: string | null): Promise<GatewayInstance> {
    if (!e164Pattern.test(phone)) throw validation(`phone: "${phone.slice(0, 40)}" is not an E.164 number (a plus sign and 8 to 15 digits)`);
    const holder = await this.instances.inServiceWithPhone(phone);
    // Another project's number answers like a taken one, without saying whose.
    if (holder) throw conflict(`${phone} is already registered and in service; retire that instance first`);
    const instance = await this.instances.create({ id: Bun.randomUUIDv7(), projectId, phone, label: label ?? phone, now: this.now() });
    await this.audit.record({ projectId, actor: `key:${keyId}`, action: "instance.registered", target: instance.id, detail: { phone }, at: this.now() });
    return instance;
  }

  qr(instance: GatewayInstance): QrState {
    if (instance.state === "paired") return { status: "paired" };
    if (instance.qrCode !== null && instance.qrAt !== null) return { status: "code", code: instance.qrCode, issuedAt: instance.qrAt };
    return { status: "pending" };
  }

  /**
   * Opens the number's session here (this replica holds it, or takes its free lease) and waits
   * briefly for its first word, so the answer usually carries the QR state. 409 when connected.
   */
  async connect(instance: GatewayInstance, keyId: string): Promise<GatewayInstance> {
    if (instance.state === "retired") throw new ApiError(409, "retired", "the instance is retired; register the number again to use it");
    const held = this.sessions.get(instance.id);
    if (instance.connection === "open" && held?.connected) throw new ApiError(409, "already_connected", "the instance is already connected");
    // The lease first: once the number wants a session, any replica's supervisor may take it.
    if (!(await this.leases.take(instance))) throw new HeldElsewhere();
    const wanting = (await this.instances.update(instance.id, { wantsSession: true, lastError: null }, this.now()))!;
    await this.audit.record({ projectId: instance.projectId, actor: `key:${keyId}`, action: "instance.connect", target: instance.id, detail: null, at: this.now() });
    const session = held ?? (await this.sessions.open(wanting).catch((error: Error) => {
      throw new ApiError(503, "network_unavailable", `could not reach the messaging network: ${error.message}`);
    }));
    await Promise.race([session.firstEvent, Bun.sleep(firstEventWaitMs)]);
    return (await this.instances.get(instance.id))!;
  }

  async retire(instance: GatewayInstance, actor: string): Promise<GatewayInstance> {
    if (instance.state === "retired") return instance;
    await this.sessions.logout(instance.id);
    await this.leases.letGo(instance.id);
    const retired = (await this.instances.update(instance.id, { state: "retired", wantsSession: false, connection: "closed", qrCode: null, qrAt: null, retiredAt: this.now() }, this.now()))!;
    for (const message of await this.messages.failInterrupted(instance.id, "its number was retired while a send through it was unfinished: it may or may not have reached the recipient", this.now())) {
      await this.events.failed(message.projectId, instance.id, message, message.failure!);
    }
    await this.audit.record({ projectId: instance.projectId, actor, action: "instance.retired", target: instance.id, detail: { phone: instance.phone }, at: this.now() });
    return retired;
  }

  async logout(instance: GatewayInstance, keyId: string): Promise<GatewayInstance> {
    if (instance.state === "retired") throw new ApiError(409, "retired", "the instance is retired");
    await this.sessions.logout(instance.id);
    await this.leases.letGo(instance.id);
    const pending = (await this.instances.update(instance.id, { state: "pending", wantsSession: false, connection: "closed", qrCode: null, qrAt: null, pairedAt: null }, this.now()))!;
    await this.audit.record({ projectId: instance.projectId, actor: `key:${keyId}`, action: "instance.logged_out", target: instance.id, detail: null, at: this.now() });
    return pending;
  }
}
