// Every write goes through here: it is either previewed (dry_run: nothing changes, the
// audit action and before/after are returned) or applied in one transaction together with
// its audit-log row.
import type { ControlContext } from "../context.ts";
import type { Principal } from "../access.ts";
import { auditLog } from "../db/schema.ts";

export interface WritePlan<T> {
  action: string;
  targetType: string;
  targetId: string | null;
  orgId: string | null;
  projectId?: string | null;
  before: unknown;
  after: unknown;
  /** Runs inside the transaction; must be synchronous (bun:sqlite transactions are). */
  apply(): T;
}

export interface DryRun {
  action: string;
  dry_run: true;
  before: unknown;
  after: unknown;
}

/** The `dry_run` query parameter: preview the write instead of applying it. */
export const isDryRun = (value: string | null) => value === "true" || value === "1";

export function previewWrite(plan: WritePlan<unknown>): DryRun {
  return { action: plan.action, dry_run: true, before: plan.before ?? null, after: plan.after ?? null };
}

export type Actor = Principal | { kind: "anonymous" };

function actorColumns(actor: Actor): { actorType: "user" | "token" | "anonymous"; actorId: string | null } {
  if (actor.kind === "token") return { actorType: "token", actorId: actor.token.id };
  if (actor.kind === "session") return { actorType: "user", actorId: actor.user.id };
  return { actorType: "anonymous", actorId: null };
}

export function applyWrite<T>(ctx: ControlContext, actor: Actor, plan: WritePlan<T>): T {
  return ctx.db.transaction((tx) => {
    const result = plan.apply();
    tx.insert(auditLog)
      .values({
        ...actorColumns(actor),
        orgId: plan.orgId,
        projectId: plan.projectId ?? null,
        action: plan.action,
        targetType: plan.targetType,
        targetId: plan.targetId,
        before: plan.before ?? null,
        after: plan.after ?? null,
        createdAt: new Date().toISOString(),
      })
      .run();
    return result;
  });
}
