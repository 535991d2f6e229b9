// Stored templates on PostgreSQL (MAIL_DATABASE_URL): the statements that differ most between
// the two stores (an INSERT … SELECT bounded by a count, ON CONFLICT on a partial unique index,
// an update that applies only to the revision it read) answer as on SQLite.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTestMailOnPostgres, type TestMail } from "./harness.ts";

let mail: TestMail;
beforeAll(async () => {
  mail = await startTestMailOnPostgres();
}, 120_000);
afterAll(async () => {
  await mail?.close();
});

test("templates are created, refused when taken, paged, changed concurrently, deleted and created again on PostgreSQL", async () => {
  const tenant = await mail.tenant();
  const create = (id: string, text: string) => mail.call("POST", "/v1/templates", { key: tenant.key, body: { id, subject: "Hi {{name}}", text } });
  const html = `<script>alert("{{name}}")</script>\r\n${"é".repeat(1000)} ' OR 1=1 --`;
  expect((await create("b", "one")).status).toBe(201);
  expect((await create("a", "two")).status).toBe(201);
  expect((await create("b", "again")).body).toEqual({ error: { code: "conflict", message: "b is already one of your templates" } });
  const page = await mail.call("GET", "/v1/templates?limit=1", { key: tenant.key });
  expect([page.body.data.map((template: { id: string }) => template.id), page.body.next_cursor]).toEqual([["a"], "a"]);
  expect((await mail.call("GET", "/v1/templates?cursor=a", { key: tenant.key })).body.data.map((template: { id: string }) => template.id)).toEqual(["b"]);

  const changes = [{ subject: "s1" }, { html: "<p>h1</p>" }, { name: "n1" }];
  await Promise.all(changes.map((body) => mail.call("PATCH", "/v1/templates/b", { key: tenant.key, body })));
  expect((await mail.call("GET", "/v1/templates/b", { key: tenant.key })).body).toMatchObject({ name: "n1", subject: "s1", html: "<p>h1</p>", text: "one" });

  expect((await mail.call("DELETE", "/v1/templates/b", { key: tenant.key })).body).toEqual({ id: "b", deleted: true });
  expect(await mail.mail.ctx.templates.find(tenant.id, "b")).toBeNull();
  expect((await create("b", "three")).status).toBe(201);
  expect(await mail.mail.ctx.templates.find(tenant.id, "b")).toEqual({ subject: "Hi {{name}}", html: null, text: "three" });
  const hostile = await mail.call("POST", "/v1/templates", { key: tenant.key, body: { id: "a/b?'", html } });
  expect([hostile.status, hostile.body.html, hostile.body.variables]).toEqual([201, html, ["name"]]);
  expect((await mail.call("GET", `/v1/templates/${encodeURIComponent("a/b?'")}`, { key: tenant.key })).body).toEqual(hostile.body);
});
