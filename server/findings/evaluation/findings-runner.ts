// The region's findings schedule (docs/findings-evaluation.md): every findingsPassIntervalMs a
// pass judges, for every project in the findings configuration, each enabled rule's latest due
// period that it has not judged yet, stores what it raises (once per rule and period, sent
// within the rule's daily cap) and hands the sent findings to the dispatcher. One rule's
// failure is logged (at most failureLinesPerPassMax lines a pass) and does not stop the
// others; it is tried again at the next pass while its period is still the latest due. A
// finding stored but not handed on (the process stopped between the two, or no dispatcher
// was connected) is handed on at a later pass: delivery is at least once, by finding id.
import { PassLoop } from "../../pass-loop.ts";
import type { FindingsStore, StoredFinding } from "../../../storage/findings-store.ts";
import type { FindingsConfigStore } from "../../../storage/findings-config-store.ts";
import type { FindingsDispatcher, RaisedFinding, RegionFindingsProject, RegionFindingsRule } from "../findings-types.ts";
import { evaluateRule } from "./evaluate-rule.ts";
import { isJudgeable, latestDuePeriod } from "./periods.ts";
import { FindingsBusyError } from "./project-queries.ts";
import type { TargetSources } from "./target-values.ts";

export const findingsPassIntervalMs = 60_000;
/** FINDINGS_DAILY_CAP's default and largest value. */
export const findingsDailyCapDefault = 10;
export const findingsDailyCapMax = 10_000;
/** Findings handed to the dispatcher per pass at most; the rest wait for the next pass. */
export const handOnPerPassMax = 1000;
/** Log lines about failed rules per pass at most; the rest are counted in one more line. */
export const failureLinesPerPassMax = 10;
/** Characters of an error message in a log line at most. */
const errorCharsMax = 300;

export interface FindingsRunnerOptions {
  /** The region's code, for log lines. */
  region: string;
  /** Findings sent per rule per UTC day when the rule sets no daily_cap (FINDINGS_DAILY_CAP). */
  dailyCapDefault: number;
  /** Passes run this often; 0: no timer (tests call evaluateDue). */
  intervalMs: number;
  log?: (line: string) => void;
}

export interface FindingsRunnerStores {
  findings: FindingsStore;
  findingsConfig: FindingsConfigStore;
}

/** What one pass did. */
export interface PassResult {
  raised: RaisedFinding[];
  failed: number;
  handedOn: number;
}

export class FindingsRunner {
  private readonly loop: PassLoop;
  private timer: ReturnType<typeof setInterval> | null = null;
  /** Passes run one at a time, whether the timer or a caller starts them. */
  private serial: Promise<unknown> = Promise.resolve();
  private stopped = false;

  constructor(
    private readonly stores: FindingsRunnerStores,
    private readonly sources: TargetSources,
    /** Where sent findings go; null: not handed on yet (they wait in the store). */
    private readonly dispatcher: () => FindingsDispatcher | null,
    private readonly options: FindingsRunnerOptions,
  ) {
    this.loop = new PassLoop(async () => {
      await this.evaluateDue(Date.now());
      return { done: 1, more: false };
    }, (error) => this.log(`findings pass failed: ${this.errorText(error)}`));
  }

  start(): void {
    if (this.options.intervalMs <= 0 || this.timer) return;
    this.timer = setInterval(() => this.loop.kick(), this.options.intervalMs);
    this.timer.unref();
  }

  /** Stops the timer and waits for a pass under way. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.serial.catch(() => undefined);
  }

  /** One pass as if the clock read `now`: judges every due rule, stores and hands on what it raises. */
  evaluateDue(now: number): Promise<PassResult> {
    const pass = this.serial.then(() => this.pass(now));
    this.serial = pass.catch(() => undefined);
    return pass;
  }

  private async pass(now: number): Promise<PassResult> {
    const result: PassResult = { raised: [], failed: 0, handedOn: 0 };
    // Stopped: the region and its delivery are closing.
    if (this.stopped) return result;
    const failures: string[] = [];
    for (const project of this.stores.findingsConfig.all()) {
      for (const rule of project.rules) {
        if (!rule.enabled || this.stopped) continue;
        try {
          const raised = await this.evaluate(project, rule, now);
          if (raised) result.raised.push(raised);
        } catch (error) {
          // A busy project is not a failure: the rule is judged at a later pass.
          if (error instanceof FindingsBusyError) continue;
          result.failed++;
          failures.push(`project ${project.projectId} rule ${rule.id}: ${this.errorText(error)}`);
        }
      }
    }
    for (const line of failures.slice(0, failureLinesPerPassMax)) this.log(`findings rule not judged (tried again at the next pass): ${line}`);
    if (failures.length > failureLinesPerPassMax) this.log(`findings: ${failures.length - failureLinesPerPassMax} more rules not judged in this pass`);
    this.stores.findings.pruneJudged(now);
    result.handedOn = this.handOn();
    return result;
  }

  private async evaluate(project: RegionFindingsProject, rule: RegionFindingsRule, now: number): Promise<RaisedFinding | null> {
    // A metric archived since is left out of the configuration: its rules are not evaluated (docs/findings.md), and that is no failure.
    if (rule.target.kind === "metric" && !project.metrics.some((metric) => metric.key === rule.target.key)) return null;
    const period = latestDuePeriod(rule.cadence, project.timeZone, now);
    // A local hour a DST change skips or repeats is not judged (periods.ts isJudgeable).
    if (!isJudgeable(period) || this.stores.findings.wasJudged(rule.id, period.start)) return null;
    const finding = await evaluateRule(this.sources, project, rule, period, now);
    const dailyCap = rule.daily_cap ?? this.options.dailyCapDefault;
    return this.stores.findings.recordJudgement(project.projectId, rule.id, period.start, finding, dailyCap, now);
  }

  /** Hands sent findings not handed on yet to the dispatcher; how many it took. */
  private handOn(): number {
    const dispatcher = this.dispatcher();
    if (dispatcher === null) return 0;
    let handed = 0;
    for (const stored of this.stores.findings.toHandOn(handOnPerPassMax)) {
      // A rule deleted since has no destinations left: the finding is kept, with nowhere to go.
      const rule = this.stores.findingsConfig.project(stored.projectId)?.rules.find((candidate) => candidate.id === stored.ruleId);
      try {
        if (rule && rule.destination_ids.length > 0) dispatcher.enqueue(stored.projectId, raisedOf(stored), rule.destination_ids);
      } catch (error) {
        this.log(`findings: finding ${stored.id} not handed on to delivery (tried again at the next pass): ${this.errorText(error)}`);
        break;
      }
      this.stores.findings.markHandedOn(stored.id);
      handed++;
    }
    return handed;
  }

  private log(line: string): void {
    (this.options.log ?? console.error)(`region ${this.options.region}: ${line}`);
  }

  private errorText(error: unknown): string {
    const text = error instanceof Error ? error.message : String(error);
    return JSON.stringify(text.length > errorCharsMax ? `${text.slice(0, errorCharsMax)}…` : text);
  }
}

/** The finding as raised, without the store's acknowledgement fields. */
function raisedOf(stored: StoredFinding): RaisedFinding {
  const { acknowledgedAt: _acknowledgedAt, acknowledgedBy: _acknowledgedBy, ...raised } = stored;
  return raised;
}
