// The project's replay policy (GET/PUT {region}/replays/policy): the share of sessions recorded,
// the shortest recording kept in the list, and a feature flag that gates recording. The values
// are the API's own units, so its refusals ("body /sample_rate: …") name the field they show under.
import { useState } from "preact/hooks";
import { ApiError, describeError } from "../../api/errors.ts";
import { getReplayPolicy, putReplayPolicy, type ReplayPolicy } from "../../api/replays-api.ts";
import type { ProjectDto } from "../../api/types.ts";
import { formatDateTime } from "../../format/date-time.ts";
import { fieldText, useFormAction } from "../../hooks/use-form-action.ts";
import type { RegionAccess } from "../../hooks/use-region.ts";
import { useResource } from "../../hooks/use-resource.ts";
import { Alert } from "../../ui/alert.tsx";
import { Button } from "../../ui/button.tsx";
import { TextField } from "../../ui/field.tsx";
import { ErrorState, LoadingState } from "../../ui/states.tsx";

const policyFields = ["sample_rate", "min_duration_ms", "flag_key"] as const;
type PolicyField = (typeof policyFields)[number];

/** The field a validation refusal names (`body /sample_rate: …`), if the form has it. */
function refusedField(error: unknown): PolicyField | null {
  if (!(error instanceof ApiError)) return null;
  return policyFields.find((field) => error.message.startsWith(`body /${field}`)) ?? null;
}

/** A typed number, or null for an empty or unreadable one: the API says what it expected. */
const typedNumber = (text: string) => (text.trim() === "" || !Number.isFinite(Number(text)) ? null : Number(text));

function PolicyForm({ initial, writable, region, project }: { initial: ReplayPolicy; writable: boolean; region: RegionAccess; project: ProjectDto }) {
  const [policy, setPolicy] = useState(initial);
  const [saved, setSaved] = useState(false);
  const action = useFormAction(async (fields) => {
    setSaved(false);
    const flagKey = fieldText(fields, "flag_key").trim();
    // Sent as typed: the region checks the ranges and its message is shown at the field.
    const body = { sample_rate: typedNumber(fieldText(fields, "sample_rate")), min_duration_ms: typedNumber(fieldText(fields, "min_duration_ms")), flag_key: flagKey === "" ? null : flagKey };
    setPolicy(await putReplayPolicy(region.tokens, body as Omit<ReplayPolicy, "updated_at">));
    setSaved(true);
  });
  const refused = refusedField(action.error);
  const fieldError = (field: PolicyField) => refused === field && <p class="field-error" role="alert">{describeError(action.error)}</p>;
  return (
    <form class="replay-policy-form" onSubmit={action.onSubmit} aria-label="Replay settings">
      <div class="replay-policy-fields">
        <div>
          <TextField label="Sample rate" name="sample_rate" inputMode="decimal" defaultValue={String(policy.sample_rate)} disabled={!writable} hint="0 to 1: the share of sessions recorded, decided once per session." />
          {fieldError("sample_rate")}
        </div>
        <div>
          <TextField label="Minimum duration (ms)" name="min_duration_ms" inputMode="numeric" defaultValue={String(policy.min_duration_ms)} disabled={!writable} hint="0 to 3,600,000: shorter recordings are not listed." />
          {fieldError("min_duration_ms")}
        </div>
        <div>
          <TextField label="Gating feature flag" name="flag_key" defaultValue={policy.flag_key ?? ""} disabled={!writable} placeholder="none" maxLength={400} hint="Record only persons for whom this flag is enabled." />
          {fieldError("flag_key")}
        </div>
      </div>
      {action.error !== null && refused === null && <Alert tone="error">{describeError(action.error)}</Alert>}
      {saved && <Alert tone="success">Saved. New sessions are recorded by these settings.</Alert>}
      <div class="search-actions">
        {writable ? <Button type="submit" variant="primary" busy={action.busy}>Save settings</Button> : <p class="muted-text">Changing these takes the replays:write scope (members and up).</p>}
        {policy.updated_at !== null && <span class="muted-text">Last changed <time dateTime={policy.updated_at}>{formatDateTime(policy.updated_at, project.timezone)}</time></span>}
      </div>
    </form>
  );
}

export function ReplayPolicySection({ project, region, scopes }: { project: ProjectDto; region: RegionAccess; scopes: ReadonlySet<string> | null }) {
  const [policy, reload] = useResource(() => getReplayPolicy(region.tokens), [region.tokens]);
  return (
    <details class="card section replay-policy">
      <summary class="section-title">Recording settings</summary>
      {policy.status === "loading" && <LoadingState label="Loading the settings…" />}
      {policy.status === "failed" && <ErrorState title="The settings could not be loaded" error={policy.error} onRetry={reload} />}
      {policy.status === "ready" && <PolicyForm initial={policy.data} writable={scopes?.has("replays:write") ?? false} region={region} project={project} />}
    </details>
  );
}
