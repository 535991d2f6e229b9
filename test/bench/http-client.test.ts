// The load drivers' HTTP client (bench/http-client.ts) resolves each request with its answer's
// status (and, asked for, its body) only once the whole answer is read: bodies framed by
// Content-Length (split across many reads) or chunked, over fewer connections than requests,
// and 0 when the server cannot be reached.
import { afterAll, expect, test } from "bun:test";
import { HttpPool, postRequestBytes } from "../../bench/http-client.ts";

const large = "x".repeat(300_000);
const received: string[] = [];
const server = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  async fetch(request) {
    const body = await request.text();
    received.push(body);
    const path = new URL(request.url).pathname;
    if (path === "/large") return new Response(large);
    if (path === "/missing") return new Response("no", { status: 404 });
    if (path === "/chunked") {
      const stream = new ReadableStream({
        async start(controller) {
          for (const part of ["first ", "second ", "third"]) {
            controller.enqueue(new TextEncoder().encode(part));
            // Not waiting for anything: a pause between parts makes them separate chunks on the wire.
            await Bun.sleep(1);
          }
          controller.close();
        },
      });
      return new Response(stream, { headers: { "Transfer-Encoding": "chunked" } });
    }
    return new Response(`echo ${body}`);
  },
});
const base = `http://127.0.0.1:${server.port}`;
const request = (path: string, body: string) => postRequestBytes(new URL(`${base}${path}`), { "Content-Type": "application/json" }, body);

afterAll(() => server.stop(true));

test("answers framed by Content-Length, large or small, and chunked ones resolve with their status; bodies arrive whole", async () => {
  const pool = new HttpPool("127.0.0.1", server.port!, 4);
  const paths = ["/large", "/echo", "/missing", "/chunked", "/large", "/echo", "/chunked", "/missing", "/echo", "/large"];
  received.length = 0;
  const statuses = await Promise.all(paths.map((path, index) => pool.send(request(path, `{"n":${index}}`))));
  pool.close();
  expect(statuses).toEqual([200, 200, 404, 200, 200, 200, 200, 404, 200, 200]);
  expect(received.sort()).toEqual(paths.map((_, index) => `{"n":${index}}`).sort());
});

test("exchange() gives the body too, whole and decoded, whatever its framing; bodies of bytes are sent as they are", async () => {
  const pool = new HttpPool("127.0.0.1", server.port!, 2);
  const answers = await Promise.all([
    pool.exchange(request("/large", "{}")),
    pool.exchange(request("/chunked", "{}")),
    pool.exchange(request("/missing", "{}")),
    pool.exchange(postRequestBytes(new URL(`${base}/echo`), {}, new TextEncoder().encode("{\"ünï\":1}"))),
  ]);
  pool.close();
  expect(answers).toEqual([
    { status: 200, body: large },
    { status: 200, body: "first second third" },
    { status: 404, body: "no" },
    { status: 200, body: 'echo {"ünï":1}' },
  ]);
});

test("a connection keeps serving requests one after another", async () => {
  const pool = new HttpPool("127.0.0.1", server.port!, 1);
  const statuses: number[] = [];
  for (let index = 0; index < 20; index++) statuses.push(await pool.send(request(index % 2 === 0 ? "/large" : "/chunked", "{}")));
  pool.close();
  expect(statuses).toEqual(Array.from({ length: 20 }, () => 200));
});

test("a server that cannot be reached answers 0", async () => {
  const closed = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("") });
  const port = closed.port!;
  await closed.stop(true);
  const pool = new HttpPool("127.0.0.1", port, 2);
  expect(await Promise.all([pool.send(request("/", "{}")), pool.send(request("/", "{}"))])).toEqual([0, 0]);
  pool.close();
});
