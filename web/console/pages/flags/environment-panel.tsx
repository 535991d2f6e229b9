// One environment's configuration of a flag, edited as a draft and saved with
// PATCH …/flags/{id}/environments/{environment}. Problems are shown where they are: the
// editor's own checks before saving, the API's refusals after. In production the gate applies:
// a configuration that is live (or would be) needs flags.production; switching it off does not.
import { useEffect, useRef, useState } from "preact/hooks";
import { ApiError, describeError } from "../../api/errors.ts";
import { updateFlagEnvironment, type CohortOption, type FlagDto, type FlagPublication } from "../../api/flags-api.ts";
import type { ProjectDto } from "../../api/types.ts";
import { formatRelative } from "../../format/date-time.ts";
import { Alert } from "../../ui/alert.tsx";
import { Button } from "../../ui/button.tsx";
import { InlineProblems, PublicationBadge } from "./flag-bits.tsx";
import { productionEnvironment, productionRefusal, writeRefusal, type FlagAccess } from "./flag-access.ts";
import { draftChange, draftProblems, environmentDraft, locateApiError, newRule, problemsAt, shownPlace, type EnvironmentDraft, type Problem } from "./flag-draft.ts";
import { FlagEvaluate } from "./flag-evaluate.tsx";
import { publicationState } from "./publication-status.ts";
import { AddRuleButton, RuleCard } from "./rule-editor.tsx";
import { PayloadEditor, VariantsEditor } from "./variants-editor.tsx";

interface EnvironmentPanelProps {
  project: ProjectDto;
  flag: FlagDto;
  environment: string;
  access: FlagAccess;
  publications: readonly FlagPublication[];
  cohorts: readonly CohortOption[];
  onSaved(flag: FlagDto): void;
}

export function EnvironmentPanel({ project, flag, environment, access, publications, cohorts, onSaved }: EnvironmentPanelProps) {
  const config = flag.environments[environment]!;
  const [draft, setDraft] = useState<EnvironmentDraft>(() => environmentDraft(config));
  const [dirty, setDirty] = useState(false);
  const [problems, setProblems] = useState<Problem[]>([]);
  const [busy, setBusy] = useState(false);
  const [saved, setSaved] = useState(false);
  // A saved configuration (a new version) becomes the draft to edit next.
  const shownVersion = useRef(config.version);
  useEffect(() => {
    if (shownVersion.current === config.version) return;
    shownVersion.current = config.version;
    setDraft(environmentDraft(config));
    setDirty(false);
  }, [config.version]);
  const multivariate = flag.kind === "multivariate";
  const archived = flag.archived_at !== null;

  const production = environment === productionEnvironment;
  const writeBlock = writeRefusal(access);
  const productionBlock = production ? productionRefusal(access) : null;
  // Without flags.production a live production configuration cannot be edited (every save would
  // leave it live), and a stopped one cannot be switched on; switching it off stays open.
  const editingLocked = archived || writeBlock !== null || (productionBlock !== null && config.enabled);
  const enableLocked = editingLocked || (productionBlock !== null && !config.enabled);

  const update = (change: (current: EnvironmentDraft) => EnvironmentDraft) => {
    setDraft((current) => change(current));
    setDirty(true);
    setSaved(false);
  };

  const save = async (change = draftChange(flag.kind, draft)) => {
    setBusy(true);
    setProblems([]);
    try {
      const updated = await updateFlagEnvironment(project.id, flag.id, environment, change);
      setDirty(false);
      setSaved(true);
      onSaved(updated);
    } catch (error) {
      const place = error instanceof ApiError && error.code === "validation" ? shownPlace(flag.kind, draft, locateApiError(error.message)) : { at: "general" as const };
      setProblems([{ place, message: describeError(error) }]);
    } finally {
      setBusy(false);
    }
  };

  const onSubmit = (event: SubmitEvent) => {
    event.preventDefault();
    const found = draftProblems(flag.kind, draft);
    setProblems(found);
    if (found.length === 0) void save();
  };

  const killSwitch = () => void save({ enabled: false });
  const at = (place: Parameters<typeof problemsAt>[1]) => problemsAt(problems, place);
  const general = at({ at: "general" });
  const hiddenCount = problems.length - general.length;

  return (
    <div class="env-panel">
      <div class="env-status">
        <div class="env-status-main">
          <span class={config.enabled ? "badge badge-on" : "badge badge-off"}>{config.enabled ? "On" : "Off"} in {environment}</span>
          <span class="text-subtle">
            version {config.version}, changed <time dateTime={config.updated_at} title={config.updated_at}>{formatRelative(config.updated_at)}</time>
          </span>
        </div>
        <PublicationBadge state={publicationState(flag, environment, publications)} environment={environment} />
      </div>

      {archived && <Alert tone="info">This flag is archived: it is no longer served, and its configuration cannot change.</Alert>}
      {!archived && (writeBlock ?? productionBlock) && (
        <div class="gate" role="note" aria-label="Why some controls are off">
          <p>{writeBlock ?? productionBlock}</p>
          {!writeBlock && productionBlock && config.enabled && (
            <Button variant="danger" small busy={busy} onClick={killSwitch}>Switch off in production</Button>
          )}
        </div>
      )}

      <form class="env-form" onSubmit={onSubmit} noValidate>
        {general.length > 0 && <Alert tone="error">{general.map((message) => <p key={message}>{message}</p>)}</Alert>}
        {general.length === 0 && hiddenCount > 0 && <Alert tone="error">Some settings need attention: see the messages below.</Alert>}
        {saved && !dirty && <Alert tone="success">Saved. The region gets the new configuration with this environment's next publication.</Alert>}
        <fieldset class="env-fieldset" disabled={editingLocked}>
          <section class="editor-section" aria-labelledby={`serve-${environment}`}>
            <h3 id={`serve-${environment}`} class="section-title">Serving</h3>
            <label class="switch-field">
              <input
                type="checkbox"
                role="switch"
                checked={draft.enabled}
                disabled={enableLocked}
                onChange={(event) => update((current) => ({ ...current, enabled: event.currentTarget.checked }))}
              />
              <span>Serve this flag in {environment}</span>
            </label>
            {enableLocked && !editingLocked && <p class="field-hint">Switching it on is for admins and owners (flags.production).</p>}
          </section>

          <section class="editor-section" aria-labelledby={`rules-${environment}`}>
            <h3 id={`rules-${environment}`} class="section-title">Release conditions</h3>
            <p class="section-note">The flag is on for an id when any set matches: all of its conditions hold and the id falls inside its rollout. Sets are tried in order.</p>
            {draft.rules.length === 0 && <p class="rule-everyone">No condition sets: the flag is on for no one.</p>}
            {draft.rules.map((rule, r) => (
              <RuleCard
                key={rule.uid}
                rule={rule}
                index={r}
                multivariate={multivariate}
                variants={draft.variants}
                cohorts={cohorts}
                problems={at({ at: "rule", rule: r })}
                conditionProblems={(c) => at({ at: "rule", rule: r, condition: c })}
                onChange={(changed) => update((current) => ({ ...current, rules: current.rules.map((item, i) => (i === r ? changed : item)) }))}
                onRemove={() => update((current) => ({ ...current, rules: current.rules.filter((_, i) => i !== r) }))}
              />
            ))}
            <div>
              <AddRuleButton onAdd={() => update((current) => ({ ...current, rules: [...current.rules, newRule()] }))} />
            </div>
          </section>

          <section class="editor-section" aria-labelledby={`variants-${environment}`}>
            <h3 id={`variants-${environment}`} class="section-title">{multivariate ? "Variants" : "Payload"}</h3>
            {multivariate ? (
              <VariantsEditor
                variants={draft.variants}
                problems={at({ at: "variants" })}
                variantProblems={(v) => at({ at: "variants", variant: v })}
                onChange={(variants) => update((current) => ({ ...current, variants }))}
              />
            ) : (
              <PayloadEditor text={draft.payloadText} problems={at({ at: "payload" })} onChange={(payloadText) => update((current) => ({ ...current, payloadText }))} />
            )}
          </section>

          <section class="editor-section" aria-labelledby={`bucketing-${environment}`}>
            <h3 id={`bucketing-${environment}`} class="section-title">Bucketing</h3>
            <div class="bucketing-fields">
              <label class="stacked-field">
                <span>Keep each answer stable per</span>
                <select class="input select" aria-label="Stickiness" value={draft.stickiness} onChange={(event) => update((current) => ({ ...current, stickiness: event.currentTarget.value as EnvironmentDraft["stickiness"] }))}>
                  <option value="distinct_id">Distinct id (each person)</option>
                  <option value="group">Group (everyone in one company gets the same)</option>
                </select>
              </label>
              {draft.stickiness === "group" && (
                <label class="stacked-field">
                  <span>Group type</span>
                  <input class="input" aria-label="Stickiness group type" value={draft.stickinessGroup} placeholder="company" onInput={(event) => update((current) => ({ ...current, stickinessGroup: event.currentTarget.value }))} />
                </label>
              )}
              <label class="stacked-field">
                <span>Salt</span>
                <input class="input" aria-label="Salt" value={draft.salt} maxLength={100} placeholder="empty: PostHog's bucketing" onInput={(event) => update((current) => ({ ...current, salt: event.currentTarget.value }))} />
              </label>
            </div>
            <p class="field-hint">With an empty salt, PostHog SDKs evaluating locally bucket exactly as the region does; any other salt reshuffles who is in each rollout.</p>
            <InlineProblems messages={at({ at: "bucketing" })} />
          </section>

          <div class="save-bar">
            <Button type="submit" variant="primary" busy={busy} disabled={!dirty}>Save {environment}</Button>
            <Button disabled={!dirty || busy} onClick={() => (setDraft(environmentDraft(config)), setDirty(false), setProblems([]))}>Discard changes</Button>
            {dirty && <span class="text-subtle">Unsaved changes</span>}
          </div>
        </fieldset>
      </form>

      <section class="editor-section" aria-labelledby={`evaluate-${environment}`}>
        <h3 id={`evaluate-${environment}`} class="section-title">Evaluate</h3>
        <FlagEvaluate project={project} flag={flag} environment={environment} unsaved={dirty} />
      </section>
    </div>
  );
}
