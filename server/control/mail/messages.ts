// The control plane's three messages, each as html and text. Names (a user's, an
// organisation's) are whatever their owner typed: escaped in html, and flattened to one line in
// the subject and the text, so a name can neither add markup nor forge a line of its own.
import { dayMs, hourMs, minuteMs } from "../../clock.ts";
import type { OutgoingMail } from "./outgoing-mail.ts";

/** Link and token of an issued email token (`id` is its row's id). */
export interface IssuedToken {
  id: string;
  secret: string;
  link: string;
  /** How long the link works. */
  ttlMs: number;
}

// Line breaks and other control characters (those the mail API refuses in a header), as spaces.
const controlCharacters = /[\u0000-\u001f\u007f\u0085\u2028\u2029]+/g;
const oneLine = (value: string): string => value.replace(controlCharacters, " ").trim();

const htmlEntities: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
export const escapeHtml = (value: string): string => value.replace(/[&<>"']/g, (char) => htmlEntities[char]!);

export function describeTtl(ms: number): string {
  if (ms >= 2 * dayMs) return `${Math.round(ms / dayMs)} days`;
  if (ms > hourMs) return `${Math.round(ms / hourMs)} hours`;
  return ms === hourMs ? "an hour" : `${Math.round(ms / minuteMs)} minutes`;
}

interface Body {
  greeting: string;
  lines: string[];
  action: string;
  after: string;
}

// `body`'s strings are plain text; this is the only place they become html.
function render(token: IssuedToken, body: Body): { html: string; text: string } {
  const paragraphs = body.lines.map((line) => `<p>${escapeHtml(line)}</p>`).join("\n");
  const html = [
    "<!doctype html>",
    '<html><body style="font-family: sans-serif; line-height: 1.5">',
    `<p>${escapeHtml(body.greeting)}</p>`,
    paragraphs,
    `<p><a href="${escapeHtml(token.link)}">${escapeHtml(body.action)}</a></p>`,
    `<p>${escapeHtml(body.after)}</p>`,
    "</body></html>",
  ].join("\n");
  const text = [body.greeting, "", ...body.lines, "", `${body.action}: ${token.link}`, "", body.after, ""].join("\n");
  return { html, text };
}

const base = (kind: OutgoingMail["kind"], to: string, subject: string, token: IssuedToken) => ({
  id: token.id,
  to,
  kind,
  subject: oneLine(subject),
  link: token.link,
  token: token.secret,
});

export function verifyEmailMail(user: { email: string; name: string }, token: IssuedToken): OutgoingMail {
  return {
    ...base("verify_email", user.email, "Confirm your email address", token),
    ...render(token, {
      greeting: `Hello ${oneLine(user.name)},`,
      lines: ["Please confirm that this is your email address."],
      action: "Confirm my email address",
      after: `The link works once and expires in ${describeTtl(token.ttlMs)}. If you did not sign up, ignore this email.`,
    }),
  };
}

export function passwordResetMail(user: { email: string; name: string }, token: IssuedToken): OutgoingMail {
  return {
    ...base("password_reset", user.email, "Reset your password", token),
    ...render(token, {
      greeting: `Hello ${oneLine(user.name)},`,
      lines: ["Someone asked to reset the password of your account."],
      action: "Choose a new password",
      after: `The link works once and expires in ${describeTtl(token.ttlMs)}. If you did not ask, ignore this email: your password stays as it is.`,
    }),
  };
}

export function invitationMail(to: string, invitation: { orgName: string; inviterName: string }, token: IssuedToken): OutgoingMail {
  const orgName = oneLine(invitation.orgName);
  return {
    ...base("invitation", to, `You are invited to ${orgName}`, token),
    ...render(token, {
      greeting: "Hello,",
      lines: [`${oneLine(invitation.inviterName)} invites you to join the organisation ${orgName}.`],
      action: "Accept the invitation",
      after: `The link works once and expires in ${describeTtl(token.ttlMs)}. If you do not know the sender, ignore this email.`,
    }),
  };
}
