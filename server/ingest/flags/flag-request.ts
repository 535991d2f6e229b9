// What a flag evaluation request asks, whichever SDK sent it: the key (`api_key` natively,
// `token` from PostHog's SDKs), the distinct id, groups, properties sent along, and which
// flags. The evaluation context overlays those properties on the ones the person and group
// stores hold (spec 2: rules on person properties come from the person store, overridable by
// properties sent in the request).
import type { EvaluationContext } from "../../../engine/flags/types.ts";
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

/** The evaluation context: stored person and group properties, then what the request sent. */
export function evaluationContext(stored: StoredProperties, projectId: string, request: FlagRequest, groupTypes: string[]): EvaluationContext {
  const groupProperties: Record<string, Record<string, unknown>> = {};
  for (const [type, key] of Object.entries(request.groups)) {
    const index = groupTypes.indexOf(type);
    groupProperties[type] = { ...(index < 0 ? {} : stored.group(projectId, index, key)), ...(request.groupProperties[type] ?? {}) };
  }
  for (const [type, properties] of Object.entries(request.groupProperties)) groupProperties[type] ??= properties;
  return {
    distinct_id: request.distinctId,
    person_properties: { ...stored.person(projectId, request.distinctId), ...request.personProperties },
    groups: request.groups,
    group_properties: groupProperties,
    group_types: groupTypes,
  };
}

/** The project's group types by index (index -> name), from the person store's cache. */
export function projectGroupTypes(node: RegionNode, projectId: string): string[] {
  const types: string[] = [];
  for (const [name, index] of node.store.persons.groupTypes(projectId)) types[index] = name;
  return Array.from(types, (name) => name ?? "");
}
