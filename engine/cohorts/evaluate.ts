// A definition's members over one environment's events and the project's persons. Every
// criterion becomes a set of persons over the dense person index (person-set.ts); groups
// combine their members' sets with AND / OR. The universe is every current person of the
// project (persons merged away are counted as their survivor), so "performed at most 2 times",
// "exactly 0 times" and "did not perform" hold for persons with no event at all, and
// "not in cohort C" for every person C does not hold.
//
// "In the last D days" is the Query IR's {from: "-Dd", to: "now"} in the project's zone: from
// the start of the local day D days before today, up to (not including) now.
import type { ChunkRef, ChunkStore } from "../chunk-store.ts";
import { filterMask } from "../filters.ts";
import { evaluateDate } from "../ir/dates.ts";
import { personColumn, type PersonSource } from "../query-data.ts";
import { eventCriteriaSets, groupCriteriaSets, type EventCriterion } from "./behaviour.ts";
import { criteriaOf, isGroup, type CohortCriterion, type CohortDefinition, type CohortGroup, type GroupCriterion, type PersonCriterion } from "./definition.ts";
import { ScanBudget } from "./event-scan.ts";
import { storedCohort } from "./membership.ts";
import { PersonSet } from "./person-set.ts";

export interface CohortSource {
  store: ChunkStore;
  /** A snapshot of the environment's partition. */
  chunks: ChunkRef[];
  persons: PersonSource;
  /** Person indexes the project has used (its override array may be older and shorter: persons created since stand for themselves). */
  personCount: number;
}

export interface CohortEvaluationOptions {
  timeZone: string;
  now: number;
  /** Epoch ms past which the evaluation fails with timeout (QueryLimitError). */
  deadline: number;
  /** Rows read past which it fails with query_too_large. */
  rowsMax: number;
}

export interface CohortEvaluation {
  /** The members' person indexes, ascending. */
  members: Int32Array;
  rowsRead: number;
}

/** Where "the last D days" start in `zone` at `now`. */
export const windowStart = (days: number, zone: string, now: number): number => evaluateDate(`-${days}d`, "from", zone, now);

function personCriterionSet(criterion: PersonCriterion, persons: PersonSource, universe: PersonSet): PersonSet {
  const size = universe.size;
  const { column } = personColumn(persons.propertyValues(criterion.key), size);
  const mask = filterMask(column, criterion);
  const set = new PersonSet(size);
  for (let person = 0; person < size; person++) if (mask[person] === 1) set.add(person);
  return set.and(universe);
}

/** The set of every criterion, the behavioural ones one pass per event name or group type. */
async function criterionSets(definition: CohortDefinition, source: CohortSource, universe: PersonSet, budget: ScanBudget, options: CohortEvaluationOptions): Promise<Map<CohortCriterion, PersonSet>> {
  const sets = new Map<CohortCriterion, PersonSet>();
  const byEvent = new Map<string, EventCriterion[]>();
  const byGroupType = new Map<number, GroupCriterion[]>();
  for (const criterion of criteriaOf(definition)) {
    if (criterion.type === "person") sets.set(criterion, personCriterionSet(criterion, source.persons, universe));
    else if (criterion.type === "cohort") {
      const members = storedCohort(source.persons, criterion.cohort_id, universe.size);
      sets.set(criterion, criterion.operator === "in" ? members.and(universe) : universe.copy().andNot(members));
    } else if (criterion.type === "group") byGroupType.set(criterion.group_type_index, [...(byGroupType.get(criterion.group_type_index) ?? []), criterion]);
    else byEvent.set(criterion.event, [...(byEvent.get(criterion.event) ?? []), criterion]);
  }
  const start = (days: number) => windowStart(days, options.timeZone, options.now);
  for (const [event, criteria] of byEvent) {
    for (const [criterion, set] of await eventCriteriaSets(budget, universe.size, event, criteria, start)) sets.set(criterion, set.and(universe));
  }
  for (const [groupTypeIndex, criteria] of byGroupType) {
    for (const [criterion, set] of await groupCriteriaSets(budget, universe.size, groupTypeIndex, criteria)) sets.set(criterion, set.and(universe));
  }
  return sets;
}

function combine(group: CohortGroup, sets: Map<CohortCriterion, PersonSet>, universe: PersonSet): PersonSet {
  const result = group.type === "and" ? universe.copy() : new PersonSet(universe.size);
  for (const member of group.values) {
    const set = isGroup(member) ? combine(member, sets, universe) : sets.get(member)!;
    if (group.type === "and") result.and(set);
    else result.or(set);
  }
  return result;
}

/** The members of `definition` now; a cohort criterion without a stored membership fails with MissingCohortError. */
export async function evaluateCohort(definition: CohortDefinition, source: CohortSource, options: CohortEvaluationOptions): Promise<CohortEvaluation> {
  const canonical = source.persons.canonical;
  const universe = PersonSet.current(canonical, Math.max(canonical.length, source.personCount));
  const budget = new ScanBudget({ store: source.store, chunks: source.chunks, canonical, now: options.now, deadline: options.deadline, rowsMax: options.rowsMax });
  const sets = await criterionSets(definition, source, universe, budget, options);
  return { members: combine(definition, sets, universe).members(), rowsRead: budget.rowsRead };
}
