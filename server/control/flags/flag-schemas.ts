// Request schemas of feature flags (spec 1: FlagCreateRequest, FlagUpdateRequest,
// FlagEnvironmentUpdateRequest, FlagSecretKeyCreateRequest). The shapes of rules, variants
// and stickiness are "not shown" in the spec; docs/flags.md documents the ones chosen here.
import { t } from "elysia";
import { CohortId, operators } from "../../../engine/ir/schema.ts";
import { Name } from "../schemas.ts";

export const flagKeyLengthMax = 200;
export const flagTagsMax = 50;
export const flagTagLengthMax = 100;
export const flagDescriptionLengthMax = 2000;
export const flagRulesMax = 100;
export const flagConditionsPerRuleMax = 50;
export const flagConditionValuesMax = 500;
export const flagVariantsMax = 20;
export const flagSaltLengthMax = 100;
const propertyKeyLengthMax = 400;
const conditionTextLengthMax = 1000;

/** Flag and variant keys: what SDK code names them by. */
export const flagKeyPattern = "^[A-Za-z0-9_.-]+$";

const Scalar = t.Union([t.String({ maxLength: conditionTextLengthMax }), t.Number(), t.Boolean()]);
const literal = <T extends string>(values: readonly T[]) => t.Union(values.map((value) => t.Literal(value)));

/**
 * A person or group property condition (key, operator, value), or a cohort condition
 * (cohort_id, operator in or not_in, default in). One object rather than a union, so a problem
 * is named by its member; flag-config.ts checks which members each type takes.
 */
export const FlagCondition = t.Object(
  {
    type: t.Union([t.Literal("person"), t.Literal("group"), t.Literal("cohort")]),
    key: t.Optional(t.String({ minLength: 1, maxLength: propertyKeyLengthMax })),
    operator: t.Optional(literal(operators)),
    value: t.Optional(t.Union([Scalar, t.Array(Scalar, { minItems: 1, maxItems: flagConditionValuesMax })])),
    /** Group type name (type `group` only). */
    group_type: t.Optional(t.String({ minLength: 1, maxLength: 200 })),
    /** The cohort (type `cohort` only). */
    cohort_id: t.Optional(CohortId),
  },
  { additionalProperties: false },
);

export const FlagRule = t.Object(
  {
    properties: t.Optional(t.Array(FlagCondition, { maxItems: flagConditionsPerRuleMax })),
    /** Share of matching ids that get the flag; null or absent: all of them. */
    rollout_percentage: t.Optional(t.Union([t.Number({ minimum: 0, maximum: 100 }), t.Null()])),
    /** Multivariate: the variant every id matched by this rule gets. */
    variant: t.Optional(t.Union([t.String({ minLength: 1, maxLength: flagKeyLengthMax }), t.Null()])),
  },
  { additionalProperties: false },
);

export const FlagVariant = t.Object(
  {
    key: t.String({ minLength: 1, maxLength: flagKeyLengthMax, pattern: flagKeyPattern }),
    name: t.Optional(t.Union([t.String({ maxLength: 200 }), t.Null()])),
    rollout_percentage: t.Number({ minimum: 0, maximum: 100 }),
    payload: t.Optional(t.Unknown()),
  },
  { additionalProperties: false },
);

const Tags = t.Array(t.String({ minLength: 1, maxLength: flagTagLengthMax }), { maxItems: flagTagsMax });
const Description = t.Union([t.String({ maxLength: flagDescriptionLengthMax }), t.Null()]);
const Payload = t.Union([t.Record(t.String(), t.Unknown()), t.Array(t.Unknown()), t.String(), t.Number(), t.Boolean(), t.Null()]);
const Stickiness = t.String({ minLength: 1, maxLength: 210 });
const Salt = t.String({ maxLength: flagSaltLengthMax });
const Rules = t.Array(FlagRule, { maxItems: flagRulesMax });
const Variants = t.Array(FlagVariant, { maxItems: flagVariantsMax });

export const FlagCreateRequest = t.Object(
  {
    key: t.String({ minLength: 1, maxLength: flagKeyLengthMax, pattern: flagKeyPattern }),
    name: Name,
    description: t.Optional(Description),
    kind: t.Optional(t.Union([t.Literal("boolean"), t.Literal("multivariate")])),
    payload: t.Optional(Payload),
    rules: t.Optional(Rules),
    stickiness: t.Optional(Stickiness),
    tags: t.Optional(Tags),
    variants: t.Optional(Variants),
  },
  { title: "FlagCreateRequest", additionalProperties: false },
);

export const FlagUpdateRequest = t.Object(
  {
    description: t.Optional(Description),
    name: t.Optional(Name),
    owner_id: t.Optional(t.Union([t.String({ format: "uuid" }), t.Null()])),
    tags: t.Optional(Tags),
  },
  { title: "FlagUpdateRequest", additionalProperties: false },
);

export const FlagEnvironmentUpdateRequest = t.Object(
  {
    enabled: t.Optional(t.Boolean()),
    payload: t.Optional(Payload),
    rules: t.Optional(Rules),
    salt: t.Optional(Salt),
    stickiness: t.Optional(Stickiness),
    variants: t.Optional(Variants),
  },
  { title: "FlagEnvironmentUpdateRequest", additionalProperties: false },
);

export const FlagSecretKeyCreateRequest = t.Object(
  { environment: t.String({ minLength: 1, maxLength: 100 }), name: Name },
  { title: "FlagSecretKeyCreateRequest", additionalProperties: false },
);

export type FlagConditionInput = typeof FlagCondition.static;
export type FlagRuleInput = typeof FlagRule.static;
export type FlagVariantInput = typeof FlagVariant.static;
export type FlagCreateInput = typeof FlagCreateRequest.static;
export type FlagUpdateInput = typeof FlagUpdateRequest.static;
export type FlagEnvironmentUpdateInput = typeof FlagEnvironmentUpdateRequest.static;
