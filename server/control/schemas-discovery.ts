// Response schemas of the public documents: regions, health, the JWKS, the OAuth metadata
// (RFC 8414, RFC 9728) and the contract itself.
import { t } from "elysia";

const Url = () => t.String({ format: "uri" });
const Strings = () => t.Array(t.String());

export const RegionDto = t.Object(
  {
    code: t.String({ description: "eu, us, me or pk" }),
    name: t.String(),
    status: t.Literal("live"),
    api_host: t.String({ description: "region_api_url of the region" }),
    ingest_host: t.String({ description: "ingest_url of the region" }),
  },
  { title: "RegionDto" },
);
export const RegionList = t.Object({ regions: t.Array(RegionDto) }, { title: "RegionList" });

const CacheFigures = (description: string) =>
  t.Object({ entries: t.Integer({ minimum: 0 }), bytes: t.Integer({ minimum: 0 }), bytes_max: t.Integer({ minimum: 1 }) }, { description });

export const HealthResponse = t.Object(
  {
    status: t.Union([t.Literal("ok"), t.Literal("degraded")]),
    checks: t.Object({}, { additionalProperties: t.String(), description: "global and region:{code}: ok, or error: <reason>" }),
    caches: t.Object(
      {
        results: CacheFigures("POST /query answers kept, every region's (QUERY_RESULT_CACHE_MB)"),
        columns: CacheFigures("decoded columns kept for queries, every region's (QUERY_CACHE_MB)"),
      },
      { description: "What the process's query caches hold" },
    ),
  },
  { title: "HealthResponse" },
);

export const JsonWebKeySet = t.Object(
  {
    keys: t.Array(
      t.Object({ kty: t.String(), crv: t.String(), x: t.String(), kid: t.String(), alg: t.String(), use: t.String() }, { additionalProperties: true }),
    ),
  },
  { title: "JsonWebKeySet", description: "The Ed25519 public keys that verify region tokens" },
);

export const AuthorizationServerMetadata = t.Object(
  {
    issuer: t.String(),
    authorization_endpoint: Url(),
    token_endpoint: Url(),
    registration_endpoint: Url(),
    revocation_endpoint: Url(),
    jwks_uri: Url(),
    scopes_supported: Strings(),
    response_types_supported: Strings(),
    response_modes_supported: Strings(),
    grant_types_supported: Strings(),
    code_challenge_methods_supported: Strings(),
    token_endpoint_auth_methods_supported: Strings(),
    revocation_endpoint_auth_methods_supported: Strings(),
    authorization_response_iss_parameter_supported: t.Boolean(),
    service_documentation: Url(),
  },
  { title: "AuthorizationServerMetadata", additionalProperties: true },
);

export const ProtectedResourceMetadata = t.Object(
  {
    resource: Url(),
    authorization_servers: t.Array(t.String()),
    jwks_uri: Url(),
    scopes_supported: Strings(),
    bearer_methods_supported: Strings(),
    resource_name: t.String(),
    resource_documentation: Url(),
  },
  { title: "ProtectedResourceMetadata", additionalProperties: true },
);

export const OpenApiDocument = t.Object(
  { openapi: t.String(), info: t.Object({ title: t.String(), version: t.String() }, { additionalProperties: true }), paths: t.Object({}, { additionalProperties: true }) },
  { title: "OpenApiDocument", additionalProperties: true },
);
