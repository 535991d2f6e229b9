// The criteria builder's drafts and the definitions they stand for
// (web/console/pages/cohorts/definition.ts): every criterion of docs/cohorts.md both ways, the
// engine's parser accepting what a draft makes, and an unfinished condition named by number.
import { describe, expect, test } from "bun:test";
import { parseCohortDefinition } from "../../../../../engine/cohorts/definition.ts";
import {
  criteriaCount, definitionOf, draftOf, DraftProblem, newCriterion, newGroup, updateNode, type CohortDefinition, type DraftCriterion,
} from "../../../../../web/console/pages/cohorts/definition.ts";

const every: CohortDefinition = {
  type: "or",
  values: [
    {
      type: "and",
      values: [
        { type: "performed", event: "purchase", count_operator: "gte", count: 3, days: 30 },
        { type: "person", key: "plan", operator: "in", value: ["pro", "team"] },
        { type: "person", key: "seats", operator: "gt", value: 5 },
        { type: "person", key: "email", operator: "is_set" },
        { type: "person", key: "name", operator: "contains", value: "<b>" },
      ],
    },
    { type: "first_performed", event: "signed_up", days: 7 },
    { type: "not_performed", event: "churned", days: 90 },
    { type: "group", group_type_index: 2, group_key: "acme" },
    { type: "cohort", cohort_id: "0193a7c2-0000-7000-8000-00000000000a", operator: "not_in" },
  ],
};

describe("drafts and definitions", () => {
  test("every criterion survives a round trip, and the engine's parser takes the result as it is", () => {
    const definition = definitionOf(draftOf(every));
    expect(definition).toEqual(every);
    expect(parseCohortDefinition(definition)).toEqual(every);
  });

  test("values are typed by their operator: a list one per line, numbers for comparisons, text otherwise", () => {
    const person = (operator: DraftCriterion["operator"], value: string) => definitionOf(newGroup("and", [{ ...newCriterion("person"), property: "k", operator, value }])).values[0];
    expect(person("in", " a \n\nb\n")).toEqual({ type: "person", key: "k", operator: "in", value: ["a", "b"] });
    expect(person("lte", " 2.5 ")).toEqual({ type: "person", key: "k", operator: "lte", value: 2.5 });
    expect(person("eq", "3")).toEqual({ type: "person", key: "k", operator: "eq", value: "3" });
    expect(person("is_not_set", "ignored")).toEqual({ type: "person", key: "k", operator: "is_not_set" });
  });

  test("an unfinished or out-of-range condition is named by its number in reading order", () => {
    const problem = (values: DraftCriterion[]) => {
      try {
        definitionOf(newGroup("and", [newGroup("or", values.slice(0, 1)), ...values.slice(1)]));
        return null;
      } catch (error) {
        expect(error).toBeInstanceOf(DraftProblem);
        return (error as Error).message;
      }
    };
    const performed = { ...newCriterion("performed"), event: "purchase" };
    expect(problem([performed, { ...performed, event: "" }])).toBe("Condition 2: enter an event.");
    expect(problem([{ ...performed, days: "0" }])).toBe("Condition 1: the days must be a whole number from 1 to 3,650.");
    expect(problem([performed, { ...performed, count: "1.5" }])).toBe("Condition 2: the count must be a whole number from 0 to 1,000,000.");
    expect(problem([performed, { ...newCriterion("person"), property: "seats", operator: "gt", value: "many" }])).toBe('Condition 2: "greater than" compares numbers; enter a number.');
    expect(problem([performed, { ...newCriterion("person"), property: "plan", operator: "in", value: "\n \n" }])).toBe("Condition 2: enter at least one value, one per line.");
    expect(problem([performed, newCriterion("cohort")])).toBe("Condition 2: choose a cohort.");
    expect(problem([performed, { ...newCriterion("group"), groupKey: "" }])).toBe("Condition 2: enter a group key.");
    expect(() => definitionOf(newGroup("and", []))).toThrow("Add at least one condition.");
    expect(() => definitionOf(newGroup("and", [performed, newGroup("or", [])]))).toThrow("A group needs at least one condition; remove the empty group or add one.");
  });

  test("updateNode changes or removes one node anywhere in the tree; criteriaCount counts every group's conditions", () => {
    const inner = newCriterion("person");
    const group = newGroup("or", [inner, newCriterion()]);
    const root = newGroup("and", [newCriterion(), group]);
    expect(criteriaCount(root)).toBe(3);
    const changed = updateNode(root, inner.id, (node) => ({ ...(node as DraftCriterion), property: "plan" }));
    expect(((changed.values[1] as typeof group).values[0] as DraftCriterion).property).toBe("plan");
    expect(criteriaCount(updateNode(root, group.id, () => null))).toBe(1);
    expect(root.values[1]).toBe(group);
  });
});
