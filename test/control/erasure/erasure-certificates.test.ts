// Erasure certificates (docs/erasure.md, "The certificate"): what a completed request's
// certificate says (hashes, never identifiers), that it verifies offline with the published
// JWKS (docs/erasure.md's own snippet, run as written) and through the verify route, that a
// changed payload byte, a changed signature, another key or garbage does not, and that the
// signing keys outlive a restart and a rotation (retired keys stay published).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CompactSign, generateKeyPair } from "jose";
import { dayMs } from "../../../server/clock.ts";
import { ErasureKeyRing, erasureKeyLifetimeDays, erasureKeysFile } from "../../../server/control/erasure/erasure-keys.ts";
import { certificateType, signCertificate, verifyCertificate, type ErasureCertificatePayload } from "../../../server/control/erasure/erasure-certificate.ts";
import { startTestService, type TestService } from "../../helpers/service.ts";
import { call, isoPattern } from "../../helpers/client.ts";
import { v1 } from "../../helpers/accounts.ts";
import { awaitErasure, erasureFixture, erasurePath, fakeReport, identifierHashes, isEnded, removedCounts, replaceErase, type ErasureFixture } from "./fixture.ts";

let service: TestService;
let fixture: ErasureFixture;
let requestId: string;
let certificate: string;
let payload: ErasureCertificatePayload;
const personId = "0190b6f2-3c4d-7e5f-8a9b-0c1d2e3f4a5b";
const distinctId = "certified-user@example.com";

beforeAll(async () => {
  service = await startTestService();
  fixture = await erasureFixture(service);
  replaceErase(service, async (request) => fakeReport(request));
  const created = await v1(service, fixture.secret, "POST", erasurePath(fixture.projectId), { environment: "staging", persons: [{ distinct_id: distinctId }, { person_id: personId }] });
  requestId = created.body.id;
  await awaitErasure(service, fixture, requestId, isEnded);
  const reply = await v1(service, fixture.secret, "GET", `${erasurePath(fixture.projectId)}/${requestId}/certificate`);
  expect(reply.status).toBe(200);
  ({ certificate, payload } = reply.body);
});
afterAll(async () => {
  await service?.close();
});

const verify = (body: unknown) => call(service.url, "POST", "/v1/erasure-certificates/verify", { body });
const jwks = async () => {
  const reply = await call(service.url, "GET", "/v1/erasure-certificates/keys");
  expect(reply.status).toBe(200);
  return reply.body as { keys: { kid: string; kty: string; crv: string; x: string; alg: string; use: string; d?: string }[] };
};
const segments = (jws: string) => jws.split(".") as [string, string, string];
const header = (jws: string) => JSON.parse(Buffer.from(segments(jws)[0], "base64url").toString());

test("the certificate names the request, project, region, environment, hashes and counts, and no identifier", async () => {
  const created = (await v1(service, fixture.secret, "GET", `${erasurePath(fixture.projectId)}/${requestId}`)).body;
  expect(payload).toEqual({
    certificate_version: 1,
    issuer: service.url,
    request_id: requestId,
    project_id: fixture.projectId,
    data_id: fixture.dataId,
    region: "eu",
    environment: "staging",
    identifier_hashes: identifierHashes({ project_id: fixture.projectId, person_ids: [personId], distinct_ids: [distinctId] }),
    persons_erased: 2,
    removed: removedCounts,
    manifest_digest: payload.manifest_digest,
    requested_at: created.created_at,
    completed_at: payload.completed_at,
    issued_at: payload.issued_at,
  });
  expect([payload.completed_at, payload.issued_at].every((at) => isoPattern.test(at))).toBe(true);
  const { keys } = await jwks();
  expect(header(certificate)).toEqual({ alg: "EdDSA", kid: keys[0]!.kid, typ: certificateType });
  const decoded = Buffer.from(segments(certificate)[1], "base64url").toString();
  expect(decoded).toBe(JSON.stringify(payload));
  expect(decoded).not.toContain(distinctId);
  expect(decoded).not.toContain(personId);
  // The console's route answers the same certificate.
  const console = await fixture.owner.client.get(`/app/projects/${fixture.projectId}/erasure-requests/${requestId}/certificate`);
  expect([console.status, console.body]).toEqual([200, { certificate, payload }]);
});

test("the JWKS publishes public Ed25519 keys only, to any origin", async () => {
  const reply = await call(service.url, "GET", "/v1/erasure-certificates/keys");
  expect(reply.headers.get("access-control-allow-origin")).toBe("*");
  expect(reply.body.keys).toHaveLength(1);
  const [key] = reply.body.keys;
  expect(Object.keys(key).sort()).toEqual(["alg", "crv", "kid", "kty", "use", "x"]);
  expect([key.kty, key.crv, key.alg, key.use]).toEqual(["OKP", "Ed25519", "EdDSA", "sig"]);
  // Not the region-token key.
  const regionKeys = await call(service.url, "GET", "/.well-known/jwks.json");
  expect(regionKeys.body.keys.map((k: { x: string }) => k.x)).not.toContain(key.x);
});

test("the verify route says valid for the certificate, and why not for a changed payload, signature, another key or garbage", async () => {
  const { keys } = await jwks();
  expect((await verify({ certificate })).body).toEqual({ valid: true, kid: keys[0]!.kid, payload });
  expect((await verify({ certificate })).status).toBe(200);

  const [head, body, signature] = segments(certificate);
  const changedPayload = Buffer.from(JSON.stringify({ ...payload, persons_erased: 1 })).toString("base64url");
  const flippedByte = Buffer.from(body, "base64url");
  flippedByte[10] = flippedByte[10]! ^ 0x01;
  const changedSignature = Buffer.from(signature, "base64url");
  changedSignature[0] = changedSignature[0]! ^ 0xff;
  const other = await generateKeyPair("EdDSA", { crv: "Ed25519" });
  const bytes = new TextEncoder().encode(JSON.stringify(payload));
  const sameKidOtherKey = await new CompactSign(bytes).setProtectedHeader({ alg: "EdDSA", kid: keys[0]!.kid, typ: certificateType }).sign(other.privateKey);
  const unknownKid = await new CompactSign(bytes).setProtectedHeader({ alg: "EdDSA", kid: "someone-else", typ: certificateType }).sign(other.privateKey);
  const cases: [string, string, string][] = [
    ["a payload field changed", `${head}.${changedPayload}.${signature}`, "bad_signature"],
    ["a payload byte flipped", `${head}.${flippedByte.toString("base64url")}.${signature}`, "bad_signature"],
    ["a signature byte changed", `${head}.${body}.${changedSignature.toString("base64url")}`, "bad_signature"],
    ["signed by another key under our kid", sameKidOtherKey, "bad_signature"],
    ["signed by a key we never published", unknownKid, "unknown_key"],
    ["not a JWS", "certificate", "malformed"],
    ["a JWS without a signature", `${head}.${body}.`, "bad_signature"],
    ["a JWS without a kid", `${Buffer.from(JSON.stringify({ alg: "EdDSA", typ: certificateType })).toString("base64url")}.${body}.${signature}`, "malformed"],
  ];
  for (const [what, tampered, reason] of cases) {
    const reply = await verify({ certificate: tampered });
    expect([what, reply.status, reply.body.valid, reply.body.reason, typeof reply.body.message]).toEqual([what, 200, false, reason, "string"]);
    expect(reply.body.payload).toBeUndefined();
  }
});

test("the verify route refuses a body without a certificate with 400", async () => {
  for (const [body, message] of [
    [{}, "body /certificate: Expected required property"],
    [{ certificate: "" }, "body /certificate: Expected string length greater or equal to 1"],
    [{ certificate: 7 }, "body /certificate: Expected string"],
    [{ certificate: "x".repeat(60_001) }, "body /certificate: Expected string length less or equal to 60000"],
  ] as const) {
    const reply = await verify(body);
    expect([reply.status, reply.body]).toEqual([400, { error: { code: "validation", message } }]);
  }
});

test("docs/erasure.md's verification snippet, run as written, accepts the certificate offline and rejects a changed one", async () => {
  const docs = readFileSync(join(import.meta.dir, "../../../docs/erasure.md"), "utf8");
  const snippet = docs.match(/<!-- verify-snippet -->\n```ts\n([\s\S]*?)```/)![1]!;
  expect(snippet.trim().split("\n").length).toBeLessThanOrEqual(10);
  const dir = mkdtempSync(join(tmpdir(), "erasure-snippet-"));
  try {
    writeFileSync(join(dir, "verify-certificate.ts"), snippet);
    writeFileSync(join(dir, "erasure-keys.json"), JSON.stringify(await jwks()));
    writeFileSync(join(dir, "certificate.jws"), certificate);
    const [head, , signature] = segments(certificate);
    writeFileSync(join(dir, "changed.jws"), `${head}.${Buffer.from(JSON.stringify({ ...payload, persons_erased: 0 })).toString("base64url")}.${signature}`);
    // In a directory of its own where `jose` resolves, as in the reader's project.
    symlinkSync(join(import.meta.dir, "../../../node_modules"), join(dir, "node_modules"));
    const run = (file: string) => Bun.spawnSync([process.execPath, "verify-certificate.ts", "erasure-keys.json", file], { cwd: dir });
    const valid = run("certificate.jws");
    expect([valid.exitCode, valid.stdout.toString().trim()]).toEqual([0, `valid: request ${requestId}, 2 identifiers, completed ${payload.completed_at}`]);
    const changed = run("changed.jws");
    expect(changed.exitCode).not.toBe(0);
    expect(changed.stderr.toString()).toContain("signature verification failed");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("the signing key survives a restart: the certificate still verifies, with the same key published", async () => {
  const before = await jwks();
  service = await service.restart();
  expect(await jwks()).toEqual(before);
  expect((await verify({ certificate })).body.valid).toBe(true);
  const mode = Bun.spawnSync(["stat", "-c", "%a", join(service.dataDir, erasureKeysFile)]).stdout.toString().trim();
  expect(mode).toBe("600");
});

test("after its lifetime a key is replaced; the retired one stays published and its certificates still verify", async () => {
  const dir = mkdtempSync(join(tmpdir(), "erasure-keys-"));
  try {
    const path = join(dir, erasureKeysFile);
    const longAgo = Date.now() - (erasureKeyLifetimeDays + 1) * dayMs;
    const old = await ErasureKeyRing.loadOrCreate(path, longAgo);
    const oldCertificate = await signCertificate(old, payload, longAgo);
    const [oldKey] = old.jwks().keys;
    const ring = await ErasureKeyRing.loadOrCreate(path);
    const published = ring.jwks().keys;
    expect(published.map((key) => key.kid)).toEqual([published[0]!.kid, oldKey!.kid]);
    expect(published[0]!.kid).not.toBe(oldKey!.kid);
    expect(header(await signCertificate(ring, payload)).kid).toBe(published[0]!.kid);
    expect(await verifyCertificate(ring, oldCertificate)).toEqual({ valid: true, kid: oldKey!.kid!, payload });
    // Kept on disk: a later start publishes both.
    expect((await ErasureKeyRing.loadOrCreate(path)).jwks()).toEqual(ring.jwks());
    expect(published.every((key) => !("d" in key))).toBe(true);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
