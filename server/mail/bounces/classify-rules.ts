/**
 * The tables behind `classifySmtpAnswer`: what each bounce class means to a person, which RFC 3463
 * enhanced status codes name a class outright, and which phrases of the big providers' answers do.
 */

export const bounceClasses = [
  "unknown_mailbox",
  "mailbox_disabled",
  "domain_not_found",
  "mailbox_full",
  "message_too_large",
  "blocked_as_spam",
  "policy",
  "rate_limited",
  "temporary_server_error",
  "connection_failed",
  "other_permanent",
  "other_temporary",
] as const;

export type BounceClass = (typeof bounceClasses)[number];

/** The one-line explanation each class starts its `reason` with. */
export const bounceClassExplanations: Record<BounceClass, string> = {
  unknown_mailbox: "The recipient's mail server says this mailbox does not exist",
  mailbox_disabled: "The recipient's mailbox exists but is disabled or no longer in use",
  domain_not_found: "The recipient's domain does not exist or does not accept mail",
  mailbox_full: "The recipient's mailbox is full",
  message_too_large: "The message is larger than the recipient's server accepts",
  blocked_as_spam: "The recipient's server refused the message as spam or our sending IP as listed",
  policy: "The recipient's server refused the message by policy (authentication, DMARC, SPF or access rules)",
  rate_limited: "The recipient's server is limiting how many connections or messages we send",
  temporary_server_error: "The recipient's server had a temporary problem",
  connection_failed: "No SMTP answer: the recipient's mail servers could not be reached",
  other_permanent: "The recipient's server refused the message permanently",
  other_temporary: "The recipient's server deferred the message",
};

/** Hard bounces of these classes put the address on the suppression list: it will never work. */
export const suppressingClasses: ReadonlySet<BounceClass> = new Set([
  "unknown_mailbox",
  "mailbox_disabled",
  "domain_not_found",
]);

/**
 * Classes that are soft whatever the reply code says. Providers answer `552 5.2.2` for a full
 * mailbox although a mailbox empties again: we retry it like a 4xx and the delivery's retry
 * schedule, not this answer, decides when to give up.
 */
export const alwaysSoftClasses: ReadonlySet<BounceClass> = new Set(["mailbox_full"]);

/**
 * Enhanced codes, keyed `subject.detail`, that name their class whatever the text says. Codes that
 * providers use loosely (X.0.0, X.5.0, X.7.1, and X.4.1, which Microsoft answers for an unknown
 * recipient) are left out on purpose: for those the text decides, then the fallbacks below.
 */
export const definitiveEnhancedCodes: Readonly<Record<string, BounceClass>> = {
  "1.1": "unknown_mailbox", // bad destination mailbox address
  "1.2": "domain_not_found", // bad destination system address
  "1.3": "unknown_mailbox", // bad destination mailbox address syntax: can never be delivered
  "1.6": "mailbox_disabled", // destination mailbox has moved, no forwarding address
  "2.1": "mailbox_disabled", // mailbox disabled, not accepting messages
  "2.2": "mailbox_full", // mailbox full
  "2.3": "message_too_large", // message length exceeds administrative limit
  "3.4": "message_too_large", // message too big for system
  "5.3": "rate_limited", // too many recipients
  "7.20": "policy", // no passing DKIM signature (RFC 7372)
  "7.21": "policy", // no acceptable DKIM signature
  "7.22": "policy", // no valid author-matched DKIM signature
  "7.23": "policy", // SPF validation failed
  "7.24": "policy", // SPF validation error
  "7.25": "policy", // reverse DNS validation failed
  "7.26": "policy", // multiple authentication checks failed (Gmail: unauthenticated sender)
  "7.27": "policy", // sender address has null MX
};

/** When neither the exact code nor the text decide: the class by the code's subject (RFC 3463). */
export const enhancedSubjectFallbacks: Readonly<Record<string, { temporary: BounceClass; permanent: BounceClass }>> = {
  "1": { temporary: "other_temporary", permanent: "other_permanent" }, // addressing
  "2": { temporary: "other_temporary", permanent: "other_permanent" }, // mailbox
  "3": { temporary: "temporary_server_error", permanent: "other_permanent" }, // mail system
  "4": { temporary: "connection_failed", permanent: "other_permanent" }, // network and routing
  "5": { temporary: "other_temporary", permanent: "other_permanent" }, // mail delivery protocol
  "6": { temporary: "other_temporary", permanent: "other_permanent" }, // content or media
  "7": { temporary: "policy", permanent: "policy" }, // security or policy
};

/** Exact codes whose fallback differs from their subject's. */
export const enhancedCodeFallbacks: Readonly<Record<string, { temporary: BounceClass; permanent: BounceClass }>> = {
  // RFC 7505 made X.1.10 "recipient address has null MX", but Microsoft answers 5.1.10 for an
  // unknown recipient ("RESOLVER.ADR.RecipientNotFound"): the text tells them apart.
  "1.10": { temporary: "other_temporary", permanent: "domain_not_found" },
  // Postfix answers 5.4.4 "Host or domain name not found"; as a 4.4.4 it is a DNS hiccup.
  "4.4": { temporary: "connection_failed", permanent: "domain_not_found" },
  "4.5": { temporary: "temporary_server_error", permanent: "other_permanent" }, // system congestion
};

/** When there is no usable enhanced code and no phrase matched: the class by reply code. */
export const replyCodeFallbacks: Readonly<Record<number, BounceClass>> = {
  421: "temporary_server_error", // service not available, closing channel
  451: "temporary_server_error", // local error in processing
  452: "temporary_server_error", // insufficient system storage
  552: "mailbox_full", // RFC 5321: exceeded storage allocation
};

export interface TextRule {
  class: BounceClass;
  pattern: RegExp;
  /** Only for answers of this permanence (a "try again later" under a 5xx says nothing). */
  only?: "temporary" | "permanent";
}

/**
 * Phrases of real provider answers, first match wins, so the order matters: a full mailbox or a
 * size limit is named before anything else, rate limits before spam (Gmail's 421 4.7.28 says
 * "rate limited" and "unsolicited" at once), the sender's problems before the recipient's (a
 * "sender domain does not exist" must not suppress the recipient), the domain before the mailbox.
 * Patterns avoid nested quantifiers and run on bounded text.
 */
export const textRules: readonly TextRule[] = [
  {
    class: "mailbox_full",
    pattern:
      /mailbox (?:is )?full|mailbox size limit|over ?quota|quota (?:exceeded|exceeds|full)|exceeded (?:the )?(?:storage|quota)|storage allocation|insufficient storage|mail ?(?:box|folder) (?:is )?over|out of storage|disk quota/i,
  },
  {
    class: "message_too_large",
    pattern:
      /message (?:is )?too (?:big|large)|message size exceeds|exceeds? (?:the )?(?:maximum |fixed )?(?:allowed )?(?:message )?size|size limits?|message length exceeds|too large/i,
  },
  {
    class: "rate_limited",
    pattern:
      /too many (?:connections|concurrent|sessions|messages|mails|emails|recipients|errors|invalid)|rate[ -]?limit|throttl|connection limit|sending rate|unusual rate|unexpected volume|receiving mail at a rate|exceeded (?:the )?(?:message |sending )?rate/i,
  },
  {
    class: "blocked_as_spam",
    pattern:
      /spam|\brbl\b|\bdnsbl\b|blocked using|block ?list|black ?list|blacklisted|spamhaus|spamcop|barracuda|sorbs|listed (?:at|on|in|by)|ip reputation|poor reputation|reputation of|unsolicited|bulk mail|junk|phish|malware|virus|banned sending ip|content (?:rejected|filter)|suspicious/i,
  },
  {
    class: "policy",
    pattern:
      /sender (?:address |domain )?(?:rejected|unknown|not found|does not exist|denied|verify failed)|sender verification|unverified sender|from address|dmarc|\bspf\b|\bdkim\b|unauthenticated|authenticat|reverse dns|\bptr\b|relay(?:ing)? (?:access )?(?:denied|not permitted)|not permitted to relay/i,
  },
  {
    class: "domain_not_found",
    pattern:
      /domain (?:name )?not found|host (?:or domain name )?not found|name service error|no mx|\bnxdomain\b|domain (?:does not|doesn't) exist|no such domain|unknown domain|unrouteable|unroutable|null mx|non-existent hosts?/i,
  },
  {
    class: "mailbox_disabled",
    pattern:
      /disabled|deactivated|inactive (?:user|account|mailbox)|account (?:is |has been )?(?:closed|suspended|locked|inactive)|mailbox (?:is |has been )?(?:closed|suspended|moved|inactive)|no longer (?:active|in use|available|exists)/i,
  },
  {
    class: "unknown_mailbox",
    pattern:
      /does not exist|doesn't exist|no such (?:user|mailbox|recipient|address|account|person)|user unknown|unknown user|unknown (?:recipient|mailbox|local part|address)|recipient unknown|mailbox unavailable|mailbox not found|invalid (?:recipient|mailbox)|not a valid (?:mailbox|recipient|user)|user not found|recipient not found|recipientnotfound|address not found|doesn't have an? .{1,40} account|access denied\. as\(\d+\)|not our customer|no mailbox here|user doesn't have/i,
  },
  {
    class: "policy",
    pattern: /polic(?:y|ies)|not authori[sz]ed|access denied|refused|prohibited|not allowed|administrative/i,
  },
  { class: "other_temporary", pattern: /gr[ea]y ?-?list/i, only: "temporary" },
];

/**
 * Phrases too vague to overrule an enhanced code's subject ("connection timed out" under 4.4.1 is
 * a network failure, not a server error): consulted only when there is no enhanced code.
 */
export const vagueTextRules: readonly TextRule[] = [
  {
    class: "temporary_server_error",
    pattern:
      /temporar|try again|try later|local (?:error|problem)|server (?:busy|error)|service (?:not available|unavailable|temporarily)|insufficient (?:system )?resources|internal error|timed? ?out|closing (?:transmission )?channel/i,
    only: "temporary",
  },
];

/** Classes a security/policy enhanced code (X.7.X) may take: the address is never blamed for one. */
export const policySubjectClasses: ReadonlySet<BounceClass> = new Set(["blocked_as_spam", "rate_limited", "policy"]);
