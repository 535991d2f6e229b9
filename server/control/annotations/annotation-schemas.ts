// Annotations (spec 1: AnnotationDto, AnnotationCreateRequest, AnnotationUpdateRequest,
// AnnotationListResponse). Kinds are "not shown": people write notes, releases, incidents and
// campaigns; the service itself writes flag, experiment and project annotations (source
// `system`), which nobody can edit or delete (docs/annotations.md).
import { t } from "elysia";

export const annotationContentLengthMax = 1000;
/** `ref` is a small pointer (a URL, a ticket), not a document. */
export const annotationRefBytesMax = 2048;

export const userKinds = ["note", "release", "incident", "campaign"] as const;
export const systemKinds = ["flag", "experiment", "project"] as const;
export type SystemKind = (typeof systemKinds)[number];

const UserKind = t.Union(userKinds.map((kind) => t.Literal(kind)));
const Content = t.String({ minLength: 1, maxLength: annotationContentLengthMax, pattern: "\\S" });
const OccurredAt = t.String({ minLength: 1, maxLength: 64, description: "RFC 3339 timestamp" });
const Ref = t.Union([t.Object({}, { additionalProperties: true, description: `free JSON object of at most ${annotationRefBytesMax} bytes` }), t.Null()]);

export const AnnotationCreateRequest = t.Object(
  { content: Content, kind: UserKind, occurred_at: OccurredAt, ref: t.Optional(Ref) },
  { title: "AnnotationCreateRequest", additionalProperties: false },
);
export const AnnotationUpdateRequest = t.Object(
  { content: t.Optional(t.Union([Content, t.Null()])), kind: t.Optional(t.Union([UserKind, t.Null()])), occurred_at: t.Optional(t.Union([OccurredAt, t.Null()])) },
  { title: "AnnotationUpdateRequest", additionalProperties: false },
);
export type AnnotationCreateInput = typeof AnnotationCreateRequest.static;
export type AnnotationUpdateInput = typeof AnnotationUpdateRequest.static;

export const AnnotationDto = t.Object(
  {
    id: t.String({ format: "uuid" }),
    project_id: t.String({ format: "uuid" }),
    content: t.String(),
    kind: t.Union([...userKinds, ...systemKinds].map((kind) => t.Literal(kind))),
    occurred_at: t.String({ format: "date-time" }),
    source: t.Union([t.Literal("user"), t.Literal("system")]),
    created_at: t.String({ format: "date-time" }),
    created_by: t.Union([t.String({ format: "uuid" }), t.Null()]),
    ref: t.Union([t.Object({}, { additionalProperties: true }), t.Null()]),
  },
  { title: "AnnotationDto" },
);
export const AnnotationListResponse = t.Object(
  { annotations: t.Array(AnnotationDto), next_offset: t.Union([t.Integer(), t.Null()]) },
  { title: "AnnotationListResponse" },
);
