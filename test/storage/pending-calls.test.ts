import { expect, test } from "bun:test";
import { PendingCalls } from "../../storage/pending-calls.ts";

test("each reply settles the call of its id, with its value or its error; a reply of no call under way is ignored", async () => {
  const pending = new PendingCalls();
  const sent: number[] = [];
  const first = pending.start<string>((id) => sent.push(id));
  const second = pending.start<string>((id) => sent.push(id));
  expect(sent).toEqual([1, 2]);
  pending.settle(2, "no such partition", undefined);
  pending.settle(1, null, "sealed");
  pending.settle(1, "a second reply to the same call", undefined);
  pending.settle(99, null, "no one asked");
  expect(await first).toBe("sealed");
  await expect(second).rejects.toThrow(new Error("no such partition"));
});

test("failAll fails every call under way with the reason, and later calls start afresh", async () => {
  const pending = new PendingCalls();
  const calls = [pending.start(() => {}), pending.start(() => {})];
  pending.failAll("storage worker failed: it exited");
  for (const call of calls) await expect(call).rejects.toThrow(new Error("storage worker failed: it exited"));
  let id = 0;
  const later = pending.start<number>((given) => (id = given));
  pending.settle(id, null, 7);
  expect([id, await later]).toEqual([3, 7]);
});
