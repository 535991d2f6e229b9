// Erasure bodies (spec 1 lists the routes, "Bodies: not shown"; decided in docs/erasure.md).
import { t } from "elysia";
import { distinctIdLengthMax } from "../../ingest/limits.ts";
import { nullable } from "../schemas.ts";

/** Persons one request may name (each by person id or by distinct id). */
export const erasureSubjectsMax = 100;
/** A certificate longer than this is not one of ours (the request body limit is 64 KB anyway). */
export const certificateLengthMax = 60_000;

/** Exactly one of the two (checked in erasure-requests.ts, so a bad value's message names its field). */
const Person = t.Object(
  { person_id: t.Optional(t.String({ format: "uuid" })), distinct_id: t.Optional(t.String({ minLength: 1, maxLength: distinctIdLengthMax })) },
  { additionalProperties: false },
);

export const ErasureCreateRequest = t.Object(
  {
    environment: t.Optional(nullable(t.String({ minLength: 1, maxLength: 64 }))),
    persons: t.Array(Person, { minItems: 1, maxItems: erasureSubjectsMax }),
  },
  { title: "ErasureCreateRequest", additionalProperties: false },
);
export type ErasureCreateInput = typeof ErasureCreateRequest.static;

export const ErasureVerifyRequest = t.Object(
  { certificate: t.String({ minLength: 1, maxLength: certificateLengthMax }) },
  { title: "ErasureVerifyRequest", additionalProperties: false },
);
