// What the findings evaluation tests share: a dispatcher that records what it is handed (the
// real one, with its outbox and deliveries, is server/findings/delivery/), and rules and
// project configurations as the control plane pushes them.
import type {
  DeliveryState, FindingsDispatcher, RaisedFinding, RegionFindingsMetric, RegionFindingsProject, RegionFindingsRule, TestDeliveryResult,
} from "../../../server/findings/findings-types.ts";
import { defaultThresholds, type Thresholds } from "../../../server/findings/findings-types.ts";

export const hourMs = 3_600_000;
export const dayMs = 86_400_000;
export const weekMs = 7 * dayMs;
export const iso = (epochMs: number) => new Date(epochMs).toISOString();

export class RecordingDispatcher implements FindingsDispatcher {
  readonly enqueued: { projectId: string; finding: RaisedFinding; destinationIds: string[] }[] = [];
  /** The deliveries deliveriesOf answers, by finding id. */
  readonly deliveries = new Map<string, DeliveryState[]>();

  enqueue(projectId: string, finding: RaisedFinding, destinationIds: string[]): void {
    this.enqueued.push({ projectId, finding, destinationIds });
  }

  deliveriesOf(findingId: string): DeliveryState[] {
    return this.deliveries.get(findingId) ?? [];
  }

  sendTest(): Promise<TestDeliveryResult> {
    throw new Error("the evaluation tests send no test messages");
  }
}

export function rule(id: string, overrides: Partial<RegionFindingsRule> & Pick<RegionFindingsRule, "target">, thresholds: Partial<Thresholds> = {}): RegionFindingsRule {
  return {
    id,
    name: `rule ${id}`,
    cadence: "hourly",
    enabled: true,
    min_severity: "info",
    destination_ids: ["0193d7a0-0000-7000-8000-00000000d001"],
    daily_cap: null,
    ...overrides,
    thresholds: { ...defaultThresholds, ...thresholds },
  };
}

export function projectConfig(projectId: string, dataId: number, rules: RegionFindingsRule[], metrics: RegionFindingsMetric[] = [], timeZone = "UTC"): RegionFindingsProject {
  return {
    projectId, orgId: "0193d7a0-0000-7000-8000-0000000000a1", dataId, environment: "production", timeZone, consoleUrl: "http://console.test/projects/x",
    destinations: [], rules, metrics,
  };
}
