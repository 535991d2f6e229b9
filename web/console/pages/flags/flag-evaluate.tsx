// "Evaluate": what the region answers for one distinct id (with person properties sent along,
// over the stored ones), exactly as an SDK would get it from POST {ingest_url}/flags with the
// environment's public key: on or off, the variant, the payload and the reason.
import { useState } from "preact/hooks";
import { listKeys, listRegions } from "../../api/console-api.ts";
import { evaluateFlag, type FlagDto, type FlagEvaluation } from "../../api/flags-api.ts";
import type { ProjectDto } from "../../api/types.ts";
import { fieldText, useFormAction } from "../../hooks/use-form-action.ts";
import { useResource } from "../../hooks/use-resource.ts";
import { Alert } from "../../ui/alert.tsx";
import { Button } from "../../ui/button.tsx";
import { FormError } from "../../ui/form-error.tsx";
import { ErrorState, LoadingState } from "../../ui/states.tsx";

interface Target {
  ingestUrl: string | undefined;
  keys: Map<string, string>;
}

const loadTarget = async (project: ProjectDto): Promise<Target> => {
  const [keys, regions] = await Promise.all([listKeys(project.id), listRegions()]);
  return {
    ingestUrl: regions.regions.find((region) => region.code === project.region)?.ingest_host,
    keys: new Map(keys.keys.filter((key) => key.revoked_at === null).map((key) => [key.environment, key.key])),
  };
};

/** Person properties typed as a JSON object ("" for none). */
export function parsePersonProperties(text: string): Record<string, unknown> {
  if (text.trim() === "") return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new Error(`person properties are not valid JSON: ${(error as Error).message}`);
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) throw new Error('person properties are a JSON object, like {"plan": "pro"}');
  return value as Record<string, unknown>;
}

function EvaluationResult({ distinctId, result, flagKey }: { distinctId: string; result: FlagEvaluation | null; flagKey: string }) {
  if (result === null) {
    return <Alert tone="info">The region does not know flag {flagKey} in this environment: it has not been published there yet, or it is archived.</Alert>;
  }
  return (
    <section class="evaluation" aria-label="Evaluation result">
      <p class="evaluation-headline">
        For <code>{distinctId}</code> the flag is <strong class={result.enabled ? "text-on" : "text-off"}>{result.enabled ? "on" : "off"}</strong>
        {result.variant !== null && <> with variant <strong>{result.variant}</strong></>}.
      </p>
      <dl class="evaluation-fields">
        <dt>Enabled</dt>
        <dd data-field="enabled">{String(result.enabled)}</dd>
        <dt>Variant</dt>
        <dd data-field="variant">{result.variant ?? "none"}</dd>
        <dt>Payload</dt>
        <dd data-field="payload">{result.payload === null ? "none" : <pre class="evaluation-payload">{JSON.stringify(result.payload, null, 2)}</pre>}</dd>
        <dt>Reason</dt>
        <dd data-field="reason">
          {result.reason.description} <code>{result.reason.code}</code>
          {result.reason.code === "out_of_rollout_bound" && result.reason.condition_index !== null && (
            <span class="text-subtle"> (condition set {result.reason.condition_index + 1} held, but the id falls outside its rollout)</span>
          )}
        </dd>
      </dl>
    </section>
  );
}

export function FlagEvaluate({ project, flag, environment, unsaved }: { project: ProjectDto; flag: FlagDto; environment: string; unsaved: boolean }) {
  const [target, reload] = useResource(() => loadTarget(project), [project.id]);
  const [answer, setAnswer] = useState<{ distinctId: string; result: FlagEvaluation | null } | null>(null);
  const form = useFormAction(async (fields) => {
    if (target.status !== "ready") return;
    const distinctId = fieldText(fields, "distinct_id").trim();
    const properties = parsePersonProperties(fieldText(fields, "person_properties"));
    const result = await evaluateFlag(target.data.ingestUrl!, target.data.keys.get(environment)!, flag.key, distinctId, properties);
    setAnswer({ distinctId, result });
  });
  if (target.status === "loading") return <LoadingState label="Loading the environment's key…" />;
  if (target.status === "failed") return <ErrorState title="The environment's key could not be loaded" error={target.error} onRetry={reload} />;
  const key = target.data.keys.get(environment);
  if (!key || !target.data.ingestUrl) return <p class="step-note">The {environment} environment has no active public key or live region, so nothing can ask for its flags.</p>;
  return (
    <div class="evaluate">
      <p class="section-note">
        Asks the region as an SDK does, with the {environment} public key: the answer comes from the configuration published there.
        {unsaved && <strong> Your unsaved changes are not included: save first.</strong>}
      </p>
      <form class="evaluate-form" onSubmit={form.onSubmit}>
        <FormError error={form.error} />
        <div class="evaluate-fields">
          <label class="stacked-field">
            <span>Distinct id</span>
            <input class="input" name="distinct_id" required maxLength={200} placeholder="user-42" />
          </label>
          <label class="stacked-field evaluate-properties">
            <span>Person properties (JSON, optional)</span>
            <textarea class="input textarea code-input" name="person_properties" rows={2} spellcheck={false} placeholder='{"plan": "pro"}' />
          </label>
        </div>
        <div>
          <Button type="submit" busy={form.busy}>Evaluate</Button>
        </div>
      </form>
      {answer && <EvaluationResult distinctId={answer.distinctId} result={answer.result} flagKey={flag.key} />}
    </div>
  );
}
