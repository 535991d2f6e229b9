// The rules a findings destination's input follows beyond its schema (docs/findings.md,
// "Limits"): name, config, the URL (`secret`) and the signing secret per kind. Each failure is
// a 400 `validation` whose message names the field and the limit.
import { validation } from "../../http/errors.ts";
import type { DestinationKind } from "../../findings/findings-types.ts";
import {
  channelLengthMax, destinationUrlLengthMax, findingsNameLengthMax, recipientLengthMax, recipientsMax,
} from "./findings-limits.ts";
import { signingSecretProblem } from "./signing-secret.ts";
import type { DestinationConfigInputValue } from "./findings-schemas.ts";

export type DestinationConfigValue = { to: string[]; channel: string | null };

/** A destination's or rule's name: 1 to findingsNameLengthMax characters, not only white space. */
export function checkFindingsName(name: string): string {
  if (name.trim() === "" || name.length > findingsNameLengthMax) {
    throw validation(`name must be 1 to ${findingsNameLengthMax} characters, not only white space`);
  }
  return name;
}

export function checkDestinationConfig(config: DestinationConfigInputValue | undefined): DestinationConfigValue {
  const to = config?.to ?? [];
  const channel = config?.channel ?? null;
  if (to.length > recipientsMax) throw validation(`config.to takes at most ${recipientsMax} recipients`);
  for (const recipient of to) {
    if (recipient.trim() === "" || recipient.length > recipientLengthMax) {
      throw validation(`config.to: each recipient must be 1 to ${recipientLengthMax} characters, not only white space`);
    }
  }
  if (channel !== null && (channel.trim() === "" || channel.length > channelLengthMax)) {
    throw validation(`config.channel must be null or 1 to ${channelLengthMax} characters, not only white space`);
  }
  return { to, channel };
}

export function checkDestinationUrl(url: string): string {
  let parsed: URL | null = null;
  try {
    parsed = new URL(url);
  } catch {
    parsed = null;
  }
  if (url.length > destinationUrlLengthMax || !parsed || (parsed.protocol !== "http:" && parsed.protocol !== "https:") || parsed.hostname === "") {
    throw validation(`secret must be an http or https URL of at most ${destinationUrlLengthMax} characters`);
  }
  return url;
}

/**
 * What a person sees of the URL: its origin (scheme, host, port) and its last 4 characters,
 * e.g. `https://hooks.slack.com/…AbCd`. The host says which service it is, the tail tells two
 * URLs of the same service apart; the path between (Slack's token) is never shown.
 */
export function secretHint(url: string | null): string | null {
  return url === null ? null : `${new URL(url).origin}/…${url.slice(-4)}`;
}

export interface DestinationSecrets {
  secret: string | null;
  signingSecret: string | null;
}

/**
 * The secrets after a create or update: `secret` and `signing_secret` as given (undefined: kept,
 * null: cleared). Slack takes no signing secret; a webhook with a URL needs one (its receiver
 * checks every message's signature).
 */
export function checkDestinationSecrets(
  kind: DestinationKind,
  input: { secret?: string | null; signing_secret?: string | null },
  current: DestinationSecrets,
): DestinationSecrets {
  const secret = input.secret === undefined ? current.secret : input.secret === null ? null : checkDestinationUrl(input.secret);
  if (kind === "slack" && input.signing_secret !== undefined && input.signing_secret !== null) {
    throw validation("slack destinations take no signing_secret");
  }
  let signingSecret = input.signing_secret === undefined ? current.signingSecret : input.signing_secret;
  if (input.signing_secret !== undefined && input.signing_secret !== null) {
    const problem = signingSecretProblem(input.signing_secret);
    if (problem) throw validation(problem);
  }
  if (kind === "slack") signingSecret = null;
  if (kind === "webhook" && secret !== null && signingSecret === null) {
    throw validation("webhook destinations with a URL (secret) require a signing_secret");
  }
  return { secret, signingSecret };
}
