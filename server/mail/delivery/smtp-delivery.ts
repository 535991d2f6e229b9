// One delivery attempt of one message to the recipients of one domain: DKIM-signed with the
// sending domain's key, then either straight to the domain's MX hosts (direct) or through a
// relay. Each recipient comes out delivered, deferred (try again later) or bounced, with the
// reply that decided it and the host that gave it; the attempt keeps its whole SMTP
// conversation. Retry schedules and bounce classes belong to the callers.
import assert from "node:assert";
import { signMessage, type DkimKey } from "./dkim.ts";
import { isValidDomainName, lookupMailHosts, type MailDnsResolver, type MailHostLookupFailure } from "./mx.ts";
import { parseRelayUrl } from "./relay.ts";
import { SmtpConversation } from "./smtp-conversation.ts";
import { replyClass, type SmtpReply } from "../smtp-reply.ts";
import { defaultSessionTimeouts, runSmtpSession, type SessionFailureReason, type SessionSecurity, type SessionTarget, type SessionTimeouts } from "./smtp-session.ts";
import { readable, TranscriptRecorder, type Transcript } from "./transcript.ts";

/** The SMTP port of MX hosts (RFC 5321 section 4.5.4.2 names no other). */
export const smtpPort = 25;
/** RFC 5321 section 4.5.3.1.8: a server must take at least 100 recipients in one transaction. */
export const recipientsPerDeliveryMax = 100;
/** Addresses of one MX host tried before moving to the next host. */
export const addressesPerMxHostMax = 2;

export type DeliveryRoute =
  /** To the recipient domain's MX hosts, found through `resolver`, on `port` (25 unless a test says otherwise). */
  | { mode: "direct"; resolver: MailDnsResolver; port?: number }
  /** Through a relay: `smtp://user:pass@host:port` or `smtps://…` (see relay.ts). */
  | { mode: "relay"; url: string };

export type DeliveryInput = {
  /** The composed RFC 5322 message, not yet signed. */
  message: Buffer;
  /** The sending domain's key; every message is signed before it leaves. */
  dkim: DkimKey;
  /** MAIL FROM: the return path that bounces come back to; "" for the null sender. */
  envelopeFrom: string;
  /** Recipients of one domain (direct mode), at most recipientsPerDeliveryMax. */
  recipients: string[];
  /** The name we give in EHLO: our host name. */
  heloName: string;
  route: DeliveryRoute;
  timeouts?: Partial<SessionTimeouts>;
};

export type DeliveryOutcome = "delivered" | "deferred" | "bounced";
export type DeliveryFailureReason = SessionFailureReason | MailHostLookupFailure | "invalid_address";
export type RecipientResult = {
  recipient: string;
  outcome: DeliveryOutcome;
  /** The SMTP reply that decided it; null when none did (no host answered, DNS said no). */
  code: number | null;
  enhancedCode: string | null;
  text: string;
  /** The host whose reply decided it, or that was tried last. */
  mxHost: string | null;
  /** Why, when no SMTP reply decided it. */
  reason: DeliveryFailureReason | null;
};
export type HostTried = { hostName: string; address: string; port: number; tlsProtocol: string | null; failure: string | null };
export type DeliveryResult = {
  recipients: RecipientResult[];
  transcript: Transcript;
  startedAt: string;
  durationMs: number;
  /** Whether the session that decided the last recipients ran over TLS, and which version. */
  tls: boolean;
  tlsProtocol: string | null;
  /** The last host that answered (sent a greeting), if any did. */
  answeredBy: { hostName: string; address: string; port: number } | null;
  hostsTried: HostTried[];
};

const addressPattern = /^[^\s<>()[\]\\,;:@"\x00-\x1f\x7f]+@([^@\s<>]+)$/;
const domainOf = (address: string) => addressPattern.exec(address)?.[1]?.toLowerCase() ?? null;

const fromReply = (recipient: string, reply: SmtpReply, mxHost: string): RecipientResult => ({
  recipient,
  outcome: replyClass(reply) === "positive" ? "delivered" : replyClass(reply) === "permanent" ? "bounced" : "deferred",
  code: reply.code,
  enhancedCode: reply.enhancedCode,
  // a server's words end up in logs and pages
  text: readable(reply.text),
  mxHost,
  reason: null,
});

const isFinal = (reply: SmtpReply | null): reply is SmtpReply => reply !== null && reply.code !== 421 && replyClass(reply) !== null;

/**
 * The recipients this session decided. A recipient is left for the next host when the session
 * ended before a reply about it: no connection, a dropped one, a 421 closing it.
 */
function decidedBy(conversation: SmtpConversation, recipients: string[], mxHost: string): RecipientResult[] {
  const { mailReply, dataReply, messageReply } = conversation;
  if (isFinal(mailReply) && replyClass(mailReply) !== "positive") return recipients.map((recipient) => fromReply(recipient, mailReply, mxHost));
  const decided: RecipientResult[] = [];
  for (const recipient of recipients) {
    const rcptReply = conversation.rcptReplies.get(recipient) ?? null;
    if (!isFinal(rcptReply)) continue;
    if (replyClass(rcptReply) !== "positive") decided.push(fromReply(recipient, rcptReply, mxHost));
    else if (isFinal(messageReply)) decided.push(fromReply(recipient, messageReply, mxHost));
    else if (isFinal(dataReply) && replyClass(dataReply) !== "positive") decided.push(fromReply(recipient, dataReply, mxHost));
  }
  return decided;
}

type Hop = { hostName: string; target: SessionTarget };
type Plan = { ok: true; hops: Hop[]; security: SessionSecurity } | { ok: false; failure: MailHostLookupFailure; permanent: boolean; text: string };

async function planRoute(route: DeliveryRoute, domain: string): Promise<Plan> {
  if (route.mode === "relay") {
    const relay = parseRelayUrl(route.url);
    return {
      ok: true,
      hops: [{ hostName: relay.host, target: { host: relay.host, port: relay.port, serverName: relay.host } }],
      security: { implicitTls: relay.implicitTls, startTls: relay.startTls, verifyCertificate: relay.verifyCertificate, credentials: relay.credentials },
    };
  }
  const lookup = await lookupMailHosts(domain, route.resolver);
  if (!lookup.ok) return lookup;
  const port = route.port ?? smtpPort;
  return {
    ok: true,
    hops: lookup.hosts.flatMap((host) =>
      host.addresses.slice(0, addressesPerMxHostMax).map((address) => ({ hostName: host.hostName, target: { host: address, port, serverName: host.hostName } })),
    ),
    security: { implicitTls: false, startTls: "opportunistic", verifyCertificate: false, credentials: null },
  };
}

type HopsOutcome = { decided: RecipientResult[]; hostsTried: HostTried[]; answeredBy: DeliveryResult["answeredBy"]; tlsProtocol: string | null };

/** Tries the hops in order, each with the recipients no earlier hop decided, until none is left. */
async function tryHops(
  input: DeliveryInput,
  plan: Extract<Plan, { ok: true }>,
  recipients: string[],
  message: Buffer,
  recorder: TranscriptRecorder,
  conversation: { current: SmtpConversation },
): Promise<HopsOutcome> {
  const timeouts = { ...defaultSessionTimeouts, ...input.timeouts };
  const outcome: HopsOutcome = { decided: [], hostsTried: [], answeredBy: null, tlsProtocol: null };
  let pending = recipients;
  let lastFailure: { reason: SessionFailureReason; text: string; reply: SmtpReply | null; hostName: string } | null = null;
  for (const hop of plan.hops) {
    if (!pending.length) break;
    recorder.event(`trying ${hop.hostName} (${hop.target.host}:${hop.target.port}) for ${pending.length} recipient(s)`);
    const envelope = { from: input.envelopeFrom, to: pending };
    const attempt = (security: SessionSecurity) => {
      conversation.current = new SmtpConversation();
      return runSmtpSession({ target: hop.target, security, timeouts, heloName: input.heloName, envelope, message, recorder, conversation: conversation.current });
    };
    let session = await attempt(plan.security);
    // as MTAs do, a failed TLS handshake with an MX is retried once in plaintext
    if (session.failure?.reason === "tls_failed" && plan.security.startTls === "opportunistic") {
      recorder.event(`TLS failed (${session.failure.text}); retrying ${hop.hostName} without STARTTLS`);
      session = await attempt({ ...plan.security, startTls: "never" });
    }
    const { closingReply, greetingReply } = conversation.current;
    outcome.hostsTried.push({ hostName: hop.hostName, address: hop.target.host, port: hop.target.port, tlsProtocol: session.tlsProtocol, failure: session.failure?.text ?? null });
    if (session.answered) {
      outcome.answeredBy = { hostName: hop.hostName, address: hop.target.host, port: hop.target.port };
      outcome.tlsProtocol = session.tlsProtocol;
    }
    const decided = decidedBy(conversation.current, pending, hop.hostName);
    outcome.decided.push(...decided);
    pending = pending.filter((recipient) => !decided.some((result) => result.recipient === recipient));
    const reply = closingReply ?? (greetingReply && replyClass(greetingReply) !== "positive" ? greetingReply : null);
    lastFailure = {
      reason: session.failure?.reason ?? "connection_lost",
      text: reply ? reply.text : (session.failure?.text ?? "the session ended before the server answered"),
      reply,
      hostName: hop.hostName,
    };
  }
  // no host decided these: try again later, with whatever the last host said before giving up
  for (const recipient of pending) {
    outcome.decided.push({
      recipient,
      outcome: "deferred",
      code: lastFailure?.reply?.code ?? null,
      enhancedCode: lastFailure?.reply?.enhancedCode ?? null,
      text: readable(lastFailure?.text ?? "no host to try"),
      mxHost: lastFailure?.hostName ?? null,
      reason: lastFailure?.reason ?? "connection_failed",
    });
  }
  return outcome;
}

/**
 * Delivers `input.message` once. Throws DkimSigningError for a key that cannot sign and
 * RelayUrlError for a relay URL it cannot use; every other failure is an outcome.
 */
export async function deliver(input: DeliveryInput): Promise<DeliveryResult> {
  assert(input.recipients.length > 0 && input.recipients.length <= recipientsPerDeliveryMax, `1 to ${recipientsPerDeliveryMax} recipients per delivery`);
  assert(input.envelopeFrom === "" || domainOf(input.envelopeFrom) !== null, "the envelope sender must be an address or empty");
  const started = Date.now();
  const results = new Map<string, RecipientResult>();
  const settle = (result: RecipientResult) => results.set(result.recipient, result);

  const valid = input.recipients.filter((recipient) => {
    const domain = domainOf(recipient);
    if (domain && isValidDomainName(domain)) return true;
    settle({ recipient, outcome: "bounced", code: null, enhancedCode: null, text: "not a deliverable address", mxHost: null, reason: "invalid_address" });
    return false;
  });
  const domains = new Set(valid.map((recipient) => domainOf(recipient) ?? ""));
  assert(input.route.mode === "relay" || domains.size <= 1, "direct delivery takes the recipients of one domain");

  const relayCredentials = input.route.mode === "relay" ? parseRelayUrl(input.route.url).credentials : null;
  const conversation = { current: new SmtpConversation() };
  const recorder = new TranscriptRecorder(relayCredentials ? [relayCredentials.user, relayCredentials.pass] : [], {
    onClientLine: (line) => conversation.current.onClientLine(line),
    onServerReply: (reply) => conversation.current.onServerReply(reply),
  });
  let hops: HopsOutcome = { decided: [], hostsTried: [], answeredBy: null, tlsProtocol: null };
  if (valid.length) {
    const message = await signMessage(input.message, input.dkim);
    const [domain = ""] = domains;
    const plan = await planRoute(input.route, domain);
    if (plan.ok) hops = await tryHops(input, plan, valid, message, recorder, conversation);
    else {
      recorder.event(plan.text);
      for (const recipient of valid) {
        settle({ recipient, outcome: plan.permanent ? "bounced" : "deferred", code: null, enhancedCode: null, text: plan.text, mxHost: null, reason: plan.failure });
      }
    }
  }
  for (const result of hops.decided) settle(result);

  return {
    recipients: input.recipients.map((recipient) => results.get(recipient)!),
    transcript: recorder.finish(),
    startedAt: new Date(started).toISOString(),
    durationMs: Date.now() - started,
    tls: hops.tlsProtocol !== null,
    tlsProtocol: hops.tlsProtocol,
    answeredBy: hops.answeredBy,
    hostsTried: hops.hostsTried,
  };
}
