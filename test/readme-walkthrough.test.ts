// README.md's walkthrough, from "From sign-up to a first region token" through "Queries", runs
// as written with curl and jq against a started service (only `B` points at its port), in one
// shell, in order: every command answers what the README says.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startTestService, type TestService } from "./helpers/service.ts";
import { ensureDebianPackage } from "./helpers/debian-package.ts";
import { isoPattern, uuidPattern } from "./helpers/client.ts";

const walkthroughFrom = "## From sign-up to a first region token";
const utcDay = (instant: number) => new Date(instant).toISOString().slice(0, 10);
const walkthroughTo = "### Ingest decisions where the spec is silent";
const blockEnd = "--- end of block ---";

let service: TestService;
let shellDir: string;

beforeAll(async () => {
  ensureDebianPackage("curl", "/usr/bin/curl", "The README walkthrough test");
  ensureDebianPackage("jq", "/usr/bin/jq", "The README walkthrough test");
  service = await startTestService();
  shellDir = mkdtempSync(join(tmpdir(), "readme-walkthrough-"));
});
afterAll(async () => {
  await service.close();
  rmSync(shellDir, { recursive: true, force: true });
});

/** The walkthrough's shell blocks, in order. */
function walkthroughBlocks(): string[] {
  const readme = readFileSync(join(import.meta.dir, "..", "README.md"), "utf8");
  const section = readme.slice(readme.indexOf(walkthroughFrom), readme.indexOf(walkthroughTo));
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1]!);
}

test("the README walkthrough works as written: sign-up, project, token, region token, ingest, flags, persons, query, SQL", async () => {
  const blocks = walkthroughBlocks();
  expect(blocks[0]!.startsWith("B=http://localhost:8000\n")).toBe(true);
  const script = blocks.map((block) => `${block}\necho '${blockEnd}'\n`).join("").replace("B=http://localhost:8000\n", `B=${service.url}\n`);
  writeFileSync(join(shellDir, "walkthrough.sh"), script);
  // Each answer on a line of its own (curl's defaults only: the commands are as written).
  writeFileSync(join(shellDir, ".curlrc"), 'write-out = "\\n"\n');
  const shell = Bun.spawn(["bash", "-u", "walkthrough.sh"], { cwd: shellDir, env: { ...process.env, CURL_HOME: shellDir }, stdout: "pipe", stderr: "pipe" });
  const [output, errors, code] = await Promise.all([new Response(shell.stdout).text(), new Response(shell.stderr).text(), shell.exited]);
  expect([code, errors]).toEqual([0, ""]);
  const answers = output.split(`${blockEnd}\n`).map((block) => block.split("\n").filter(Boolean).map((line) => JSON.parse(line)));
  const scopes = ["projects:read", "query:read", "persons:read", "sql.raw"];
  const user = { id: expect.stringMatching(uuidPattern), email: "ann@example.com", name: "Ann", email_verified: false, created_at: expect.stringMatching(isoPattern) };
  const org = { id: expect.stringMatching(uuidPattern), name: "Ann's organisation", slug: "ann-s-organisation", role: "owner", created_at: expect.stringMatching(isoPattern) };
  expect(answers).toEqual([
    [
      { user, orgs: [org] },
      {
        token: {
          id: expect.stringMatching(uuidPattern), name: "cli", org_id: org.id, prefix: expect.stringMatching(/^svc_pat_/), scopes, project_ids: null,
          created_at: expect.stringMatching(isoPattern), expires_at: null, last_used_at: expect.stringMatching(isoPattern), revoked_at: null,
        },
        user,
        org,
        scopes,
      },
      {
        project_id: expect.stringMatching(uuidPattern), data_id: 1, environment: "production", scopes: ["query:read", "persons:read", "sql.raw"], region: "eu",
        expires_at: expect.stringMatching(isoPattern),
      },
    ],
    [{ accepted: 1, rejected: [], quota_limited: [] }],
    [
      { accepted: 0, rejected: [{ uuid: "019a5e2c-8b1f-7cc0-9d2e-5a1b3c4d5e70", reason: "invalid", message: "distinct_id looks like an email address; use a user id" }], quota_limited: [] },
      {
        from: utcDay(Date.now() - 6 * 86_400_000),
        to: utcDay(Date.now()),
        results: [{
          reason: "invalid", message: "distinct_id looks like an email address; use a user id", count: 1,
          first_seen: expect.stringMatching(isoPattern), last_seen: expect.stringMatching(isoPattern),
          example: expect.stringMatching(/^\{"uuid":"019a5e2c-8b1f-7cc0-9d2e-5a1b3c4d5e70","event":"signed_up","timestamp":"[^"]+","distinct_id":"\[masked\]","properties":\{\},"lib":\{"name":"curl","version":"1"\}\}$/),
          days: [{ day: utcDay(Date.now()), count: 1 }],
        }],
      },
    ],
    [{ flags: { "new-checkout": { enabled: true, variant: null, payload: null, reason: { code: "condition_match", condition_index: 0, description: "Matched condition set 1" } } } }],
    [{
      results: [{ id: expect.stringMatching(uuidPattern), distinct_ids: ["user-42"], properties: {}, created_at: expect.stringMatching(isoPattern), is_identified: false, version: 0 }],
      next_cursor: null,
    }],
    [{
      result: {
        kind: "trends", interval: "day", time_zone: "UTC", buckets: expect.any(Array),
        rows: [{ series: 0, event: "signed_up", math: "total", values: expect.any(Array), total: 1 }],
      },
      cached: false, computed_at: expect.stringMatching(isoPattern), rows_read: 1,
    }],
    [{ columns: ["event", "events"], types: ["VARCHAR", "BIGINT"], rows: [["signed_up", 1]], truncated: false }],
    [],
  ]);
});
