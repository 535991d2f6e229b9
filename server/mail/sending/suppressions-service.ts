// The suppression list through the API: list (newest first, by reason), look one address up,
// add one by hand, remove one (the tenant takes responsibility for sending to it again).
import { ApiError, notFound } from "../../http/errors.ts";
import { parseMailbox } from "../compose/addresses.ts";
import type { Suppression, SuppressionReason, SuppressionStore } from "../store/suppressions.ts";
import { suppressionKey } from "./suppression-key.ts";

export const suppressionDetailLengthMax = 500;

export class SuppressionsService {
  constructor(
    private readonly store: SuppressionStore,
    private readonly now: () => number,
  ) {}

  list(tenantId: string, reason: SuppressionReason | null, limit: number, after: string | null): Promise<Suppression[]> {
    return this.store.list(tenantId, reason, limit, after === null ? null : suppressionKey(after));
  }

  async get(tenantId: string, address: string): Promise<Suppression> {
    const entry = await this.store.get(tenantId, suppressionKey(address));
    if (!entry) throw notFound("suppression");
    return entry;
  }

  async add(tenantId: string, address: unknown, detail: string | null): Promise<Suppression> {
    const mailbox = parseMailbox(address, "address");
    if (mailbox.name !== null) throw new ApiError(422, "invalid_address", "address: give the bare address, without a display name");
    const key = suppressionKey(mailbox.address);
    if (!(await this.store.add({ tenantId, address: key, reason: "manual", emailId: null, bounceClass: null, detail }, this.now()))) {
      throw new ApiError(409, "already_suppressed", `${key} is already on the suppression list`);
    }
    return (await this.store.get(tenantId, key))!;
  }

  async remove(tenantId: string, address: string): Promise<void> {
    if (!(await this.store.remove(tenantId, suppressionKey(address)))) throw notFound("suppression");
  }
}
