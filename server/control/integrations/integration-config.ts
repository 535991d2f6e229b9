// What each revenue provider's integration takes: whether it has a secret (and its form), and
// its non-secret config keys (docs/revenue.md, "Config per provider"). Unknown config keys are
// refused so a typo does not pass silently. Validation errors are 400 `validation`.
import { validation } from "../../http/errors.ts";
import { currencyCodes } from "../../ingest/minor-units.ts";
import type { RevenueProvider } from "../../ingest/revenue/provider.ts";

export const integrationNameLengthMax = 100;
export const integrationSecretLengthMax = 512;
/** A shorter secret would be half shown by `secret_last4`. */
export const integrationSecretLengthMin = 8;
/** The config as JSON text (a Play price table is the largest). */
export const integrationConfigBytesMax = 16 * 1024;
/** Characters of a product id in a Play price table. */
export const playProductIdLengthMax = 150;

export const pricePeriods = ["day", "week", "month", "year"] as const;

type ConfigRule = { required: boolean; check: (value: unknown, key: string) => void };

const text = (maxLength: number) => (value: unknown, key: string) => {
  if (typeof value !== "string" || value.trim() === "" || value.length > maxLength) {
    throw validation(`config.${key} must be a non-empty string of at most ${maxLength} characters`);
  }
};

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Keys of one entry of a Play price table (docs/revenue-providers.md, Google Play). */
const playPriceKeys: ReadonlySet<string> = new Set(["amount_minor", "currency", "period", "period_count", "free_trial"]);

/**
 * Play notifications carry no price: `{productId: {amount_minor, currency, period?, period_count?, free_trial?}}`
 * (no period: a one-time product).
 */
function priceTable(value: unknown, key: string): void {
  if (!isPlainObject(value)) throw validation(`config.${key} must be an object of product id to {amount_minor, currency, period}`);
  for (const [productId, price] of Object.entries(value)) {
    if (productId.length === 0 || productId.length > playProductIdLengthMax) {
      throw validation(`config.${key}: product ids must be 1 to ${playProductIdLengthMax} characters`);
    }
    const where = `config.${key}.${productId}`;
    if (!isPlainObject(price) || Object.keys(price).some((name) => !playPriceKeys.has(name))) {
      throw validation(`${where} must be {amount_minor, currency, period, period_count, free_trial} (period and after optional)`);
    }
    if (!Number.isSafeInteger(price.amount_minor) || (price.amount_minor as number) < 0) {
      throw validation(`${where}.amount_minor must be a non-negative integer (minor units of currency)`);
    }
    if (typeof price.currency !== "string" || !currencyCodes.has(price.currency)) throw validation(`${where}.currency must be an ISO 4217 code such as USD`);
    if (price.period !== undefined && (typeof price.period !== "string" || !(pricePeriods as readonly string[]).includes(price.period))) {
      throw validation(`${where}.period must be one of ${pricePeriods.join(", ")}`);
    }
    if (price.period_count !== undefined && (!Number.isSafeInteger(price.period_count) || (price.period_count as number) < 1)) {
      throw validation(`${where}.period_count must be a positive integer`);
    }
    if (price.free_trial !== undefined && typeof price.free_trial !== "boolean") throw validation(`${where}.free_trial must be true or false`);
  }
}

const boolean = (value: unknown, key: string) => {
  if (typeof value !== "boolean") throw validation(`config.${key} must be true or false`);
};

interface ProviderRules {
  /** required: the integration must have a secret; none: it may not have one. */
  secret: "required" | "none";
  /** A check of the secret's form beyond its length (null: any visible ASCII). */
  secretForm: { pattern: RegExp; message: string } | null;
  config: Record<string, ConfigRule>;
}

/** Header values are visible ASCII; spaces inside (`Bearer abc`) are fine, not at the ends. */
const headerValuePattern = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/;

export const providerRules: Record<RevenueProvider, ProviderRules> = {
  stripe: {
    secret: "required",
    secretForm: { pattern: /^whsec_[A-Za-z0-9+/=_-]+$/, message: "secret must be the endpoint's signing secret, starting with whsec_" },
    config: {},
  },
  revenuecat: {
    secret: "required",
    secretForm: { pattern: headerValuePattern, message: "secret must be the Authorization header value set in RevenueCat (visible ASCII characters)" },
    // Sandbox purchases are acknowledged and ignored unless this is true (as for the App Store).
    config: { accept_sandbox: { required: false, check: boolean } },
  },
  app_store: {
    secret: "none",
    secretForm: null,
    config: {
      bundle_id: { required: true, check: text(155) },
      accept_sandbox: { required: false, check: boolean },
    },
  },
  play_store: {
    secret: "none",
    secretForm: null,
    config: {
      package_name: { required: true, check: text(255) },
      products: { required: false, check: priceTable },
    },
  },
};

export function checkName(name: string | null | undefined): string | null {
  if (name === undefined || name === null) return null;
  const trimmed = name.trim();
  if (trimmed === "") throw validation("name must not be empty (send null for no name)");
  if (trimmed.length > integrationNameLengthMax) throw validation(`name must be at most ${integrationNameLengthMax} characters`);
  return trimmed;
}

/** The secret a provider's integration holds after a create or update (`undefined`: unchanged). */
export function checkSecret(provider: RevenueProvider, secret: string | undefined, current: string | null): string | null {
  const rules = providerRules[provider];
  if (rules.secret === "none") {
    if (secret !== undefined) throw validation(`${provider} integrations take no secret`);
    return null;
  }
  const value = secret ?? current;
  if (value === null) throw validation(`${provider} integrations require a secret`);
  if (secret === undefined) return value;
  if (secret.length < integrationSecretLengthMin || secret.length > integrationSecretLengthMax) {
    throw validation(`secret must be ${integrationSecretLengthMin} to ${integrationSecretLengthMax} characters`);
  }
  if (rules.secretForm && !rules.secretForm.pattern.test(secret)) throw validation(rules.secretForm.message);
  return secret;
}

export function checkConfig(provider: RevenueProvider, config: Record<string, unknown>): Record<string, unknown> {
  const bytes = new TextEncoder().encode(JSON.stringify(config)).byteLength;
  if (bytes > integrationConfigBytesMax) throw validation(`config must be at most ${integrationConfigBytesMax} bytes as JSON`);
  const rules = providerRules[provider].config;
  const unknown = Object.keys(config).filter((key) => !Object.hasOwn(rules, key));
  if (unknown.length > 0) {
    const known = Object.keys(rules);
    throw validation(`config.${unknown[0]} is not a setting of ${provider} integrations (${known.length ? `known: ${known.join(", ")}` : "they take none"})`);
  }
  for (const [key, rule] of Object.entries(rules)) {
    if (config[key] === undefined) {
      if (rule.required) throw validation(`config.${key} is required for ${provider} integrations`);
      continue;
    }
    rule.check(config[key], key);
  }
  return config;
}
