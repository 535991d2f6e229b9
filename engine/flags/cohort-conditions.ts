// Flag conditions on cohorts (docs/cohorts.md, "Flags"). A property cohort (its definition reads
// person properties only) is matched on the subject's person properties with the rules of a
// rule's own conditions (match.ts), as PostHog matches such cohorts, so SDKs can evaluate it
// locally from the definitions document; any other cohort by whether its membership, as last
// calculated in the environment, holds the subject's person, which only the server knows.
import { criteriaOf, isGroup, type CohortDefinition, type CohortGroup } from "../cohorts/definition.ts";
import { compileCondition, type ConditionTest } from "./match.ts";
import type { PropertySlots } from "./property-slots.ts";
import type { FlagCohortCondition } from "./types.ts";

/** The definitions of the property cohorts flags may name, by cohort id. */
export type PropertyCohorts = ReadonlyMap<string, CohortDefinition>;

export const noPropertyCohorts: PropertyCohorts = new Map();

/** Whether every criterion of a definition is a person property (so flags match it on properties). */
export const isPropertyCohort = (definition: CohortDefinition): boolean => [...criteriaOf(definition)].every((criterion) => criterion.type === "person");

function compileGroup(group: CohortGroup, slots: PropertySlots): ConditionTest {
  const tests = group.values.map((member): ConditionTest => {
    if (isGroup(member)) return compileGroup(member, slots);
    if (member.type !== "person") throw new Error("a property cohort holds person criteria only");
    return compileCondition(member, slots.slotOf(null, member.key));
  });
  if (group.type === "and") return (reader) => tests.every((test) => test(reader));
  return (reader) => tests.some((test) => test(reader));
}

/** The test of a cohort condition: on properties for a property cohort in `cohorts`, else on the stored membership. */
export function compileCohortCondition(condition: FlagCohortCondition, cohorts: PropertyCohorts, slots: PropertySlots): ConditionTest {
  const definition = cohorts.get(condition.cohort_id);
  const member: ConditionTest = definition === undefined ? (reader) => reader.inCohort(condition.cohort_id) : compileGroup(definition, slots);
  return condition.operator === "in" ? member : (reader) => !member(reader);
}
