// The region's FindingsDispatcher: queues a raised finding for its destinations in the outbox
// (storage/findings-outbox.ts), answers what became of each delivery, and makes the "send test"
// attempt. Sending queued deliveries is the runner's (delivery-runner.ts). A body is rendered
// when the finding is queued and stored, so every attempt (after a restart too) sends the same
// bytes under the same webhook-id (the delivery's id), and receivers can drop a repeat by it.
import { notFound } from "../../http/errors.ts";
import type { FindingsConfigStore } from "../../../storage/findings-config-store.ts";
import type { FindingsOutboxStore, NewOutboxDelivery, StoredAttempt } from "../../../storage/findings-outbox.ts";
import {
  severityRank,
  type DeliveryAttempt,
  type DeliveryState,
  type FindingsDispatcher,
  type RaisedFinding,
  type RegionFindingsDestination,
  type RegionFindingsProject,
  type TestDeliveryResult,
} from "../findings-types.ts";
import { deliveryTimeoutMs, postDelivery, type DeliveryFetch } from "./post-delivery.ts";
import { slackFindingBody, slackTestBody } from "./slack-payload.ts";
import { webhookFindingBody, webhookTestBody } from "./webhook-payload.ts";

/** Test attempts kept per destination (older ones are dropped). */
export const testAttemptsKeptMax = 20;

/** A delivery's id, sent as its webhook-id: Standard Webhooks' `msg_` form. */
export const newDeliveryId = () => `msg_${Bun.randomUUIDv7().replaceAll("-", "")}`;

export interface FindingsOutboxOptions {
  /** The clock deliveries are queued and tests logged by (epoch ms). */
  now?: () => number;
  fetch?: DeliveryFetch;
  timeoutMs?: number;
  /** Told after a finding was queued (the runner sends it at once). */
  onQueued?: () => void;
}

export function renderFinding(project: RegionFindingsProject, destination: RegionFindingsDestination, finding: RaisedFinding): string {
  return destination.kind === "slack" ? slackFindingBody(project, destination, finding) : webhookFindingBody(project, destination, finding);
}

export function renderTest(project: RegionFindingsProject, destination: RegionFindingsDestination, at: string): string {
  return destination.kind === "slack" ? slackTestBody(project, destination, at) : webhookTestBody(project, destination, at);
}

/** Whether a finding of this severity goes to this destination. */
export function destinationTakes(destination: RegionFindingsDestination, finding: Pick<RaisedFinding, "severity">): boolean {
  return destination.enabled && destination.secret !== null && destination.secret !== "" && severityRank(finding.severity) >= severityRank(destination.min_severity);
}

const toAttempt = (destinationId: string, stored: StoredAttempt): DeliveryAttempt => ({ destinationId, ...stored });

export class FindingsOutbox implements FindingsDispatcher {
  private readonly now: () => number;
  private readonly fetch: DeliveryFetch;
  private readonly timeoutMs: number;
  onQueued: () => void;

  constructor(
    private readonly outbox: FindingsOutboxStore,
    private readonly config: FindingsConfigStore,
    options: FindingsOutboxOptions = {},
  ) {
    this.now = options.now ?? Date.now;
    this.fetch = options.fetch ?? fetch;
    this.timeoutMs = options.timeoutMs ?? deliveryTimeoutMs;
    this.onQueued = options.onQueued ?? (() => {});
  }

  /**
   * Queues the finding for each named destination of the project that exists, is enabled, has a
   * URL and whose min_severity the finding reaches (one transaction). A finding not to be sent
   * (its rule's daily cap was reached) and a destination already queued for it add nothing.
   */
  enqueue(projectId: string, finding: RaisedFinding, destinationIds: string[]): void {
    if (!finding.sent) return;
    const project = this.config.project(projectId);
    if (!project) return;
    const now = this.now();
    const createdAt = new Date(now).toISOString();
    const wanted = new Set(destinationIds);
    const deliveries: NewOutboxDelivery[] = project.destinations
      .filter((destination) => wanted.has(destination.id) && destinationTakes(destination, finding))
      .map((destination) => ({
        id: newDeliveryId(),
        projectId,
        findingId: finding.id,
        destinationId: destination.id,
        kind: destination.kind,
        body: renderFinding(project, destination, finding),
        createdAt,
        dueAt: now,
      }));
    if (deliveries.length === 0) return;
    this.outbox.insert(deliveries);
    this.onQueued();
  }

  deliveriesOf(findingId: string): DeliveryState[] {
    return this.outbox.ofFinding(findingId).map(({ delivery, attempts }) => ({
      destinationId: delivery.destinationId,
      state: delivery.state,
      attempts: attempts.map((attempt) => toAttempt(delivery.destinationId, attempt)),
      nextAttemptAt: delivery.state === "pending" && delivery.nextAttemptAt !== null ? new Date(delivery.nextAttemptAt).toISOString() : null,
    }));
  }

  /**
   * One attempt now (enabled or not: a destination is tested before it is turned on), never
   * retried, logged with the destination's test attempts; 404 `not_found` when the region does
   * not know the destination in this project.
   */
  async sendTest(projectId: string, destinationId: string): Promise<TestDeliveryResult> {
    const project = this.config.project(projectId);
    const destination = project?.destinations.find((entry) => entry.id === destinationId);
    if (!project || !destination) throw notFound("destination");
    const at = new Date(this.now()).toISOString();
    const id = newDeliveryId();
    const outcome =
      destination.secret === null || destination.secret === ""
        ? { ok: false, status: null, error: "the destination has no URL", durationMs: 0 }
        : await postDelivery(
            { kind: destination.kind, url: destination.secret, signingSecret: destination.signing_secret, id, body: renderTest(project, destination, at) },
            { fetch: this.fetch, timeoutMs: this.timeoutMs },
          );
    const attempt: StoredAttempt = { attempt: 1, at, status: outcome.status, ok: outcome.ok, error: outcome.error, durationMs: outcome.durationMs };
    this.outbox.recordTest(id, projectId, destinationId, attempt, testAttemptsKeptMax);
    return toAttempt(destinationId, attempt);
  }

  /** A destination's last test attempts, newest first. */
  testsOf(projectId: string, destinationId: string): DeliveryAttempt[] {
    return this.outbox.testsOf(projectId, destinationId).map((attempt) => toAttempt(destinationId, attempt));
  }
}
