// A flag's release conditions: condition sets, each an AND of property and cohort conditions
// with a rollout percentage and, on a multivariate flag, an optional forced variant. The flag is
// on for an id when any set matches (the first that matches decides).
import type { CohortOption, ConditionOperator } from "../../api/flags-api.ts";
import { Button } from "../../ui/button.tsx";
import { PlusIcon, TrashIcon } from "../../ui/icons.tsx";
import { InlineProblems } from "./flag-bits.tsx";
import {
  listOperators, newCondition, operatorLabels, operators, valuelessOperators, type ConditionDraft, type ConditionType, type RuleDraft, type VariantDraft,
} from "./flag-draft.ts";

const typeLabels: Record<ConditionType, string> = { person: "Person property", group: "Group property", cohort: "Cohort" };

interface ConditionRowProps {
  condition: ConditionDraft;
  label: string;
  cohorts: readonly CohortOption[];
  problems: readonly string[];
  onChange(condition: ConditionDraft): void;
  onRemove(): void;
}

function ConditionRow({ condition, label, cohorts, problems, onChange, onRemove }: ConditionRowProps) {
  const set = (change: Partial<ConditionDraft>) => onChange({ ...condition, ...change });
  const changeType = (type: ConditionType) =>
    set(type === "cohort" ? { type, operator: "in" } : { type, operator: condition.type === "cohort" ? "eq" : condition.operator });
  const known = cohorts.some((cohort) => cohort.id === condition.cohortId);
  return (
    <li class="condition" aria-label={label}>
      <div class="condition-fields">
        <select class="input select condition-type" aria-label={`${label} type`} value={condition.type} onChange={(event) => changeType(event.currentTarget.value as ConditionType)}>
          {(Object.keys(typeLabels) as ConditionType[]).map((type) => <option key={type} value={type}>{typeLabels[type]}</option>)}
        </select>
        {condition.type === "cohort" ? (
          <>
            <select class="input select condition-operator" aria-label={`${label} operator`} value={condition.operator} onChange={(event) => set({ operator: event.currentTarget.value as ConditionOperator })}>
              <option value="in">is in</option>
              <option value="not_in">is not in</option>
            </select>
            <select class="input select condition-value" aria-label={`${label} cohort`} value={condition.cohortId} onChange={(event) => set({ cohortId: event.currentTarget.value })}>
              <option value="">Choose a cohort…</option>
              {cohorts.map((cohort) => <option key={cohort.id} value={cohort.id}>{cohort.name} ({cohort.kind})</option>)}
              {condition.cohortId !== "" && !known && <option value={condition.cohortId}>Unknown cohort {condition.cohortId}</option>}
            </select>
          </>
        ) : (
          <>
            {condition.type === "group" && (
              <input class="input condition-group" aria-label={`${label} group type`} placeholder="group type" value={condition.groupType} onInput={(event) => set({ groupType: event.currentTarget.value })} />
            )}
            <input class="input condition-key" aria-label={`${label} property`} placeholder="property, e.g. plan" value={condition.key} onInput={(event) => set({ key: event.currentTarget.value })} />
            <select class="input select condition-operator" aria-label={`${label} operator`} value={condition.operator} onChange={(event) => set({ operator: event.currentTarget.value as ConditionOperator })}>
              {operators.map((operator) => <option key={operator} value={operator}>{operatorLabels[operator]}</option>)}
            </select>
            {listOperators.has(condition.operator) ? (
              <textarea class="input textarea condition-value" aria-label={`${label} values`} placeholder="one value per line" rows={2} value={condition.valueText} onInput={(event) => set({ valueText: event.currentTarget.value })} />
            ) : valuelessOperators.has(condition.operator) ? (
              <span class="condition-value condition-novalue">no value</span>
            ) : (
              <input class="input condition-value" aria-label={`${label} value`} placeholder="value" value={condition.valueText} onInput={(event) => set({ valueText: event.currentTarget.value })} />
            )}
          </>
        )}
        <Button variant="ghost" small onClick={onRemove} aria-label={`Remove ${label.toLowerCase()}`}>
          <TrashIcon />
        </Button>
      </div>
      <InlineProblems messages={problems} />
    </li>
  );
}

interface RuleCardProps {
  rule: RuleDraft;
  index: number;
  multivariate: boolean;
  variants: readonly VariantDraft[];
  cohorts: readonly CohortOption[];
  /** Problems of the set itself, and of each condition by index. */
  problems: readonly string[];
  conditionProblems(condition: number): readonly string[];
  onChange(rule: RuleDraft): void;
  onRemove(): void;
}

export function RuleCard({ rule, index, multivariate, variants, cohorts, problems, conditionProblems, onChange, onRemove }: RuleCardProps) {
  const name = `Condition set ${index + 1}`;
  const setCondition = (at: number, condition: ConditionDraft) => onChange({ ...rule, conditions: rule.conditions.map((item, i) => (i === at ? condition : item)) });
  return (
    <section class="rule-card" aria-label={name}>
      <header class="rule-header">
        <h4 class="rule-title">{name}</h4>
        <Button variant="ghost" small onClick={onRemove} aria-label={`Remove ${name.toLowerCase()}`}>
          <TrashIcon />
          Remove
        </Button>
      </header>
      {rule.conditions.length === 0 ? (
        <p class="rule-everyone">No conditions: this set matches everyone.</p>
      ) : (
        <ol class="condition-list">
          {rule.conditions.map((condition, c) => (
            <ConditionRow
              key={condition.uid}
              condition={condition}
              label={`Set ${index + 1} condition ${c + 1}`}
              cohorts={cohorts}
              problems={conditionProblems(c)}
              onChange={(changed) => setCondition(c, changed)}
              onRemove={() => onChange({ ...rule, conditions: rule.conditions.filter((_, i) => i !== c) })}
            />
          ))}
        </ol>
      )}
      <div class="rule-actions">
        <Button small onClick={() => onChange({ ...rule, conditions: [...rule.conditions, newCondition()] })}>
          <PlusIcon />
          Add condition
        </Button>
      </div>
      <div class="rule-settings">
        <label class="inline-field">
          <span>Roll out to</span>
          <input class="input input-number" type="number" min={0} max={100} step="any" aria-label={`${name} rollout percentage`} value={rule.rolloutText} onInput={(event) => onChange({ ...rule, rolloutText: event.currentTarget.value })} />
          <span>% of the ids {rule.conditions.length === 0 ? "" : "that match"}</span>
        </label>
        {multivariate && (
          <label class="inline-field">
            <span>Variant</span>
            <select class="input select" aria-label={`${name} variant`} value={rule.variant} onChange={(event) => onChange({ ...rule, variant: event.currentTarget.value })}>
              <option value="">Split by the variants' percentages</option>
              {variants.filter((variant) => variant.key !== "").map((variant) => <option key={variant.uid} value={variant.key}>Always {variant.key}</option>)}
            </select>
          </label>
        )}
      </div>
      <InlineProblems messages={problems} />
    </section>
  );
}

export function AddRuleButton({ onAdd }: { onAdd(): void }) {
  return (
    <Button small onClick={onAdd}>
      <PlusIcon />
      Add condition set
    </Button>
  );
}
