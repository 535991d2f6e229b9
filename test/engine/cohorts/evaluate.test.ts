// Cohort semantics on a handful of events worked out by hand, in New York time: every
// criterion at its day boundaries (23:59 local the day before the window is out, 00:00 local
// its first day is in, an event at `now` is out), across the autumn DST change, with merged
// persons, persons without events, and/or nesting and other cohorts.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { evaluateCohort } from "../../../engine/cohorts/evaluate.ts";
import { parseCohortDefinition, type CohortCriterion } from "../../../engine/cohorts/definition.ts";
import { MissingCohortError } from "../../../engine/cohorts/membership.ts";
import { QueryLimitError } from "../../../engine/query-data.ts";
import { instantOf } from "../../../engine/time-zone.ts";
import { datasetOf, type Dataset } from "../dataset.ts";
import { event } from "../hand-run.ts";

const zone = "America/New_York";
/** 07:00 on 2026-11-21 in New York (EST, UTC-5). */
const now = Date.parse("2026-11-21T12:00:00Z");
const local = (date: string, time: string) => {
  const [year, month, day] = date.split("-").map(Number);
  const [hour, minute] = time.split(":").map(Number);
  return instantOf(zone, year!, month!, day!, hour!, minute!);
};
const limits = { timeZone: zone, now, deadline: Number.MAX_SAFE_INTEGER, rowsMax: 1_000_000 };
const otherCohort = "0193a7c2-1111-7000-8000-00000000000a";
const missingCohort = "0193a7c2-2222-7000-8000-00000000000b";

// Persons 0-7; 6 was merged into 1; 3 has no event at all.
const canonical = Int32Array.of(0, 1, 2, 3, 4, 5, 1, 7);
const events = [
  event(0, "purchase", local("2026-11-17", "23:59")),
  event(0, "purchase", local("2026-11-18", "00:00")),
  event(0, "purchase", local("2026-11-20", "10:00")),
  event(1, "purchase", local("2026-11-19", "12:00")),
  event(1, "purchase", local("2026-11-21", "01:00")),
  event(6, "purchase", local("2026-11-20", "09:00")),
  event(2, "purchase", local("2026-11-10", "12:00")),
  event(2, "purchase", local("2026-11-19", "23:59")),
  event(2, "purchase", now),
  event(4, "signed_up", local("2026-11-17", "23:59")),
  event(4, "clicked", local("2026-11-01", "12:00"), { groups: { company: "acme" }, group_keys: ["acme", null, null, null, null] }),
  event(5, "signed_up", local("2026-11-18", "00:00")),
  event(5, "signed_up", local("2026-11-20", "08:00")),
  event(7, "signed_up", local("2026-10-01", "12:00")),
  event(7, "signed_up", local("2026-11-20", "12:00")),
  // 30 days before the 21st is 2026-10-22, still summer time (EDT, UTC-4).
  event(7, "purchase", local("2026-10-21", "23:59")),
  event(7, "purchase", local("2026-10-22", "00:00")),
];
const personValues = new Map([["plan", new Map<number, unknown>([[0, "pro"], [3, "pro"], [5, "free"], [6, "pro"]])]]);

let dataset: Dataset;
beforeAll(async () => {
  dataset = await datasetOf(events, { canonical, personValues });
  dataset.cohorts.set(otherCohort, Int32Array.of(2, 6));
});
afterAll(() => dataset.close());

const source = () => ({ ...dataset.source(), personCount: canonical.length });

async function members(definition: unknown, options: Partial<typeof limits> = {}): Promise<number[]> {
  return [...(await evaluateCohort(parseCohortDefinition(definition), source(), { ...limits, ...options })).members];
}

const only = (criterion: Record<string, unknown>) => ({ type: "and", values: [criterion] });
const performed = (count_operator: string, count: number, days: number, event = "purchase") => ({ type: "performed", event, count_operator, count, days });

describe("behavioural criteria at their day boundaries", () => {
  test("performed at least N times in the last D days (23:59 the day before is out, 00:00 the first day in, now is out)", async () => {
    expect(await members(only(performed("gte", 1, 3)))).toEqual([0, 1, 2]);
    expect(await members(only(performed("gte", 1, 1)))).toEqual([0, 1]);
    // Person 1's count includes the events of person 6, merged into it.
    expect(await members(only(performed("gte", 3, 3)))).toEqual([1]);
    expect(await members(only(performed("gte", 1, 30)))).toEqual([0, 1, 2, 7]);
  });

  test("exactly and at most N times; zero includes persons without any event", async () => {
    expect(await members(only(performed("eq", 2, 3)))).toEqual([0]);
    expect(await members(only(performed("eq", 1, 30)))).toEqual([7]);
    expect(await members(only(performed("lte", 0, 3)))).toEqual([3, 4, 5, 7]);
    expect(await members(only(performed("eq", 0, 3)))).toEqual([3, 4, 5, 7]);
    expect(await members(only(performed("lte", 2, 3)))).toEqual([0, 2, 3, 4, 5, 7]);
    expect(await members(only(performed("gte", 0, 3)))).toEqual([0, 1, 2, 3, 4, 5, 7]);
    expect(await members(only(performed("gte", 1, 3, "never_sent")))).toEqual([]);
  });

  test("not performed in the last D days", async () => {
    expect(await members(only({ type: "not_performed", event: "purchase", days: 3 }))).toEqual([3, 4, 5, 7]);
    expect(await members(only({ type: "not_performed", event: "purchase", days: 1 }))).toEqual([2, 3, 4, 5, 7]);
  });

  test("persons created after the override array was read (indexes past its end) are current persons too", async () => {
    const definition = parseCohortDefinition(only({ type: "not_performed", event: "purchase", days: 3 }));
    const evaluation = await evaluateCohort(definition, { ...dataset.source(), personCount: canonical.length + 2 }, limits);
    expect([...evaluation.members]).toEqual([3, 4, 5, 7, 8, 9]);
  });

  test("first performed in the last D days: a first event before the window keeps a person out, whatever came since", async () => {
    expect(await members(only({ type: "first_performed", event: "signed_up", days: 3 }))).toEqual([5]);
    expect(await members(only({ type: "first_performed", event: "signed_up", days: 60 }))).toEqual([4, 5, 7]);
    // Person 7's first purchase came at 23:59 (EDT) the day before the 30 days began.
    expect(await members(only({ type: "first_performed", event: "purchase", days: 30 }))).toEqual([0, 1, 2]);
  });

  test("group membership: any event linked to the group", async () => {
    expect(await members(only({ type: "group", group_type_index: 0, group_key: "acme" }))).toEqual([4]);
    expect(await members(only({ type: "group", group_type_index: 0, group_key: "nope" }))).toEqual([]);
    expect(await members(only({ type: "group", group_type_index: 1, group_key: "acme" }))).toEqual([]);
  });
});

describe("person properties, other cohorts, nesting", () => {
  test("person properties with the Query IR's operators; persons merged away are not members", async () => {
    expect(await members(only({ type: "person", key: "plan", operator: "eq", value: "pro" }))).toEqual([0, 3]);
    expect(await members(only({ type: "person", key: "plan", operator: "neq", value: "pro" }))).toEqual([1, 2, 4, 5, 7]);
    expect(await members(only({ type: "person", key: "plan", operator: "is_set" }))).toEqual([0, 3, 5]);
  });

  test("another cohort's stored members, counted as the persons they are now", async () => {
    const cohort = (operator: string) => only({ type: "cohort", cohort_id: otherCohort, operator });
    expect(await members(cohort("in"))).toEqual([1, 2]);
    expect(await members(cohort("not_in"))).toEqual([0, 3, 4, 5, 7]);
    const missing = evaluateCohort(parseCohortDefinition(only({ type: "cohort", cohort_id: missingCohort, operator: "in" })), source(), limits);
    await expect(missing).rejects.toThrow(new MissingCohortError(missingCohort));
  });

  test("and / or nesting", async () => {
    const pro: CohortCriterion = { type: "person", key: "plan", operator: "eq", value: "pro" };
    expect(await members({
      type: "or",
      values: [{ type: "and", values: [performed("gte", 1, 3), pro] }, { type: "first_performed", event: "signed_up", days: 3 }],
    })).toEqual([0, 5]);
    expect(await members({
      type: "and",
      values: [{ type: "cohort", cohort_id: otherCohort, operator: "not_in" }, { type: "not_performed", event: "purchase", days: 3 }],
    })).toEqual([3, 4, 5, 7]);
    expect(await members({ type: "or", values: [{ type: "or", values: [performed("eq", 2, 3)] }, { type: "and", values: [performed("gte", 3, 3)] }] })).toEqual([0, 1]);
  });
});

describe("limits", () => {
  test("the rows-read limit and the time-out are a query's", async () => {
    const definition = only(performed("gte", 1, 3));
    await expect(members(definition, { rowsMax: 0 })).rejects.toBeInstanceOf(QueryLimitError);
    await expect(members(definition, { rowsMax: 0 })).rejects.toThrow(/^the cohort would read \d+ rows; at most 0 \(use fewer days or fewer events\)$/);
    await expect(members(definition, { deadline: Date.now() - 1 })).rejects.toThrow("the cohort calculation ran past its time limit");
    // A definition of person properties alone reads no events.
    expect(await members(only({ type: "person", key: "plan", operator: "is_set" }), { rowsMax: 0 })).toEqual([0, 3, 5]);
  });
});
