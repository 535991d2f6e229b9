// The form of a findings destination, for creating and editing: kind (fixed once made), name,
// the URL (Slack's incoming-webhook URL or the webhook's endpoint: a secret, never shown back),
// the webhook's signing secret, recipients, channel, the lowest severity sent, and whether it
// is enabled. Editing, an empty secret field keeps the stored one.
import { useState } from "preact/hooks";
import { destinationKinds, severities, type DestinationDto, type DestinationInput, type DestinationKind } from "../../api/findings-api.ts";
import { fieldText } from "../../hooks/use-form-action.ts";
import { Button } from "../../ui/button.tsx";
import { SelectField, TextAreaField, TextField } from "../../ui/field.tsx";
import { severityLabels } from "./finding-format.ts";

/** The API's limit for names (server/control/findings/findings-limits.ts, findingsNameLengthMax). */
export const destinationNameLengthMax = 200;

export const destinationKindLabels: Record<DestinationKind, string> = { slack: "Slack", webhook: "Webhook" };

const urlLabels: Record<DestinationKind, { label: string; hint: string; placeholder: string }> = {
  slack: { label: "Incoming-webhook URL", hint: "From Slack: your app → Incoming Webhooks → Add New Webhook to Workspace. Kept secret: it is never shown again.", placeholder: "https://hooks.slack.com/services/…" },
  webhook: { label: "Endpoint URL", hint: "Each finding is POSTed here as JSON, signed (docs/findings.md says how to verify). Kept secret: it is never shown again.", placeholder: "https://example.com/hooks/findings" },
};

/**
 * What the page shows of the stored URL: the API's hint, its origin and last 4 characters
 * ("URL https://hooks.slack.com/…AbCd"); the URL itself is never returned.
 */
export const secretNote = (destination: Pick<DestinationDto, "has_secret" | "secret_hint">) =>
  destination.has_secret ? (destination.secret_hint ? `URL ${destination.secret_hint}` : "URL stored") : "no URL yet";

/** Bytes of a generated signing secret: inside Standard Webhooks' 24 to 64. */
const generatedSecretBytes = 32;

const generateSigningSecret = () => {
  const bytes = crypto.getRandomValues(new Uint8Array(generatedSecretBytes));
  return `whsec_${btoa(String.fromCharCode(...bytes))}`;
};

/**
 * The webhook's signing secret, typed or generated here. A generated one is shown as text so it
 * can be copied into the receiver: once saved it is never shown again.
 */
function SigningSecretField({ existing }: { existing: DestinationDto | null }) {
  const [generated, setGenerated] = useState<string | null>(null);
  const common = {
    label: "Signing secret",
    name: "signing_secret",
    autoComplete: "off",
    required: existing === null,
    aside: <Button small variant="ghost" onClick={() => setGenerated(generateSigningSecret())}>Generate</Button>,
  };
  return generated ? (
    <TextField key={generated} {...common} type="text" spellcheck={false} defaultValue={generated} hint="Copy it into your receiver now: once saved it is never shown again." />
  ) : (
    <TextField
      {...common}
      type="password"
      placeholder={existing ? "Leave empty to keep the one stored" : "whsec_…"}
      hint="Each body is signed with HMAC-SHA256 under this secret (Standard Webhooks headers), so the receiver can tell it came from here: whsec_ and base64, or 16 to 256 visible characters."
    />
  );
}

export function DestinationFields({ existing, kind, onKind }: { existing: DestinationDto | null; kind: DestinationKind; onKind(kind: DestinationKind): void }) {
  const url = urlLabels[kind];
  const stored = existing?.has_secret ? `Stored: ${secretNote(existing)}; leave empty to keep it. ` : "";
  return (
    <>
      {existing === null ? (
        <SelectField label="Kind" name="kind" onChange={(change) => onKind(change.currentTarget.value as DestinationKind)}>
          {destinationKinds.map((name) => <option key={name} value={name} selected={name === kind}>{destinationKindLabels[name]}</option>)}
        </SelectField>
      ) : (
        <p class="findings-note">Kind: {destinationKindLabels[existing.kind]}</p>
      )}
      <TextField label="Name" name="name" required maxLength={destinationNameLengthMax} defaultValue={existing?.name ?? ""} placeholder={kind === "slack" ? "#growth alerts" : "On-call webhook"} />
      <TextField label={url.label} name="secret" type="password" autoComplete="off" required={existing === null} placeholder={existing ? "Leave empty to keep the stored one" : url.placeholder} hint={`${stored}${url.hint}`} />
      {kind === "webhook" && <SigningSecretField existing={existing} />}
      <TextAreaField
        label="Recipients (optional)"
        name="to"
        rows={2}
        defaultValue={existing?.config.to.join("\n") ?? ""}
        placeholder="@alice, @bob"
        hint="Named in each message: one per line or separated by commas."
      />
      <TextField label="Channel (optional)" name="channel" defaultValue={existing?.config.channel ?? ""} placeholder={kind === "slack" ? "#growth" : ""} />
      <SelectField label="Lowest severity sent" name="min_severity">
        {severities.map((severity) => <option key={severity} value={severity} selected={severity === (existing?.min_severity ?? "info")}>{severityLabels[severity]}</option>)}
      </SelectField>
      <label class="switch-field">
        <input type="checkbox" name="enabled" defaultChecked={existing?.enabled ?? true} />
        <span>Enabled: findings are sent here</span>
      </label>
    </>
  );
}

/** The request a submitted form stands for. Empty secret fields are left out (kept when editing). */
export function readDestination(fields: FormData, kind: DestinationKind, creating: boolean): DestinationInput {
  const secret = fieldText(fields, "secret").trim();
  const signingSecret = fieldText(fields, "signing_secret").trim();
  const channel = fieldText(fields, "channel").trim();
  return {
    ...(creating ? { kind } : {}),
    name: fieldText(fields, "name").trim(),
    enabled: fields.get("enabled") === "on",
    min_severity: fieldText(fields, "min_severity") as DestinationInput["min_severity"],
    config: { to: fieldText(fields, "to").split(/[\n,]/).map((item) => item.trim()).filter((item) => item !== ""), channel: channel === "" ? null : channel },
    ...(secret === "" ? {} : { secret }),
    ...(kind === "webhook" && signingSecret !== "" ? { signing_secret: signingSecret } : {}),
  };
}

export function useDestinationKind(existing: DestinationDto | null) {
  return useState<DestinationKind>(existing?.kind ?? "slack");
}
