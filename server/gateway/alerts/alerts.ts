// Evaluates the six rules and announces their transitions (start, clear: nothing in between) to
// ALERT_WEBHOOK_URL in a body Slack-style incoming webhooks accept as it is (`{"text": …}`).
// The store coordinates replicas, so each transition is posted once; the store's own outage
// cannot be recorded there, so each replica announces that one from memory.
import type { DeliveryStore } from "../store/deliveries.ts";
import type { AlertStore } from "../store/alerts.ts";
import type { InstanceStore } from "../store/instances.ts";
import type { MessageStore } from "../store/messages.ts";
import type { GatewayReplica } from "../store/replicas.ts";
import { alertRules, evaluateRules, type AlertRule, type AlertRuleName } from "./rules.ts";

/** A post that keeps failing is given up after this many attempts (one per supervisor pass). */
export const alertPostAttemptsMax = 20;
export const alertPostTimeoutMs = 10_000;

export interface AlertView {
  rule: AlertRuleName;
  severity: AlertRule["severity"];
  /** False when the rule could not be evaluated (the store did not answer). */
  evaluated: boolean;
  firing: boolean;
  since: string | null;
  summary: string;
  detail: string | null;
  action: string;
}

export interface AlertDeps {
  alerts: AlertStore;
  instances: InstanceStore;
  messages: MessageStore;
  deliveries: DeliveryStore;
  webhookUrl: string | null;
  deployment: string;
  now: () => number;
  log(line: string): void;
}

export function alertText(rule: AlertRule, transition: "started" | "cleared", detail: string | null, deployment: string): string {
  const head = transition === "started" ? `:rotating_light: [${rule.severity.toUpperCase()}] ${rule.summary}` : `:white_check_mark: [RESOLVED] ${rule.summary}`;
  const lines = [head, `rule: ${rule.name} · gateway: ${deployment}`];
  if (transition === "started" && detail) lines.push(detail);
  if (transition === "started") lines.push(`Action: ${rule.action}`);
  return lines.join("\n");
}

export class Alerts {
  private storeDownSince: number | null = null;

  constructor(private readonly deps: AlertDeps) {}

  /** One evaluation: records transitions, posts what is unposted, answers every rule's state. */
  async evaluate(storeUp: boolean, liveReplicas: GatewayReplica[]): Promise<AlertView[]> {
    const { now } = this.deps;
    const storeRule = alertRules.find((rule) => rule.name === "store_unreachable")!;
    const wasDown = this.storeDownSince !== null;
    if (!storeUp && !wasDown) this.storeDownSince = now();
    if (storeUp && wasDown) this.storeDownSince = null;
    if (storeUp !== !wasDown) await this.postDirect(alertText(storeRule, storeUp ? "cleared" : "started", null, this.deps.deployment));
    const storeView: AlertView = {
      rule: storeRule.name,
      severity: storeRule.severity,
      evaluated: true,
      firing: !storeUp,
      since: this.storeDownSince === null ? null : new Date(this.storeDownSince).toISOString(),
      summary: storeRule.summary,
      detail: storeUp ? null : "the store did not answer the supervisor's check",
      action: storeRule.action,
    };
    const others = alertRules.filter((rule) => rule.name !== "store_unreachable");
    if (!storeUp) return [storeView, ...others.map((rule) => ({ rule: rule.name, severity: rule.severity, evaluated: false, firing: false, since: null, summary: rule.summary, detail: "not evaluated: the store does not answer", action: rule.action }))];
    const findings = await evaluateRules({ now: now(), instances: this.deps.instances, messages: this.deps.messages, deliveries: this.deps.deliveries, liveReplicas });
    const stored = await this.deps.alerts.all();
    for (const rule of others) {
      const finding = findings[rule.name as keyof typeof findings];
      const before = stored.get(rule.name)?.firing ?? false;
      if (finding.firing === before) {
        if (finding.firing) await this.deps.alerts.refresh(rule.name, finding.detail);
        continue;
      }
      const transition = finding.firing ? "started" : "cleared";
      await this.deps.alerts.transition(rule.name, finding.firing, finding.detail, now(), {
        id: Bun.randomUUIDv7(),
        transition,
        body: JSON.stringify({ text: alertText(rule, transition, finding.detail, this.deps.deployment) }),
      });
    }
    await this.postPending();
    const current = await this.deps.alerts.all();
    return [
      storeView,
      ...others.map((rule) => {
        const state = current.get(rule.name);
        return {
          rule: rule.name,
          severity: rule.severity,
          evaluated: true,
          firing: state?.firing ?? false,
          since: state?.since ? new Date(state.since).toISOString() : null,
          summary: rule.summary,
          detail: state?.firing ? state.detail : null,
          action: rule.action,
        };
      }),
    ];
  }

  private async postPending(): Promise<void> {
    for (const post of await this.deps.alerts.unposted(alertPostAttemptsMax)) {
      if (!(await this.deps.alerts.claim(post.id, post.attempts))) continue;
      if (this.deps.webhookUrl === null) {
        // Nowhere to post: recorded as done, the transition is still in the alerts' state.
        await this.deps.alerts.posted(post.id, this.deps.now());
        continue;
      }
      const error = await this.post(post.body);
      if (error === null) await this.deps.alerts.posted(post.id, this.deps.now());
      else await this.deps.alerts.failed(post.id, error);
    }
  }

  private async postDirect(text: string): Promise<void> {
    const error = await this.post(JSON.stringify({ text }));
    if (error) this.deps.log(`gateway: alert post failed: ${error}`);
  }

  /** Null when the receiver took it. */
  private async post(body: string): Promise<string | null> {
    if (this.deps.webhookUrl === null) return null;
    try {
      const response = await fetch(this.deps.webhookUrl, { method: "POST", headers: { "content-type": "application/json" }, body, signal: AbortSignal.timeout(alertPostTimeoutMs) });
      await response.text().catch(() => "");
      return response.ok ? null : `HTTP ${response.status}`;
    } catch (error) {
      return (error as Error).message;
    }
  }
}
