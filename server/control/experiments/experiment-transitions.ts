// The experiment state machine (docs/experiments.md):
//   draft --launch--> running --stop--> stopped
//   running|stopped --ship--> shipped
//   draft|stopped|shipped --delete--> archived
// Anything else answers 409. Launching turns the flag on in the experiment's environment;
// shipping serves the chosen variant to everyone there. Both need flags.production when that
// environment is production, shipping also experiments.ship, and a ship is refused with 409
// experiment_blocked while a guardrail metric is significantly harmed, unless override_block.
import { eq } from "drizzle-orm";
import { nowIso } from "../../clock.ts";
import { ApiError, conflict, validation } from "../../http/errors.ts";
import type { ControlContext } from "../context.ts";
import { experiments, flags } from "../db/schema.ts";
import { requireScope, type ProjectAccess } from "../access.ts";
import type { WritePlan } from "../services/audited-write.ts";
import { changedEnvironment, flagConfigs, productionEnvironment, storeEnvironment, type FlagRow } from "../flags/flags.ts";
import type { PendingPublication } from "../flags/flag-publications.ts";
import type { FlagConfig } from "../flags/flag-config.ts";
import { experimentDto, experimentOfProject, flagVariants, type ExperimentDto, type ExperimentRow, type ExperimentStatus } from "./experiments.ts";
import type { ExperimentTransitionInput } from "./experiment-schemas.ts";
import { recordSystemAnnotation } from "../annotations/system-annotations.ts";

export type Transition = "launch" | "stop" | "ship" | "delete";

/** Where each transition may start from, and where it leads. */
export const transitions: Record<Transition, { from: readonly ExperimentStatus[]; to: ExperimentStatus }> = {
  launch: { from: ["draft"], to: "running" },
  stop: { from: ["running"], to: "stopped" },
  ship: { from: ["running", "stopped"], to: "shipped" },
  delete: { from: ["draft", "stopped", "shipped"], to: "archived" },
};

export const experimentBlocked = (message: string) => new ApiError(409, "experiment_blocked", message);

export interface TransitionResult {
  experiment: ExperimentDto;
  publications: PendingPublication[];
}

function checkTransition(row: ExperimentRow, transition: Transition): void {
  if (!transitions[transition].from.includes(row.status)) {
    const allowed = transitions[transition].from.join(" or ");
    throw conflict(`cannot ${transition} a ${row.status} experiment (only ${allowed} ones)`);
  }
}

const flagOf = (ctx: ControlContext, row: ExperimentRow): FlagRow => ctx.db.select().from(flags).where(eq(flags.id, row.flagId)).get()!;

function plan(ctx: ControlContext, access: ProjectAccess, row: ExperimentRow, transition: Transition, updated: ExperimentRow, flagChange: Partial<FlagConfig> | null): WritePlan<TransitionResult> {
  const flag = flagOf(ctx, row);
  const current = flagConfigs(ctx, flag.id).find((config) => config.environment === row.environment);
  if (flagChange && (!current || flag.archivedAt !== null)) throw conflict(`flag ${flag.key} is archived or has no ${row.environment} configuration`);
  const flagRow = flagChange ? changedEnvironment(flag, current!, flagChange, access.principal.user.id) : null;
  return {
    action: `experiment.${transition}`, targetType: "experiment", targetId: row.id, orgId: access.org.id, projectId: access.project.id,
    before: experimentDto(ctx, row), after: experimentDto(ctx, updated),
    apply: () => {
      ctx.db.update(experiments).set(updated).where(eq(experiments.id, row.id)).run();
      if (transition !== "delete") annotateTransition(ctx, access, updated, transition);
      const publications = flagRow ? storeEnvironment(ctx, access.project, flagRow) : [];
      return { experiment: experimentDto(ctx, updated), publications };
    },
  };
}

const transitionWords: Record<Exclude<Transition, "delete">, string> = { launch: "launched", stop: "stopped", ship: "shipped" };

/** Launches, stops and ships are marked on the project's charts (system annotations). */
function annotateTransition(ctx: ControlContext, access: ProjectAccess, row: ExperimentRow, transition: Exclude<Transition, "delete">): void {
  const shipped = transition === "ship" ? ` (variant "${row.shippedVariant}")` : "";
  recordSystemAnnotation(ctx, {
    projectId: access.project.id, kind: "experiment", content: `Experiment "${row.name}" ${transitionWords[transition]} in ${row.environment}${shipped}`,
    userId: access.principal.user.id, ref: { experiment_id: row.id, key: row.key, environment: row.environment, action: transition },
  });
}

const needsProduction = (access: ProjectAccess, row: ExperimentRow) => {
  if (row.environment === productionEnvironment) requireScope(access, "flags.production");
};

export function planLaunch(ctx: ControlContext, access: ProjectAccess, experimentId: string): WritePlan<TransitionResult> {
  requireScope(access, "experiments:write");
  const row = experimentOfProject(ctx, access, experimentId);
  checkTransition(row, "launch");
  needsProduction(access, row);
  if (row.primaryMetricId === null) throw validation("launching needs a primary metric (primary_metric_id)");
  const flag = flagOf(ctx, row);
  const variants = flagVariants(ctx, flag, row.environment);
  if (!variants.some((variant) => variant.key === row.controlVariant)) throw validation(`control_variant "${row.controlVariant}" is no longer a variant of flag ${flag.key}`);
  const now = nowIso();
  return plan(ctx, access, row, "launch", { ...row, status: "running", variants, startAt: now, updatedAt: now }, { enabled: true });
}

export function planStop(ctx: ControlContext, access: ProjectAccess, experimentId: string, input: ExperimentTransitionInput): WritePlan<TransitionResult> {
  requireScope(access, "experiments:write");
  const row = experimentOfProject(ctx, access, experimentId);
  checkTransition(row, "stop");
  const now = nowIso();
  const decision = input.reason ? { ...(row.decision ?? {}), stop_reason: input.reason } : row.decision;
  return plan(ctx, access, row, "stop", { ...row, status: "stopped", endAt: now, decision, updatedAt: now }, null);
}

/** Checks what a ship needs before any statistics are read: scopes, status and the variant. */
export function checkShip(ctx: ControlContext, access: ProjectAccess, experimentId: string, input: ExperimentTransitionInput): ExperimentRow {
  requireScope(access, "experiments.ship");
  const row = experimentOfProject(ctx, access, experimentId);
  checkTransition(row, "ship");
  needsProduction(access, row);
  if (!input.variant) throw validation(`shipping needs the variant to serve (one of ${row.variants.map((variant) => variant.key).join(", ")})`);
  if (!row.variants.some((variant) => variant.key === input.variant)) throw validation(`variant "${input.variant}" is not one of the experiment's variants`);
  return row;
}

/** The ship itself; `harmed` lists the guardrails the latest results say are significantly harmed. */
export function planShip(ctx: ControlContext, access: ProjectAccess, row: ExperimentRow, input: ExperimentTransitionInput, harmed: string[]): WritePlan<TransitionResult> {
  if (harmed.length > 0 && !input.override_block) {
    throw experimentBlocked(`guardrail metrics significantly harmed: ${harmed.join(", ")} (ship with override_block to ship anyway)`);
  }
  const variant = input.variant!;
  const current = flagConfigs(ctx, row.flagId).find((config) => config.environment === row.environment)!;
  const served: Partial<FlagConfig> = {
    enabled: true,
    variants: (current.variants as FlagConfig["variants"]).map((entry) => ({ ...entry, rollout_percentage: entry.key === variant ? 100 : 0 })),
    rules: (current.rules as FlagConfig["rules"]).map((rule) => ({ ...rule, variant: null })),
  };
  const now = nowIso();
  const decision = {
    ...(row.decision ?? {}), action: "ship", variant, reason: input.reason ?? null, override_block: input.override_block ?? false,
    harmed_guardrails: harmed, decided_at: now, decided_by: access.principal.user.id,
  };
  const updated: ExperimentRow = { ...row, status: "shipped", shippedVariant: variant, endAt: row.endAt ?? now, decision, updatedAt: now };
  return plan(ctx, access, row, "ship", updated, served);
}

export function planDelete(ctx: ControlContext, access: ProjectAccess, experimentId: string): WritePlan<TransitionResult> {
  requireScope(access, "experiments:write");
  const row = experimentOfProject(ctx, access, experimentId);
  if (row.status === "running") throw conflict("cannot delete a running experiment (stop it first)");
  checkTransition(row, "delete");
  return plan(ctx, access, row, "delete", { ...row, status: "archived", updatedAt: nowIso() }, null);
}
