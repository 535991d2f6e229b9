// Inbound mail on PostgreSQL (MAIL_DATABASE_URL): the same statements as on SQLite; an 8-bit
// message (bytes over 0x7f, kept as latin1 text) comes back byte for byte, and the list's
// optional filters bind as PostgreSQL needs them typed.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTestMailOnPostgres, type TestMail } from "../harness.ts";
import { addDomain, sendInbound } from "./fixture.ts";

let mail: TestMail;
beforeAll(async () => {
  mail = await startTestMailOnPostgres();
}, 120_000);
afterAll(async () => {
  await mail?.close();
});

test("an 8-bit message is stored in PostgreSQL and served byte for byte; filters and paging work there", async () => {
  const tenant = await mail.tenant();
  await addDomain(mail, tenant.key, "pg-example.com", { receiving: true });
  const raw = Buffer.concat([
    Buffer.from("From: Zoë <zoe@sender-example.org>\r\nTo: in@pg-example.com\r\nSubject: 8bit\r\nContent-Type: text/plain; charset=iso-8859-1\r\nContent-Transfer-Encoding: 8bit\r\n\r\n", "utf8"),
    Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x20, 0xff, 0x80, 0x0d, 0x0a]),
  ]);
  await sendInbound(mail, { envelope: { from: "zoe@sender-example.org", to: ["in@pg-example.com"] }, raw });
  const listed = await mail.call("GET", `/v1/inbound?${new URLSearchParams({ to: "IN@pg-example.com", from: "zoe@sender-example.org", after: "2000-01-01T00:00:00Z", limit: "1" })}`, { key: tenant.key });
  expect(listed.body.data.map((message: { subject: string; from: string }) => [message.subject, message.from])).toEqual([["8bit", '"Zoë" <zoe@sender-example.org>']]);
  const id = listed.body.data[0].email_id as string;
  // Decoded as windows-1252, as mail clients do for iso-8859-1.
  expect((await mail.call("GET", `/v1/inbound/${id}`, { key: tenant.key })).body.text).toBe("café ÿ€\n");
  const answer = await fetch(`${mail.url}/v1/inbound/${id}/raw`, { headers: { authorization: `Bearer ${tenant.key}` } });
  expect(Buffer.from(await answer.arrayBuffer()).equals(raw)).toBe(true);
  expect((await mail.call("GET", `/v1/inbound?${new URLSearchParams({ before: "2000-01-01T00:00:00Z" })}`, { key: tenant.key })).body).toEqual({ data: [], next_cursor: null });
});
