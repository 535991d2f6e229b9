// The gateway's settings (environment variables, documented in the README).
export interface GatewaySettings {
  /** postgres://… to share the store between replicas; null: SQLite in DATA_DIR. */
  databaseUrl: string | null;
  /** The operator's key; null: made on first start and kept in DATA_DIR (gateway-root-key). */
  rootKey: string | null;
  /** Reported by GET /v1/about; null: read from the clone's .git. */
  buildCommit: string | null;
}

export class GatewaySettingsError extends Error {}

export function parseGatewaySettings(env: Record<string, string | undefined>): GatewaySettings {
  const databaseUrl = env.GATEWAY_DATABASE_URL?.trim() || null;
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new GatewaySettingsError(`GATEWAY_DATABASE_URL must be a postgres:// URL, got "${databaseUrl.replace(/\/\/[^@]*@/, "//…@")}"`);
  }
  const rootKey = env.GATEWAY_ROOT_KEY?.trim() || null;
  if (rootKey !== null && rootKey.length < 24) throw new GatewaySettingsError("GATEWAY_ROOT_KEY must be at least 24 characters");
  return { databaseUrl, rootKey, buildCommit: env.BUILD_COMMIT?.trim() || null };
}
