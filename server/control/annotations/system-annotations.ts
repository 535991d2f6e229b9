// Annotations the service writes itself (source `system`), inside the transaction of the write
// they describe, so a chart shows when a production flag changed, an experiment launched,
// stopped or shipped, or the project's settings changed. Names in the content are the ones
// people gave their flags and experiments; the console renders content as text.
import { nowIso } from "../../clock.ts";
import type { ControlContext } from "../context.ts";
import { annotations } from "../db/schema.ts";
import { newId } from "../ids.ts";
import type { SystemKind } from "./annotation-schemas.ts";

export interface SystemAnnotation {
  projectId: string;
  kind: SystemKind;
  content: string;
  ref: Record<string, unknown>;
  /** Who made the change; null when the service did it on its own. */
  userId: string | null;
}

export function recordSystemAnnotation(ctx: ControlContext, annotation: SystemAnnotation): void {
  const now = nowIso();
  ctx.db.insert(annotations).values({
    id: newId(), projectId: annotation.projectId, content: annotation.content, kind: annotation.kind, occurredAt: now, source: "system",
    ref: annotation.ref, createdBy: annotation.userId, createdAt: now, updatedAt: now,
  }).run();
}
