// The criteria builder: an and/or group of conditions and nested groups (as deep as the
// engine allows), each condition one of the definition's criteria with its own fields.
// Conditions are numbered in reading order, the numbers the problems name.
import type { ComponentChildren } from "preact";
import { useId } from "preact/hooks";
import type { Cohort } from "../../api/cohorts-api.ts";
import type { GroupType } from "../../api/persons-api.ts";
import { Button } from "../../ui/button.tsx";
import { PlusIcon, TrashIcon } from "../../ui/icons.tsx";
import {
  countOperatorLabels, criteriaCount, criteriaMax, criterionLabels, daysMax, daysMin, nestingDepthMax, newCriterion, newGroup, operatorLabels, operators,
  updateNode, valueShape, type CountOperator, type CriterionType, type DraftCriterion, type DraftGroup, type DraftNode, type Operator,
} from "./definition.ts";

export interface BuilderContext {
  /** Other cohorts of the project, for "in another cohort" (never the cohort being edited). */
  cohorts: Cohort[];
  groupTypes: GroupType[];
  /** The id of a <datalist> of event names, for suggestions. */
  eventList: string;
  disabled: boolean;
}

/** A small labelled control inside a condition: the label is shown above it. */
function Part({ label, children, wide, kind }: { label: string; children: (id: string) => ComponentChildren; wide?: boolean; kind?: boolean }) {
  const id = useId();
  return (
    <div class={kind ? "part part-kind" : wide ? "part part-wide" : "part"}>
      <label for={id} class="part-label">{label}</label>
      {children(id)}
    </div>
  );
}

function CriterionFields({ draft, context, set }: { draft: DraftCriterion; context: BuilderContext; set(change: Partial<DraftCriterion>): void }) {
  const text = (field: keyof DraftCriterion, label: string, options: { list?: string; placeholder?: string; wide?: boolean; inputMode?: "numeric" } = {}) => (
    <Part label={label} wide={options.wide}>
      {(id) => (
        <input
          id={id}
          class="input"
          value={draft[field] as string}
          list={options.list}
          placeholder={options.placeholder}
          inputMode={options.inputMode}
          disabled={context.disabled}
          onInput={(event) => set({ [field]: event.currentTarget.value })}
        />
      )}
    </Part>
  );
  const days = text("days", "In the last (days)", { inputMode: "numeric", placeholder: `${daysMin}–${daysMax}` });
  switch (draft.type) {
    case "person": {
      const shape = valueShape(draft.operator);
      return (
        <>
          {text("property", "Property", { placeholder: "plan" })}
          <Part label="Operator">
            {(id) => (
              <select id={id} class="input select" value={draft.operator} disabled={context.disabled} onChange={(event) => set({ operator: event.currentTarget.value as Operator })}>
                {operators.map((operator) => <option key={operator} value={operator}>{operatorLabels[operator]}</option>)}
              </select>
            )}
          </Part>
          {shape === "one" && text("value", "Value", { placeholder: "pro" })}
          {shape === "list" && (
            <Part label="Values (one per line)" wide>
              {(id) => <textarea id={id} class="input textarea" rows={3} value={draft.value} disabled={context.disabled} onInput={(event) => set({ value: event.currentTarget.value })} />}
            </Part>
          )}
        </>
      );
    }
    case "performed":
      return (
        <>
          {text("event", "Event", { list: context.eventList, placeholder: "purchase", wide: true })}
          <Part label="How often">
            {(id) => (
              <select id={id} class="input select" value={draft.countOperator} disabled={context.disabled} onChange={(event) => set({ countOperator: event.currentTarget.value as CountOperator })}>
                {(Object.keys(countOperatorLabels) as CountOperator[]).map((operator) => <option key={operator} value={operator}>{countOperatorLabels[operator]}</option>)}
              </select>
            )}
          </Part>
          {text("count", "Times", { inputMode: "numeric" })}
          {days}
        </>
      );
    case "not_performed":
    case "first_performed":
      return (
        <>
          {text("event", "Event", { list: context.eventList, placeholder: "signed_up", wide: true })}
          {days}
        </>
      );
    case "group":
      return (
        <>
          <Part label="Group type">
            {(id) => (
              <select id={id} class="input select" value={draft.groupTypeIndex} disabled={context.disabled} onChange={(event) => set({ groupTypeIndex: event.currentTarget.value })}>
                {(context.groupTypes.length > 0 ? context.groupTypes : [0, 1, 2, 3, 4].map((index) => ({ index, name: `type ${index}` }))).map((type) => (
                  <option key={type.index} value={String(type.index)}>{type.name}</option>
                ))}
              </select>
            )}
          </Part>
          {text("groupKey", "Group key", { placeholder: "acme", wide: true })}
        </>
      );
    case "cohort":
      return (
        <>
          <Part label="Membership">
            {(id) => (
              <select id={id} class="input select" value={draft.membership} disabled={context.disabled} onChange={(event) => set({ membership: event.currentTarget.value as "in" | "not_in" })}>
                <option value="in">is a member of</option>
                <option value="not_in">is not a member of</option>
              </select>
            )}
          </Part>
          <Part label="Cohort" wide>
            {(id) => (
              <select id={id} class="input select" value={draft.cohortId} disabled={context.disabled} onChange={(event) => set({ cohortId: event.currentTarget.value })}>
                <option value="">Choose a cohort…</option>
                {context.cohorts.map((cohort) => <option key={cohort.id} value={cohort.id}>{cohort.name}</option>)}
                {draft.cohortId !== "" && !context.cohorts.some((cohort) => cohort.id === draft.cohortId) && <option value={draft.cohortId}>{draft.cohortId}</option>}
              </select>
            )}
          </Part>
        </>
      );
  }
}

interface NodeProps {
  root: DraftGroup;
  onChange(root: DraftGroup): void;
  context: BuilderContext;
  numbers: ReadonlyMap<number, number>;
}

function Criterion({ draft, root, onChange, context, numbers }: NodeProps & { draft: DraftCriterion }) {
  const name = `Condition ${numbers.get(draft.id)}`;
  const set = (change: Partial<DraftCriterion>) => onChange(updateNode(root, draft.id, (node) => ({ ...(node as DraftCriterion), ...change })));
  return (
    <div class="criterion" role="group" aria-label={name}>
      <div class="criterion-fields">
        <Part label={name} kind>
          {(id) => (
            <select id={id} class="input select" value={draft.type} disabled={context.disabled} onChange={(event) => set({ type: event.currentTarget.value as CriterionType })}>
              {(Object.keys(criterionLabels) as CriterionType[]).map((type) => <option key={type} value={type}>{criterionLabels[type]}</option>)}
            </select>
          )}
        </Part>
        <CriterionFields draft={draft} context={context} set={set} />
      </div>
      <Button variant="ghost" small aria-label={`Remove ${name.toLowerCase()}`} disabled={context.disabled} onClick={() => onChange(updateNode(root, draft.id, () => null))}>
        <TrashIcon />
      </Button>
    </div>
  );
}

function Group({ group, depth, root, onChange, context, numbers }: NodeProps & { group: DraftGroup; depth: number }) {
  const full = criteriaCount(root) >= criteriaMax;
  const add = (node: DraftNode) => onChange(updateNode(root, group.id, (self) => ({ ...(self as DraftGroup), values: [...(self as DraftGroup).values, node] })));
  const first = [...numbers.entries()].find(([id]) => containsId(group, id))?.[1];
  const label = depth === 1 ? "Definition" : first === undefined ? "Empty group" : `Group from condition ${first}`;
  return (
    <div class={depth === 1 ? "criteria-group criteria-root" : "criteria-group"} role="group" aria-label={label}>
      <div class="group-head">
        <Part label={depth === 1 ? "Persons who match" : "Match"}>
          {(id) => (
            <select id={id} class="input select" value={group.type} disabled={context.disabled} onChange={(event) => onChange(updateNode(root, group.id, (self) => ({ ...(self as DraftGroup), type: event.currentTarget.value as "and" | "or" })))}>
              <option value="and">all of these</option>
              <option value="or">any of these</option>
            </select>
          )}
        </Part>
        {depth > 1 && (
          <Button variant="ghost" small disabled={context.disabled} onClick={() => onChange(updateNode(root, group.id, () => null))}>Remove group</Button>
        )}
      </div>
      {group.values.length === 0 && <p class="muted-text">No conditions yet.</p>}
      <ul class="criteria-list">
        {group.values.map((node, index) => (
          <li key={node.id}>
            {index > 0 && <span class="joiner" aria-hidden="true">{group.type === "and" ? "and" : "or"}</span>}
            {node.kind === "group"
              ? <Group group={node} depth={depth + 1} root={root} onChange={onChange} context={context} numbers={numbers} />
              : <Criterion draft={node} root={root} onChange={onChange} context={context} numbers={numbers} />}
          </li>
        ))}
      </ul>
      <div class="group-actions">
        <Button small disabled={context.disabled || full} onClick={() => add(newCriterion())}><PlusIcon />Add condition</Button>
        {depth < nestingDepthMax && (
          <Button small variant="ghost" disabled={context.disabled || full} onClick={() => add(newGroup(group.type === "and" ? "or" : "and"))}><PlusIcon />Add group</Button>
        )}
      </div>
    </div>
  );
}

const containsId = (group: DraftGroup, id: number): boolean => group.values.some((node) => node.id === id || (node.kind === "group" && containsId(node, id)));

/** Each condition's number, in reading order. */
function numbering(root: DraftGroup): Map<number, number> {
  const numbers = new Map<number, number>();
  const visit = (group: DraftGroup) => {
    for (const node of group.values) node.kind === "group" ? visit(node) : numbers.set(node.id, numbers.size + 1);
  };
  visit(root);
  return numbers;
}

export function CriteriaBuilder({ root, onChange, context }: { root: DraftGroup; onChange(root: DraftGroup): void; context: BuilderContext }) {
  return <Group group={root} depth={1} root={root} onChange={onChange} context={context} numbers={numbering(root)} />;
}
