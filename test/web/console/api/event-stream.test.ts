// The console's Server-Sent Events parser, fed the way a network delivers a stream: in pieces
// cut anywhere, line ends of every kind, comments, id-only blocks and multi-line data.
import { expect, test } from "bun:test";
import { EventStreamParser, readEventStream, type ServerSentEvent } from "../../../../web/console/api/event-stream.ts";

const stream = [
  "retry: 3000\n\n",
  ": heartbeat\n",
  "id: a-1\nevent: backlog\ndata: {\"event\":\"first\"}\n\n",
  "id: a-2\n\n",
  "event: event\r\nid: a-3\r\ndata: line one\r\ndata:line two\r\n\r\n",
  "data: no type\rid: a-4\r\r",
  "event: end\ndata: {\"reason\":\"token_expired\"}\n\n",
].join("");

const expected: ServerSentEvent[] = [
  { event: "backlog", data: '{"event":"first"}', lastEventId: "a-1" },
  { event: "event", data: "line one\nline two", lastEventId: "a-3" },
  { event: "message", data: "no type", lastEventId: "a-4" },
  { event: "end", data: '{"reason":"token_expired"}', lastEventId: "a-4" },
];

test("the same events come out whether the stream arrives whole, a character at a time or in uneven pieces", () => {
  for (const size of [stream.length, 1, 2, 7, 13]) {
    const parser = new EventStreamParser();
    const events: ServerSentEvent[] = [];
    for (let start = 0; start < stream.length; start += size) events.push(...parser.push(stream.slice(start, start + size)));
    expect({ size, events, lastEventId: parser.lastEventId }).toEqual({ size, events: expected, lastEventId: "a-4" });
  }
});

test("an id-only block moves the last event id without dispatching anything", () => {
  const parser = new EventStreamParser();
  expect(parser.push("id: a-1\ndata: x\n\nid: a-9\n\n")).toEqual([{ event: "message", data: "x", lastEventId: "a-1" }]);
  expect(parser.lastEventId).toBe("a-9");
});

test("readEventStream decodes UTF-8 split across chunks and keeps the last id in the parser it is given", async () => {
  const bytes = new TextEncoder().encode('id: e-1\ndata: {"event":"café ☕"}\n\nid: e-2\n\n');
  const cut = bytes.indexOf(0xe2) + 1;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(bytes.slice(0, cut));
      controller.enqueue(bytes.slice(cut));
      controller.close();
    },
  });
  const parser = new EventStreamParser();
  const events: ServerSentEvent[] = [];
  for await (const event of readEventStream(body, parser)) events.push(event);
  expect([events, parser.lastEventId]).toEqual([[{ event: "message", data: '{"event":"café ☕"}', lastEventId: "e-1" }], "e-2"]);
});
