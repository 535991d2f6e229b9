// Schemas of the tracking plan (spec 1, "Tracking plan (catalog)": CatalogEventDto,
// CatalogPropertyDto, CatalogPropertyInput, CatalogEventCreateRequest, CatalogEventUpdateRequest,
// CatalogEventListResponse, CatalogSyncRequest, CatalogSyncResponse, CatalogCodegenExport,
// CodegenEventDto, CodegenPropertyDto) and of its settings, which the spec does not show. The
// value sets the spec leaves open (kind, pii_level, property type and scope) and the limits on
// names, lengths and counts are ours: docs/catalog.md. The limits here are enforced by these
// schemas as requests are validated.
import { t } from "elysia";
import { Type } from "@sinclair/typebox";
import { eventNameLengthMax, propertyKeyLengthMax } from "../../ingest/limits.ts";
import { discoveryDaysMax } from "../../region/catalog-discovery.ts";
import { nullable } from "../schemas.ts";

/** Names are the ones ingest accepts: an event name of up to 200 characters, a property key of up to 1,000. */
export const catalogEventNameLengthMax = eventNameLengthMax;
export const catalogPropertyNameLengthMax = propertyKeyLengthMax;
export const displayNameLengthMax = 200;
export const descriptionLengthMax = 2000;
export const questionLengthMax = 2000;
export const tagsPerEventMax = 20;
export const tagLengthMax = 50;
export const platformsPerEventMax = 10;
export const platformLengthMax = 50;
export const propertiesPerEventMax = 100;
export const enumValuesMax = 100;
export const enumValueLengthMax = 200;
export const exampleLengthMax = 200;
export const environmentNameLengthMax = 100;

export const catalogStatuses = ["planned", "implemented", "unplanned", "verified", "deprecated"] as const;
export type CatalogStatus = (typeof catalogStatuses)[number];
const eventKinds = ["custom", "pageview", "screen", "autocapture", "identify", "group", "system"] as const;
export type EventKind = (typeof eventKinds)[number];
const piiLevels = ["none", "low", "high"] as const;
export type PiiLevel = (typeof piiLevels)[number];
const propertyTypes = ["string", "number", "boolean", "datetime", "object", "array", "any"] as const;
export type PropertyType = (typeof propertyTypes)[number];

/** An integer (Elysia's t.Integer also takes numeric strings, for query parameters; bodies and answers hold numbers). */
const integer = Type.Integer;
const oneOf = <T extends string>(values: readonly T[]) => t.Union(values.map((value) => t.Literal(value)));
const id = () => t.String({ format: "uuid" });
const dateTime = () => t.String({ format: "date-time" });
/** At least one character that is not white space. */
const notBlank = "\\S";

const Status = oneOf(catalogStatuses);
const PiiLevelSchema = oneOf(piiLevels);
const PropertyTypeSchema = oneOf(propertyTypes);
const Description = nullable(t.String({ maxLength: descriptionLengthMax }));
const DisplayName = nullable(t.String({ maxLength: displayNameLengthMax }));
const Question = nullable(t.String({ maxLength: questionLengthMax }));
const OwnerId = nullable(id());
const Tags = t.Array(t.String({ minLength: 1, maxLength: tagLengthMax, pattern: notBlank }), { maxItems: tagsPerEventMax, uniqueItems: true });
const Platforms = t.Array(t.String({ minLength: 1, maxLength: platformLengthMax, pattern: notBlank }), { maxItems: platformsPerEventMax, uniqueItems: true });
const EnumValues = nullable(t.Array(t.String({ minLength: 1, maxLength: enumValueLengthMax }), { minItems: 1, maxItems: enumValuesMax, uniqueItems: true }));
const Example = nullable(t.String({ maxLength: exampleLengthMax }));

export const CatalogPropertyInput = t.Object(
  {
    name: t.String({ minLength: 1, maxLength: catalogPropertyNameLengthMax }),
    type: PropertyTypeSchema,
    description: t.Optional(Description),
    enum_values: t.Optional(EnumValues),
    example: t.Optional(Example),
    pii: t.Optional(t.Boolean()),
    required: t.Optional(t.Boolean()),
  },
  { title: "CatalogPropertyInput", additionalProperties: false },
);
export type CatalogPropertyInputValue = typeof CatalogPropertyInput.static;

const Properties = t.Array(CatalogPropertyInput, { maxItems: propertiesPerEventMax });

const eventFields = {
  description: t.Optional(Description),
  display_name: t.Optional(DisplayName),
  owner_id: t.Optional(OwnerId),
  pii_level: t.Optional(PiiLevelSchema),
  platforms: t.Optional(Platforms),
  properties: t.Optional(Properties),
  question: t.Optional(Question),
  status: t.Optional(Status),
  tags: t.Optional(Tags),
};

export const CatalogEventCreateRequest = t.Object(
  { name: t.String({ minLength: 1, maxLength: catalogEventNameLengthMax, pattern: notBlank }), ...eventFields },
  { title: "CatalogEventCreateRequest", additionalProperties: false },
);
export type CatalogEventCreateInput = typeof CatalogEventCreateRequest.static;

export const CatalogEventUpdateRequest = t.Object(eventFields, { title: "CatalogEventUpdateRequest", additionalProperties: false });
export type CatalogEventUpdateInput = typeof CatalogEventUpdateRequest.static;

export const CatalogPropertyDto = t.Object(
  {
    id: id(),
    name: t.String(),
    type: PropertyTypeSchema,
    pii: t.Boolean(),
    required: t.Boolean(),
    scope: t.Literal("event"),
    description: Description,
    enum_values: nullable(t.Array(t.String())),
    event_id: nullable(id()),
    example: Example,
  },
  { title: "CatalogPropertyDto" },
);

export const CatalogEventDto = t.Object(
  {
    id: id(),
    project_id: id(),
    name: t.String(),
    kind: oneOf(eventKinds),
    status: Status,
    pii_level: PiiLevelSchema,
    platforms: t.Array(t.String()),
    tags: t.Array(t.String()),
    properties: t.Array(CatalogPropertyDto),
    version: integer({ format: "int32" }),
    volume_30d: nullable(integer({ format: "int64" })),
    created_at: dateTime(),
    updated_at: dateTime(),
    description: Description,
    display_name: DisplayName,
    first_seen_at: nullable(dateTime()),
    last_seen_at: nullable(dateTime()),
    owner_id: OwnerId,
    question: Question,
  },
  { title: "CatalogEventDto" },
);

const count = () => integer({ format: "int64", minimum: 0 });
export const CatalogEventListResponse = t.Object(
  {
    events: t.Array(CatalogEventDto),
    counts: t.Object({ deprecated: count(), implemented: count(), planned: count(), unplanned: count(), verified: count() }),
  },
  { title: "CatalogEventListResponse" },
);

export const CatalogSyncRequest = t.Object(
  {
    days: t.Optional(nullable(integer({ format: "int32", minimum: 0, maximum: discoveryDaysMax }))),
    environment: t.Optional(nullable(t.String({ minLength: 1, maxLength: environmentNameLengthMax }))),
  },
  { title: "CatalogSyncRequest", additionalProperties: false },
);
export type CatalogSyncInput = typeof CatalogSyncRequest.static;

export const CatalogSyncResponse = t.Object(
  {
    discovered: count(),
    environment: t.String(),
    implemented: t.Array(t.String()),
    unplanned: t.Array(t.String()),
    updated: count(),
    synced_at: dateTime(),
  },
  { title: "CatalogSyncResponse" },
);

export const CodegenPropertyDto = t.Object(
  { name: t.String(), type: PropertyTypeSchema, required: t.Boolean(), description: Description, enum_values: nullable(t.Array(t.String())) },
  { title: "CodegenPropertyDto" },
);
export const CodegenEventDto = t.Object(
  { name: t.String(), status: Status, properties: t.Array(CodegenPropertyDto), description: Description },
  { title: "CodegenEventDto" },
);
export const CatalogCodegenExport = t.Object(
  { catalog_version: integer({ format: "int64", minimum: 0 }), project_id: id(), events: t.Array(CodegenEventDto) },
  { title: "CatalogCodegenExport" },
);

export const CatalogSettingsDto = t.Object(
  {
    project_id: id(),
    catalog_version: integer({ format: "int64", minimum: 0 }),
    warn_on_violations: t.Boolean(),
    synced_at: nullable(dateTime()),
    region_synced: t.Boolean(),
  },
  { title: "CatalogSettingsDto" },
);
export const CatalogSettingsUpdateRequest = t.Object(
  { warn_on_violations: t.Boolean() },
  { title: "CatalogSettingsUpdateRequest", additionalProperties: false },
);
