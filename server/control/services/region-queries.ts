// POST /v1/projects/{id}/query: check a Query IR document in the control plane, then hand back
// a region token narrowed to query:read together with the exact region request to send. The
// control plane never runs the query: results go from the region straight to the caller.
import { InvalidQueryError, validateQuery } from "../../../engine/ir/validate.ts";
import { validation } from "../../http/errors.ts";
import { requireScope, type ProjectAccess } from "../access.ts";
import type { ControlContext } from "../context.ts";
import { issueRegionToken } from "./region-tokens.ts";

const queryScope = "query:read";
/** The region route that runs a Query IR document (spec 2, Region API). */
const regionQueryPath = "/query";

export interface QueryPreparationInput {
  query: Record<string, unknown>;
  environment?: string | null;
  include_sql?: boolean;
  refresh?: boolean;
}

/**
 * The engine reports paths inside the document; the caller sent the document as the body's
 * `query` member, so the path is re-rooted there, in the form every other body error takes.
 */
function bodyValidationError(error: InvalidQueryError, member: string) {
  const problem = error.message.slice(`${error.path || "/"}: `.length);
  return validation(`body /${member}${error.path}: ${problem}`);
}

/**
 * Validates with the project's time zone, as the region will, reporting problems at the body
 * `member` that holds the document. The kinds a region can run are not checked here: the
 * region decides that, so the two can never disagree.
 */
export function checkQuery(document: unknown, timeZone: string, member = "query"): void {
  try {
    validateQuery(document, timeZone, Date.now());
  } catch (error) {
    if (error instanceof InvalidQueryError) throw bodyValidationError(error, member);
    throw error;
  }
}

export async function prepareRegionQuery(ctx: ControlContext, access: ProjectAccess, input: QueryPreparationInput) {
  requireScope(access, queryScope);
  checkQuery(input.query, access.project.timezone);
  const regionToken = await issueRegionToken(ctx, access, { environment: input.environment, scopes: [queryScope] });
  return {
    region_token: regionToken,
    request: {
      method: "POST",
      url: `${regionToken.region_api_url}${regionQueryPath}`,
      // Both flags are always spelled out, so the body says exactly what the region will do.
      body: { query: input.query, include_sql: input.include_sql ?? false, refresh: input.refresh ?? false },
    },
  };
}
