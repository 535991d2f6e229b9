// The webhook format: a Standard Webhooks JSON body `{type, timestamp, data}`. `finding.raised`
// carries the finding as the region API's FindingDto names its fields (snake_case), its console
// links, and the destination it was sent to (with `config.to` and `config.channel`, so one
// endpoint can route for several destinations); `finding.test` is what "send test" sends.
// Names in it (events, rules) are ingest or user data: receivers treat them as text.
import type { RaisedFinding, RegionFindingsDestination, RegionFindingsProject } from "../findings-types.ts";
import { findingFields } from "../finding-fields.ts";
import { findingUrl } from "./finding-facts.ts";

export type WebhookEventType = "finding.raised" | "finding.test";

export interface WebhookBody {
  type: WebhookEventType;
  /** When the event happened (a finding: when it was raised), ISO 8601. */
  timestamp: string;
  data: Record<string, unknown>;
}

const destinationData = (destination: RegionFindingsDestination) => ({
  id: destination.id,
  name: destination.name,
  to: destination.config.to,
  channel: destination.config.channel,
});

export function webhookFindingBody(project: RegionFindingsProject, destination: RegionFindingsDestination, finding: RaisedFinding): string {
  const body: WebhookBody = {
    type: "finding.raised",
    timestamp: finding.raisedAt,
    data: {
      ...findingFields(finding),
      links: { finding: findingUrl(project.consoleUrl, finding.id), project: project.consoleUrl },
      destination: destinationData(destination),
    },
  };
  return JSON.stringify(body);
}

export function webhookTestBody(project: RegionFindingsProject, destination: RegionFindingsDestination, at: string): string {
  const body: WebhookBody = {
    type: "finding.test",
    timestamp: at,
    data: {
      project_id: project.projectId,
      message: `A test of the findings destination "${destination.name}": findings raised in this project will be sent here.`,
      links: { project: project.consoleUrl },
      destination: destinationData(destination),
    },
  };
  return JSON.stringify(body);
}
