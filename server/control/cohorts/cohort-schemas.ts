// Cohorts (spec 1: CohortDto, CohortCalculationDto, CohortCreateRequest, CohortUpdateRequest,
// CohortCalculateRequest, CohortListResponse). The definition format is the engine's
// (engine/cohorts/definition.ts), so the control plane and the region read it the same way.
import { t } from "elysia";
import { CohortDefinitionSchema } from "../../../engine/cohorts/definition.ts";
import { Name, nullable } from "../schemas.ts";

export const cohortDescriptionLengthMax = 2000;
export const cohortsPerProjectMax = 1000;

const Kind = t.Union([t.Literal("dynamic"), t.Literal("static")]);
const Description = nullable(t.String({ maxLength: cohortDescriptionLengthMax }));
/** Checked by parseCohortDefinition, whose messages name the path; the schema documents it. */
const Definition = t.Object({}, { additionalProperties: true, description: "A CohortDefinition (see that schema); dynamic cohorts only" });

export const CohortCreateRequest = t.Object(
  { kind: Kind, name: Name, definition: t.Optional(nullable(Definition)), description: t.Optional(Description) },
  { title: "CohortCreateRequest", additionalProperties: false },
);
export const CohortUpdateRequest = t.Object(
  { definition: t.Optional(nullable(Definition)), description: t.Optional(Description), name: t.Optional(nullable(Name)) },
  { title: "CohortUpdateRequest", additionalProperties: false },
);
export const CohortCalculateRequest = t.Object(
  { environment: t.Optional(nullable(t.String({ minLength: 1, maxLength: 64 }))) },
  { title: "CohortCalculateRequest", additionalProperties: false },
);
export type CohortCreateInput = typeof CohortCreateRequest.static;
export type CohortUpdateInput = typeof CohortUpdateRequest.static;

export const CohortCalculationDto = t.Object(
  {
    environment: t.String(),
    status: t.Union([t.Literal("ok"), t.Literal("error")]),
    calculated_at: t.String({ format: "date-time" }),
    cohort_version: nullable(t.Integer()),
    error: nullable(t.String()),
    size: nullable(t.Integer()),
  },
  { title: "CohortCalculationDto" },
);

export const CohortDto = t.Object(
  {
    id: t.String({ format: "uuid" }),
    project_id: t.String({ format: "uuid" }),
    name: t.String(),
    kind: Kind,
    version: t.Integer({ format: "int32", description: "raised on every change of the definition" }),
    created_at: t.String({ format: "date-time" }),
    updated_at: t.String({ format: "date-time" }),
    calculation: nullable(CohortCalculationDto),
    calculations: t.Array(CohortCalculationDto, { description: "the last calculation in each environment that has one; `calculation` is the default environment's" }),
    created_by: nullable(t.String({ format: "uuid" })),
    definition: nullable(CohortDefinitionSchema),
    description: Description,
  },
  { title: "CohortDto" },
);
export const CohortListResponse = t.Object({ cohorts: t.Array(CohortDto) }, { title: "CohortListResponse" });
