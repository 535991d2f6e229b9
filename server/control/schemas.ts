// Request and response schemas of the control plane (spec 1, Resources). The same objects
// validate requests and generate /openapi.json, so the contract cannot drift from the code.
import { t, type TSchema } from "elysia";

export const nameLengthMax = 200;
export const emailLengthMax = 254;

const id = () => t.String({ format: "uuid" });
const dateTime = () => t.String({ format: "date-time" });
export const nullable = <T extends TSchema>(schema: T) => t.Union([schema, t.Null()]);
export const Name = t.String({ minLength: 1, maxLength: nameLengthMax });

export const ErrorBody = t.Object(
  { error: t.Object({ code: t.String(), message: t.String() }) },
  { $id: "ErrorBody", title: "ErrorBody" },
);

export const DryRun = t.Object(
  { action: t.String(), dry_run: t.Literal(true), before: t.Unknown(), after: t.Unknown() },
  { title: "DryRun" },
);

export const OrgDto = t.Object(
  { id: id(), name: t.String(), slug: t.String(), role: t.String(), created_at: dateTime() },
  { title: "OrgDto" },
);
export const OrgList = t.Object({ orgs: t.Array(OrgDto) }, { title: "OrgList" });

export const EnvironmentDto = t.Object(
  { id: id(), name: t.String(), is_default: t.Boolean() },
  { title: "EnvironmentDto" },
);
export const EnvironmentList = t.Object({ environments: t.Array(EnvironmentDto) }, { title: "EnvironmentList" });

export const ProjectDto = t.Object(
  {
    id: id(),
    org_id: id(),
    name: t.String(),
    slug: t.String(),
    region: t.String(),
    currency: t.String(),
    timezone: t.String(),
    retention_days: t.Integer({ format: "int32" }),
    data_id: t.Integer({ format: "int32" }),
    role: t.String(),
    environments: t.Array(EnvironmentDto),
    created_at: dateTime(),
  },
  { title: "ProjectDto" },
);
export const ProjectList = t.Object({ projects: t.Array(ProjectDto) }, { title: "ProjectList" });

export const KeyDto = t.Object(
  {
    id: id(),
    project_id: id(),
    environment: t.String(),
    key: t.String(),
    allowed_bundle_ids: t.Array(t.String()),
    allowed_origins: t.Array(t.String()),
    registry_synced: t.Boolean(),
    created_at: dateTime(),
    revoked_at: nullable(dateTime()),
  },
  { title: "KeyDto" },
);
export const KeyList = t.Object({ keys: t.Array(KeyDto) }, { title: "KeyList" });
export const CreateProjectResponse = t.Object(
  { project: ProjectDto, public_keys: t.Array(KeyDto) },
  { title: "CreateProjectResponse" },
);
export const RotateKeyResponse = t.Object({ created: KeyDto, revoked: KeyDto }, { title: "RotateKeyResponse" });

export const CreateProjectRequest = t.Object(
  {
    name: Name,
    region: t.String({ minLength: 1 }),
    currency: t.Optional(t.String({ pattern: "^[A-Z]{3}$" })),
    timezone: t.Optional(t.String({ minLength: 1, maxLength: 64 })),
  },
  { title: "CreateProjectRequest", additionalProperties: false },
);
export const RenameRequest = t.Object({ name: Name }, { title: "RenameRequest", additionalProperties: false });
export const RotateKeyRequest = t.Object(
  { keep_old: t.Optional(t.Boolean()) },
  { title: "RotateKeyRequest", additionalProperties: false },
);

export const KeyAllowlistRequest = t.Object(
  {
    allowed_origins: t.Optional(t.Array(t.String({ maxLength: 2048 }))),
    allowed_bundle_ids: t.Optional(t.Array(t.String({ maxLength: 255 }))),
  },
  { title: "KeyAllowlistRequest", additionalProperties: false },
);

export const RegionTokenRequest = t.Object(
  {
    environment: t.Optional(nullable(t.String({ minLength: 1 }))),
    scopes: t.Optional(nullable(t.Array(t.String()))),
  },
  { title: "RegionTokenRequest", additionalProperties: false },
);
export const RegionTokenResponse = t.Object(
  {
    token: t.String(),
    region_api_url: t.String(),
    expires_at: dateTime(),
    region: t.String(),
    environment: t.String(),
    scopes: t.Array(t.String()),
  },
  { title: "RegionTokenResponse" },
);

/** Spec 2, Query request: the document is checked by the engine's validator, not by this schema. */
export const QueryIrDocument = t.Object(
  {},
  {
    additionalProperties: true,
    description: "A Query IR v1 document; its JSON Schema is served at GET {region_api_url}/schema/query-ir",
  },
);
export const V1QueryRequest = t.Object(
  {
    query: QueryIrDocument,
    environment: t.Optional(nullable(t.String({ minLength: 1 }))),
    include_sql: t.Optional(t.Boolean()),
    refresh: t.Optional(t.Boolean({ description: "Bypass the region's result cache" })),
  },
  { title: "V1QueryRequest", additionalProperties: false },
);
export const RegionRequestDto = t.Object(
  {
    method: t.String(),
    url: t.String({ description: "The region endpoint" }),
    body: t.Object({}, { additionalProperties: true, description: "JSON body, sent with Authorization: Bearer <token>" }),
  },
  { title: "RegionRequestDto" },
);
export const V1QueryResponse = t.Object(
  { region_token: RegionTokenResponse, request: RegionRequestDto },
  { title: "V1QueryResponse" },
);

export const TokenDto = t.Object(
  {
    id: id(),
    name: t.String(),
    org_id: id(),
    prefix: t.String(),
    scopes: t.Array(t.String()),
    project_ids: nullable(t.Array(id())),
    created_at: dateTime(),
    expires_at: nullable(dateTime()),
    last_used_at: nullable(dateTime()),
    revoked_at: nullable(dateTime()),
  },
  { title: "TokenDto" },
);

export const UserDto = t.Object(
  { id: id(), email: t.String(), name: t.String(), email_verified: t.Boolean(), created_at: dateTime() },
  { title: "UserDto" },
);

export const V1MeResponse = t.Object(
  { token: TokenDto, user: UserDto, org: OrgDto, scopes: t.Array(t.String()) },
  { title: "V1MeResponse" },
);
