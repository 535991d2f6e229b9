import type { Config } from "../config.ts";
import type { RegionLinks } from "../region/region-link.ts";
import type { ControlDb } from "./db/open.ts";
import type { ControlLimiters } from "./limits.ts";
import type { MailTransport } from "./mail/outgoing-mail.ts";
import type { RegionTokenSigner } from "./services/region-token-signer.ts";
import type { ErasureKeyRing } from "./erasure/erasure-keys.ts";
import type { PaymentProvider } from "./billing/payment-provider.ts";
import type { SpendCapEnforcer } from "./billing/spend-cap-enforcer.ts";

export interface CacheStats {
  /** POST /query answers kept (every region's). */
  results: { entries: number; bytes: number; bytes_max: number };
  /** Decoded columns kept for queries (every region's). */
  columns: { entries: number; bytes: number; bytes_max: number };
}

/** What every control-plane service needs; built once at start-up. */
export interface ControlContext {
  config: Config;
  db: ControlDb;
  /** Where password-reset, verification and invitation emails go (the outbox file, or the mail API). */
  mail: MailTransport;
  regions: RegionLinks;
  signer: RegionTokenSigner;
  /** Erasure certificates' signing keys, and a nudge for the runner when a request arrives. */
  erasure: { keys: ErasureKeyRing; wake(): void };
  limiters: ControlLimiters;
  /** The payment provider billing charges through; null: none configured (the self-hosted plan, no limits). */
  payments: PaymentProvider | null;
  /** Usage read from the regions, and the keep ratios pushed to them past spend caps. */
  billing: SpendCapEnforcer;
  /** Base URL clients use (PUBLIC_URL, or the address the service listens on). */
  baseUrl(): string;
  /** What the process's query caches hold (reported by /health). */
  cacheStats(): CacheStats;
}
