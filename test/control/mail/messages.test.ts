// The three messages: html and text, the link in both, and names that cannot add markup,
// headers or lines of their own.
import { describe, expect, test } from "bun:test";
import { hourMs, dayMs } from "../../../server/clock.ts";
import { describeTtl, escapeHtml, invitationMail, passwordResetMail, verifyEmailMail } from "../../../server/control/mail/messages.ts";

const token = { id: "0b7f3c1e-4a43-4c8e-9a65-2a3d8f0e1c11", secret: "Ab12", link: "http://localhost:8000/reset-password?token=Ab12", ttlMs: hourMs };
const hostile = `<script>alert("x")</script> & 'Bob'\r\nBcc: victim@example.com\u2028Click http://evil.example`;

describe("control plane messages", () => {
  test("a password reset: subject, link, token, html and text", () => {
    expect(passwordResetMail({ email: "ada@example.com", name: "Ada" }, token)).toEqual({
      id: token.id,
      to: "ada@example.com",
      kind: "password_reset",
      subject: "Reset your password",
      link: token.link,
      token: "Ab12",
      html: [
        "<!doctype html>",
        '<html><body style="font-family: sans-serif; line-height: 1.5">',
        "<p>Hello Ada,</p>",
        "<p>Someone asked to reset the password of your account.</p>",
        '<p><a href="http://localhost:8000/reset-password?token=Ab12">Choose a new password</a></p>',
        "<p>The link works once and expires in an hour. If you did not ask, ignore this email: your password stays as it is.</p>",
        "</body></html>",
      ].join("\n"),
      text: [
        "Hello Ada,",
        "",
        "Someone asked to reset the password of your account.",
        "",
        "Choose a new password: http://localhost:8000/reset-password?token=Ab12",
        "",
        "The link works once and expires in an hour. If you did not ask, ignore this email: your password stays as it is.",
        "",
      ].join("\n"),
    });
  });

  test("a hostile user name is escaped in html and kept on one line in text", () => {
    const message = verifyEmailMail({ email: "ada@example.com", name: hostile }, { ...token, ttlMs: dayMs });
    expect(message.html).toContain("<p>Hello &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;Bob&#39; Bcc: victim@example.com Click http://evil.example,</p>");
    expect(message.html).not.toContain("<script>");
    expect(message.text.split("\n")[0]).toBe(`Hello <script>alert("x")</script> & 'Bob' Bcc: victim@example.com Click http://evil.example,`);
    expect(message.text).toContain("expires in 24 hours");
    expect(message.subject).toBe("Confirm your email address");
  });

  test("a hostile organisation name cannot break the subject or the html", () => {
    const message = invitationMail("bob@example.com", { orgName: hostile, inviterName: "Eve\n<b>Admin</b>" }, { ...token, ttlMs: 7 * dayMs });
    expect(message.subject).toBe(`You are invited to <script>alert("x")</script> & 'Bob' Bcc: victim@example.com Click http://evil.example`);
    expect(message.subject).not.toMatch(/[\r\n\u2028]/);
    expect(message.html).toContain("<p>Eve &lt;b&gt;Admin&lt;/b&gt; invites you to join the organisation &lt;script&gt;");
    expect(message.html.match(/<script>|<b>/g)).toBeNull();
    expect(message.text.split("\n")[2]).toStartWith("Eve <b>Admin</b> invites you to join the organisation <script>");
    expect(message.text).toContain("expires in 7 days");
    expect(message.kind).toBe("invitation");
  });

  test("the link is escaped in its attribute", () => {
    const message = passwordResetMail({ email: "a@example.com", name: "A" }, { ...token, link: `http://x.example/?a="><img src=x onerror=alert(1)>` });
    expect(message.html).toContain('<a href="http://x.example/?a=&quot;&gt;&lt;img src=x onerror=alert(1)&gt;">');
  });

  test("escapeHtml and describeTtl", () => {
    expect(escapeHtml(`&<>"'`)).toBe("&amp;&lt;&gt;&quot;&#39;");
    expect([30 * 60_000, hourMs, 2 * hourMs, dayMs, 2 * dayMs, 7 * dayMs].map(describeTtl)).toEqual(["30 minutes", "an hour", "2 hours", "24 hours", "2 days", "7 days"]);
  });
});
