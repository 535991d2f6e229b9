// What a flag evaluation request asks, whichever SDK sent it: the key (`api_key` natively,
// `token` from PostHog's SDKs), the distinct id, groups, properties sent along, and which
// flags. The subject overlays those properties on the ones the person and group stores hold
// (spec 2: rules on person properties come from the person store, overridable by properties
// sent in the request).
import { GROUP_DEFAULT_PROPERTY, layeredProperty, NO_PROPERTIES, PERSON_DEFAULT_PROPERTY, presentGroupType, type FlagSubject } from "../../../engine/flags/subject.ts";
import { ApiError } from "../../http/errors.ts";
import type { RegionNode } from "../../region/region-node.ts";
import { idText, isPlainObject, type JsonObject } from "../json-values.ts";
import { distinctIdLengthMax } from "../limits.ts";
import type { StoredProperties } from "./stored-properties.ts";

export interface FlagRequest {
  apiKey: unknown;
  distinctId: string;
  groups: Record<string, string>;
  personProperties: JsonObject;
  groupProperties: Record<string, JsonObject>;
  /** Only these flags, when the request names some. */
  keys: string[] | undefined;
}

const malformed = (message: string) => new ApiError(400, "validation", message);

function objectField(body: JsonObject, name: string): JsonObject {
  const value = body[name];
  if (value === undefined || value === null) return {};
  if (!isPlainObject(value)) throw malformed(`${name} must be an object`);
  return value;
}

export function parseFlagRequest(json: unknown): FlagRequest {
  if (!isPlainObject(json)) throw malformed("the body must be a JSON object");
  const distinctId = idText(json.distinct_id);
  if (distinctId === null) throw malformed("distinct_id is missing");
  if (distinctId.length > distinctIdLengthMax) throw malformed(`distinct_id is longer than ${distinctIdLengthMax} characters`);
  const groups: Record<string, string> = {};
  for (const [type, key] of Object.entries(objectField(json, "groups"))) {
    const text = idText(key);
    if (text !== null) groups[type] = text;
  }
  const groupProperties: Record<string, JsonObject> = {};
  for (const [type, properties] of Object.entries(objectField(json, "group_properties"))) {
    if (!isPlainObject(properties)) throw malformed(`group_properties.${type} must be an object`);
    groupProperties[type] = properties;
  }
  const keysField = json.flag_keys_to_evaluate ?? json.flag_keys;
  if (keysField !== undefined && keysField !== null && !(Array.isArray(keysField) && keysField.every((key) => typeof key === "string"))) {
    throw malformed("flag_keys_to_evaluate must be an array of flag keys");
  }
  return {
    apiKey: json.api_key ?? json.token,
    distinctId,
    groups,
    personProperties: objectField(json, "person_properties"),
    groupProperties,
    keys: (keysField as string[] | null | undefined) ?? undefined,
  };
}

/**
 * The subject of a flag request: the properties it sends, over the ones the person and group
 * stores hold, read through both on demand (engine/flags/subject.ts). Each stored property set
 * is fetched once per request, and only when a condition reads it.
 */
export class RequestSubject implements FlagSubject {
  readonly distinctId: string;
  private storedPerson: JsonObject | undefined;
  private readonly storedGroups: (JsonObject | undefined)[] = [];

  constructor(
    private readonly stored: StoredProperties,
    private readonly projectId: string,
    private readonly request: FlagRequest,
    private readonly groupTypes: readonly string[],
    /** Whether a cohort's stored membership holds the request's person. */
    private readonly cohortMember: (cohortId: string) => boolean,
  ) {
    this.distinctId = request.distinctId;
  }

  inCohort(cohortId: string): boolean {
    return this.cohortMember(cohortId);
  }

  personProperty(key: string): unknown {
    this.storedPerson ??= this.stored.person(this.projectId, this.distinctId);
    return layeredProperty(this.request.personProperties, this.storedPerson, key, PERSON_DEFAULT_PROPERTY, this.distinctId);
  }

  private groupTypeOf(groupTypeIndex: number): string | undefined {
    return presentGroupType(this.groupTypes, this.request.groups, groupTypeIndex);
  }

  groupKey(groupTypeIndex: number): string | undefined {
    const groupType = this.groupTypeOf(groupTypeIndex);
    return groupType === undefined ? undefined : this.request.groups[groupType];
  }

  groupProperty(groupTypeIndex: number, key: string): unknown {
    const groupType = this.groupTypeOf(groupTypeIndex)!;
    const groupKey = this.request.groups[groupType]!;
    // The stored group is the one of the type's first index (group types without a name all read as "").
    const storedIndex = this.groupTypes.indexOf(groupType);
    const stored = (this.storedGroups[storedIndex] ??= this.stored.group(this.projectId, storedIndex, groupKey));
    const sent = Object.hasOwn(this.request.groupProperties, groupType) ? this.request.groupProperties[groupType]! : NO_PROPERTIES;
    return layeredProperty(sent, stored, key, GROUP_DEFAULT_PROPERTY, groupKey);
  }
}

/** The project's group types by index (index -> name), from the person store's cache. */
export function projectGroupTypes(node: RegionNode, projectId: string): string[] {
  const types: string[] = [];
  for (const [name, index] of node.store.persons.groupTypes(projectId)) types[index] = name;
  return Array.from(types, (name) => name ?? "");
}
