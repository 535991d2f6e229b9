// A published snapshot as the evaluator's FlagDefinitions: group types named in conditions
// and stickiness become the project's group type indexes, and the property cohorts it carries
// are matched on properties (a definition that does not parse, or reads more than person
// properties, is matched on the stored membership instead). Compiled once per snapshot and
// group-type list, not per request; the PostHog local-evaluation document and its ETag are
// kept the same way.
import { FlagEvaluator } from "../../../engine/flags/evaluate.ts";
import { posthogDefinitions } from "../../../engine/flags/posthog-definitions.ts";
import type { FlagDefinition, FlagOperator, FlagRuleCondition } from "../../../engine/flags/types.ts";
import { InvalidCohortDefinitionError, parseCohortDefinition, type CohortDefinition } from "../../../engine/cohorts/definition.ts";
import { isPropertyCohort, type PropertyCohorts } from "../../../engine/flags/cohort-conditions.ts";
import { sha256Hex } from "../../crypto.ts";
import { FlagAnswerWriter } from "./answer-writer.ts";
import type { FlagSnapshot, SnapshotFlag } from "../../../storage/flag-store.ts";

/** Index of a group type this project has not seen yet: no subject can belong to it. */
const unknownGroupType = -1;
const distinctIdStickiness = "distinct_id";
const groupStickinessPrefix = "group:";

export interface CompiledFlags {
  snapshot: FlagSnapshot;
  groupTypes: string[];
  definitions: FlagDefinition[];
  /** The definitions compiled for evaluation. */
  evaluator: FlagEvaluator;
  /** PostHog's local-evaluation document as sent, and its ETag. */
  posthogBody: string;
  etag: string;
  /** Writes answers from pieces cached for these definitions. */
  writer: FlagAnswerWriter;
}

function compileFlag(flag: SnapshotFlag, groupIndex: (name: string) => number): FlagDefinition {
  return {
    id: flag.id,
    key: flag.key,
    name: flag.name,
    kind: flag.kind,
    enabled: flag.enabled,
    rules: flag.rules.map((rule) => ({
      properties: rule.properties.map((condition): FlagRuleCondition => condition.type === "cohort" ? condition : ({
        type: condition.type,
        key: condition.key,
        operator: condition.operator as FlagOperator,
        ...(condition.value === undefined ? {} : { value: condition.value }),
        ...(condition.type === "group" ? { group_type_index: groupIndex(condition.group_type!) } : {}),
      })),
      rollout_percentage: rule.rollout_percentage,
      variant: rule.variant,
    })),
    variants: flag.variants.map((variant) => ({ key: variant.key, name: variant.name, rollout_percentage: variant.rollout_percentage, payload: variant.payload })),
    payload: flag.payload,
    salt: flag.salt,
    stickiness: flag.stickiness === distinctIdStickiness ? "distinct_id" : { group_type_index: groupIndex(flag.stickiness.slice(groupStickinessPrefix.length)) },
    version: flag.version,
  };
}

/** The snapshot's property cohorts whose definitions parse and read person properties only. */
function propertyCohorts(snapshot: FlagSnapshot): PropertyCohorts {
  const cohorts = new Map<string, CohortDefinition>();
  for (const [cohortId, value] of Object.entries(snapshot.cohorts ?? {})) {
    try {
      const definition = parseCohortDefinition(value);
      if (isPropertyCohort(definition)) cohorts.set(cohortId, definition);
    } catch (error) {
      if (!(error instanceof InvalidCohortDefinitionError)) throw error;
    }
  }
  return cohorts;
}

export function compileFlags(snapshot: FlagSnapshot, groupTypes: string[]): CompiledFlags {
  const groupIndex = (name: string) => {
    const index = groupTypes.indexOf(name);
    return index < 0 ? unknownGroupType : index;
  };
  const definitions = snapshot.flags.map((flag) => compileFlag(flag, groupIndex));
  const cohorts = propertyCohorts(snapshot);
  const posthogBody = JSON.stringify(posthogDefinitions(definitions, groupTypes, cohorts));
  const evaluator = new FlagEvaluator(definitions, cohorts);
  return { snapshot, groupTypes, definitions, evaluator, posthogBody, etag: `"${sha256Hex(posthogBody).slice(0, 32)}"`, writer: new FlagAnswerWriter(evaluator) };
}

/** Compiled flags per project environment, recompiled when the snapshot or the group types change. */
export class CompiledFlagCache {
  private readonly entries = new Map<string, CompiledFlags>();

  get(snapshot: FlagSnapshot, groupTypes: string[]): CompiledFlags {
    const key = `${snapshot.project_id}\u0000${snapshot.environment}`;
    const cached = this.entries.get(key);
    if (cached && cached.snapshot === snapshot && cached.groupTypes.join("\u0000") === groupTypes.join("\u0000")) return cached;
    const compiled = compileFlags(snapshot, groupTypes);
    this.entries.set(key, compiled);
    return compiled;
  }
}
