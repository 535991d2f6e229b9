// The bounds of findings destinations and rules (docs/findings.md, "Limits"). Each is checked
// where the input is validated (destination-checks.ts, rule-checks.ts) and tested at its edge.
import { eventNameLengthMax } from "../../ingest/limits.ts";

/** A destination's or rule's name, in characters (not only white space). */
export const findingsNameLengthMax = 200;
export const destinationsPerProjectMax = 50;
export const rulesPerProjectMax = 200;
/** The destination's URL (`secret`): Slack's incoming-webhook URL or the webhook endpoint. */
export const destinationUrlLengthMax = 2048;
/** A plain signing secret (used as its UTF-8 bytes); shorter would be guessable. */
export const signingSecretLengthMin = 16;
export const signingSecretLengthMax = 256;
/** The key bytes a Standard Webhooks secret (`whsec_<base64>`) decodes to (the specification's range). */
export const whsecKeyBytesMin = 24;
export const whsecKeyBytesMax = 64;
/** `config.to`: recipients a message mentions. */
export const recipientsMax = 20;
export const recipientLengthMax = 200;
/** `config.channel`: Slack channel names are at most 80 characters. */
export const channelLengthMax = 80;
/** A rule's destinations. */
export const ruleDestinationsMax = 10;
/** Findings sent per rule per day at most (null: the deployment's default). */
export const dailyCapMin = 1;
export const dailyCapMax = 1000;
/** Event names in targets: as long as ingest accepts. */
export const targetEventLengthMax = eventNameLengthMax;
/** A metric target's key is looked up only up to this length (metric keys are at most 200 characters). */
export const targetKeyLengthMax = 200;
/** `thresholds.relative_change`: 100 is a change of 10,000%. */
export const relativeChangeMax = 100;
export const anomalyZMin = 1;
export const anomalyZMax = 20;
export const baselineWeeksMin = 1;
export const baselineWeeksMax = 12;
