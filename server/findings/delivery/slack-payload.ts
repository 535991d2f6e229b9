// The Slack format: an incoming-webhook body with `text` (the fallback notifications and
// screen readers show: one line that reads well alone) and `blocks` in Block Kit's documented
// shape (a header, a section with the summary and the mentions of `config.to`, a section of
// fields, a context line), plus `channel` when `config.channel` is set (apps whose webhooks may
// post elsewhere honour it; the rest post to their own channel). Every text is cut to Slack's
// limits and every piece of data escaped (slack-text.ts).
import type { RaisedFinding, RegionFindingsDestination, RegionFindingsProject, Severity } from "../findings-types.ts";
import { describeTarget, findingUrl, formatChange, formatNumber, formatPeriod, severityLabels } from "./finding-facts.ts";
import {
  escapeMrkdwn,
  fitEscaped,
  fitPlain,
  link,
  mentions,
  slackContextTextMax,
  slackFallbackTextMax,
  slackFieldTextMax,
  slackFieldsMax,
  slackHeaderTextMax,
  slackSectionTextMax,
} from "./slack-text.ts";

interface PlainText {
  type: "plain_text";
  text: string;
  emoji: true;
}
interface MrkdwnText {
  type: "mrkdwn";
  text: string;
}
export type SlackBlock =
  | { type: "header"; text: PlainText }
  | { type: "section"; text: MrkdwnText }
  | { type: "section"; fields: MrkdwnText[] }
  | { type: "context"; elements: MrkdwnText[] };

export interface SlackBody {
  text: string;
  blocks: SlackBlock[];
  channel?: string;
}

/** A rule's or destination's name where it is not the message's subject (the fallback, the context line), in characters at most. */
export const slackNameInTextMax = 300;

const severityEmoji: Record<Severity, string> = { info: ":information_source:", warning: ":warning:", critical: ":rotating_light:" };

const mrkdwn = (text: string): MrkdwnText => ({ type: "mrkdwn", text });
const header = (text: string): SlackBlock => ({ type: "header", text: { type: "plain_text", text: fitPlain(text, slackHeaderTextMax), emoji: true } });

/** A field: a bold label over an escaped value, within the field limit. */
const field = (label: string, value: string): MrkdwnText => {
  const head = `*${label}*\n`;
  return mrkdwn(head + fitEscaped(value, slackFieldTextMax - head.length));
};

/** Lines that are already mrkdwn, around one piece of data fitted into what the limit leaves. */
function fitAround(before: string, raw: string, after: string, max: number): string {
  return before + fitEscaped(raw, Math.max(1, max - before.length - after.length)) + after;
}

function withChannel(body: SlackBody, destination: RegionFindingsDestination): SlackBody {
  return destination.config.channel ? { ...body, channel: destination.config.channel } : body;
}

export function slackFindingBody(project: RegionFindingsProject, destination: RegionFindingsDestination, finding: RaisedFinding): string {
  const url = findingUrl(project.consoleUrl, finding.id);
  const label = severityLabels[finding.severity];
  const mentioned = mentions(destination.config.to);
  const openLink = link(url, "Open the finding");
  const fields = [
    field("Target", describeTarget(finding.target)),
    field("Period", formatPeriod(finding.periodStart, finding.periodEnd)),
    field("Value", formatNumber(finding.value)),
    field("Baseline", formatNumber(finding.baseline)),
    field("Change", formatChange(finding)),
    ...(finding.anomalyZ === null ? [] : [field("Anomaly z-score", formatNumber(finding.anomalyZ))]),
    field("Severity", label),
    field("Cadence", finding.cadence === "hourly" ? "Hourly" : "Daily"),
  ].slice(0, slackFieldsMax);
  const tail = ` — rule ${fitEscaped(JSON.stringify(finding.ruleName), slackNameInTextMax)}, ${escapeMrkdwn(formatPeriod(finding.periodStart, finding.periodEnd))}. ${openLink}${mentioned ? ` ${mentioned}` : ""}`;
  const fallback = fitAround(`${severityEmoji[finding.severity]} ${label} finding: `, finding.summary, tail, slackFallbackTextMax);
  const body: SlackBody = {
    text: fallback,
    blocks: [
      header(`${severityEmoji[finding.severity]} ${label}: ${finding.ruleName}`),
      { type: "section", text: mrkdwn(fitAround(mentioned ? `${mentioned}\n*` : "*", finding.summary, `*\n${openLink}`, slackSectionTextMax)) },
      { type: "section", fields },
      {
        type: "context",
        elements: [mrkdwn(fitAround("Rule ", fitPlain(JSON.stringify(finding.ruleName), slackNameInTextMax), ` · raised ${formatInstant(finding.raisedAt)} · ${link(project.consoleUrl, "Project")}`, slackContextTextMax))],
      },
    ],
  };
  return JSON.stringify(withChannel(body, destination));
}

export function slackTestBody(project: RegionFindingsProject, destination: RegionFindingsDestination, at: string): string {
  const mentioned = mentions(destination.config.to);
  const projectLink = link(project.consoleUrl, "Open the project");
  const body: SlackBody = {
    text: fitAround(":white_check_mark: Test message for the findings destination ", fitPlain(JSON.stringify(destination.name), slackNameInTextMax), `: findings raised in this project will be sent here. ${projectLink}${mentioned ? ` ${mentioned}` : ""}`, slackFallbackTextMax),
    blocks: [
      header(":white_check_mark: Test message"),
      {
        type: "section",
        text: mrkdwn(fitAround(`${mentioned ? `${mentioned}\n` : ""}This is a test of the findings destination *`, destination.name, `*: findings raised in this project will be sent here.\n${projectLink}`, slackSectionTextMax)),
      },
      { type: "context", elements: [mrkdwn(`Sent by the "send test" action at ${formatInstant(at)}`)] },
    ],
  };
  return JSON.stringify(withChannel(body, destination));
}

const formatInstant = (iso: string): string => {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? escapeMrkdwn(iso) : `${date.toISOString().slice(0, 16).replace("T", " ")} UTC`;
};
