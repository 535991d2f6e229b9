import type { Config } from "../config.ts";
import type { RegionLinks } from "../region/region-link.ts";
import type { ControlDb } from "./db/open.ts";
import type { ControlLimiters } from "./limits.ts";
import type { MailOutbox } from "./mail-outbox.ts";
import type { RegionTokenSigner } from "./services/region-token-signer.ts";

/** What every control-plane service needs; built once at start-up. */
export interface ControlContext {
  config: Config;
  db: ControlDb;
  outbox: MailOutbox;
  regions: RegionLinks;
  signer: RegionTokenSigner;
  limiters: ControlLimiters;
  /** Base URL clients use (PUBLIC_URL, or the address the service listens on). */
  baseUrl(): string;
}
