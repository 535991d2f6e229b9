// Tracking-plan violations as ingestion warnings (docs/catalog.md, "Plan violations"), for the
// projects whose catalog setting `warn_on_violations` is on: an event the plan does not list
// (names starting with `$`, which SDKs send on their own, only when the plan lists them), a
// deprecated event, a planned property that is missing although required, of the wrong type, or
// with a value outside its enum_values. Events are never rejected for it. Each project's plan is
// compiled once per push into maps, so an accepted event costs a map lookup when the setting is
// off, and a lookup plus one test per planned property of its event when it is on.
//
// Unlike rejections, the messages name the event and property (cut, and quoted as JSON strings):
// a name is what a person needs to fix. Names are the sender's, so the kinds of message a
// project environment can have in a UTC day are bounded (violationKindsPerDayMax); past it the
// rest are counted under one message.
import type { CatalogPlan, PlannedPropertyType } from "../../storage/catalog-plan-store.ts";
import { utcDay } from "../../storage/ingestion-warning-store.ts";
import type { RegistryKey } from "../../storage/region-store.ts";
import type { IngestionWarnings } from "./ingestion-warnings.ts";
import { isPlainObject } from "./json-values.ts";
import { parseRfc3339 } from "./rfc3339.ts";

export const violationKindsPerDayMax = 100;
/** Event and property names are cut to this many characters in messages. */
export const violationNameLengthMax = 100;
export const moreViolationsMessage = `more than ${violationKindsPerDayMax} kinds of tracking-plan violation today; the rest are counted here`;

interface CompiledProperty {
  name: string;
  type: PlannedPropertyType;
  required: boolean;
  enumValues: ReadonlySet<string> | null;
}

interface CompiledEvent {
  deprecated: boolean;
  properties: CompiledProperty[];
}

type CompiledPlan = ReadonlyMap<string, CompiledEvent>;

const matchesType: Record<PlannedPropertyType, (value: unknown) => boolean> = {
  string: (value) => typeof value === "string",
  number: (value) => typeof value === "number",
  boolean: (value) => typeof value === "boolean",
  datetime: (value) => parseRfc3339(value) !== null,
  object: isPlainObject,
  array: Array.isArray,
  any: () => true,
};

const expected: Record<PlannedPropertyType, string> = {
  string: "a string", number: "a number", boolean: "a boolean", datetime: "an RFC 3339 date-time", object: "an object", array: "an array", any: "any value",
};

function described(value: unknown): string {
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return "an object";
  if (typeof value === "string") return "a string";
  return `a ${typeof value}`;
}

/** A name as a message shows it: a JSON string of at most violationNameLengthMax characters. */
function shown(name: string): string {
  const characters = Array.from(name);
  return JSON.stringify(characters.length > violationNameLengthMax ? `${characters.slice(0, violationNameLengthMax).join("")}…` : name);
}

/** The messages of every violation of `plan` by one event, in the plan's property order. */
export function planViolations(plan: CompiledPlan, name: string, properties: Record<string, unknown>): string[] {
  const planned = plan.get(name);
  if (!planned) return name.startsWith("$") ? [] : [`event ${shown(name)} is not in the tracking plan`];
  const found: string[] = planned.deprecated ? [`event ${shown(name)} is deprecated in the tracking plan`] : [];
  for (const property of planned.properties) {
    const value = Object.hasOwn(properties, property.name) ? properties[property.name] : undefined;
    const subject = `property ${shown(property.name)} of event ${shown(name)}`;
    if (value === undefined || value === null) {
      if (property.required) found.push(`${subject} is required but missing`);
    } else if (!matchesType[property.type](value)) {
      found.push(`${subject} should be ${expected[property.type]}, not ${described(value)}`);
    } else if (property.enumValues !== null && !property.enumValues.has(value as string)) {
      found.push(`${subject} has a value outside its enum_values`);
    }
  }
  return found;
}

function compiled(plan: CatalogPlan): CompiledPlan {
  return new Map(plan.events.map((event) => [event.name, {
    deprecated: event.status === "deprecated",
    properties: event.properties.map((property) => ({ ...property, enumValues: property.enumValues === null ? null : new Set(property.enumValues) })),
  }]));
}

export class PlanViolations {
  /** Compiled plans of the projects whose setting is on. */
  private readonly plans = new Map<string, CompiledPlan>();
  /** Per project environment, the messages recorded on the current UTC day. */
  private readonly kindsToday = new Map<string, { day: string; messages: Set<string> }>();

  constructor(private readonly warnings: IngestionWarnings) {}

  /** Takes a project's plan as pushed (its setting off: nothing is checked). */
  load(plan: CatalogPlan): void {
    if (plan.warnOnViolations) this.plans.set(plan.projectId, compiled(plan));
    else this.plans.delete(plan.projectId);
  }

  /** Counts an ingestion warning for each violation of its project's plan by an accepted event (`source`: as sent). */
  check(key: RegistryKey, name: string, properties: Record<string, unknown>, source: unknown, at: number): void {
    const plan = this.plans.get(key.projectId);
    if (plan === undefined) return;
    for (const message of planViolations(plan, name, properties)) {
      this.warnings.record(key, { reason: "plan_violation", message: this.bounded(key, message, at) }, source, at);
    }
  }

  private bounded(key: RegistryKey, message: string, at: number): string {
    const scope = `${key.projectId}\u0000${key.environment}`;
    const day = utcDay(at);
    let kinds = this.kindsToday.get(scope);
    if (!kinds || kinds.day !== day) this.kindsToday.set(scope, (kinds = { day, messages: new Set() }));
    if (kinds.messages.has(message)) return message;
    if (kinds.messages.size >= violationKindsPerDayMax) return moreViolationsMessage;
    kinds.messages.add(message);
    return message;
  }
}
