// One declaration per control-plane route: how it is called and what it answers. The route
// table mounts each handler together with its declaration, and /openapi.json is generated
// from the declarations, so a route cannot be served without appearing in the contract
// (or saying, with `contract: false`, why it does not).
import { t, type TSchema } from "elysia";
import { DryRun, ErrorBody } from "../schemas.ts";

export type HttpMethod = "GET" | "POST" | "PATCH" | "DELETE";

/** bearer: /v1 tokens; session: the console's `svc_session` cookie; none: public. */
export type Security = "bearer" | "session" | "none";

export interface ResponseDoc {
  description: string;
  schema?: TSchema;
}

export interface ParameterDoc {
  name: string;
  in: "query" | "header";
  description: string;
  schema: TSchema;
}

export interface OperationDoc {
  operationId: string;
  summary: string;
  security: Security;
  /** The scope a bearer token needs; null: any valid token. */
  scope?: string | null;
  parameters?: ParameterDoc[];
  body?: TSchema;
  /** The body may be left out entirely (every field optional). */
  bodyOptional?: true;
  responses: Record<number, ResponseDoc>;
  /** false: served but left out of /openapi.json (spec 1: flags, experiments and erasure). */
  contract?: false;
}

export interface ContractOperation extends OperationDoc {
  method: HttpMethod;
  /** OpenAPI form: /v1/projects/{project_id} */
  path: string;
}

const errorDescriptions = {
  400: "Invalid request",
  401: "Not signed in, or the bearer token is missing, invalid, expired or revoked",
  403: "The role or the token lacks a scope",
  404: "Not found (another tenant's or a malformed id)",
  409: "Conflict with the current state",
  422: "Idempotency-Key reused with a different request",
  429: "Rate limited (Retry-After)",
  503: "A region or provider is unavailable",
} as const;

/** One answer of an operation: its status, what it means and its body's schema (none: no body). */
export const answer = (status: number, description: string, schema?: TSchema): Record<number, ResponseDoc> => ({
  [status]: schema ? { description, schema } : { description },
});

/** The error answers of an operation, each an ErrorBody. */
export const errors = (...statuses: (keyof typeof errorDescriptions)[]): Record<number, ResponseDoc> =>
  Object.fromEntries(statuses.map((status) => [status, { description: errorDescriptions[status], schema: ErrorBody }]));

/** A console read of an organisation's or a project's resource: 200 with `schema`, else 401, 403 or 404. */
export const consoleRead = (operationId: string, summary: string, schema: TSchema): OperationDoc => ({
  operationId,
  summary,
  security: "session",
  responses: { ...answer(200, summary, schema), ...errors(401, 403, 404) },
});

/** A served route left out of /openapi.json (spec 1: flags, experiments and erasure); `doc` is where it is described. */
export const unlisted = (operationId: string, summary: string, security: Security, doc: string): OperationDoc => ({
  operationId,
  summary,
  security,
  responses: answer(200, `See ${doc}`),
  contract: false,
});

export const dryRunParameter: ParameterDoc = {
  name: "dry_run",
  in: "query",
  description: "true: validate and answer 200 DryRun (the audit action with before and after); nothing changes",
  schema: t.Boolean(),
};

export const idempotencyKeyParameter: ParameterDoc = {
  name: "Idempotency-Key",
  in: "header",
  description: "1-255 visible ASCII characters; the same key and request within 24 hours replays the first answer",
  schema: t.String({ minLength: 1, maxLength: 255 }),
};

/** A write that takes `dry_run`: its 200 answer may also be a DryRun. */
export function withDryRun(doc: OperationDoc, idempotent = false): OperationDoc {
  const ok = doc.responses[200];
  const preview = ok?.schema
    ? { description: `${ok.description}, or a DryRun with dry_run`, schema: t.Union([ok.schema, DryRun]) }
    : { description: "Dry run: what the write would do", schema: DryRun };
  return {
    ...doc,
    parameters: [...(doc.parameters ?? []), dryRunParameter, ...(idempotent ? [idempotencyKeyParameter] : [])],
    responses: { ...doc.responses, 200: preview },
  };
}
