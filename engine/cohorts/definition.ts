// A dynamic cohort's definition: a tree of and/or groups whose leaves are criteria on persons
// (a person property, how often an event was performed in the last D days, when it was first
// performed, group membership, membership of another cohort). The schema is published (the
// control plane shows it in /openapi.json); parseCohortDefinition checks a document against
// it branch by branch, so a problem names the JSON path of the member at fault, in the words
// of the Query IR's errors ("/values/0/key: is required").
import { Type as t, type TSchema } from "@sinclair/typebox";
import { TypeCompiler, type TypeCheck } from "@sinclair/typebox/compiler";
import { FilterValue, GroupTypeIndex, Key, literal, operators, type Operator } from "../ir/schema.ts";
import { describeValueError, filterValueProblem } from "../ir/validate.ts";
import { sqlSpellable } from "../sql/column-names.ts";

/** Criteria (leaves) a definition holds at most, whatever its groups. */
export const cohortCriteriaMax = 100;
/** Groups nested at most this deep (the definition itself is level 1). */
export const cohortNestingDepthMax = 5;
/** "In the last D days": D from 1 to about ten years. */
export const cohortDaysMin = 1;
export const cohortDaysMax = 3650;
/** The N of "performed at least / at most / exactly N times". */
export const cohortCountMax = 1_000_000;

export type CohortScalar = string | number | boolean;

export interface PersonCriterion {
  type: "person";
  key: string;
  operator: Operator;
  value?: CohortScalar | CohortScalar[];
}

export type CountOperator = "gte" | "lte" | "eq";

export interface PerformedCriterion {
  type: "performed";
  event: string;
  count_operator: CountOperator;
  count: number;
  days: number;
}

export interface NotPerformedCriterion {
  type: "not_performed";
  event: string;
  days: number;
}

export interface FirstPerformedCriterion {
  type: "first_performed";
  event: string;
  days: number;
}

export interface GroupCriterion {
  type: "group";
  group_type_index: number;
  group_key: string;
}

export interface CohortMembershipCriterion {
  type: "cohort";
  cohort_id: string;
  operator: "in" | "not_in";
}

export type CohortCriterion =
  | PersonCriterion | PerformedCriterion | NotPerformedCriterion | FirstPerformedCriterion | GroupCriterion | CohortMembershipCriterion;

export interface CohortGroup {
  type: "and" | "or";
  values: (CohortGroup | CohortCriterion)[];
}

export type CohortDefinition = CohortGroup;

/** Cohort ids are UUIDs (any letter case; kept in lower case). */
export const cohortIdPattern = "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$";
export const CohortId = t.String({ pattern: cohortIdPattern, description: "a cohort's id (UUID)" });

const EventName = t.String({ minLength: 1, maxLength: 400, description: "event name" });
const Days = t.Integer({ minimum: cohortDaysMin, maximum: cohortDaysMax, description: "the last D days: from the start of the local day D days before today (project time zone) to now" });

const criterionSchemas = {
  person: t.Object({ type: t.Literal("person"), key: Key, operator: literal(operators), value: t.Optional(FilterValue) }, { additionalProperties: false, description: "a person property, with the Query IR's operators and value rules" }),
  performed: t.Object({
    type: t.Literal("performed"),
    event: EventName,
    count_operator: t.Union([t.Literal("gte"), t.Literal("lte"), t.Literal("eq")]),
    count: t.Integer({ minimum: 0, maximum: cohortCountMax }),
    days: Days,
  }, { additionalProperties: false, description: "performed the event at least (gte), at most (lte) or exactly (eq) count times in the last days" }),
  not_performed: t.Object({ type: t.Literal("not_performed"), event: EventName, days: Days }, { additionalProperties: false, description: "did not perform the event in the last days" }),
  first_performed: t.Object({ type: t.Literal("first_performed"), event: EventName, days: Days }, { additionalProperties: false, description: "performed the event for the first time ever in the last days" }),
  group: t.Object({ type: t.Literal("group"), group_type_index: GroupTypeIndex, group_key: Key }, { additionalProperties: false, description: "has an event linked to this group" }),
  cohort: t.Object({ type: t.Literal("cohort"), cohort_id: CohortId, operator: t.Union([t.Literal("in"), t.Literal("not_in")]) }, { additionalProperties: false, description: "is (in) or is not (not_in) a member of another cohort, as last calculated in the environment" }),
} satisfies Record<CohortCriterion["type"], TSchema>;

const criterionTypes = Object.keys(criterionSchemas) as CohortCriterion["type"][];
const groupTypes = ["and", "or"] as const;

export const CohortCriterionSchema = t.Union(Object.values(criterionSchemas), { title: "CohortCriterion" });

/** A group whose groups nest at most `levels` deep (the schema spells the depth limit out rather than recurse). */
function groupSchema(levels: number, options: { title?: string; description?: string } = {}): TSchema {
  const member = levels === 1 ? CohortCriterionSchema : t.Union([groupSchema(levels - 1), CohortCriterionSchema]);
  return t.Object({ type: literal(groupTypes), values: t.Array(member, { minItems: 1, maxItems: cohortCriteriaMax }) }, { additionalProperties: false, ...options });
}

export const CohortDefinitionSchema = groupSchema(cohortNestingDepthMax, {
  title: "CohortDefinition",
  description: `An and/or group of criteria and groups (at most ${cohortNestingDepthMax} levels, ${cohortCriteriaMax} criteria in all).`,
});

export class InvalidCohortDefinitionError extends Error {
  readonly code = "invalid_query";
  readonly status = 400;
  constructor(readonly path: string, readonly problem: string) {
    super(`${path || "/"}: ${problem}`);
  }
}

const checkCriterion = new Map<string, TypeCheck<TSchema>>(criterionTypes.map((type) => [type, TypeCompiler.Compile(criterionSchemas[type])]));
const checkGroupShape = TypeCompiler.Compile(t.Object({ type: literal(groupTypes), values: t.Array(t.Unknown(), { minItems: 1 }) }, { additionalProperties: false }));

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

function firstProblem(check: TypeCheck<TSchema>, value: unknown, path: string): InvalidCohortDefinitionError | null {
  const first = check.Errors(value).First();
  return first ? new InvalidCohortDefinitionError(`${path}${first.path}`, describeValueError(first)) : null;
}

/** Walks a definition, checking each node against the schema its `type` names, and counts criteria. */
class DefinitionReader {
  private criteria = 0;

  group(value: unknown, path: string, level: number): CohortGroup {
    if (!isObject(value)) throw new InvalidCohortDefinitionError(path, "must be a group object ({type: and | or, values: [...]})");
    if (value.type !== "and" && value.type !== "or") throw new InvalidCohortDefinitionError(`${path}/type`, "must be one of and, or (a definition is a group of criteria)");
    const problem = firstProblem(checkGroupShape, value, path);
    if (problem) throw problem;
    const values = (value.values as unknown[]).map((member, index) => this.member(member, `${path}/values/${index}`, level));
    return { type: value.type as CohortGroup["type"], values };
  }

  private member(value: unknown, path: string, level: number): CohortGroup | CohortCriterion {
    if (!isObject(value)) throw new InvalidCohortDefinitionError(path, "must be a group or a criterion object");
    const type = value.type;
    if (type === "and" || type === "or") {
      if (level === cohortNestingDepthMax) throw new InvalidCohortDefinitionError(path, `nests groups more than ${cohortNestingDepthMax} levels deep`);
      return this.group(value, path, level + 1);
    }
    if (!criterionTypes.includes(type as CohortCriterion["type"])) {
      throw new InvalidCohortDefinitionError(`${path}/type`, `must be one of ${[...groupTypes, ...criterionTypes].join(", ")}`);
    }
    if (++this.criteria > cohortCriteriaMax) throw new InvalidCohortDefinitionError("", `holds more than ${cohortCriteriaMax} criteria`);
    return criterion(value, type as CohortCriterion["type"], path);
  }
}

function criterion(value: Record<string, unknown>, type: CohortCriterion["type"], path: string): CohortCriterion {
  const problem = firstProblem(checkCriterion.get(type)!, value, path);
  if (problem) throw problem;
  if (type === "person") {
    const person = value as unknown as PersonCriterion;
    // Person keys are spelled in SQL like the Query IR's (column-names.ts).
    if (!sqlSpellable(person.key)) throw new InvalidCohortDefinitionError(`${path}/key`, "must not contain NUL (U+0000)");
    const valueProblem = filterValueProblem(person.operator, person.value);
    if (valueProblem) throw new InvalidCohortDefinitionError(`${path}/value`, valueProblem);
    return { ...person };
  }
  if (type === "cohort") return { ...(value as unknown as CohortMembershipCriterion), cohort_id: (value.cohort_id as string).toLowerCase() };
  return { ...value } as unknown as CohortCriterion;
}

/** The definition in `value`, with cohort ids in lower case; InvalidCohortDefinitionError says what is wrong. */
export function parseCohortDefinition(value: unknown): CohortDefinition {
  return new DefinitionReader().group(value, "", 1);
}

export const isGroup = (member: CohortGroup | CohortCriterion): member is CohortGroup => member.type === "and" || member.type === "or";

/** Every criterion of a definition, depth first. */
export function* criteriaOf(group: CohortGroup): Generator<CohortCriterion> {
  for (const member of group.values) {
    if (isGroup(member)) yield* criteriaOf(member);
    else yield member;
  }
}

/** The cohorts a (parsed) definition's cohort criteria name, each once, in order. */
export function referencedCohorts(definition: CohortDefinition): string[] {
  const ids = new Set<string>();
  for (const item of criteriaOf(definition)) if (item.type === "cohort") ids.add(item.cohort_id);
  return [...ids];
}
