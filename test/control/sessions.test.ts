// Console sessions: listing, revoking one, revoke-others, logout and change-password
// (spec 1: "Console API: accounts and sessions", "States and transitions", Authentication).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestService, type TestService } from "../helpers/service.ts";
import { ConsoleClient, call, isoPattern, uuidPattern, type Reply } from "../helpers/client.ts";
import { signUp, strongPassword, type SignedUpUser } from "../helpers/accounts.ts";

const challenge = 'Bearer realm="svc-analytics"';

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(async () => {
  await service.close();
});

const errorBody = (code: string, message: unknown = expect.any(String)) => ({ error: { code, message } });
const withCookie = (cookie: string) => ({ headers: { cookie } });

async function login(user: SignedUpUser, userAgent: string, password = strongPassword): Promise<ConsoleClient> {
  const client = new ConsoleClient(service.url, userAgent);
  const reply = await client.post("/app/auth/login", { email: user.email, password });
  expect(reply.status).toBe(200);
  expect(client.cookie).not.toBeNull();
  return client;
}

async function sessionsOf(client: ConsoleClient): Promise<any[]> {
  const reply = await client.get("/app/auth/sessions");
  expect(reply.status).toBe(200);
  expect(Object.keys(reply.body)).toEqual(["sessions"]);
  return reply.body.sessions;
}

async function currentSessionId(client: ConsoleClient): Promise<string> {
  const current = (await sessionsOf(client)).filter((session) => session.current);
  expect(current).toHaveLength(1);
  return current[0].id;
}

async function expectSignedOut(cookie: string) {
  const reply = await call(service.url, "GET", "/app/me", withCookie(cookie));
  expect(reply.status).toBe(401);
  expect(reply.body).toEqual(errorBody("unauthorized"));
  expect(reply.headers.get("www-authenticate")).toBe(challenge);
}

async function expectSignedIn(client: ConsoleClient, userId: string) {
  const reply = await client.get("/app/me");
  expect(reply.status).toBe(200);
  expect(reply.body.user.id).toBe(userId);
}

function expectUnauthorized(reply: Reply) {
  expect(reply.status).toBe(401);
  expect(reply.body).toEqual(errorBody("unauthorized"));
  expect(reply.headers.get("www-authenticate")).toBe(challenge);
}

const sessionDto = (id: string, current: boolean, userAgent: string) => ({
  id,
  current,
  created_at: expect.stringMatching(isoPattern),
  expires_at: expect.stringMatching(isoPattern),
  last_seen_at: expect.stringMatching(isoPattern),
  location: null,
  user_agent: userAgent,
});

describe("GET /app/auth/sessions", () => {
  test("lists every live session of the user with exact SessionDto fields; current only for the caller", async () => {
    const signupClient = new ConsoleClient(service.url, "signup-browser/0.1");
    const email = `sessions-${crypto.randomUUID().slice(0, 8)}@example.com`;
    const signup = await signupClient.post("/app/auth/signup", { email, name: "Two Devices", password: strongPassword });
    expect(signup.status).toBe(201);
    const user: SignedUpUser = { client: signupClient, email, userId: signup.body.user.id, orgId: signup.body.orgs[0].id };

    const firefox = await login(user, "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0");
    const curl = await login(user, "curl/8.5.0");

    const idSignup = await currentSessionId(signupClient);
    const idFirefox = await currentSessionId(firefox);
    const idCurl = await currentSessionId(curl);
    expect(new Set([idSignup, idFirefox, idCurl]).size).toBe(3);

    const listed = await sessionsOf(firefox);
    expect(listed).toHaveLength(3);
    const byId = new Map(listed.map((session) => [session.id, session]));
    expect(byId.get(idSignup)).toEqual(sessionDto(idSignup, false, "signup-browser/0.1"));
    expect(byId.get(idFirefox)).toEqual(sessionDto(idFirefox, true, firefox.userAgent));
    expect(byId.get(idCurl)).toEqual(sessionDto(idCurl, false, "curl/8.5.0"));
    for (const session of listed) {
      expect(Object.keys(session).sort()).toEqual(["created_at", "current", "expires_at", "id", "last_seen_at", "location", "user_agent"]);
      expect(session.id).toMatch(uuidPattern);
      expect(Date.parse(session.expires_at)).toBeGreaterThan(Date.parse(session.created_at));
      expect(Date.parse(session.last_seen_at)).toBeGreaterThanOrEqual(Date.parse(session.created_at));
    }

    // The same list from another session differs only in which one is current.
    const fromCurl = await sessionsOf(curl);
    expect(fromCurl).toHaveLength(3);
    for (const session of fromCurl) {
      expect(session).toEqual({ ...byId.get(session.id), current: session.id === idCurl, last_seen_at: expect.stringMatching(isoPattern) });
    }

    // Another user's sessions are not listed.
    const stranger = await signUp(service, "Stranger");
    const strangers = await sessionsOf(stranger.client);
    expect(strangers).toHaveLength(1);
    expect(strangers[0]).toEqual(sessionDto(strangers[0].id, true, stranger.client.userAgent));
    expect([idSignup, idFirefox, idCurl]).not.toContain(strangers[0].id);
  });

  test("401 without a session", async () => {
    expectUnauthorized(await call(service.url, "GET", "/app/auth/sessions"));
    expectUnauthorized(await call(service.url, "GET", "/app/auth/sessions", withCookie("svc_session=bogus")));
  });
});

describe("DELETE /app/auth/sessions/{session_id}", () => {
  test("revoking one's own other session is 204 and signs that client out; the caller stays signed in", async () => {
    const user = await signUp(service, "Revoke One");
    const laptop = await login(user, "laptop/1.0");
    const phone = await login(user, "phone/2.0");
    const phoneId = await currentSessionId(phone);
    const phoneCookie = phone.cookie!;

    const reply = await laptop.delete(`/app/auth/sessions/${phoneId}`);
    expect(reply.status).toBe(204);
    expect(reply.body).toBeUndefined();
    // Revoking another session does not touch the caller's cookie.
    expect(reply.headers.get("set-cookie")).toBeNull();

    await expectSignedOut(phoneCookie);
    expectUnauthorized(await phone.get("/app/auth/sessions"));
    await expectSignedIn(laptop, user.userId);
    await expectSignedIn(user.client, user.userId);

    const remaining = (await sessionsOf(laptop)).map((session) => session.id);
    expect(remaining).toHaveLength(2);
    expect(remaining).not.toContain(phoneId);

    // Revoking it again: it is no longer a live session.
    const again = await laptop.delete(`/app/auth/sessions/${phoneId}`);
    expect(again.status).toBe(404);
    expect(again.body).toEqual(errorBody("not_found"));
  });

  test("revoking the current session signs the caller out", async () => {
    const user = await signUp(service, "Revoke Self");
    const oldCookie = user.client.cookie!;
    const selfId = await currentSessionId(user.client);
    const reply = await user.client.delete(`/app/auth/sessions/${selfId}`);
    expect(reply.status).toBe(204);
    await expectSignedOut(oldCookie);
  });

  test("unknown, malformed and another user's session ids are 404 and revoke nothing", async () => {
    const user = await signUp(service, "Prober");
    const other = await signUp(service, "Other Tenant");
    const otherId = await currentSessionId(other.client);

    const ids = [crypto.randomUUID(), "not-a-uuid", "12345", otherId, otherId.toUpperCase()];
    for (const id of ids) {
      const reply = await user.client.delete(`/app/auth/sessions/${id}`);
      expect({ id, status: reply.status }).toEqual({ id, status: 404 });
      expect(reply.body).toEqual(errorBody("not_found"));
    }
    await expectSignedIn(other.client, other.userId);
    await expectSignedIn(user.client, user.userId);
    expect(await sessionsOf(other.client)).toHaveLength(1);
  });

  test("401 without a session", async () => {
    const user = await signUp(service, "Anon Target");
    const id = await currentSessionId(user.client);
    expectUnauthorized(await call(service.url, "DELETE", `/app/auth/sessions/${id}`));
    await expectSignedIn(user.client, user.userId);
  });
});

describe("POST /app/auth/sessions/revoke-others", () => {
  test("200 {revoked: N} with the exact count; only the current session survives; other users are untouched", async () => {
    const user = await signUp(service, "Revoke Others");
    const others = [await login(user, "device-a/1"), await login(user, "device-b/1"), await login(user, "device-c/1")];
    const otherCookies = others.map((client) => client.cookie!);
    const bystander = await signUp(service, "Bystander");
    const keeper = await login(user, "keeper/1");
    const keeperId = await currentSessionId(keeper);

    // The signup session and the three device sessions: four others.
    const reply = await keeper.post("/app/auth/sessions/revoke-others");
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ revoked: 4 });

    for (const cookie of otherCookies) await expectSignedOut(cookie);
    expectUnauthorized(await user.client.get("/app/me"));
    await expectSignedIn(keeper, user.userId);
    const remaining = await sessionsOf(keeper);
    expect(remaining).toEqual([sessionDto(keeperId, true, "keeper/1")]);
    await expectSignedIn(bystander.client, bystander.userId);

    // Nothing left to revoke.
    const again = await keeper.post("/app/auth/sessions/revoke-others");
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ revoked: 0 });
    await expectSignedIn(keeper, user.userId);
  });

  test("401 without a session", async () => {
    expectUnauthorized(await call(service.url, "POST", "/app/auth/sessions/revoke-others"));
  });
});

describe("POST /app/auth/logout", () => {
  test("204, clears the cookie (Max-Age=0) and revokes the session; other sessions stay", async () => {
    const user = await signUp(service, "Logout");
    const other = await login(user, "other-device/1");
    const oldCookie = user.client.cookie!;
    const loggedOutId = await currentSessionId(user.client);

    const reply = await user.client.post("/app/auth/logout");
    expect(reply.status).toBe(204);
    expect(reply.body).toBeUndefined();
    const setCookie = reply.headers.get("set-cookie");
    expect(setCookie).not.toBeNull();
    const [pair, ...attributes] = setCookie!.split(";").map((part) => part.trim());
    expect(pair).toBe("svc_session=");
    expect(attributes).toContain("Max-Age=0");
    expect(attributes).toContain("Path=/");
    expect(attributes).toContain("HttpOnly");
    expect(user.client.cookie).toBeNull();

    await expectSignedOut(oldCookie);
    const againWithOld = await call(service.url, "POST", "/app/auth/logout", withCookie(oldCookie));
    expectUnauthorized(againWithOld);

    await expectSignedIn(other, user.userId);
    const remaining = (await sessionsOf(other)).map((session) => session.id);
    expect(remaining).toHaveLength(1);
    expect(remaining).not.toContain(loggedOutId);
  });

  test("401 without a session", async () => {
    expectUnauthorized(await call(service.url, "POST", "/app/auth/logout"));
  });
});

describe("POST /app/auth/change-password", () => {
  const newPassword = "granite-lantern-58-softly";

  test("wrong current password is 401 invalid_credentials and changes nothing", async () => {
    const user = await signUp(service, "Wrong Current");
    const other = await login(user, "other/1");
    const reply = await user.client.post("/app/auth/change-password", { current_password: "not-my-password-1", new_password: newPassword });
    expect(reply.status).toBe(401);
    expect(reply.body).toEqual(errorBody("invalid_credentials"));
    await expectSignedIn(user.client, user.userId);
    await expectSignedIn(other, user.userId);
    // The old password still works, the proposed one does not.
    await login(user, "check/1", strongPassword);
    const attempt = await new ConsoleClient(service.url).post("/app/auth/login", { email: user.email, password: newPassword });
    expect(attempt.status).toBe(401);
  });

  test("a 401 from change-password carries WWW-Authenticate (Authentication 8: a 401 carries the challenge)", async () => {
    const user = await signUp(service, "Challenge Current");
    const reply = await user.client.post("/app/auth/change-password", { current_password: "not-my-password-2", new_password: newPassword });
    expect(reply.status).toBe(401);
    expect(reply.headers.get("www-authenticate")).toBe(challenge);
  });

  test("after 5 wrong current passwords the 6th attempt is 429 with Retry-After, even with the right one", async () => {
    const user = await signUp(service, "Guessing Session");
    for (let attempt = 1; attempt <= 5; attempt++) {
      const reply = await user.client.post("/app/auth/change-password", { current_password: `guess-number-${attempt}`, new_password: newPassword });
      expect({ attempt, status: reply.status }).toEqual({ attempt, status: 401 });
      expect(reply.body).toEqual(errorBody("invalid_credentials"));
    }
    const sixth = await user.client.post("/app/auth/change-password", { current_password: strongPassword, new_password: newPassword });
    expect(sixth.status).toBe(429);
    expect(sixth.body).toEqual(errorBody("rate_limited"));
    expect(sixth.headers.get("retry-after")).toMatch(/^[1-9]\d*$/);
    // The password did not change and the session still works.
    await expectSignedIn(user.client, user.userId);
  });

  test("a weak new password is 400 validation and changes nothing", async () => {
    const user = await signUp(service, "Weak New");
    const other = await login(user, "other/2");
    for (const weak of ["short-pw2", "1234567890", "Password123"]) {
      const reply = await user.client.post("/app/auth/change-password", { current_password: strongPassword, new_password: weak });
      expect({ weak, status: reply.status }).toEqual({ weak, status: 400 });
      expect(reply.body).toEqual(errorBody("validation"));
    }
    const malformed = await user.client.post("/app/auth/change-password", { new_password: newPassword });
    expect(malformed.status).toBe(400);
    expect(malformed.body).toEqual(errorBody("validation"));
    await expectSignedIn(other, user.userId);
    await login(user, "check/2", strongPassword);
  });

  test("success is 204: other sessions are signed out, the current one stays, the new password logs in", async () => {
    const user = await signUp(service, "Changer");
    const others = [await login(user, "other/3"), await login(user, "other/4")];
    const otherCookies = others.map((client) => client.cookie!);
    const currentId = await currentSessionId(user.client);

    const reply = await user.client.post("/app/auth/change-password", { current_password: strongPassword, new_password: newPassword });
    expect(reply.status).toBe(204);
    expect(reply.body).toBeUndefined();

    for (const cookie of otherCookies) await expectSignedOut(cookie);
    await expectSignedIn(user.client, user.userId);
    expect((await sessionsOf(user.client)).map((session) => session.id)).toEqual([currentId]);

    const oldLogin = await new ConsoleClient(service.url).post("/app/auth/login", { email: user.email, password: strongPassword });
    expect(oldLogin.status).toBe(401);
    expect(oldLogin.body).toEqual(errorBody("invalid_credentials"));
    const fresh = await login(user, "after-change/1", newPassword);
    await expectSignedIn(fresh, user.userId);
    // The fresh login did not revoke the session that changed the password.
    await expectSignedIn(user.client, user.userId);
  });

  test("401 without a session", async () => {
    expectUnauthorized(
      await call(service.url, "POST", "/app/auth/change-password", { body: { current_password: strongPassword, new_password: newPassword } }),
    );
  });
});
